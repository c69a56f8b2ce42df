"""The ticket's queries: every page a support desk reads, raw, each sent once.

Reading the TapeAlert log page (2Eh) clears its flags, so nothing may be asked twice: a cache in
front of the transport (``OnceTransport``) answers a repeated identical query from the first answer,
and decoding the pages afterwards (``app.info.gather``) reads from it. Every query here is read-only
(``app.drive.state_changing`` names none of them; the drive is opened ``read_only`` so one that did
would be refused before it was sent).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.drive import NOT_SUPPORTED, TapeDrive, is_not_supported
from app.info import DriveInfo
from native.errors import CheckCondition
from native.scsi import cdb as C
from native.scsi.encryption import PAGE_CAPABILITIES, PAGE_NEXT_BLOCK, PAGE_STATUS
from native.transport import DEFAULT_TIMEOUT, GOOD, Buffer, CommandResult, TransferLimit, Transport, WritableBuffer, make_data_in

#: Queries whose answers may be replayed: they change nothing, so a second identical one would
#: only repeat the first answer (or, for TapeAlert 2Eh, lose it). TEST UNIT READY and REQUEST
#: SENSE are not here: their answer is the drive's state at that moment.
_REPLAYABLE = frozenset({0x12, 0x1A, 0x5A, 0x4D, 0x8C, 0x44, 0x05, 0xA2, 0x3C, 0x34, 0xA3})

#: MODE SENSE's page control values, each saved as its own file (SPC-4 "PC field"): what the drive uses now,
#: which bits a MODE SELECT may change, its power-on defaults, and what it saved (many drives save none).
MODE_VARIANTS = ((C.PageControl.CURRENT, "all_pages", "current values"),
                 (C.PageControl.CHANGEABLE, "all_pages_changeable", "changeable values (a mask)"),
                 (C.PageControl.DEFAULT, "all_pages_default", "default values"),
                 (C.PageControl.SAVED, "all_pages_saved", "saved values"))

ENCRYPTION_PAGES = ((PAGE_CAPABILITIES, "capabilities"), (PAGE_STATUS, "status, key in use"),
                    (PAGE_NEXT_BLOCK, "next block status, its key"))


class OnceTransport(Transport):
    """Sends each distinct query once; a repeat is answered from the first GOOD answer."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.device = inner.device
        self._answers: dict[bytes, bytes] = {}

    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        key = bytes(cdb)
        if key in self._answers:
            buf = make_data_in(data_in)
            data = self._answers[key]
            n = min(len(data), len(buf))
            buf[:n] = data[:n]
            return CommandResult(GOOD, b"", buf[:n], n)
        result = self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)
        if result.status == GOOD and key[:1] and key[0] in _REPLAYABLE and len(result.data) <= 0x10000:
            self._answers[key] = bytes(result.data)  # pages, not buffers: a dump's pieces are read once anyway
        return result

    def transfer_limit(self) -> TransferLimit | None:
        return self.inner.transfer_limit()

    def close(self) -> None:
        self.inner.close()


@dataclass
class Capture:
    """One query's raw answer (or why there is none)."""

    name: str  # path inside the zip, without extension: "log/page_14h"
    command: str  # what was sent, in words
    data: bytes | None = None
    error: str | None = None
    binary: bool = False  # a buffer kept as the drive sent it (``.bin``), not a page in --inhex form (``.hex``)

    @property
    def file(self) -> str | None:
        """The file's name in the zip, None when nothing was captured."""
        return None if self.data is None else f"{self.name}.{'bin' if self.binary else 'hex'}"


@dataclass(frozen=True)
class DriveId:
    """Who the ticket is about, from INQUIRY and VPD 80h (read before anything is decoded)."""

    vendor: str = ""
    product: str = ""
    firmware: str = ""
    serial: str | None = None

    @property
    def line(self) -> str:
        return (f"{self.vendor} {self.product}, serial {self.serial or 'not reported'}, "
                f"firmware {self.firmware or 'not reported'}")


@dataclass
class Ticket:
    """What was captured; ``path`` is the zip once written."""

    device: str
    created: str
    drive: DriveId = DriveId()
    captures: list[Capture] = field(default_factory=list)
    info: DriveInfo | None = None
    info_error: str | None = None
    host: dict[str, str] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    runs_note: str = ""  # how the runs were chosen (by the drive's serial) or why there are none
    path: Path | None = None

    @property
    def captured(self) -> int:
        return sum(1 for c in self.captures if c.data is not None)


def query(drive: TapeDrive, ticket: Ticket, name: str, command: str, cdb: bytes, alloc: int, *,
          timeout: float = DEFAULT_TIMEOUT, binary: bool = False) -> bytes | None:
    """Send one query; its answer, or None with the drive's refusal recorded in words."""
    try:
        data = drive.query_raw(cdb, alloc, timeout)
    except CheckCondition as err:
        words = f"{NOT_SUPPORTED} ({err})" if is_not_supported(err) else f"the drive answered with an error: {err}"
        ticket.captures.append(Capture(name, command, error=words, binary=binary))
        return None
    ticket.captures.append(Capture(name, command, data=data, binary=binary))
    return data


def _listed(data: bytes | None, width: int = 1) -> list[int]:
    """The codes a "supported pages" answer lists after its 4-byte header."""
    if not data or len(data) < 4:
        return []
    body = data[4 : 4 + int.from_bytes(data[2:4], "big")]
    return sorted({int.from_bytes(body[i : i + width], "big") for i in range(0, len(body) - width + 1, width)})


def capture(drive: TapeDrive, ticket: Ticket) -> None:
    """Every page a support desk reads, raw, once. Transport failures propagate (no drive, no ticket)."""
    query(drive, ticket, "inquiry", "INQUIRY (standard)", C.inquiry(96), 96)
    vpd = query(drive, ticket, "vpd/page_00h", "INQUIRY VPD 00h (supported pages)",
                C.inquiry(0xFFFC, evpd=True, page=0), 0xFFFC)
    for page in _listed(vpd) if vpd else [0x80, 0x83]:
        if page:
            query(drive, ticket, f"vpd/page_{page:02x}h", f"INQUIRY VPD {page:02X}h",
                  C.inquiry(0xFFFC, evpd=True, page=page), 0xFFFC)
    _capture_logs(drive, ticket)
    for pc, name, words in MODE_VARIANTS:
        query(drive, ticket, f"mode/{name}", f"MODE SENSE(10) all pages ({words})",
              C.mode_sense10(0x3F, pc=pc, alloc=0xFFF0), 0xFFF0)
    query(drive, ticket, "read_block_limits", "READ BLOCK LIMITS", C.read_block_limits(), 6)
    query(drive, ticket, "density/media", "REPORT DENSITY SUPPORT (loaded medium)",
          C.report_density_support(media=True), 8192)
    query(drive, ticket, "density/drive", "REPORT DENSITY SUPPORT (drive)", C.report_density_support(), 8192)
    query(drive, ticket, "mam/attributes", "READ ATTRIBUTE (values, partition 0)",
          C.read_attribute(C.AttributeAction.VALUES, alloc=0xFFFC), 0xFFFC)
    for page, words in ENCRYPTION_PAGES:
        query(drive, ticket, f"encryption/page_{page:04x}h", f"SECURITY PROTOCOL IN 20h/{page:04X}h ({words})",
              C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, page, alloc=0x2000), 0x2000)
    query(drive, ticket, "error_history/directory", "READ BUFFER mode 1Ch buffer 00h (error history directory)",
          C.read_buffer(C.BufferMode.ERROR_HISTORY, 0x00, alloc=0x2000), 0x2000)
    _capture_opcodes(drive, ticket)
    query(drive, ticket, "request_sense", "REQUEST SENSE", C.request_sense(252), 252)


def _capture_logs(drive: TapeDrive, ticket: Ticket) -> None:
    """Every log page the drive lists; TapeAlert from 12h where the drive has it (reading 2Eh clears the flags)."""
    listed = _listed(query(drive, ticket, "log/page_00h", "LOG SENSE 00h (supported pages)", C.log_sense(0x00), 0xFFFC))
    for page in listed:
        if page == 0x2E and 0x12 in listed:
            ticket.captures.append(Capture("log/page_2eh", "LOG SENSE 2Eh (TapeAlert)",
                                           error="not read: page 12h holds the same flags without clearing them"))
            continue
        if page:
            query(drive, ticket, f"log/page_{page:02x}h", f"LOG SENSE {page:02X}h", C.log_sense(page), 0xFFFC)


def _capture_opcodes(drive: TapeDrive, ticket: Ticket) -> None:
    """REPORT SUPPORTED OPERATION CODES with the command timeouts, raw: the drive object asked it already
    (same CDB, answered from the cache), and support reads the timeouts a drive recommends from these bytes.
    Asked once more with the allocation the answer says it needs when the list did not fit."""
    alloc = 0x2000
    data = query(drive, ticket, "opcodes/all", "REPORT SUPPORTED OPERATION CODES (all, with timeouts)",
                 C.report_supported_opcodes(alloc=alloc), alloc)
    needed = 4 + int.from_bytes(data[:4], "big") if data and len(data) >= 4 else 0
    if needed > alloc:
        ticket.captures.pop()
        big = min(needed, 0x10000)
        query(drive, ticket, "opcodes/all", "REPORT SUPPORTED OPERATION CODES (all, with timeouts)",
              C.report_supported_opcodes(alloc=big), big)

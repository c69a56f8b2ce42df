"""A support ticket: everything a vendor's support desk asks for, captured read-only.

HPE and IBM support ask for the drive's pages *before* anyone cleans, updates firmware or
writes: a clean or a test changes the counters, and reading the TapeAlert log page (2Eh)
clears its flags. So the ticket

* opens the drive read-only (``TapeDrive.read_only``: nothing that writes or changes state
  can be sent) and never moves the tape;
* sends every query once: a cache in front of the transport answers a repeated identical
  query from the first answer, so decoding the pages (``app.info.gather``) after the raw
  capture cannot read TapeAlert 2Eh a second time (its flags would read clear);
* stores each answer raw in sg3_utils' ``--inhex`` format (``sg_logs --inhex``,
  ``sg_inq --inhex``, ``sg_decode_sense`` read it), decoded beside it, with a summary a
  person reads first, the host's facts and the drive's recent runs from the history.

The zip is written beside its final name and renamed over it only when complete, as the
reports are: a full disk never leaves half a ticket nor costs an older one.
"""
from __future__ import annotations

import datetime
import io
import json
import os
import platform
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import app
from app.drive import NOT_SUPPORTED, TapeDrive, is_not_supported
from app.info import DriveInfo, gather
from app.output import check_target, replacing
from native.scsi import cdb as C
from native.errors import CheckCondition, InvalidParameter, TapediagError, TransportError
from native.transport import DEFAULT_TIMEOUT, GOOD, Buffer, CommandResult, TransferLimit, Transport, WritableBuffer, make_data_in

#: Queries whose answers may be replayed: they change nothing, so a second identical one would
#: only repeat the first answer (or, for TapeAlert 2Eh, lose it). TEST UNIT READY and REQUEST
#: SENSE are not here: their answer is the drive's state at that moment.
_REPLAYABLE = frozenset({0x12, 0x1A, 0x5A, 0x4D, 0x8C, 0x44, 0x05, 0xA2, 0x3C, 0x34, 0xA3})

READ_BUFFER = 0x3C
ERROR_HISTORY_MODE = 0x1C  # SPC-4 READ BUFFER mode 1Ch: the drive's error history (buffer 00h: directory)


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
        if result.status == GOOD and key[:1] and key[0] in _REPLAYABLE:
            self._answers[key] = bytes(result.data)
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


@dataclass
class Ticket:
    """What was captured; ``path`` is the zip once written."""

    device: str
    created: str
    captures: list[Capture] = field(default_factory=list)
    info: DriveInfo | None = None
    info_error: str | None = None
    host: dict[str, str] = field(default_factory=dict)
    runs: list[dict[str, Any]] = field(default_factory=list)
    path: Path | None = None

    @property
    def captured(self) -> int:
        return sum(1 for c in self.captures if c.data is not None)


def inhex(data: bytes, title: str) -> str:
    """Bytes as sg3_utils reads them with ``--inhex``: '#' comment lines, then 16 hex pairs a line."""
    lines = [f"# {title}"]
    lines += [" ".join(f"{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return "\n".join(lines) + "\n"


def _query(drive: TapeDrive, ticket: Ticket, name: str, command: str, cdb: bytes, alloc: int) -> bytes | None:
    try:
        data = drive.query_raw(cdb, alloc)
    except CheckCondition as err:
        words = f"{NOT_SUPPORTED} ({err})" if is_not_supported(err) else f"the drive answered with an error: {err}"
        ticket.captures.append(Capture(name, command, error=words))
        return None
    ticket.captures.append(Capture(name, command, data=data))
    return data


def capture(drive: TapeDrive, ticket: Ticket) -> None:
    """Every query a support desk reads, raw, once. Transport failures propagate (no drive, no ticket)."""
    _query(drive, ticket, "inquiry", "INQUIRY (standard)", C.inquiry(96), 96)
    vpd = _query(drive, ticket, "vpd/page_00h", "INQUIRY VPD 00h (supported pages)",
                 C.inquiry(0xFFFC, evpd=True, page=0), 0xFFFC)
    pages = sorted(set(vpd[4:4 + int.from_bytes(vpd[2:4], "big")])) if vpd and len(vpd) >= 4 else [0x80, 0x83]
    for page in pages:
        if page:
            _query(drive, ticket, f"vpd/page_{page:02x}h", f"INQUIRY VPD {page:02X}h",
                   C.inquiry(0xFFFC, evpd=True, page=page), 0xFFFC)
    logs = _query(drive, ticket, "log/page_00h", "LOG SENSE 00h (supported pages)", C.log_sense(0x00), 0xFFFC)
    listed = sorted(set(logs[4:4 + int.from_bytes(logs[2:4], "big")])) if logs and len(logs) >= 4 else []
    for page in listed:
        if page == 0x2E and 0x12 in listed:
            ticket.captures.append(Capture("log/page_2eh", "LOG SENSE 2Eh (TapeAlert)",
                                           error="not read: page 12h holds the same flags without clearing them"))
            continue
        if page:
            _query(drive, ticket, f"log/page_{page:02x}h", f"LOG SENSE {page:02X}h", C.log_sense(page), 0xFFFC)
    _query(drive, ticket, "mode/all_pages", "MODE SENSE(10) all pages (current values)",
           C.mode_sense10(0x3F, alloc=0xFFF0), 0xFFF0)
    _query(drive, ticket, "read_block_limits", "READ BLOCK LIMITS", C.read_block_limits(), 6)
    _query(drive, ticket, "density/media", "REPORT DENSITY SUPPORT (loaded medium)",
           C.report_density_support(media=True), 8192)
    _query(drive, ticket, "density/drive", "REPORT DENSITY SUPPORT (drive)", C.report_density_support(), 8192)
    _query(drive, ticket, "mam/attributes", "READ ATTRIBUTE (values, partition 0)",
           C.read_attribute(C.AttributeAction.VALUES, alloc=0xFFFC), 0xFFFC)
    _query(drive, ticket, "encryption/page_0010h", "SECURITY PROTOCOL IN 20h/0010h (capabilities)",
           C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, 0x0010, alloc=0x2000), 0x2000)
    _query(drive, ticket, "encryption/page_0020h", "SECURITY PROTOCOL IN 20h/0020h (status)",
           C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, 0x0020, alloc=0x2000), 0x2000)
    _query(drive, ticket, "error_history/directory", "READ BUFFER mode 1Ch buffer 00h (error history directory)",
           bytes([READ_BUFFER, ERROR_HISTORY_MODE, 0x00, 0, 0, 0, 0x00, 0x20, 0x00, 0]), 0x2000)
    _capture_opcodes(drive, ticket)
    _query(drive, ticket, "request_sense", "REQUEST SENSE", C.request_sense(252), 252)


def _capture_opcodes(drive: TapeDrive, ticket: Ticket) -> None:
    """REPORT SUPPORTED OPERATION CODES with the command timeouts, raw: the drive object asked it already
    (same CDB, answered from the cache), and support reads the timeouts a drive recommends from these bytes.
    Asked once more with the allocation the answer says it needs when the list did not fit."""
    alloc = 0x2000
    data = _query(drive, ticket, "opcodes/all", "REPORT SUPPORTED OPERATION CODES (all, with timeouts)",
                  C.report_supported_opcodes(alloc=alloc), alloc)
    needed = 4 + int.from_bytes(data[:4], "big") if data and len(data) >= 4 else 0
    if needed > alloc:
        ticket.captures.pop()
        big = min(needed, 0x10000)
        _query(drive, ticket, "opcodes/all", "REPORT SUPPORTED OPERATION CODES (all, with timeouts)",
               C.report_supported_opcodes(alloc=big), big)


def host_facts(device: str) -> dict[str, str]:
    """The OS, kernel and tapediag facts support asks next, and the node's driver where Linux says."""
    facts = {"tapediag": app.__version__, "python": platform.python_version(), "system": platform.system(),
             "release": platform.release(), "version": platform.version(), "machine": platform.machine()}
    node = Path(device).name if device.startswith("/dev/") else ""
    for key, path in (("st_driver", "/sys/module/st/version"), ("sg_driver", "/proc/scsi/sg/version"),
                      ("node_driver", f"/sys/class/scsi_generic/{node}/device/driver" if node.startswith("sg") else ""),
                      ("max_sectors_kb", f"/sys/class/scsi_generic/{node}/device/block/queue/max_sectors_kb"
                       if node.startswith("sg") else "")):
        if not path:
            continue
        try:
            p = Path(path)
            facts[key] = os.readlink(p) if p.is_symlink() else p.read_text(errors="replace").strip()
        except OSError:
            continue
    return facts


def recent_runs(device: str, limit: int = 20) -> list[dict[str, Any]]:
    """The drive's last runs from the history, without samples (None when there is no history)."""
    from app.history import History

    try:
        with History.open() as hist:
            return [run.to_dict(samples=False) for run in hist.list_runs(device=device, limit=limit)]
    except TapediagError:
        return []


def collect(device: str) -> Ticket:
    """Open ``device`` and capture its ticket (``collect_from``)."""
    from app.targets import open_device

    return collect_from(open_device(device), device)


def collect_from(transport: Transport, device: str) -> Ticket:
    """Capture everything read-only behind the once-only cache, then decode it; closes ``transport``."""
    ticket = Ticket(device="", created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    with TapeDrive(OnceTransport(transport), device=device, read_only=True) as drive:
        ticket.device = drive.device
        drive.require_tape()  # a ticket is for a tape drive; nothing else is asked of anything else
        capture(drive, ticket)
        try:
            ticket.info = gather(drive)  # decodes from the cached answers: TapeAlert 2Eh is not read twice
        except TransportError:
            raise
        except TapediagError as err:
            ticket.info_error = str(err)
    ticket.host = host_facts(device)
    ticket.runs = recent_runs(ticket.device)
    return ticket


def summary_text(ticket: Ticket) -> str:
    """The page a person reads first: what this is, the drive's decoded state, what is inside."""
    from app.info_view import render_text

    lines = [f"tapediag support ticket for {ticket.device}", f"created {ticket.created} by tapediag {app.__version__}",
             "Captured read-only: nothing was written to the drive and the tape was not moved.", ""]
    if ticket.info is not None:
        lines += [render_text(ticket.info).rstrip(), ""]
    elif ticket.info_error:
        lines += [f"decoding failed: {ticket.info_error}", ""]
    lines.append(f"Raw answers ({ticket.captured} of {len(ticket.captures)} queries answered), "
                 "in sg3_utils --inhex format (e.g. sg_logs --inhex log/page_14h.hex):")
    for cap in ticket.captures:
        state = f"{len(cap.data)} bytes" if cap.data is not None else cap.error
        lines.append(f"  {cap.name + ('.hex' if cap.data is not None else ''):<34} {cap.command}: {state}")
    lines += ["", "Host:"] + [f"  {k}: {v}" for k, v in ticket.host.items()]
    lines += ["", f"Recent runs of this drive in the history: {len(ticket.runs)} (runs.json)"]
    return "\n".join(lines) + "\n"


def _zip_bytes(ticket: Ticket) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("SUMMARY.txt", summary_text(ticket))
        for cap in ticket.captures:
            if cap.data is not None:
                zf.writestr(f"{cap.name}.hex", inhex(cap.data, f"{cap.command} from {ticket.device}"))
        zf.writestr("captures.json", json.dumps([{"file": f"{c.name}.hex" if c.data is not None else None,
                                                  "command": c.command, "bytes": len(c.data) if c.data else 0,
                                                  "error": c.error} for c in ticket.captures], indent=2))
        if ticket.info is not None:
            zf.writestr("decoded/info.json", json.dumps(ticket.info.to_dict(), indent=2, default=str))
        zf.writestr("host.json", json.dumps(ticket.host, indent=2))
        zf.writestr("runs.json", json.dumps(ticket.runs, indent=2, default=str))
    return buf.getvalue()


def check_output(path: Path) -> None:
    """Refuse an output path that cannot take the zip before the drive is even opened (exit 2): anything
    but a regular file or nothing (``app.output``)."""
    if path.is_dir() and not path.is_symlink():
        raise InvalidParameter(f"{path} is a directory: give a file name such as ticket.zip")
    check_target(path, "the ticket")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidParameter(f"cannot write the ticket to {path}: the directory {parent} does not exist")


def write(ticket: Ticket, path: Path) -> Path:
    """Write the zip beside ``path`` and rename it over ``path`` once complete and checked."""
    check_output(path)
    data = _zip_bytes(ticket)
    with replacing(path, "the ticket") as out:
        out.stream.write(data)
        out.stream.flush()
        out.stream.seek(0)
        try:
            with zipfile.ZipFile(out.stream) as check:
                bad = check.testzip()
        except (OSError, zipfile.BadZipFile) as err:
            raise TapediagError(f"cannot write the ticket to {path}: the written zip does not read back ({err}); "
                                "nothing was replaced") from err
        if bad is not None:
            raise TapediagError(f"cannot write the ticket to {path}: {bad} does not read back; nothing was replaced")
    ticket.path = path
    return path

"""The drive's own diagnostic buffers, read-only: every error history buffer it lists, and a vendor dump
where the vendor documents how to read one without changing anything.

Error history (SPC-4 READ BUFFER mode 1Ch): the directory (buffer 00h, read by ``capture``) lists the
data buffers, 10h-EFh, each with its maximum available length; each is read with the same mode and its
own ID, piece by piece from increasing buffer offsets. The IDs that snapshot or clear (01h-03h, FEh,
FFh) are never sent (``native.scsi.buffers``, ``app.drive.state_changing``).

Vendor dumps:

* IBM LTO (INQUIRY vendor "IBM", product "ULT3580-..." / "ULTRIUM-..."): the drive keeps its last dump
  (taken by the drive itself at a fault) in buffer 01h. Its size is the READ BUFFER descriptor's
  capacity (mode 03h: 4 bytes, bytes 1-3 the capacity; IBM Ultrium Internal Tape Drive SCSI Reference
  WB1109-02, READ BUFFER, Tables 63-64 "READ BUFFER Command" / "READ BUFFER Descriptor"), and it is read
  with mode 02h (data) from offsets, in pieces (IBM's own LTFS reads an IBM LTO drive's dump exactly so:
  src/tape_drivers/linux/sg/sg_tape.c ``_get_dump``, buffer 01h, 00h on the enterprise TS11x0 drives,
  512 KiB pieces). A *forced* dump (a new one taken now) needs SEND DIAGNOSTIC (LTFS ``_cdb_force_dump``:
  diagnostic page 80h, ID 0160h): that changes the drive's state, so the ticket does not take one.
* HPE, Quantum and the others: no public document says how to read their dump (HPE L&TT and Quantum's
  tools use vendor-specific commands), so none is read and the summary says so.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.drive import TapeDrive
from app.ticket.capture import Capture, Ticket, query
from native.errors import ParseError
from native.scsi import cdb as C
from native.scsi.buffers import BufferDescriptor, ErrorHistoryDirectory
from native.scsi.opcodes import SupportedCommands
from native.transport import DEFAULT_TIMEOUT

#: One READ BUFFER's transfer: LTFS reads dumps in 512 KiB pieces; smaller still when the path says so.
PIECE_BYTES = 512 * 1024
#: The most the ticket keeps of one buffer: a buffer larger than this is cut here, and the summary says so.
MAX_BUFFER_BYTES = 64 << 20

IBM_DUMP_BUFFER = 0x01
IBM_LTO_PRODUCTS = ("ULT3580", "ULTRIUM")


@dataclass(frozen=True)
class DumpRule:
    """How one vendor's dump is read, or why it is not."""

    buffer_id: int | None  # None: not read
    why: str


def dump_rule(vendor: str, product: str) -> DumpRule:
    """The one place that says whose dump tapediag reads."""
    name, model = vendor.strip().upper(), product.strip().upper()
    if name == "IBM" and model.startswith(IBM_LTO_PRODUCTS):
        return DumpRule(IBM_DUMP_BUFFER, "IBM LTO: READ BUFFER buffer 01h, size from its descriptor (mode 03h), read "
                                         "with mode 02h (IBM Ultrium SCSI Reference WB1109-02, READ BUFFER; IBM LTFS "
                                         "sg_tape.c _get_dump); the drive's last dump, no new one forced")
    if name == "IBM":
        return DumpRule(None, f"not read: {product.strip()} is not an IBM LTO drive (the enterprise drives keep it "
                              "elsewhere); tapediag reads IBM LTO dumps only")
    if name in ("HP", "HPE"):
        return DumpRule(None, "not read: HPE publishes no read-only way to read the drive's dump (HPE L&TT takes it "
                              "with its own vendor-specific commands); take one with L&TT if HPE support asks")
    return DumpRule(None, f"not read: tapediag knows no published read-only way to read the dump of this "
                          f"{vendor.strip() or 'unnamed vendor'} drive; the vendor's own tool takes it")


def read_timeout(ticket: Ticket) -> float:
    """READ BUFFER's timeout: the drive's recommendation from the captured REPORT SUPPORTED OPERATION CODES,
    never below tapediag's default (a buffer of megabytes may take the drive a while to assemble)."""
    raw = next((c.data for c in ticket.captures if c.name == "opcodes/all" and c.data), None)
    try:
        found = SupportedCommands.parse(raw).find(C.READ_BUFFER) if raw else None
    except ParseError:
        found = None
    recommended = found.timeouts.recommended if found is not None and found.timeouts is not None else 0
    return max(float(recommended), DEFAULT_TIMEOUT)


def piece_bytes(drive: TapeDrive) -> int:
    limit = drive.transport.transfer_limit()
    return max(4096, min(PIECE_BYTES, limit.max_bytes if limit is not None else PIECE_BYTES))


class CdbFor:
    """The READ BUFFER CDB for (offset, length) of one buffer."""

    def __init__(self, mode: int, buffer_id: int) -> None:
        self.mode, self.buffer_id = mode, buffer_id

    def __call__(self, offset: int, length: int) -> bytes:
        return C.read_buffer(self.mode, self.buffer_id, offset=offset, alloc=length)


def read_pieces(drive: TapeDrive, ticket: Ticket, name: str, command: str, size: int,
                cdb_for: CdbFor) -> None:
    """Read ``size`` bytes of a buffer piece by piece into one capture; a refusal mid-way keeps what came."""
    piece, timeout, got, stop = piece_bytes(drive), read_timeout(ticket), bytearray(), ""
    want = min(size, MAX_BUFFER_BYTES)
    while len(got) < want:
        n = min(piece, want - len(got))
        part = query(drive, ticket, name, command, cdb_for(len(got), n), n, timeout=timeout, binary=True)
        done = ticket.captures.pop()
        if part is None and not got:
            ticket.captures.append(done)
            return
        if part is None:
            stop = f"; stopped at byte {len(got)} of {size}: {done.error}"
            break
        got += part
        if len(part) < n:
            stop = f"; the drive sent {len(got)} of the {size} bytes it listed"
            break
    cut = f"; cut at {MAX_BUFFER_BYTES >> 20} MiB of {size} bytes" if size > want else stop
    ticket.captures.append(Capture(name, f"{command}, {len(got)} bytes in pieces of {piece}{cut}",
                                   data=bytes(got), binary=True))


def capture_error_history(drive: TapeDrive, ticket: Ticket) -> None:
    """Every data buffer the captured directory lists (10h-EFh only), each whole."""
    raw = next((c.data for c in ticket.captures if c.name == "error_history/directory" and c.data), None)
    if raw is None:
        return
    try:
        directory = ErrorHistoryDirectory.parse(raw)
    except ParseError as err:
        ticket.captures.append(Capture("error_history/buffers", "the buffers the directory lists",
                                       error=f"not read: the directory does not decode ({err})"))
        return
    for entry in directory.entries:
        if entry.directory:
            continue  # the directory itself, captured already
        name = f"error_history/buffer_{entry.buffer_id:02x}h"
        command = f"READ BUFFER mode 1Ch buffer {entry.buffer_id:02X}h (error history data)"
        if not entry.readable:
            ticket.captures.append(Capture(name, command, binary=True, error=(
                "not read: the directory lists it, but reading this ID discards the drive's snapshot and takes a new "
                "one, or moves the error history to this I_T nexus")))
        elif entry.max_length == 0:
            ticket.captures.append(Capture(name, command, binary=True, error="not read: the directory says it is empty"))
        else:
            read_pieces(drive, ticket, name, command, entry.max_length,
                        CdbFor(C.BufferMode.ERROR_HISTORY, entry.buffer_id))


def capture_dump(drive: TapeDrive, ticket: Ticket, vendor: str, product: str) -> None:
    """The vendor dump where ``dump_rule`` says how; otherwise a capture that says why not."""
    rule = dump_rule(vendor, product)
    if rule.buffer_id is None:
        ticket.captures.append(Capture("dump/drive_dump", "vendor drive dump", error=rule.why, binary=True))
        return
    command = f"READ BUFFER mode 03h buffer {rule.buffer_id:02X}h (dump size)"
    raw = query(drive, ticket, "dump/descriptor", command,
                C.read_buffer(C.BufferMode.DESCRIPTOR, rule.buffer_id, alloc=4), 4)
    if raw is None:
        return
    try:
        size = BufferDescriptor.parse(raw).capacity
    except ParseError as err:
        ticket.captures.append(Capture("dump/drive_dump", "vendor drive dump", binary=True,
                                       error=f"not read: the descriptor does not decode ({err})"))
        return
    if size == 0:
        ticket.captures.append(Capture("dump/drive_dump", "vendor drive dump", binary=True,
                                       error="not read: the drive holds no dump (its descriptor says 0 bytes)"))
        return
    read_pieces(drive, ticket, "dump/drive_dump", f"READ BUFFER mode 02h buffer {rule.buffer_id:02X}h ({rule.why})",
                size, CdbFor(C.BufferMode.DATA, rule.buffer_id))

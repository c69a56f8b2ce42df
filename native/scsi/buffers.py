"""READ BUFFER answers a support ticket reads: the error history directory and the buffer descriptor.

Error history (SPC-4/SPC-5, READ BUFFER mode 1Ch): buffer ID 00h returns the *directory*, which lists
the buffer IDs the drive supports (00h first, then the error history data buffers 10h-EFh, each with
its format, source and maximum available length); a data buffer is read with the same mode and its
own ID, from a buffer offset. What each ID does besides reading (SPC-5 "Summary of error history
directory device server actions", as Seagate's SCSI Commands Reference Manual rev. J tables 109-114
reproduce it): 00h keeps an existing snapshot, and only where there is none does the drive establish
this I_T nexus as the error history's and take a snapshot (nothing is cleared); 01h and 03h always
discard the snapshot and take a new one; 02h and 03h move the error history to this I_T nexus; FEh
clears that nexus and FFh also releases the snapshot. tapediag reads 00h and 10h-EFh only
(``DATA_BUFFER_IDS``; ``app.drive.state_changing`` refuses the others).

Directory layout: bytes 0-7 T10 vendor identification, 8 version, 9 EHS_RETRIEVED (bits 4-3) /
EHS_SOURCE (bits 2-1) / CLR_SUP (bit 0), 30-31 directory length, then 8-byte entries: supported
buffer ID, buffer format, buffer source (bits 3-0), reserved, maximum available length; checked
against sg3_utils ``sg_read_buffer`` (src/sg_read_buffer.c, decode_error_history; read, not copied).

Buffer descriptor (READ BUFFER mode 03h): byte 0 the offset boundary, bytes 1-3 the buffer
capacity (SPC-4 "READ BUFFER descriptor"; IBM Ultrium SCSI Reference, READ BUFFER descriptor).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import ascii_field, need, uint

DIRECTORY_ID = 0x00
#: The buffer IDs that only return error history data (SPC-4): every other ID also changes something.
DATA_BUFFER_IDS = range(0x10, 0xF0)
DIRECTORY_HEADER = 32
ENTRY_LENGTH = 8

#: EHS_RETRIEVED (SPC-5): whether the error history I_T nexus has asked to clear this snapshot.
SNAPSHOT_RETRIEVED = {0: "no information on clearing", 1: "its I_T nexus asked to clear it (buffer FEh or FFh)",
                      2: "nobody asked to clear it", 3: "reserved"}
#: EHS_SOURCE (SPC-5): what made the current snapshot.
SNAPSHOT_SOURCE = {0: "taken by the drive itself", 1: "taken for this READ BUFFER command",
                   2: "taken for an earlier READ BUFFER command", 3: "reserved"}


@dataclass(frozen=True)
class ErrorHistoryEntry:
    """One buffer the directory lists."""

    buffer_id: int
    buffer_format: int  # 00h: vendor specific (SPC-4); other values reserved
    buffer_source: int  # 0: unknown / vendor specific; 1 device server; 2 I_T nexus; ...
    max_length: int  # maximum available length, bytes

    @property
    def readable(self) -> bool:
        """True for a data buffer (10h-EFh): 00h is the directory itself, 01h-03h are its forms that snapshot."""
        return self.buffer_id in DATA_BUFFER_IDS

    @property
    def directory(self) -> bool:
        return self.buffer_id == DIRECTORY_ID


@dataclass(frozen=True)
class ErrorHistoryDirectory:
    """READ BUFFER mode 1Ch, buffer 00h: the drive's list of error history buffers."""

    vendor: str
    version: int
    snapshot_retrieved: int  # EHS_RETRIEVED
    snapshot_source: int  # EHS_SOURCE
    clear_supported: bool  # CLR_SUP
    entries: tuple[ErrorHistoryEntry, ...]
    truncated: bool  # the directory length says more entries than the answer held

    @classmethod
    def parse(cls, data: bytes) -> ErrorHistoryDirectory:
        data = bytes(data)
        need(data, DIRECTORY_HEADER, "error history directory")
        length = uint(data, 30, 2)
        body = data[DIRECTORY_HEADER : DIRECTORY_HEADER + length]
        entries = tuple(
            ErrorHistoryEntry(buffer_id=body[i], buffer_format=body[i + 1], buffer_source=body[i + 2] & 0x0F,
                              max_length=uint(body, i + 4, 4))
            for i in range(0, len(body) - ENTRY_LENGTH + 1, ENTRY_LENGTH))
        return cls(vendor=ascii_field(data, 0, 8), version=data[8], snapshot_retrieved=(data[9] >> 3) & 3,
                   snapshot_source=(data[9] >> 1) & 3, clear_supported=bool(data[9] & 1), entries=entries,
                   truncated=len(body) < length)


@dataclass(frozen=True)
class BufferDescriptor:
    """READ BUFFER mode 03h: how big a buffer is and the boundary its offsets must be a multiple of."""

    offset_boundary: int  # a power of two exponent (2**n bytes); FFh: offsets are not used
    capacity: int

    @classmethod
    def parse(cls, data: bytes) -> BufferDescriptor:
        data = bytes(data)
        need(data, 4, "READ BUFFER descriptor")
        return cls(offset_boundary=data[0], capacity=uint(data, 1, 3))

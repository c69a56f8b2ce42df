"""The virtual drive's READ BUFFER: its error history (mode 1Ch) and, as an IBM drive, its dump.

Laid out here from the documents, independently of the host-side parser (``native.scsi.buffers``),
so that parser, emulator and sg3_utils' ``sg_read_buffer`` are three readers of one layout:

* Error history, SPC-5 READ BUFFER mode 1Ch. Buffer 00h is the directory: T10 vendor identification
  (8 bytes), version 00h, byte 9 EHS_RETRIEVED 10b (nobody asked to clear it) / EHS_SOURCE 00b (the
  drive took the snapshot itself) / CLR_SUP 1, bytes 30-31 the directory length, then one 8-byte
  entry per supported buffer ID in ascending order, 00h (the directory) first: ID, format 00h (vendor
  specific), source (bits 3-0; 1 = the device server), a reserved byte and the maximum available
  length (4 bytes). The drive lists two data buffers: 10h, its event log as text lines made
  from its modelled life (power-on hours, the errors it remembers on page 16h), and 11h, a binary
  trace (``TRACE_BYTES`` of deterministic bytes, larger than one transfer so a reader has to use the
  buffer offset). IDs 01h-03h answer the directory as a real drive does (and would snapshot); FEh and
  FFh clear the history, so a test can tell that nobody sent them.
* An IBM drive's dump (``vendor=ibm`` only): buffer 01h, its size from the mode 03h descriptor
  (byte 0 offset boundary, bytes 1-3 capacity), read with mode 02h from offsets, as IBM's LTFS reads
  an IBM LTO drive's dump (src/tape_drivers/linux/sg/sg_tape.c, ``_get_dump``). ``DUMP_BYTES`` of
  deterministic bytes behind a text header: the real content is IBM's own format.
"""
from __future__ import annotations

import struct

TRACE_BYTES = 300 * 1024
DUMP_BYTES = 640 * 1024
EVENT_LOG, TRACE = 0x10, 0x11
DUMP_BUFFER = 0x01
SNAPSHOT_IDS = (0x01, 0x02, 0x03)
CLEAR_IDS = (0xFE, 0xFF)


def _stream(seed: str, size: int) -> bytes:
    """``size`` deterministic bytes (SHA-256 in counter mode): the same drive gives the same buffer."""
    import hashlib  # here: OpenSSL's digests cost ~2 ms to load, and only a READ BUFFER asks for this

    blocks = (hashlib.sha256(f"{seed}:{i}".encode()).digest() for i in range((size + 31) // 32))
    return b"".join(blocks)[:size]


def event_log(*, vendor: str, serial: str, hours: int, errors: list[tuple[int, int, int]]) -> bytes:
    """Buffer 10h: one line per event, the newest last."""
    lines = [f"{vendor} {serial} event log", f"power on, {hours} power-on hours"]
    lines += [f"error: sense key {key:X}h, ASC/ASCQ {asc:02X}h/{ascq:02X}h" for key, asc, ascq in errors]
    return ("\n".join(lines) + "\n").encode("ascii")


def error_history(*, vendor: str, serial: str, hours: int, errors: list[tuple[int, int, int]]) -> dict[int, bytes]:
    """The data buffers by ID."""
    return {EVENT_LOG: event_log(vendor=vendor, serial=serial, hours=hours, errors=errors),
            TRACE: _stream(f"trace:{serial}", TRACE_BYTES)}


def directory(vendor: str, buffers: dict[int, bytes]) -> bytes:
    """Buffer 00h: the header, its own entry, then one entry per data buffer."""
    own = 32 + 8 * (len(buffers) + 1)
    entries = struct.pack(">BBBxI", 0x00, 0x00, 0x01, own) + b"".join(
        struct.pack(">BBBxI", ident, 0x00, 0x01, len(data)) for ident, data in sorted(buffers.items()))
    header = vendor.encode("ascii")[:8].ljust(8) + bytes([0x00, (0b10 << 3) | (0b00 << 1) | 0x01]) + bytes(20)
    return header + struct.pack(">H", len(entries)) + entries


def dump(serial: str) -> bytes:
    """An IBM drive's current dump (buffer 01h)."""
    header = f"TAPEDIAG VIRTUAL IBM LTO DUMP {serial}\n".encode("ascii")
    return header + _stream(f"dump:{serial}", DUMP_BYTES - len(header))


def descriptor(size: int) -> bytes:
    """Mode 03h: offset boundary 00h (any byte offset), then the capacity."""
    return bytes([0x00]) + min(size, 0xFFFFFF).to_bytes(3, "big")

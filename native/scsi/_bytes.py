"""Small big-endian readers that fail with ``ParseError`` instead of IndexError.

Every parser in ``native.scsi`` reads device bytes through these, so a truncated or
malformed response always ends in the one exception callers expect.
"""
from __future__ import annotations

from native.errors import ParseError


def need(data: bytes, length: int, what: str) -> None:
    """Raise ParseError unless ``data`` holds at least ``length`` bytes."""
    if len(data) < length:
        raise ParseError(f"{what}: {len(data)} bytes, need at least {length}")


def uint(data: bytes, offset: int, size: int, what: str = "field") -> int:
    """Unsigned big-endian integer of ``size`` bytes at ``offset``."""
    end = offset + size
    if offset < 0 or len(data) < end:
        raise ParseError(f"{what}: truncated at byte {offset} (have {len(data)})")
    return int.from_bytes(data[offset:end], "big")


def sint(data: bytes, offset: int, size: int, what: str = "field") -> int:
    """Signed (two's complement) big-endian integer of ``size`` bytes."""
    end = offset + size
    if offset < 0 or len(data) < end:
        raise ParseError(f"{what}: truncated at byte {offset} (have {len(data)})")
    return int.from_bytes(data[offset:end], "big", signed=True)


def ascii_field(data: bytes, offset: int, size: int) -> str:
    """A space-padded ASCII field, stripped; non-printable bytes become '?'.

    Devices pad with spaces or NULs and some put garbage in unused fields; a
    technician should still see the readable part rather than a decode error.
    """
    raw = bytes(data[offset : offset + size])
    text = "".join(chr(b) if 0x20 <= b < 0x7F else ("" if b == 0 else "?") for b in raw)
    return text.strip()


def bit(byte: int, n: int) -> bool:
    return bool((byte >> n) & 1)

"""Fixed-format sense data (SPC-4 4.5.3) the virtual drive answers with.

Handlers raise ``Check``; the dispatcher turns it into CHECK CONDITION plus these 18
bytes. ``transferred`` lets a READ that hit a filemark or a short block still hand
over the bytes it did read, as a real drive does.
"""
from __future__ import annotations

import struct

from native.scsi.sensekeys import (  # noqa: F401 - the handlers take the keys from here
    BLANK_CHECK, DATA_PROTECT, HARDWARE_ERROR, ILLEGAL_REQUEST, MEDIUM_ERROR, NO_SENSE, NOT_READY, UNIT_ATTENTION,
    VOLUME_OVERFLOW,
)


def fixed_sense(
    key: int,
    asc: int,
    ascq: int,
    *,
    info: int | None = None,
    filemark: bool = False,
    eom: bool = False,
    ili: bool = False,
    deferred: bool = False,
) -> bytes:
    """18 bytes of fixed-format sense, current (70h) or deferred (71h); INFO is a signed 32-bit value when given."""
    b = bytearray(18)
    b[0] = (0x71 if deferred else 0x70) | (0x80 if info is not None else 0)
    b[2] = (key & 0x0F) | (0x80 if filemark else 0) | (0x40 if eom else 0) | (0x20 if ili else 0)
    if info is not None:
        struct.pack_into(">i" if info < 0 else ">I", b, 3, info)
    b[7] = 10
    b[12], b[13] = asc, ascq
    return bytes(b)


class Check(Exception):
    """A CHECK CONDITION to report; raised inside command handlers only."""

    def __init__(self, key: int, asc: int, ascq: int = 0, *, info: int | None = None, filemark: bool = False,
                 eom: bool = False, ili: bool = False, transferred: int = 0, deferred: bool = False) -> None:
        super().__init__(f"sense {key:X}/{asc:02X}/{ascq:02X}")
        self.sense = fixed_sense(key, asc, ascq, info=info, filemark=filemark, eom=eom, ili=ili, deferred=deferred)
        self.transferred = transferred


def invalid_opcode() -> Check:
    return Check(ILLEGAL_REQUEST, 0x20, 0x00)


def invalid_field() -> Check:
    return Check(ILLEGAL_REQUEST, 0x24, 0x00)


def invalid_parameter() -> Check:
    return Check(ILLEGAL_REQUEST, 0x26, 0x00)


def no_medium() -> Check:
    return Check(NOT_READY, 0x3A, 0x00)


def write_protected() -> Check:
    return Check(DATA_PROTECT, 0x27, 0x00)


def worm_overwrite() -> Check:
    return Check(DATA_PROTECT, 0x30, 0x0C)

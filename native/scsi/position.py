"""SSC-4 responses: READ POSITION, short and long forms.

Apart from ``native.scsi.tape`` (READ BLOCK LIMITS), which ``info`` reads on every drive: the tape engines ask
where the tape is, ``info`` never does, and each form is a dataclass built at import (issue 32 §3).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import bit, need, uint


@dataclass(frozen=True)
class Position:
    """READ POSITION short form (20 bytes).

    ``bpu`` ("block position unknown", LOLU in SSC-3+) means the block fields are not
    valid. ``first_block`` is the next block to be transferred between host and
    buffer; ``last_block`` the next to be written to / read from the medium.
    """

    bop: bool
    eop: bool
    bpu: bool
    bpew: bool
    partition: int
    first_block: int
    last_block: int
    buffered_blocks: int
    buffered_bytes: int
    locu: bool = False
    bycu: bool = False
    perr: bool = False

    @classmethod
    def parse(cls, data: bytes) -> "Position":
        data = bytes(data)
        need(data, 20, "READ POSITION short form")
        flags = data[0]
        return cls(
            bop=bit(flags, 7),
            eop=bit(flags, 6),
            locu=bit(flags, 5),
            bycu=bit(flags, 4),
            bpu=bit(flags, 2),
            perr=bit(flags, 1),
            bpew=bit(flags, 0),
            partition=data[1],
            first_block=uint(data, 4, 4),
            last_block=uint(data, 8, 4),
            buffered_blocks=uint(data, 13, 3),
            buffered_bytes=uint(data, 16, 4),
        )


@dataclass(frozen=True)
class LongPosition:
    """READ POSITION long form (32 bytes): 64-bit object and file numbers."""

    bop: bool
    eop: bool
    mpu: bool
    lonu: bool
    bpew: bool
    partition: int
    logical_object: int
    logical_file: int

    @classmethod
    def parse(cls, data: bytes) -> "LongPosition":
        data = bytes(data)
        need(data, 32, "READ POSITION long form")
        flags = data[0]
        return cls(
            bop=bit(flags, 7),
            eop=bit(flags, 6),
            mpu=bit(flags, 3),
            lonu=bit(flags, 2),
            bpew=bit(flags, 0),
            partition=uint(data, 4, 4),
            logical_object=uint(data, 8, 8),
            logical_file=uint(data, 16, 8),
        )

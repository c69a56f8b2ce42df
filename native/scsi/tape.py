"""SSC-4 responses: READ BLOCK LIMITS (READ POSITION's: ``native.scsi.position``)."""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import need, uint


@dataclass(frozen=True)
class BlockLimits:
    """READ BLOCK LIMITS. Blocks must be multiples of ``2**granularity`` bytes."""

    granularity: int
    max_length: int
    min_length: int

    @classmethod
    def parse(cls, data: bytes) -> "BlockLimits":
        data = bytes(data)
        need(data, 6, "READ BLOCK LIMITS data")
        return cls(granularity=data[0] & 0x1F, max_length=uint(data, 1, 3), min_length=uint(data, 4, 2))

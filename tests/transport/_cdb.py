"""Raw CDBs and a fixed-format sense reader for transport tests.

Deliberately independent of ``native.scsi`` (written in parallel): the transport tests
check bytes on the wire, not the command-set layer.
"""
from __future__ import annotations

from dataclasses import dataclass

TEST_UNIT_READY = bytes(6)
REWIND = bytes([0x01, 0, 0, 0, 0, 0])
READ_BLOCK_LIMITS = bytes([0x05, 0, 0, 0, 0, 0])


def inquiry(length: int = 96) -> bytes:
    return bytes([0x12, 0, 0, length >> 8, length & 0xFF, 0])


def write6(length: int, *, fixed: bool = False) -> bytes:
    """WRITE(6); ``length`` is bytes (variable) or blocks (fixed)."""
    return bytes([0x0A, 1 if fixed else 0]) + length.to_bytes(3, "big") + b"\0"


def read6(length: int, *, fixed: bool = False, sili: bool = False) -> bytes:
    return bytes([0x08, (1 if fixed else 0) | (2 if sili else 0)]) + length.to_bytes(3, "big") + b"\0"


def write_filemarks(count: int = 1) -> bytes:
    return bytes([0x10, 0]) + count.to_bytes(3, "big") + b"\0"


@dataclass(frozen=True)
class FixedSense:
    key: int
    asc: int
    ascq: int
    filemark: bool
    eom: bool
    ili: bool
    valid: bool
    info: int  # signed, as tape drives use it

    @classmethod
    def parse(cls, raw: bytes) -> "FixedSense":
        assert len(raw) >= 14, f"sense too short: {raw.hex()}"
        assert raw[0] & 0x7F in (0x70, 0x71), f"not fixed-format sense: {raw.hex()}"
        return cls(
            key=raw[2] & 0x0F, asc=raw[12], ascq=raw[13],
            filemark=bool(raw[2] & 0x80), eom=bool(raw[2] & 0x40), ili=bool(raw[2] & 0x20),
            valid=bool(raw[0] & 0x80), info=int.from_bytes(raw[3:7], "big", signed=True),
        )

"""REPORT LUNS (SPC-4 6.33): which logical units a target has, so a wrong LUN in a device string is said as
"the target has no LUN 7 (it has LUNs 0, 1, 2)" instead of a failed login with raw sense (issue 31).

The response is a 4-byte LUN list length, 4 reserved bytes, then one 8-byte LUN per unit. A single-level
LUN in the peripheral (00b) or flat space (01b) addressing method is the 14 bits after the method bits of
its first two bytes (SAM-5 4.7.7); the other methods (logical unit, extended) name units no device string of
ours can address, and are left out.
"""
from __future__ import annotations

from native.errors import ParseError

REPORT_LUNS = 0xA0
#: Room for 256 LUNs: more than a tape target has.
ALLOCATION = 8 + 8 * 256


def report_luns(alloc: int = ALLOCATION) -> bytes:
    """The CDB: SELECT REPORT 00h (the logical units the target can address), ``alloc`` bytes of list."""
    if not 16 <= alloc <= 0xFFFFFFFF:
        raise ValueError("REPORT LUNS needs an allocation length of 16 bytes or more")
    return bytes([REPORT_LUNS, 0, 0, 0, 0, 0]) + alloc.to_bytes(4, "big") + b"\x00\x00"


def luns_response(luns: tuple[int, ...]) -> bytes:
    """The response a target gives for ``luns`` (peripheral addressing up to 255, flat space above)."""
    entries = b"".join(bytes([(0x40 | lun >> 8) if lun > 0xFF else 0, lun & 0xFF]) + bytes(6) for lun in luns)
    return len(entries).to_bytes(4, "big") + bytes(4) + entries


def parse_luns(data: bytes) -> tuple[int, ...]:
    """The single-level LUN numbers of a REPORT LUNS response, in the target's order."""
    if len(data) < 8:
        raise ParseError(f"REPORT LUNS response too short ({len(data)} bytes)")
    length = int.from_bytes(data[0:4], "big")
    if length % 8:
        raise ParseError(f"REPORT LUNS list length {length} is not a multiple of 8")
    entries = data[8:8 + length]  # a list cut by the allocation length: the LUNs that came
    found = []
    for i in range(0, len(entries) - 7, 8):
        method = entries[i] >> 6
        if method in (0, 1):
            found.append((entries[i] & 0x3F) << 8 | entries[i + 1])
    return tuple(found)


__all__ = ["ALLOCATION", "REPORT_LUNS", "luns_response", "parse_luns", "report_luns"]

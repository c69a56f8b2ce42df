"""Density code -> LTO generation and name (REPORT DENSITY SUPPORT's answer: ``native.scsi.density_support``).

The density codes are the ones LTO drives report in the mode block descriptor and in
REPORT DENSITY SUPPORT; cross-checked against public drive code (e.g. LTO tooling
tables pairing 0x5D with "LTO-7 M8" and 0x60 with LTO-9).

LTO-10: 0x62 (LTO-10 media, IBM "LA") and 0x63 (the higher-capacity LTO-10 media, IBM
"PA"), as LTFS names them (github.com/LinearTapeFileSystem/ltfs, src/libltfs/tape_ops.h:
``TC_DC_LTO10 = 0x62``, ``TC_DC_LTOP10 = 0x63``; src/tape_drivers/ibm_tape.c pairs both
with ``DRIVE_GEN_LTO10``). 0x62 is also what a real IBM ULT3580-TDA reports on its device
statistics page (issue 15).
"""
from __future__ import annotations

# density code -> (generation, name). 0x5D is an LTO-7 cartridge formatted as
# "type M" (M8) in an LTO-8 drive: generation 8 format on generation 7 media.
LTO_DENSITIES: dict[int, tuple[int, str]] = {
    0x40: (1, "LTO-1"),
    0x42: (2, "LTO-2"),
    0x44: (3, "LTO-3"),
    0x46: (4, "LTO-4"),
    0x58: (5, "LTO-5"),
    0x5A: (6, "LTO-6"),
    0x5C: (7, "LTO-7"),
    0x5D: (8, "LTO-7 type M (M8)"),
    0x5E: (8, "LTO-8"),
    0x60: (9, "LTO-9"),
    0x62: (10, "LTO-10"),
    0x63: (10, "LTO-10 PA (higher-capacity media)"),
}


def lto_generation(density_code: int | None) -> int | None:
    """LTO generation of a density code; None for unknown codes and 0 (default)."""
    if density_code is None:
        return None
    entry = LTO_DENSITIES.get(density_code)
    return entry[0] if entry else None


def density_name(density_code: int | None) -> str:
    if density_code is None:
        return "unknown"
    if density_code == 0:
        return "default"
    entry = LTO_DENSITIES.get(density_code)
    return entry[1] if entry else f"density 0x{density_code:02X}"

"""LTO media and the drives that take them: the one rule table, as data.

Two questions, asked before a cartridge is loaded, tested or moved into a drive:

* *What is this cartridge?* Its barcode ends in a two-character media identifier
  (``ABC123L9``: an LTO-9 data cartridge; ``LZ`` an LTO-9 WORM one; ``M8`` an LTO-7
  cartridge initialised as LTO-8 Type M; ``CLN...`` a cleaning cartridge). Its cartridge
  memory (MAM attribute 0405h, medium density code, and 0408h, medium type) says the
  same from the chip itself.
* *What can this drive do with it?* Read and write, read only, or nothing at all.

``MEDIA`` and ``DRIVE_MEDIA`` below are that knowledge; ``app.media`` asks them, the
virtual library labels its cartridges from them and the virtual drives take their
readable/writable densities from them (``native.virtual.specs``), so the trainer's
library teaches the same rules the checks apply.

Sources (each row of ``DRIVE_MEDIA`` names its own in ``SOURCES``):

* media identifiers: IBM TS2290 Tape Drive manual, "Cartridges and VOLSERs compatible
  with the Ultrium Tape Drives" (``xxxxxxL1`` ... ``xxxxxxL9``, WORM ``LT`` ... ``LZ``,
  ``xxxxxxM8``, cleaning ``CLNxxxLx``); Oracle StorageTek SL4000 Library Guide,
  "Supported Media Types" (L5-L9, M8, LV-LZ, universal cleaning ``CLNUnnCU``).
  LTO-10: ``LA`` as IBM names its LTO-10 media (``native.scsi.density``); no LTO-10
  WORM identifier was found published, so none is mapped (such a label reads as
  "not an LTO media identifier" and is only warned about, never refused on).
* density codes: ``native.scsi.density.LTO_DENSITIES`` (0x5D is M8; 0x63, the
  higher-capacity LTO-10 media, is taken as LTO-10 as LTFS's ``ibm_tape.c`` pairs both
  0x62 and 0x63 with ``DRIVE_GEN_LTO10``).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Access(enum.Enum):
    """What a drive can do with a cartridge."""

    READ_WRITE = "read/write"
    READ_ONLY = "read only"
    NONE = "incompatible"
    CLEANING = "cleaning"  # a cleaning cartridge: the drive cleans its head, nothing is read or written
    UNKNOWN = "unknown"  # the drive's generation or the cartridge's type is not known: nothing to check


@dataclass(frozen=True)
class Medium:
    """One kind of LTO cartridge as its label and its cartridge memory name it.

    ``format`` is the recording format a drive must support (``DRIVE_MEDIA``'s vocabulary):
    a WORM cartridge has its generation's data format, M8 its own.
    """

    ident: str  # the barcode's media identifier: "L9", "LZ", "M8", "CU"
    generation: int  # the format's LTO generation (M8: 8, the LTO-8 drive's Type M format)
    name: str  # in words: "LTO-9", "LTO-9 WORM", "LTO-7 Type M (M8)"
    format: str  # "L9" (the data format a drive must read or write)
    density: int | None = None  # the format's density code (mode header, MAM 0405h)
    worm: bool = False
    cleaning: bool = False


def _data(gen: int, ident: str, density: int) -> Medium:
    return Medium(ident, gen, f"LTO-{gen}", ident, density)


def _worm(gen: int, ident: str, data_ident: str, density: int) -> Medium:
    return Medium(ident, gen, f"LTO-{gen} WORM", data_ident, density, worm=True)


#: Every media identifier a label may end in.
MEDIA: tuple[Medium, ...] = (
    _data(1, "L1", 0x40), _data(2, "L2", 0x42), _data(3, "L3", 0x44), _data(4, "L4", 0x46),
    _data(5, "L5", 0x58), _data(6, "L6", 0x5A), _data(7, "L7", 0x5C), _data(8, "L8", 0x5E),
    _data(9, "L9", 0x60), _data(10, "LA", 0x62),
    Medium("M8", 8, "LTO-7 Type M (M8)", "M8", 0x5D),
    _worm(3, "LT", "L3", 0x44), _worm(4, "LU", "L4", 0x46), _worm(5, "LV", "L5", 0x58),
    _worm(6, "LW", "L6", 0x5A), _worm(7, "LX", "L7", 0x5C), _worm(8, "LY", "L8", 0x5E),
    _worm(9, "LZ", "L9", 0x60),
)
CLEANING = Medium("CU", 0, "cleaning cartridge", "", cleaning=True)
#: Cleaning labels start with this (IBM ``CLNxxxLx``, Oracle ``CLNUnnCU``).
CLEANING_PREFIX = "CLN"

#: drive generation -> (formats it reads and writes, formats it reads only). A WORM cartridge
#: follows its generation's data format (``Medium.format``); anything else is incompatible.
DRIVE_MEDIA: dict[int, tuple[tuple[str, ...], tuple[str, ...]]] = {
    1: (("L1",), ()),
    2: (("L1", "L2"), ()),
    3: (("L2", "L3"), ("L1",)),
    4: (("L3", "L4"), ("L2",)),
    5: (("L4", "L5"), ("L3",)),
    6: (("L5", "L6"), ("L4",)),
    7: (("L6", "L7"), ("L5",)),
    8: (("L7", "M8", "L8"), ()),
    9: (("L8", "L9"), ()),
    10: (("LA",), ()),
}

#: drive generation -> where its row of ``DRIVE_MEDIA`` comes from (short: it ends a one-line refusal).
#: In full: IBM TS4500 manual, Table 13 "Compatibility among LTO tape drives and tape cartridges"
#: (LTO-5...8 drives: L3...L8, LT...LY, M8); IBM TS4300 documentation "LTO type M cartridge (M8)" (L9 for
#: LTO-9 drives, M8 only in LTO-8 drives, L7 in LTO-7 and LTO-8 drives); Oracle StorageTek SL4000 Library Guide
#: "Supported Media Types" and SL8500 release notes "LTO Drive Support" ("LTO-8 and above can read and write
#: one generation back. LTO-7 and below can read two generations back and write one generation back"; M8 "only
#: compatible with LTO8 drives"); IBM TS2290 / Dell TL2000 manuals ("Ultrium 1 Data Cartridge (READ ONLY)" in
#: LTO-3/4 drives); Sun StorageTek L20 service manual "LTO Drive Backward Readability" (LTO-2 drive: LTO-1 read
#: and write; LTO-3 drive: LTO-1 read only); LTO-10: IBM Storage Protect technote 7253855 ("Only Ultrium 10
#: media can be written to with the ULTRIUMA format") and LTFS src/tape_drivers/ibm_tape.c (only LTO-10
#: cartridges for DRIVE_GEN_LTO10).
SOURCES: dict[int, str] = {
    1: "IBM TS2290 manual, cartridge table",
    2: "StorageTek L20 service manual, LTO drive backward readability",
    3: "StorageTek L20 service manual; Oracle SL8500 release notes, LTO drive support",
    4: "Dell TL2000 manual, L1 read only; Oracle SL8500 release notes, LTO drive support",
    5: "IBM TS4500 manual, Table 13",
    6: "IBM TS4500 manual, Table 13",
    7: "IBM TS4500 manual, Table 13",
    8: "IBM TS4500 manual, Table 13; IBM TS4300, LTO type M cartridge (M8)",
    9: "Oracle SL4000 Library Guide, Supported Media Types; IBM TS4300, LTO type M cartridge (M8)",
    10: "IBM Storage Protect technote 7253855; LTFS ibm_tape.c",
}

_BY_IDENT = {m.ident: m for m in MEDIA}
_DATA_BY_DENSITY = {m.density: m for m in MEDIA if not m.worm and m.density is not None}
_WORM_BY_DENSITY = {m.density: m for m in MEDIA if m.worm and m.density is not None}
#: Densities with no label of their own, taken as the format named (module docstring).
_DENSITY_ALIASES = {0x63: "LA"}


def medium_of_barcode(barcode: str | None) -> Medium | None:
    """The medium a barcode's label names, or None when it ends in no LTO media identifier."""
    label = (barcode or "").strip().upper()
    if not label:
        return None
    if label.startswith(CLEANING_PREFIX) or label.endswith(CLEANING.ident):
        return CLEANING
    return _BY_IDENT.get(label[-2:]) if len(label) >= 3 else None


def medium_of_density(code: int | None, *, worm: bool = False) -> Medium | None:
    """The medium a density code names (the mode header's, MAM 0405h), WORM when the cartridge memory says so."""
    if code is None:
        return None
    if code in _DENSITY_ALIASES:
        code = density_of_format(_DENSITY_ALIASES[code])
    return (_WORM_BY_DENSITY.get(code) if worm else None) or _DATA_BY_DENSITY.get(code)


def access(drive_generation: int | None, medium: Medium | None) -> Access:
    """What an LTO drive of ``drive_generation`` can do with ``medium`` (``DRIVE_MEDIA``)."""
    if medium is not None and medium.cleaning:
        return Access.CLEANING
    if medium is None or drive_generation not in DRIVE_MEDIA:
        return Access.UNKNOWN
    both, read = DRIVE_MEDIA[drive_generation]
    if medium.format in both:
        return Access.READ_WRITE
    return Access.READ_ONLY if medium.format in read else Access.NONE


def drive_rule(drive_generation: int) -> str:
    """The row in words: "an LTO-7 drive reads and writes L6 and L7 and only reads L5"."""
    both, read = DRIVE_MEDIA[drive_generation]

    def listed(idents: tuple[str, ...]) -> str:
        return idents[0] if len(idents) == 1 else f"{', '.join(idents[:-1])} and {idents[-1]}"

    text = f"an LTO-{drive_generation} drive reads and writes {listed(both)}"
    return text + (f" and only reads {listed(read)}" if read else "")


def ident_for(generation: int, *, worm: bool = False) -> str:
    """The media identifier of a generation's data (or WORM) cartridge: 9 -> "L9", 10 -> "LA"."""
    for medium in MEDIA:
        if medium.generation == generation and medium.worm == worm and medium.ident != "M8":
            return medium.ident
    raise KeyError(f"no {'WORM ' if worm else ''}media identifier is known for LTO-{generation}")


def formats(drive_generation: int, *, writable: bool) -> tuple[str, ...]:
    """The formats a drive writes (``writable``) or reads (both lists)."""
    both, read = DRIVE_MEDIA[drive_generation]
    return both if writable else both + read


def density_of_format(fmt: str) -> int:
    """The density code a format is recorded with ("L9" -> 0x60, "M8" -> 0x5D)."""
    density = _BY_IDENT[fmt].density
    assert density is not None
    return density


__all__ = ["Access", "CLEANING", "DRIVE_MEDIA", "MEDIA", "Medium", "SOURCES", "access", "density_of_format",
           "drive_rule", "formats", "ident_for", "medium_of_barcode", "medium_of_density"]

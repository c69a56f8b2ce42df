"""The LTO media rule table (``native.scsi.media``): one test per rule, each against its published source."""
from __future__ import annotations

import pytest

from native.scsi.density import LTO_DENSITIES
from native.scsi.media import (DRIVE_MEDIA, MEDIA, SOURCES, Access, access, drive_rule, ident_for, medium_of_barcode,
                               medium_of_density)
from native.virtual.specs import GENERATIONS, spec_for

RW, RO, NO = Access.READ_WRITE, Access.READ_ONLY, Access.NONE


def _access(drive: int, barcode: str) -> Access:
    return access(drive, medium_of_barcode(barcode))


@pytest.mark.parametrize(("drive", "expected"), [
    # IBM TS4500 manual, Table 13: rows are cartridges, columns LTO-8, LTO-7, LTO-6, LTO-5 drives.
    (8, {"L8": RW, "LY": RW, "M8": RW, "L7": RW, "LX": RW, "L6": NO, "LW": NO, "L5": NO, "L4": NO, "L9": NO}),
    (7, {"L8": NO, "M8": NO, "L7": RW, "LX": RW, "L6": RW, "LW": RW, "L5": RO, "LV": RO, "L4": NO}),
    (6, {"L7": NO, "L6": RW, "L5": RW, "LV": RW, "L4": RO, "LU": RO, "L3": NO}),
    (5, {"L6": NO, "L5": RW, "L4": RW, "LU": RW, "L3": RO, "LT": RO, "L2": NO}),
])
def test_lto5_to_8_drives_follow_the_ibm_ts4500_compatibility_table(drive: int, expected: dict[str, Access]) -> None:
    assert {ident: _access(drive, f"ABC123{ident}") for ident in expected} == expected
    assert "TS4500" in SOURCES[drive]


def test_lto9_reads_and_writes_l8_and_l9_and_nothing_else() -> None:
    """Oracle SL4000: "LTO-8 and above can read and write one generation back"; M8 "only compatible with LTO8
    drives"; IBM TS4300's M8 table lists L9 for LTO9 drives only."""
    got = {ident: _access(9, f"ABC123{ident}") for ident in ("L9", "LZ", "L8", "LY", "M8", "L7", "LX", "LA")}
    assert got == {"L9": RW, "LZ": RW, "L8": RW, "LY": RW, "M8": NO, "L7": NO, "LX": NO, "LA": NO}


def test_lto10_reads_and_writes_only_lto10() -> None:
    """IBM Storage Protect technote 7253855 and LTFS ibm_tape.c: LTO-10 drives take only LTO-10 media."""
    assert _access(10, "ABC123LA") is RW
    assert [_access(10, f"ABC123{m.ident}") for m in MEDIA if m.generation < 10] == [NO] * (len(MEDIA) - 1)
    assert access(10, medium_of_density(0x63)) is RW  # the higher-capacity LTO-10 media (LTFS: DRIVE_GEN_LTO10)


def test_lto7_and_below_read_two_generations_back_and_write_one() -> None:
    """Oracle SL8500 release notes: "LTO-7 and below can read two generations back and write one back"."""
    for drive in range(3, 8):
        assert _access(drive, f"X00001{ident_for(drive)}") is RW
        assert _access(drive, f"X00001{ident_for(drive - 1)}") is RW
        assert _access(drive, f"X00001{ident_for(drive - 2)}") is RO
        if drive > 3:
            assert _access(drive, f"X00001{ident_for(drive - 3)}") is NO
        assert _access(drive, f"X00001{ident_for(drive + 1)}") is NO


def test_early_generations() -> None:
    assert _access(1, "X00001L1") is RW and _access(1, "X00001L2") is NO
    assert _access(2, "X00001L1") is RW  # StorageTek L20: an LTO-2 drive reads and writes LTO-1
    assert _access(3, "X00001L1") is RO and _access(4, "X00001L1") is NO


def test_every_generation_has_a_source_and_a_rule_in_words() -> None:
    assert set(SOURCES) == set(DRIVE_MEDIA) == set(range(1, 11))
    assert drive_rule(7) == "an LTO-7 drive reads and writes L6 and L7 and only reads L5"
    assert drive_rule(8) == "an LTO-8 drive reads and writes L7, M8 and L8"
    assert drive_rule(10) == "an LTO-10 drive reads and writes LA"


@pytest.mark.parametrize(("barcode", "name", "worm", "cleaning"), [
    ("TD0001L9", "LTO-9", False, False), ("ABC123LA", "LTO-10", False, False),
    ("ABC123LZ", "LTO-9 WORM", True, False), ("ABC123LV", "LTO-5 WORM", True, False),
    ("000764M8", "LTO-7 Type M (M8)", False, False), (" td0001l8 ", "LTO-8", False, False),
    ("CLN005L1", "cleaning cartridge", False, True), ("CLNU01CU", "cleaning cartridge", False, True),
])
def test_barcode_media_identifiers(barcode: str, name: str, worm: bool, cleaning: bool) -> None:
    medium = medium_of_barcode(barcode)
    assert medium is not None and (medium.name, medium.worm, medium.cleaning) == (name, worm, cleaning)


@pytest.mark.parametrize("barcode", ["", "ABC123", "ABC123L0", "TD0001L10", "ABC123XY", "L9"])
def test_labels_with_no_media_identifier_name_no_medium(barcode: str) -> None:
    assert medium_of_barcode(barcode) is None
    assert access(9, medium_of_barcode(barcode)) is Access.UNKNOWN


def test_density_codes_agree_with_the_density_table() -> None:
    """Every density the rule table uses is the one ``native.scsi.density`` names, same generation."""
    for medium in MEDIA:
        assert medium.density is not None and LTO_DENSITIES[medium.density][0] == medium.generation
        assert medium_of_density(medium.density, worm=medium.worm) == medium
    assert medium_of_density(0x5D).ident == "M8" and medium_of_density(0x99) is None


def test_the_virtual_drives_read_and_write_what_the_table_says() -> None:
    """One rule: a virtual drive's densities come from the table (LTO-8 takes M8, LTO-9 no LTO-7)."""
    for gen in GENERATIONS:
        spec = spec_for(gen)
        readable = {m.density for m in MEDIA if not m.worm and access(gen, m) in (RW, RO)}
        writable = {m.density for m in MEDIA if not m.worm and access(gen, m) is RW}
        assert (set(spec.readable), set(spec.writable)) == (readable, writable), gen
    assert 0x5D in spec_for(8).writable and 0x5C not in spec_for(9).readable and spec_for(10).readable == (0x62,)

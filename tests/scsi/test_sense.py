"""Sense decoding: both formats, tape bits, INFO, sense-key specific, ASC table."""
from __future__ import annotations

import pytest

from native.scsi.asc import asc_text, is_known
from native.scsi.asc_table import ASC_ASCQ
from native.scsi.sense import Sense, build_descriptor, build_fixed, sense_key_name
from native.errors import ParseError


def test_fixed_format_fields() -> None:
    raw = bytes.fromhex("f0 00 63 ff ff ff 9c 0a 00 00 00 07 11 00 05 00 00 00")
    s = Sense.parse(raw)
    assert (s.response_code, s.key, s.asc, s.ascq, s.fru) == (0x70, 3, 0x11, 0, 5)
    assert s.valid and s.info == -100
    assert (s.filemark, s.eom, s.ili) == (False, True, True)
    assert s.command_specific == 7 and not s.descriptor_format and not s.deferred
    assert s.describe() == "MEDIUM ERROR: Unrecovered read error (11/00) [EOM, ILI]"


def test_descriptor_format_fields() -> None:
    raw = bytes.fromhex("73 08 00 05 00 00 00 1c 00 0a 80 00 ff ff ff ff ff ff ff fe 04 02 00 c0 01 0a 00 00 00 00 00 00 00 00 00 2a")
    s = Sense.parse(raw)
    assert s.descriptor_format and s.deferred and s.key == 8
    assert s.valid and s.info == -2
    assert s.filemark and s.eom and not s.ili
    assert s.command_specific == 0x2A
    assert "(deferred error)" in s.describe()
    assert [d[0] for d in s.descriptors] == [0x00, 0x04, 0x01]


def test_builders_round_trip() -> None:
    for build in (build_fixed, build_descriptor):
        s = Sense.parse(build(0x8, 0x00, 0x05, info=-7, filemark=True, eom=True, ili=True))
        assert (s.key, s.asc, s.ascq, s.info, s.valid, s.filemark, s.eom, s.ili) == (8, 0, 5, -7, True, True, True, True)
    assert not Sense.parse(build_fixed(0x5, 0x24, 0)).valid


def test_sense_key_specific_progress_and_field_pointer() -> None:
    progress = Sense.parse(build_fixed(0x2, 0x04, 0x07, sks=bytes([0x80, 0x40, 0x00])))
    assert progress.sks is not None and progress.sks.progress == pytest.approx(0.25)
    assert progress.describe().endswith("progress 25.0%")
    field = Sense.parse(build_fixed(0x5, 0x24, 0x00, sks=bytes([0xCB, 0x00, 0x02])))
    assert field.sks is not None and (field.sks.in_cdb, field.sks.value, field.sks.bit_pointer) == (True, 2, 3)
    assert "invalid field in CDB byte 2 bit 3" in field.describe()
    retry = Sense.parse(build_fixed(0x1, 0x17, 0x01, sks=bytes([0x80, 0x00, 0x09])))
    assert retry.sks is not None and retry.sks.kind == "retry count" and retry.sks.value == 9
    assert Sense.parse(build_fixed(0x5, 0x24, 0x00, sks=bytes([0x00, 0x00, 0x02]))).sks is None


def test_short_fixed_sense_reads_missing_bytes_as_zero() -> None:
    s = Sense.parse(bytes([0x70, 0, 0x06, 0, 0, 0, 0, 0]))
    assert (s.key, s.asc, s.ascq) == (6, 0, 0)


@pytest.mark.parametrize("raw", [b"", b"\x00", b"\x7f" * 18, b"\x70\x00", bytes([0x72, 0, 0]), bytes([0x72, 0, 0, 0, 0, 0, 0, 4, 0, 10])])
def test_malformed_sense_raises_parse_error(raw: bytes) -> None:
    with pytest.raises(ParseError):
        Sense.parse(raw)


def test_sense_key_names() -> None:
    assert [sense_key_name(k) for k in (0, 2, 3, 5, 6, 8, 0xD)] == [
        "NO SENSE", "NOT READY", "MEDIUM ERROR", "ILLEGAL REQUEST", "UNIT ATTENTION", "BLANK CHECK", "VOLUME OVERFLOW"]


@pytest.mark.parametrize(
    "asc, ascq, text",
    [
        (0x00, 0x01, "Filemark detected"),
        (0x00, 0x02, "End-of-partition/medium detected"),
        (0x00, 0x04, "Beginning-of-partition/medium detected"),
        (0x00, 0x05, "End-of-data detected"),
        (0x3B, 0x00, "Sequential positioning error"),
        (0x3B, 0x0D, "Medium destination element full"),
        (0x30, 0x03, "Cleaning cartridge installed"),
        (0x52, 0x00, "Cartridge fault"),
        (0x0C, 0x00, "Write error"),
        (0x5D, 0x23, "Controller impending failure seek error rate too high"),
        (0x70, 0x12, "Decompression exception short algorithm id of 12h"),
        (0x40, 0x81, "Diagnostic failure on component 81h"),
        (0x85, 0x01, "Vendor specific ASC 0x85, ASCQ 0x01"),
        (0x11, 0x85, "ASC 0x11, vendor specific ASCQ 0x85"),
        (0x7E, 0x00, "Unknown ASC/ASCQ 0x7E/0x00"),
    ],
)
def test_asc_text(asc: int, ascq: int, text: str) -> None:
    assert asc_text(asc, ascq) == text


def test_asc_table_is_the_full_list() -> None:
    assert len(ASC_ASCQ) > 700
    assert is_known(0x04, 0x01) and not is_known(0x7E, 0)

"""The virtual drive's own alarms for a trainer (issue 25): reftemp=, maxtemp=, clean=, harderrors=, nonmedium=,
diag=, tur=. Its bytes are written in ``native.virtual.health`` independently of the parsers; sg_logs and
sg_decode_sense read them to the same values."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from native.errors import InvalidParameter
from native.scsi.logparse import parse_log_page
from native.virtual.options import options_help, parse_device
from tests.virtual.conftest import decode_sense, sg_inhex


def log_sense(d, page: int) -> bytes:  # type: ignore[no-untyped-def]
    r = d.execute(bytes([0x4D, 0, 0x40 | page, 0, 0, 0, 0]) + struct.pack(">H", 0xFFFF) + b"\x00", data_in=0xFFFF)
    assert r.good, bytes(r.sense).hex()
    return bytes(r.data)


def test_alarm_pages_decode_the_same_with_sg_logs(open_drive, tmp_path: Path) -> None:
    d = open_drive(temp=75, reftemp=55, maxtemp=1, clean="requested", harderrors="7,3", nonmedium=250, diag="03/0C/00")
    raw = log_sense(d, 0x0D)
    page = parse_log_page(raw)
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert (page.celsius, page.reference_celsius) == (75, 55)
    assert "Current temperature = 75 C" in text and "Reference temperature = 55 C" in text
    raw = log_sense(d, 0x14)
    figures = parse_log_page(raw).stats()
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert (figures["hard_write_errors"], figures["hard_read_errors"], figures["max_mechanism_temperature_exceeded"]) == (7, 3, 1)
    for line in ("Hard write errors: 7", "Hard read errors: 3", "Maximum recommended mechanism temperature exceeded: 1"):
        assert line in text
    raw = log_sense(d, 0x11)
    flags = parse_log_page(raw).status.flags
    assert flags["cleaning_requested"] and not flags["cleaning_required"]
    assert "CRQST=1 CRQRD=0" in sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    raw = log_sense(d, 0x06)
    assert parse_log_page(raw).count == 250 and "Non-medium error count = 250" in sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    raw = log_sense(d, 0x16)
    (entry,) = parse_log_page(raw).entries
    assert (entry.sense_key, entry.asc, entry.ascq, entry.medium_id) == (3, 0x0C, 0, d.cart.meta.serial)
    assert "Sense key: 0x3 [Medium Error]" in sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert parse_log_page(log_sense(d, 0x11)).status.flags["tape_diagnostic_entry_created"]


def test_clean_required_is_on_both_pages(open_drive) -> None:
    d = open_drive(clean="required")
    assert parse_log_page(log_sense(d, 0x11)).status.flags["cleaning_required"]
    assert parse_log_page(log_sense(d, 0x0C)).cleaning_required


@pytest.mark.parametrize("option, key, asc, ascq, words", [
    ("0B/47/00", 0xB, 0x47, 0x00, "SCSI parity error"),
    ("03/0C/00/deferred", 0x3, 0x0C, 0x00, "<<<deferred>>>"),
    ("00/00/01/filemark", 0x0, 0x00, 0x01, "Filemark detected"),
])
def test_tur_answers_the_given_sense(open_drive, option: str, key: int, asc: int, ascq: int, words: str) -> None:
    d = open_drive(tur=option)
    r = d.execute(bytes(6))
    sense = bytes(r.sense)
    assert not r.good and (sense[2] & 0x0F, sense[12], sense[13]) == (key, asc, ascq)
    assert words.lower() in decode_sense(sense).lower()
    assert d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96).good  # only TUR fails


@pytest.mark.parametrize("bad", ["tur=0B/47", "tur=GG/00/00", "tur=0B/47/00/odd", "clean=soon", "harderrors=7",
                                 "diag=3/0C", "reftemp=300"])
def test_bad_alarm_options_are_one_line(bad: str) -> None:
    with pytest.raises(InvalidParameter):
        parse_device(f"virtual:lto9?{bad}")


def test_help_lists_the_alarm_options() -> None:
    text = options_help()
    for key in ("reftemp=", "maxtemp=", "clean=", "harderrors=", "nonmedium=", "diag=", "tur="):
        assert key in text

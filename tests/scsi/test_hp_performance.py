"""HP LTO performance log page 0x34: the decoder against bytes laid out by hand from
the HP manual's table (parameter, 2-byte value, control byte 60h, 100 KB/s units), and
the parameter framing against sg3_utils."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native.scsi.logpages import HP_PERFORMANCE, PAGE_HP_PERFORMANCE, HpPerformance, LogPage, hp_performance_page
from native.scsi.logparse import parse_log_page
from native.errors import ParseError

# Written out byte by byte from the manual's layout, independently of hp_performance_page:
# page 34h, subpage 0, length 30 (five 6-byte parameters); each parameter is
# code (2) | control 60h | length 02 | value (2).
DOCUMENTED = bytes.fromhex(
    "34 00 00 1e"
    " 00 00 60 02 00 25"   # 0 repositions per 100 MB: 37
    " 00 01 60 02 01 db"   # 1 data rate into buffer: 475 x 100 KB/s = 47.5 MB/s
    " 00 02 60 02 1b 58"   # 2 maximum data rate: 7000 -> 700.0 MB/s
    " 00 03 60 02 03 b6"   # 3 current data rate: 950 -> 95.0 MB/s
    " 00 04 60 02 01 2c"   # 4 native data rate: 12Ch -> 30.0 MB/s (the manual's Generation 2 value)
)


def test_decodes_the_documented_layout() -> None:
    page = HpPerformance.from_page(parse_log_page(DOCUMENTED))
    assert (page.repositions_per_100mb, page.buffer_in_mb_s, page.max_possible_mb_s, page.current_mb_s,
            page.native_mb_s) == (37, 47.5, 700.0, 95.0, 30.0)
    assert page.figures() == {"repositions_per_100mb": 37, "buffer_in_mb_s": 47.5, "max_possible_mb_s": 700.0,
                              "current_mb_s": 95.0, "native_mb_s": 30.0}
    assert [p.code for p in page.parameters] == sorted(HP_PERFORMANCE)


def test_builder_lays_out_the_same_bytes() -> None:
    assert hp_performance_page(37, 475, 7000, 950, 300) == DOCUMENTED


@pytest.mark.parametrize("raw, mb_s", [(0x96, 15.0), (0x4B, 7.5), (0x12C, 30.0)])
def test_native_rate_units_match_the_manuals_table(raw: int, mb_s: float) -> None:
    """Gen 1 full-height 96h = 15 MB/s, half-height 4Bh = 7.5 MB/s, Gen 2 12Ch = 30 MB/s."""
    assert HpPerformance.from_page(parse_log_page(hp_performance_page(0, 0, 0, 0, raw))).native_mb_s == mb_s


def test_missing_and_wider_parameters() -> None:
    # A drive that reports only some parameters, one of them 4 bytes wide.
    body = bytes.fromhex("00 00 60 02 00 07") + bytes.fromhex("00 03 60 04 00 00 27 10")
    page = HpPerformance.from_page(parse_log_page(bytes([0x34, 0, 0, len(body)]) + body))
    assert page.repositions_per_100mb == 7 and page.current_mb_s == 1000.0
    assert page.buffer_in_mb_s is None and page.native_mb_s is None
    assert page.figures() == {"repositions_per_100mb": 7, "current_mb_s": 1000.0}


def test_only_page_34_is_taken_for_the_hp_page() -> None:
    with pytest.raises(ParseError, match="not the HP performance page"):
        HpPerformance.from_page(parse_log_page(bytes.fromhex("33 00 00 06 00 00 60 02 00 01")))
    # parse_log_page leaves 0x34 generic: on IBM drives it is another page.
    assert type(parse_log_page(DOCUMENTED)) is LogPage


def test_truncated_page_raises_parse_error() -> None:
    with pytest.raises(ParseError, match="runs past the page"):
        parse_log_page(DOCUMENTED[:9])  # the first value cut after one byte
    with pytest.raises(ParseError):
        parse_log_page(DOCUMENTED[:2])


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=64))
def test_malformed_input_raises_only_parse_error(body: bytes) -> None:
    data = bytes([PAGE_HP_PERFORMANCE, 0]) + len(body).to_bytes(2, "big") + body
    try:
        page = HpPerformance.from_page(parse_log_page(data))
    except ParseError:
        return
    page.figures()


def _sg_logs(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "page.hex"
    path.write_text(data.hex(" ") + "\n")
    out = subprocess.run(["sg_logs", "--pdt=1", f"--in={path}"], capture_output=True, text=True, timeout=30)
    return out.stdout + out.stderr


@pytest.mark.skipif(shutil.which("sg_logs") is None, reason="sg3-utils is not installed")
def test_parameter_framing_agrees_with_sg_logs(tmp_path: Path) -> None:
    """sg3_utils has no decoder for HP's 0x34 (it names 0x34 after IBM's "read forward
    errors" page, without a decoder, even with --vendor=lto5). What it can check is the
    parameter walk: the very same parameter list, relabelled as page 0x02 whose codes
    0-4 sg_logs decodes, must give sg_logs the raw values our parser reads."""
    assert "Unable to decode" in _sg_logs(tmp_path, DOCUMENTED)
    ours = HpPerformance.from_page(parse_log_page(DOCUMENTED))
    text = _sg_logs(tmp_path, bytes([0x02]) + DOCUMENTED[1:])
    labels = ("Errors corrected without substantial delay", "Errors corrected with possible delays",
              "Total rewrites or rereads", "Total errors corrected", "Total times correction algorithm processed")
    theirs = [int(re.search(re.escape(label) + r" = (\d+)", text).group(1)) for label in labels]
    assert theirs == [ours.value(code) for code in sorted(HP_PERFORMANCE)] == [37, 475, 7000, 950, 300]

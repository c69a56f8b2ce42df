"""Vendor log pages 30h-3Eh (``native.scsi.vendorlogs``): gating by vendor, round trips, fuzz, sg_logs."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from native.errors import ParseError
from native.scsi.vendorlogs import (
    HP,
    IBM,
    PAGES,
    QUANTUM,
    QUANTUM_DEVICE_STATISTICS,
    TAPE_CAPACITY,
    TAPE_USAGE,
    decode_vendor_page,
    vendor_family,
    vendor_log_page,
)


def _usage(values: dict[int, int]) -> bytes:
    return vendor_log_page(0x30, [(c, v.to_bytes(TAPE_USAGE[c][1], "big")) for c, v in sorted(values.items())])


def test_vendor_family_from_inquiry() -> None:
    assert vendor_family("HP      ") == HP
    assert vendor_family("HPE") == HP
    assert vendor_family("IBM     ") == IBM
    assert vendor_family("QUANTUM ") == QUANTUM
    assert vendor_family("TANDBERG") is None and vendor_family("") is None


def test_page_34_means_different_things_per_vendor() -> None:
    data = vendor_log_page(0x34, [(0, b"\x00\x05"), (1, b"\x01\x90")])
    hp, ibm = decode_vendor_page(HP, data), decode_vendor_page(IBM, data)
    assert hp.name == "performance data" and ibm.name == "read forward errors"
    # IBM's page has no public layout: every parameter stays, raw, none is hidden or guessed.
    assert ibm.figures == {} and [(r.code, r.hex) for r in ibm.raw] == [(0, "0005"), (1, "0190")]


def test_unknown_vendor_shows_every_parameter_raw() -> None:
    data = _usage({1: 3, 2: 9})
    page = decode_vendor_page(None, data)
    assert page.family is None and page.figures == {}
    assert [r.code for r in page.raw] == [1, 2]


@given(st.fixed_dictionaries({}, optional={c: st.integers(0, (1 << (8 * w)) - 1) for c, (_, w) in TAPE_USAGE.items()}))
@settings(max_examples=80, deadline=None)
def test_tape_usage_round_trip(values: dict[int, int]) -> None:
    for family in (HP, IBM):
        page = decode_vendor_page(family, _usage(values))
        assert page.figures == {TAPE_USAGE[c][0]: v for c, v in values.items()}
        assert page.raw == ()


@given(st.lists(st.integers(0, 0xFFFFFFFF), min_size=4, max_size=4))
@settings(max_examples=50, deadline=None)
def test_tape_capacity_round_trip(values: list[int]) -> None:
    data = vendor_log_page(0x31, [(c, v.to_bytes(4, "big")) for c, v in zip(TAPE_CAPACITY, values)])
    page = decode_vendor_page(IBM, data)
    assert page.figures == {name: v for name, v in zip(TAPE_CAPACITY.values(), values)}


def test_vendor_compression_page_folds_mb_and_bytes() -> None:
    params = [(0, (250).to_bytes(2, "big")), (1, (180).to_bytes(2, "big"))]
    params += [(c, v.to_bytes(4, "big")) for c, v in ((2, 3), (3, 5), (4, 1), (5, 0), (6, 7), (7, 1), (8, 2), (9, 2))]
    params.append((0x100, b"\x01"))
    page = decode_vendor_page(HP, vendor_log_page(0x32, params))
    assert page.figures["read_compression_ratio_x100"] == 250
    assert page.figures["bytes_to_host"] == 3 * 1_048_576 + 5
    assert page.figures["bytes_written_to_tape"] == 2 * 1_048_576 + 2
    assert page.figures["compression_enabled"] == 1
    assert page.raw == ()
    # HP: the MB count is rounded to the nearest MiB, the remainder signed (here -5 bytes).
    rounded = [(2, (4).to_bytes(4, "big")), (3, (-5).to_bytes(4, "big", signed=True))]
    assert decode_vendor_page(HP, vendor_log_page(0x32, rounded)).figures["bytes_to_host"] == 4 * 1_048_576 - 5
    # Half a pair: nothing is folded, the half stays raw.
    half = decode_vendor_page(IBM, vendor_log_page(0x32, [(6, (1).to_bytes(4, "big"))]))
    assert "bytes_from_host" not in half.figures and [r.code for r in half.raw] == [6]


def test_ibm_media_efficiency_any_width() -> None:
    for width in (1, 2, 4, 8):
        data = vendor_log_page(0x37, [(1, (0x21).to_bytes(width, "big")), (0x7113, b"\xaa" * 16)])
        page = decode_vendor_page(IBM, data)
        assert page.figures == {"media_efficiency": 0x21}
        assert [r.code for r in page.raw] == [0x7113]
    # The same page on an HP drive is not IBM's: raw.
    assert decode_vendor_page(HP, vendor_log_page(0x37, [(1, b"\x21")])).figures == {}


@given(st.lists(st.integers(0, 0xFFFFFFFF), min_size=12, max_size=12), st.integers(0, (1 << 64) - 1))
@settings(max_examples=50, deadline=None)
def test_quantum_tape_device_statistics_round_trip(counters: list[int], bitmap: int) -> None:
    """Quantum 3Eh as its LTO-3/LTO-4 SCSI reference lays it out: page length 6Ch, 7000h 8 bytes, the rest 4."""
    codes = sorted(QUANTUM_DEVICE_STATISTICS)
    data = vendor_log_page(0x3E, [(0x7000, bitmap.to_bytes(8, "big"))] + [(c, v.to_bytes(4, "big")) for c, v in zip(codes[1:], counters)])
    assert data[2:4] == b"\x00\x6c"
    page = decode_vendor_page(QUANTUM, data)
    assert page.figures == {QUANTUM_DEVICE_STATISTICS[c]: v for c, v in zip(codes, [bitmap, *counters])} and page.raw == ()
    # The same page from an HP or IBM drive is their "device status" page, with no public layout: raw.
    assert decode_vendor_page(IBM, data).figures == {} and len(decode_vendor_page(IBM, data).raw) == 13


def test_every_listed_ibm_page_has_a_name() -> None:
    real_ibm_vendor_pages = (0x30, 0x31, 0x32, 0x33, 0x34, 0x37, 0x38, 0x39, 0x3B, 0x3C, 0x3D)  # issue 15's TD6/TDA list
    for code in real_ibm_vendor_pages:
        assert code in PAGES[IBM]
        assert decode_vendor_page(IBM, vendor_log_page(code, [])).name != "vendor-specific page"


def test_not_a_vendor_page_and_overrun_raise_parse_error() -> None:
    with pytest.raises(ParseError):
        decode_vendor_page(HP, vendor_log_page(0x17, []))
    with pytest.raises(ParseError):
        decode_vendor_page(HP, bytes([0x30, 0, 0, 6, 0, 1, 0, 9, 0, 0]))  # parameter says 9 bytes, page has 2


@given(st.binary(max_size=300), st.sampled_from([HP, IBM, None]))
@settings(max_examples=300, deadline=None)
def test_fuzz_raises_only_parse_error(data: bytes, family: str | None) -> None:
    try:
        page = decode_vendor_page(family, data)
    except ParseError:
        return
    assert page.title
    assert all(isinstance(v, int) for v in page.figures.values())


@given(st.integers(0x30, 0x3E), st.binary(max_size=200), st.sampled_from([HP, IBM, None]))
@settings(max_examples=200, deadline=None)
def test_fuzz_well_framed_pages_keep_every_parameter(code: int, body: bytes, family: str | None) -> None:
    """A well-framed page of random parameters: each parameter is a figure or raw, none is lost."""
    params, pos = [], 0
    while pos + 2 <= len(body):
        n = body[pos] % 12
        params.append((body[pos + 1], body[pos + 2 : pos + 2 + n]))
        pos += 2 + n
    params = list({c: v for c, v in params}.items())
    page = decode_vendor_page(family, vendor_log_page(code, params))
    paired = 8 if code == 0x32 and family is not None else 0  # 32h folds MB/bytes pairs 02h-09h into four figures
    assert len(page.figures) + len(page.raw) >= len(params) - paired


# ---------------------------------------------------------------- sg_logs on the same bytes
needs_sg = pytest.mark.skipif(shutil.which("sg_logs") is None, reason="sg3-utils is not installed")


def _sg_logs(tmp_path: Path, data: bytes) -> str:
    path = tmp_path / "page.hex"
    path.write_text(data.hex(" ") + "\n")
    out = subprocess.run(["sg_logs", "--pdt=1", f"--in={path}", "-M", "lto5"], capture_output=True, text=True, timeout=30)
    return out.stdout + out.stderr


@needs_sg
def test_tape_usage_matches_sg_logs(tmp_path: Path) -> None:
    values = {c: (c * 1_000_003) % (1 << (8 * w)) for c, (_, w) in TAPE_USAGE.items()}
    text = _sg_logs(tmp_path, _usage(values))
    ours = decode_vendor_page(HP, _usage(values)).figures
    for name, _ in TAPE_USAGE.values():
        label = name.replace("_", " ").capitalize()
        m = re.search(rf"{label}: (\d+)", text)
        assert m, (label, text)
        assert int(m.group(1)) == ours[name]


@needs_sg
def test_tape_capacity_matches_sg_logs(tmp_path: Path) -> None:
    data = vendor_log_page(0x31, [(1, (1_400_000).to_bytes(4, "big")), (2, bytes(4)), (3, (1_430_000).to_bytes(4, "big")),
                                  (4, bytes(4))])
    text = _sg_logs(tmp_path, data)
    ours = decode_vendor_page(IBM, data).figures
    assert re.search(r"Main partition remaining capacity \(in MiB\): (\d+)", text).group(1) == str(ours["main_partition_remaining_mib"])  # type: ignore[union-attr]
    assert re.search(r"Main partition maximum capacity \(in MiB\): (\d+)", text).group(1) == str(ours["main_partition_maximum_mib"])  # type: ignore[union-attr]


@needs_sg
def test_vendor_compression_matches_sg_logs(tmp_path: Path) -> None:
    params = [(0, (250).to_bytes(2, "big")), (1, (180).to_bytes(2, "big")), (2, (3).to_bytes(4, "big")),
              (3, (5).to_bytes(4, "big")), (0x100, b"\x01")]
    data = vendor_log_page(0x32, params)
    text = _sg_logs(tmp_path, data)
    ours = decode_vendor_page(HP, data).figures
    assert "Data compression page  (LTO-5 specific) [0x32]" in text or "[0x32]" in text
    assert re.search(r"Read compression ratio x100: (\d+)", text).group(1) == str(ours["read_compression_ratio_x100"])  # type: ignore[union-attr]
    assert re.search(r"Write compression ratio x100: (\d+)", text).group(1) == str(ours["write_compression_ratio_x100"])  # type: ignore[union-attr]
    assert re.search(r"Megabytes transferred to server: (\d+)", text).group(1) == "3"  # type: ignore[union-attr]
    assert ours["bytes_to_host"] == 3 * 1_048_576 + 5

"""One rule for sizes, durations, on/off and generations, and one way of writing numbers (issue 12).

Before issue 12 "1GB" was 10^9 for tape-perf and the virtual drive but 2^30 for create-data,
read-data and the troubleshooter. These tests pin the one parser and then check that every
entry point a technician types into (CLI, GUI field checks, device-string options) agrees.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_USAGE, main
from app.scan.params import ScanParams
from app.tapeperf import TapePerfParams
from native.errors import InvalidParameter
from native.units import (size_input_text, parse_amount, parse_duration, parse_generation, parse_on_off, parse_size, percent, plural,
                          rate_text, size_text)
from native.virtual.options import parse_device

GiB, GB = 1 << 30, 10**9


@pytest.mark.parametrize(("text", "value"), [
    # binary: K/M/G/T, with or without i/iB
    ("1G", GiB), ("1g", GiB), ("1Gi", GiB), ("1GiB", GiB), ("1 gib", GiB), ("256K", 262144), ("256 KiB", 262144),
    ("1M", 1 << 20), ("2T", 2 << 40), ("1.5G", 3 << 29), (" 64k ", 65536),
    # decimal: KB/MB/GB/TB, any case
    ("1GB", GB), ("1gb", GB), ("1 Gb", GB), ("100MB", 10**8), ("4.1MB", 4_100_000), ("1.5GB", 1_500_000_000),
    ("2TB", 2 * 10**12), ("1KB", 1000),
    # plain bytes
    ("4096", 4096), ("4096B", 4096), ("0", 0), (4096, 4096),
])
def test_one_size_rule(text: str | int, value: int) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize(("text", "message"), [
    ("", r"--x is empty"),
    ("   ", r"--x is empty"),
    ("-1", r"--x '-1' is negative"),
    ("-1G", r"--x '-1G' is negative"),
    ("nan", r"--x 'nan' is not a size"),
    ("inf", r"--x 'inf' is not a size"),
    ("1e9", r"--x '1e9' is not a size"),
    ("12Q", r"--x '12Q' is not a size"),
    ("1M2", r"--x '1M2' is not a size"),
    ("G", r"--x 'G' is not a size"),
    ("0.3K", r"--x '0.3K' is not a whole number of bytes \(307.2\)"),
    ("9" * 20, r"--x '9{20}' is more than any disk or cartridge holds"),
])
def test_bad_sizes_are_one_line_naming_the_option(text: str, message: str) -> None:
    with pytest.raises(InvalidParameter, match=message) as err:
        parse_size(text, "--x")
    assert "\n" not in str(err.value)


def test_size_maximum_and_binary_only() -> None:
    with pytest.raises(InvalidParameter, match=r"more than the 1.00 MB allowed"):
        parse_size("2MB", "buffer", maximum=10**6)
    assert parse_size("256K", "block size", binary_only=True) == 262144
    with pytest.raises(InvalidParameter, match=r"'256KB' would be 256,000 bytes \(KB is decimal\).*write 256K for 262,144"):
        parse_size("256KB", "block size", binary_only=True)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90.0), ("10min", 600.0), ("10m", 600.0), ("1.5h", 5400.0),
                                               ("2 hours", 7200.0), ("1HR", 3600.0)])
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "90", "-5s", "10 parsecs", "nans"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(InvalidParameter, match="is not a duration"):
        parse_duration(text, "--limit")


def test_amount_is_a_size_unless_it_says_a_time_unit() -> None:
    assert parse_amount("10m") == (10 << 20, None)  # a bare M is mebibytes, as in block sizes
    assert parse_amount("10min") == (None, 600.0)
    assert parse_amount("1GB") == (GB, None) and parse_amount("1G") == (GiB, None)


@pytest.mark.parametrize(("text", "value"), [("on", True), ("OFF", False), ("yes", True), ("n", False), ("1", True),
                                             ("0", False), (" True ", True)])
def test_on_off(text: str, value: bool) -> None:
    assert parse_on_off(text) is value


def test_on_off_rejects_names_the_option() -> None:
    with pytest.raises(InvalidParameter, match=r"wp 'maybe' is not on or off"):
        parse_on_off("maybe", "wp")


@pytest.mark.parametrize("text", ["LTO-9", "lto9", "9", "LTO9", "LTO 9", "lto_9", "Ultrium 9"])
def test_generation_spellings(text: str) -> None:
    assert parse_generation(text) == 9


def test_generation_range_is_the_callers() -> None:
    assert parse_generation("LTO-4") == 4  # the troubleshooter has LTO-1...10 figures
    with pytest.raises(InvalidParameter, match=r"LTO-4 is not supported.*LTO-5 to LTO-10"):
        parse_generation("LTO-4", supported=(5, 6, 7, 8, 9, 10))  # what the virtual drive models
    for bad in ("LTO-11", "DLT", "", "LTO-"):
        with pytest.raises(InvalidParameter):
            parse_generation(bad)


# -- every entry point agrees --------------------------------------------------------------------------
def _tape_write_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, block: str, size: str) -> int:
    device = f"virtual:lto9?realtime=0&cartridge={tmp_path / name}.cart"
    assert main(["tape-perf", device, "--mode", "variable", "--block-size", block, "--size", size,
                 "--direction", "write", "--pattern", "zeros", "--json"]) == 0
    return json.loads(capsys.readouterr().out)["phases"][0]["bytes"]


def test_tape_perf_cli_writes_what_the_rule_says(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _tape_write_bytes(tmp_path, capsys, "dec", "1KB", "1MB") == 10**6
    assert _tape_write_bytes(tmp_path, capsys, "bin", "1K", "1M") == 1 << 20


def test_create_and_read_data_cli_use_the_same_rule(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for size, expected in (("1KB", 1000), ("1K", 1024)):
        target = tmp_path / size
        assert main(["create-data", str(target), "--depth", "1", "--breadth", "1", "--files", "3", "--size", size,
                     "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["total_bytes"] == 3 * expected
        # --no-evict: Windows' unbuffered reads take only 4K multiples (64KB is refused there, by design)
        assert main(["read-data", str(target), "--buffer", size.replace("1", "64"), "--no-evict", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["buffer_size"] == 64 * expected


def test_every_entry_point_agrees_on_1gb_and_1g(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import build_parser
    from app.cli.create_data import params_from_args
    from app.cli.read_data import params_from_args as read_params
    from app.disk.params import CreateDataParams
    from app.tapeperf.params import FIELDS as TAPE_FIELDS

    def field(fields: tuple, name: str):  # type: ignore[no-untyped-def]
        return next(f for f in fields if f.name == name)

    for text, value in (("1GB", GB), ("1G", GiB)):
        argv = ["create-data", "/nonexistent", "--total-size", text]
        assert params_from_args(build_parser(argv).parse_args(argv)).total_size == value
        argv = ["read-data", "/nonexistent", "--buffer", text]
        assert read_params(build_parser(argv).parse_args(argv)).buffer_size == value
        assert TapePerfParams.from_text({"size": text}).size == value  # tape-perf's CLI and GUI both build this
        assert ScanParams.from_text(limit=text, zone=text) == ScanParams(value, None, value)
        assert parse_device(f"virtual:lto9?capacity={text}&maxfile={text}").capacity == value
        assert field(CreateDataParams.FIELDS, "min_size").check(text) == value  # the GUI's disk fields
        assert field(TAPE_FIELDS, "block_size").check(text) == value  # the GUI's tape fields
        assert field(TAPE_FIELDS, "size").check(text) == (value, None)


def test_troubleshoot_reads_block_sizes_by_the_rule_and_refuses_decimal(capsys: pytest.CaptureFixture[str]) -> None:
    """A tape block of "1MB" (10^6 bytes) is never what a backup application means: refused, not misread."""
    base = ["troubleshoot", "--tape-write", "100", "--backup", "50", "--drive", "LTO-9", "--json", "--no-interactive"]
    assert main([*base, "--block-size", "1M"]) == 0
    assert json.loads(capsys.readouterr().out)["facts"]["block_size_kb"] == 1024
    assert main([*base, "--block-size", "1MB"]) == EXIT_USAGE
    assert "1,000,000 bytes (MB is decimal)" in capsys.readouterr().err


# -- writing numbers ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("count", "word", "text"), [
    (1, "stall", "1 stall"), (2, "stall", "2 stalls"), (0, "stall", "0 stalls"), (1, "directory", "1 directory"),
    (3, "directory", "3 directories"), (2, "day", "2 days"), (1234, "file", "1,234 files"), (2, "I/O", "2 I/Os"),
    (2, "mouse", "2 mice"),
])
def test_plural(count: int, word: str, text: str) -> None:
    assert plural(count, word, "mice" if word == "mouse" else None) == text


def test_rates_are_decimal_with_mib_only_in_parentheses() -> None:
    assert rate_text(451.5) == "451.5 MB/s"
    assert rate_text(1000.0, mib=True) == "1,000 MB/s (953.7 MiB/s)"  # no tenths from 1,000 MB/s on
    assert rate_text(None) == "-" and rate_text(float("nan")) == "-"


def test_sizes_and_percent() -> None:
    assert size_text(GiB, binary=True) == "1.07 GB (1.00 GiB)"
    assert size_text(GB) == "1.00 GB" and size_text(999) == "999 bytes" and size_text(1) == "1 byte"
    assert percent(0.5649) == "56%" and percent(1.0) == "100%" and percent(None) == "-"


def test_disk_text_output_writes_plurals_and_decimal_amounts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's words for a one-stream, one-file run: no "stream(s)", amounts in decimal units."""
    assert main(["create-data", str(tmp_path / "t"), "--depth", "1", "--breadth", "1", "--files", "1",
                 "--size", "2KB"]) == 0
    out = capsys.readouterr().out
    assert "1 stream," in out and "(s)" not in out
    assert "total: 1 file, 2.00 KB in " in out and "    stream 1: 1 file, 2.00 KB, " in out


@pytest.mark.parametrize(("seconds", "text"), [
    (0.0141, "14.1 ms"), (6.24, "6.2 s"), (9.96, "10 s"), (42.3, "42 s"), (65.0, "1 min 05 s"), (900, "15 min"),
    (3720, "1 h 02 min"), (10800, "3 h"), (None, "-"), (float("nan"), "-")])
def test_one_duration_format_for_every_front_end(seconds: float | None, text: str) -> None:
    """Issue 26 §5: one figure, one way (it was '65.0 s' in the PDF, '1 min 05 s' in the GUI, '1m05s' in the CLI)."""
    from app.runs.words import duration
    from native.units import duration_text
    from ui.format import human_duration

    assert duration_text(seconds) == text
    if seconds is not None and seconds == seconds:
        assert duration(seconds) == human_duration(seconds) == text


@pytest.mark.parametrize(("nbytes", "typed"), [(134217728, "128M"), (4 << 30, "4G"), (10**9, "1GB"), (262144, "256K"),
                                               (80_000, "80KB"), (80_001, "80001"), (3 << 40, "3T")])
def test_a_stored_size_is_shown_as_typed_and_reads_back_to_the_same_bytes(nbytes: int, typed: str) -> None:
    assert size_input_text(nbytes) == typed and parse_size(typed) == nbytes

"""Tape performance parameters: parsing, and every rejection made before any write."""
from __future__ import annotations

import pytest

from app.patterns import Pattern
from native.scsi.tape import BlockLimits
from app.tapeperf import TapePerfParams, parse_direction
from app.tapeperf.sizing import AUTO
from native.units import parse_amount, parse_size  # tape-perf reads sizes with the one parser (issue 12)
from native.errors import InvalidParameter

LIMITS = BlockLimits(granularity=0, max_length=1 << 20, min_length=1)


@pytest.mark.parametrize(
    ("text", "value"),
    [("262144", 262144), ("256K", 262144), ("256k", 262144), ("1M", 1 << 20), ("1MiB", 1 << 20), ("32G", 32 << 30),
     ("1.5GB", 1_500_000_000), ("100MB", 100_000_000), ("64KiB", 65536)],
)
def test_parse_size(text: str, value: int) -> None:
    assert parse_size(text) == value


@pytest.mark.parametrize("text", ["", "abc", "12Q", "-5", "1M2"])
def test_parse_size_rejects(text: str) -> None:
    with pytest.raises(InvalidParameter):
        parse_size(text)


def test_parse_amount_is_bytes_or_a_duration() -> None:
    assert parse_amount("32G") == (32 << 30, None)
    assert parse_amount("10min") == (None, 600.0)
    assert parse_amount("10m") == (10 << 20, None)  # a bare M is a size, as for block sizes
    assert parse_amount("90s") == (None, 90.0)
    assert parse_amount("1h") == (None, 3600.0)


@pytest.mark.parametrize(("text", "value"), [("write", "write"), ("read", "read"), ("write,read", "write+read"),
                                            ("write+read", "write+read"), ("both", "write+read")])
def test_parse_direction(text: str, value: str) -> None:
    assert parse_direction(text) == value


def test_white_paper_defaults_are_valid() -> None:
    p = TapePerfParams(pattern=Pattern.parse("2:1"), block_size=256 << 10, io_size=1 << 20, size=32 << 30)
    assert p.problems(LIMITS) == []
    p.validate(LIMITS)


def test_hpux_form_maps_onto_fixed_mode() -> None:
    p = TapePerfParams.from_hpux(256 << 10, 4, 100)
    assert (p.mode, p.block_size, p.io_size, p.size) == ("fixed", 256 << 10, 1 << 20, 100 << 20)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        (dict(block_size=2 << 20, io_size=2 << 20), "above the drive's maximum"),
        (dict(block_size=256 << 10, io_size=1000 << 10), "must be a multiple of the block size"),
        (dict(size=1000), "smaller than one I/O"),
        (dict(mode="variable", block_size=64 << 10, io_size=128 << 10), "each I/O is one block"),
        (dict(filemarks_every=4096), "less than one I/O"),
        (dict(direction="write", verify=True), "verify needs a read phase"),
        (dict(history=1000), "power of two"),
        (dict(mode="striped"), "not fixed or variable"),
    ],
)
def test_each_problem_gets_one_clear_message(kwargs: dict, words: str) -> None:
    p = TapePerfParams(**kwargs)
    problems = p.problems(LIMITS)
    assert len(problems) == 1 and words in problems[0]
    with pytest.raises(InvalidParameter, match=words):
        p.validate(LIMITS)


def test_no_size_and_no_duration_is_the_default_size_not_a_problem() -> None:
    """Neither: the size that can judge the drive (app.tapeperf.sizing), chosen on the drive. The CLI's
    --size default and the GUI field's text are that one declaration, "auto"."""
    assert TapePerfParams(size=None, duration=None).problems(LIMITS) == []
    assert TapePerfParams().size is None and TapePerfParams().duration is None
    for text in (AUTO, "Auto", " auto "):
        p = TapePerfParams.from_text({"size": text})
        assert (p.size, p.duration) == (None, None)
    assert (TapePerfParams.from_text({}).size, TapePerfParams.from_text({}).duration) == (None, None)


def test_block_limits_minimum_and_granularity() -> None:
    limits = BlockLimits(granularity=2, max_length=1 << 20, min_length=1024)
    p = TapePerfParams(mode="variable", block_size=1022, io_size=1022, size=1 << 20)
    found = p.problems(limits)
    assert any("below the drive's minimum" in x for x in found)
    assert any("granularity" in x for x in found)
    with pytest.raises(InvalidParameter, match="and 1 more problem"):
        p.validate(limits)


def test_to_dict_is_json_safe() -> None:
    import json

    d = TapePerfParams(pattern=Pattern.parse("4.3:1")).to_dict()
    assert d["pattern"] == "4.3:1"
    json.dumps(d)


def test_from_text_is_the_one_conversion_for_cli_and_gui() -> None:
    p = TapePerfParams.from_text({"direction": "write,read", "pattern": "4.3:1", "block_size": "256K", "mode": "fixed",
                                  "io_size": "1M", "size": "32G", "filemarks_every": "0", "compression": "on",
                                  "start": "bot", "verify": True})
    assert (p.direction, p.pattern.name, p.block_size, p.io_size, p.size, p.compression, p.verify) == (
        "write+read", "4.3:1", 256 << 10, 1 << 20, 32 << 30, "on", True)
    v = TapePerfParams.from_text({"mode": "variable", "block_size": "64K", "size": "90s"})
    assert (v.io_size, v.size, v.duration) == (64 << 10, None, 90.0)
    with pytest.raises(InvalidParameter):
        TapePerfParams.from_text({"pattern": "lots"})

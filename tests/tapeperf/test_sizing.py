"""The default size that can judge the drive, and the cartridge's capacity as the cap (issue 25 §6).

The rule (``app.tapeperf.sizing``) is checked on its own figures; the CLI run with no
size is checked on a real-time virtual LTO-9 to judge the drive (no "too short" verdict),
and the cartridge file is checked never to grow past its capacity plus its overhead.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import main
from app.drive import TapeDrive
from app.patterns import Pattern
from app.tapeperf import TapePerfParams
from app.tapeperf.rated import BUFFER_MIB
from app.tapeperf.sizing import AUTO, BUFFERS, EARLY_WARNING_SHARE, JUDGE_SECONDS, UNKNOWN_BYTES, plan
from native import sldc
from native.virtual.cartridge import file_bound

GiB, MiB = 1 << 30, 1 << 20


def test_auto_is_a_minute_at_the_possible_rate_when_the_cartridge_allows() -> None:
    p = plan(TapePerfParams(), generation=9, capacity=None)  # 2:1 data on LTO-9: 800 MB/s possible
    assert p.auto and p.size == int(JUDGE_SECONDS * 800e6) // MiB * MiB
    assert p.why == "48.0 GB: auto, a minute at 800 MB/s possible for 2:1 data on LTO-9; the cartridge reports no capacity"
    incompressible = plan(TapePerfParams(pattern=Pattern.parse("random")), generation=5, capacity=None)
    assert incompressible.size == int(60 * 140e6) // MiB * MiB  # LTO-5 native 140 MB/s


def test_auto_is_always_more_than_twice_the_buffer_for_every_generation_and_pattern() -> None:
    """The limiter calls a write of no more than twice the buffer "not steady"; the default never is."""
    for gen, buffer_mib in BUFFER_MIB.items():
        for pattern in ("zeros", "random", "2:1", "10:1"):
            for compression in ("on", "off"):
                params = TapePerfParams(pattern=Pattern.parse(pattern), compression=compression)
                size = plan(params, generation=gen, capacity=None).size
                assert size is not None and size >= BUFFERS * buffer_mib * MiB - MiB > 2 * buffer_mib * MiB, gen


def test_auto_is_capped_by_what_the_cartridge_holds() -> None:
    p = plan(TapePerfParams(), generation=9, capacity=8 * GiB, capacity_from="MAM 0001h, maximum capacity")
    room = int(8 * GiB * (1 - EARLY_WARNING_SHARE)) // MiB * MiB
    assert p.size == room > 2 * BUFFER_MIB[9] * MiB  # 8.16 GB: still more than twice the 1 GiB buffer
    assert p.why == ("8.16 GB: auto, the cartridge holds 8.59 GB (MAM 0001h, maximum capacity), less 5% for its "
                     "early-warning zone")
    small = plan(TapePerfParams(), generation=9, capacity=64 * MiB, capacity_from="MAM 0001h, maximum capacity")
    assert small.size == 60 * MiB and "too little to judge the drive (it needs more than twice its 1,024 MiB " \
                                      "buffer)" in small.why


def test_an_explicit_size_that_does_not_fit_is_capped_and_one_that_fits_is_kept() -> None:
    big = plan(TapePerfParams(size=32 * GiB), generation=9, capacity=8 * GiB, capacity_from="MAM")
    assert big.capped and big.size == int(8 * GiB * 0.95) // MiB * MiB and not big.auto
    assert big.why.startswith("8.16 GB: the 34.4 GB (32 GiB) asked for does not fit, the cartridge holds 8.59 GB")
    fits = plan(TapePerfParams(size=GiB), generation=9, capacity=8 * GiB)
    assert (fits.size, fits.capped) == (GiB, False) and fits.why == "1.07 GB: as asked; fits the cartridge (it holds 8.59 GB)"
    timed = plan(TapePerfParams(size=None, duration=90.0), generation=9, capacity=8 * GiB)
    assert timed.size is None and timed.why == "for the duration asked; the cartridge's end ends it sooner (it holds 8.59 GB)"


def test_an_unknown_drive_gets_the_old_gibibyte() -> None:
    p = plan(TapePerfParams(), generation=None, capacity=None)
    assert p.size == UNKNOWN_BYTES and "generation is unknown" in p.why


def test_help_says_what_the_default_is(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["tape-perf", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert f"or {AUTO} (the default): about a minute at the rate the drive can reach with this data and at least " \
           "2.5 x its buffer (LTO-9, 2:1 data: 48.0 GB), at most 95% of what the cartridge holds" in text


def test_tape_perf_with_no_size_judges_the_drive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A real-time virtual LTO-9 with a 3 GiB cartridge: auto writes 95% of it (2.85 GiB, more than twice the
    1 GiB buffer) and every phase gets a verdict on what limited it, never "too short to judge"."""
    dev = f"virtual:lto9?capacity=3G&cartridge={tmp_path / 'c.cart'}"
    assert main(["tape-perf", dev, "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["size_plan"]["auto"] and res["size_plan"]["size"] == int(3 * GiB * 0.95) // MiB * MiB
    for phase in res["phases"]:
        assert phase["bytes"] == res["size_plan"]["size"] and phase["limited_by"] != "not steady", phase
    assert any(m.startswith("size 3.06 GB: auto, the cartridge holds 3.22 GB") for m in res["messages"])


def test_a_size_the_cartridge_cannot_take_is_capped_before_the_write(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    dev = f"virtual:lto9?realtime=0&capacity=64M&cartridge={tmp_path / 'c.cart'}"
    assert main(["tape-perf", dev, "--size", "32G", "--direction", "write"]) == 0
    out = capsys.readouterr().out
    assert "size 62.9 MB: the 34.4 GB (32 GiB) asked for does not fit, the cartridge holds 67.1 MB" in out
    assert "62.9 MB in" in out and "ended: size reached" in out


def test_the_cartridge_file_never_grows_past_its_capacity(tmp_path: Path) -> None:
    """2:1 data written straight to the drive until it says the medium is full: the file holds at most the
    capacity in records (an 8 GiB cartridge's file went past 14.9 GB before, issue 25), plus its overhead."""
    cart, capacity = tmp_path / "c.cart", 32 * MiB
    gen = Pattern.parse("2:1").generator(256 << 10, sldc.HISTORY_LTO6_PLUS, 0, 8 * MiB)
    records = written = 0
    with TapeDrive.open(f"virtual:lto9?realtime=0&capacity={capacity}&cartridge={cart}") as drive:
        drive.set_block_size(0)
        buf = bytearray(256 << 10)
        for block in range(10_000):
            gen.filler(buf, block)
            out = drive.write(buf)
            records += 1
            written += len(buf) - max(out.residual, 0)
            if out.eom_warning or out.residual:
                break
        drive.write_filemarks(1)
        records += 1
        tape_left_mib = drive.read_attributes().remaining_capacity_mib
    assert 0.9 * capacity < written <= capacity  # the file's budget ended it at the capacity of host data, not 2x
    assert tape_left_mib is not None and tape_left_mib * MiB > capacity / 3  # 2:1: the tape itself was half full
    assert os.path.getsize(cart) <= file_bound(capacity, records)

"""The engine against a real tgtd tape LUN over libiscsi: the blocks land on tape as asked.

tgt keeps the tape in a file whose block headers ``tgtimg --op show`` lists
(``TgtTarget.data_blocks()``): number, size and filemarks are checked there, not
through the engine's own counters.
"""
from __future__ import annotations

import pytest

from app.drive import TapeDrive
from app.patterns import Pattern
from app.tapeperf import TapePerfParams
from native.errors import InvalidParameter, SafetyRefusal
from tests.tapeperf.conftest import run_test

pytestmark = pytest.mark.tgt

KiB, MiB = 1 << 10, 1 << 20


def _records(target) -> list[tuple[str, int]]:
    return [tuple(r) for r in target.data_blocks()]


def test_fixed_mode_write_read_verify(tgt_target) -> None:
    p = TapePerfParams(direction="write+read", pattern=Pattern.parse("2:1"), block_size=64 * KiB, io_size=256 * KiB,
                       size=2 * MiB, verify=True, compression="on")
    with TapeDrive.open(tgt_target.url) as drive:
        r = run_test(drive, p)
    assert r.status == "complete", r.error
    w, rd = r.phase("write"), r.phase("read")
    assert (w.ios, w.blocks, w.filemarks) == (8, 32, 1)
    assert (rd.bytes, rd.blocks, rd.filemarks, rd.end_reason) == (2 * MiB, 32, 1, "filemark")
    assert (rd.verified_blocks, rd.verify_errors) == (32, 0)
    assert _records(tgt_target) == [("DATA", 64 * KiB)] * 32 + [("FILEMARK", 0)]
    # tgt has no compression page to set and no log pages: said, not failed.
    assert any("compression left" in m for m in r.messages)
    assert any("not supported" in n for n in r.log_notes) and r.drive_ratio is None


def test_variable_mode_with_filemarks(tgt_target) -> None:
    p = TapePerfParams(direction="write+read", mode="variable", block_size=32 * KiB, io_size=32 * KiB, size=1 * MiB,
                       filemarks_every=256 * KiB, verify=True, pattern=Pattern.parse("random"))
    with TapeDrive.open(tgt_target.url) as drive:
        r = run_test(drive, p)
    assert r.status == "complete", r.error
    assert (r.phase("read").filemarks, r.phase("read").verified_blocks) == (4, 32)
    assert _records(tgt_target) == ([("DATA", 32 * KiB)] * 8 + [("FILEMARK", 0)]) * 4


def test_append_at_eod_and_read_back_only_the_new_file(tgt_target) -> None:
    with TapeDrive.open(tgt_target.url) as drive:
        run_test(drive, TapePerfParams(direction="write", block_size=128 * KiB, io_size=128 * KiB, mode="variable",
                                       size=512 * KiB))
        r = run_test(drive, TapePerfParams(direction="write+read", start="eod", size=1 * MiB, verify=True, seed=3))
    assert r.status == "complete", r.error
    assert (r.phase("read").bytes, r.phase("read").verified_blocks) == (1 * MiB, 4)
    assert _records(tgt_target) == [("DATA", 128 * KiB)] * 4 + [("FILEMARK", 0)] + [("DATA", 256 * KiB)] * 4 + [
        ("FILEMARK", 0)]


def test_data_on_tape_is_refused_and_left_alone(tgt_target) -> None:
    with TapeDrive.open(tgt_target.url) as drive:
        run_test(drive, TapePerfParams(direction="write", size=1 * MiB))
        before = _records(tgt_target)
        with pytest.raises(SafetyRefusal, match="the cartridge holds data: a block at BOT of 256 KiB") as info:
            run_test(drive, TapePerfParams(direction="write", size=2 * MiB, pattern=Pattern.parse("zeros")))
    assert info.value.overridable
    assert _records(tgt_target) == before == [("DATA", 256 * KiB)] * 4 + [("FILEMARK", 0)]


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [(dict(block_size=2 * MiB, io_size=2 * MiB), "above the drive's maximum"),
     (dict(block_size=256 * KiB, io_size=640 * KiB), "multiple of the block size"),
     (dict(size=100 * KiB), "smaller than one I/O")],
)
def test_bad_parameters_leave_the_tape_untouched(tgt_target, kwargs: dict, words: str) -> None:
    with TapeDrive.open(tgt_target.url) as drive:
        with pytest.raises(InvalidParameter, match=words):
            run_test(drive, TapePerfParams(direction="write", force=True, **kwargs))
    assert _records(tgt_target) == []


def test_a_target_that_dies_mid_write_ends_the_run_cleanly(tgt_factory) -> None:
    import time

    from tests.helpers.stopping import grown, kill_when

    target = tgt_factory(size_mb=4096)
    size = target.cartridge_path.stat().st_size
    with TapeDrive.open(target.url) as drive, kill_when(target, grown(target.cartridge_path, size, 4 * MiB)):
        t0 = time.monotonic()
        r = run_test(drive, TapePerfParams(direction="write+read", size=None, duration=30.0, block_size=64 * KiB,
                                           io_size=64 * KiB, mode="variable", pattern=Pattern.parse("random")))
        took = time.monotonic() - t0
    w = r.phase("write")
    assert r.status == "failed" and w.end_reason == "error" and w.bytes > 0
    assert "lost" in r.error.lower() or "connection" in r.error.lower(), r.error
    assert r.phase("read") is None and took < 25


def test_read_only_crosses_filemarks_and_stops_at_end_of_data(tgt_target) -> None:
    # Variable mode: in fixed mode tgt answers a READ at EOD with MEDIUM ERROR 31/00
    # instead of BLANK CHECK (a tgt quirk; a real drive says BLANK CHECK 00/05).
    kw = dict(mode="variable", block_size=256 * KiB, io_size=256 * KiB, filemarks_every=512 * KiB, seed=4)
    with TapeDrive.open(tgt_target.url) as drive:
        run_test(drive, TapePerfParams(direction="write", size=2 * MiB, **kw))
        # A read-only test that expects filemarks reads across them to EOD (tgt: BLANK CHECK + EOM).
        r = run_test(drive, TapePerfParams(direction="read", size=64 * MiB, verify=True, **kw))
    rd = r.phase("read")
    assert r.status == "complete" and rd.end_reason == "end of data", r.error
    assert (rd.bytes, rd.filemarks, rd.verified_blocks, rd.verify_errors) == (2 * MiB, 4, 8, 0)
    assert _records(tgt_target) == ([("DATA", 256 * KiB)] * 2 + [("FILEMARK", 0)]) * 4

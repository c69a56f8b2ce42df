"""The tape performance engine against the virtual drive: phases, verify, safety, faults."""
from __future__ import annotations

import threading
import time

import pytest

from app.drive import TapeDrive
from app.events import CancelToken, PhaseFinished, PhaseStarted, Progress, RatedRates, SampleBatch, Yardstick
from app.patterns import Pattern
from app.tapeperf import TapePerfParams, TapePerfTest
from native.errors import InvalidParameter, SafetyRefusal
from tests.helpers.faults import (
    FaultyTransport,
    connection_lost,
    hardware_error,
    medium_error_read,
    medium_error_write,
    timeout,
)
from tests.tapeperf.conftest import POOL, blank_at_bot, run_test

MiB = 1 << 20


def test_write_then_verified_read_back(lto9: TapeDrive) -> None:
    events: list = []
    p = TapePerfParams(direction="write+read", pattern=Pattern.parse("2:1"), size=16 * MiB, verify=True)
    r = run_test(lto9, p, events)
    assert r.status == "complete", r.error
    w, rd = r.phase("write"), r.phase("read")
    assert (w.bytes, w.ios, w.blocks, w.filemarks, w.end_reason) == (16 * MiB, 16, 64, 1, "size reached")
    assert (rd.bytes, rd.blocks, rd.filemarks, rd.end_reason) == (16 * MiB, 64, 1, "filemark")
    assert (rd.verified_blocks, rd.verify_errors) == (64, 0)
    assert r.generation == 9 and r.history == 16384
    assert r.predicted_ratio == pytest.approx(2.0, rel=0.02)
    # The drive's own compression page agrees with the pattern model.
    assert r.drive_ratio == pytest.approx(r.predicted_ratio, rel=0.05)
    # Events: the drive's rated rates once, then the yardstick its verdict judges against, both before any
    # write; then each phase starts, streams samples, finishes; samples add up to the bytes moved.
    kinds = [type(e) for e in events]
    assert kinds[0] is RatedRates and kinds.count(RatedRates) == 1
    assert events[0] == RatedRates(9, r.rated_native_mb_s, r.rated_compressed_mb_s) and r.rated_native_mb_s
    stored = r.to_dict()
    assert events[1] == Yardstick(stored["possible_mb_s"], stored["possible_label"]) and kinds.count(Yardstick) == 1
    assert kinds[2] is PhaseStarted and PhaseFinished in kinds and SampleBatch in kinds and Progress in kinds
    sampled = sum(s.nbytes for e in events if isinstance(e, SampleBatch) for s in e.samples)
    assert sampled == 32 * MiB == sum(s.nbytes for s in r.samples)
    assert all(s.latency > 0 for s in r.samples)
    assert r.phases[0].latency_p50 is not None and r.phases[0].latency_max >= r.phases[0].latency_p99
    d = r.to_dict()
    assert d["write_mb_s"] > 0 and d["phases"][1]["verified_blocks"] == 64


def test_verify_catches_data_that_differs(lto9: TapeDrive) -> None:
    """Read-only verify with another seed: every block differs from what that seed makes."""
    run_test(lto9, TapePerfParams(direction="write", pattern=Pattern.parse("random"), size=4 * MiB))
    r = run_test(lto9, TapePerfParams(direction="read", pattern=Pattern.parse("random"), size=4 * MiB, verify=True, seed=99))
    rd = r.phase("read")
    assert rd.verify_errors == 16 and rd.verified_blocks == 0
    assert "block 0 differs" in rd.first_verify_error
    same = run_test(lto9, TapePerfParams(direction="read", pattern=Pattern.parse("random"), size=4 * MiB, verify=True))
    assert (same.phase("read").verified_blocks, same.phase("read").verify_errors) == (16, 0)


def test_variable_mode_with_filemarks(lto9: TapeDrive) -> None:
    p = TapePerfParams(direction="write+read", mode="variable", block_size=64 << 10, io_size=64 << 10,
                       size=4 * MiB, filemarks_every=1 * MiB, verify=True, pattern=Pattern.parse("4.3:1"))
    r = run_test(lto9, p)
    w, rd = r.phase("write"), r.phase("read")
    assert (w.ios, w.blocks, w.filemarks) == (64, 64, 4)  # a filemark after each MiB, none doubled at the end
    assert (rd.blocks, rd.filemarks, rd.verified_blocks, rd.verify_errors) == (64, 4, 64, 0)


def test_duration_bounds_the_write(lto9: TapeDrive) -> None:
    p = TapePerfParams(direction="write", size=None, duration=0.3, pattern=Pattern.parse("random"))
    r = run_test(lto9, p)
    w = r.phase("write")
    assert w.end_reason == "duration reached" and w.bytes > 0 and 0.25 < w.elapsed < 3


def test_append_at_eod_keeps_what_is_there(lto9: TapeDrive) -> None:
    run_test(lto9, TapePerfParams(direction="write", size=2 * MiB))
    # Appending destroys nothing: no --force needed, and the read-back reads only the new file.
    r = run_test(lto9, TapePerfParams(direction="write+read", start="eod", size=3 * MiB, verify=True))
    assert r.status == "complete"
    assert r.phase("read").bytes == 3 * MiB and r.phase("read").verified_blocks == 12
    lto9.rewind()
    lto9.set_block_size(0)
    assert lto9.read(bytearray(MiB)).nbytes == 256 << 10  # the first test's data is still at BOT


def test_append_read_back_without_read_position_spaces_over_filemarks(lto9: TapeDrive) -> None:
    """A drive without READ POSITION/LOCATE (as tgt): the read-back finds the start by filemarks."""
    from tests.helpers.faults import check_condition

    run_test(lto9, TapePerfParams(direction="write", size=2 * MiB))
    faulty = FaultyTransport(lto9.transport)
    for opcode in (0x34, 0x2B, 0x92):  # READ POSITION, LOCATE(10), LOCATE(16)
        faulty.inject(check_condition(0x5, 0x20, 0x00, "invalid opcode"), opcode=opcode, times=None)
    p = TapePerfParams(direction="write+read", start="eod", size=3 * MiB, filemarks_every=1 * MiB, verify=True, seed=5)
    r = run_test(TapeDrive(faulty), p)
    rd = r.phase("read")
    assert r.status == "complete", r.error
    assert (rd.bytes, rd.filemarks, rd.verified_blocks, rd.verify_errors) == (3 * MiB, 3, 12, 0)


def test_data_on_tape_is_refused_unless_forced(lto9: TapeDrive) -> None:
    run_test(lto9, TapePerfParams(direction="write", size=2 * MiB))
    with pytest.raises(SafetyRefusal) as info:
        run_test(lto9, TapePerfParams(direction="write", size=2 * MiB))
    assert info.value.overridable
    assert "the cartridge holds data: a block at BOT of 256 KiB" in str(info.value)
    assert "MB written in its life" in str(info.value)
    r = run_test(lto9, TapePerfParams(direction="write", size=2 * MiB, force=True))
    assert r.status == "complete" and any("overwriting" in m for m in r.messages)


def test_filemark_at_bot_counts_as_data(lto9: TapeDrive) -> None:
    lto9.rewind()
    lto9.write_filemarks(1)
    with pytest.raises(SafetyRefusal, match="a filemark at BOT"):
        run_test(lto9, TapePerfParams(direction="write", size=2 * MiB))


@pytest.mark.parametrize(("option", "words"), [("wp=1", "write-protected"), ("worm=1", "WORM")])
def test_write_protect_and_worm_are_refused_even_forced(option: str, words: str) -> None:
    with TapeDrive.open(f"virtual:lto9?realtime=0&{option}") as drive:
        with pytest.raises(SafetyRefusal, match=words) as info:
            run_test(drive, TapePerfParams(direction="write", size=2 * MiB, force=True))
        assert not info.value.overridable
        assert blank_at_bot(drive)


def test_read_only_test_runs_on_a_write_protected_cartridge(tmp_path) -> None:
    cart = tmp_path / "c.cart"
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}") as drive:
        run_test(drive, TapePerfParams(direction="write", size=2 * MiB))
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}&wp=1") as drive:
        r = run_test(drive, TapePerfParams(direction="read", size=64 * MiB, verify=True))
    rd = r.phase("read")
    assert r.status == "complete" and rd.end_reason == "filemark" and rd.verified_blocks == 8
    assert r.drive_ratio == pytest.approx(2.0, rel=0.05)  # the read side of the compression page


def test_a_read_without_verify_builds_no_pattern(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Issue 32.4: a read-only run spent 0.3 s of CPU calibrating 2:1 data against the SLDC model that it
    # never writes. Without --verify it builds no pattern at all; with --verify it must build one.
    from app import patterns

    cart = tmp_path / "c.cart"
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}") as drive:
        run_test(drive, TapePerfParams(direction="write", size=4 * MiB, pattern=Pattern.parse("3:1")))
    patterns.clear_pool_cache()
    built: list[str] = []
    real_build = patterns._build
    monkeypatch.setattr(patterns, "_build", lambda pattern, *a: built.append(pattern.name) or real_build(pattern, *a))
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}") as drive:
        r = run_test(drive, TapePerfParams(direction="read", size=4 * MiB, pattern=Pattern.parse("3:1")))
        assert r.status == "complete" and r.phase("read").bytes == 4 * MiB and built == []
        assert r.predicted_ratio == 3.0 and r.possible.label == "1,200 MB/s possible for 3:1 data on LTO-9"
        r = run_test(drive, TapePerfParams(direction="read", size=4 * MiB, pattern=Pattern.parse("3:1"), verify=True))
        assert built == ["3:1"] and r.phase("read").verified_blocks == 16


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [(dict(block_size=32 << 20, io_size=32 << 20), "above the drive's maximum"),
     (dict(io_size=1000 << 10), "multiple of the block size"),
     (dict(size=1000), "smaller than one I/O")],
)
def test_bad_parameters_are_rejected_before_any_write(lto9: TapeDrive, kwargs: dict, words: str) -> None:
    with pytest.raises(InvalidParameter, match=words):
        run_test(lto9, TapePerfParams(direction="write", force=True, **kwargs))
    assert blank_at_bot(lto9)


def test_early_warning_ends_the_write_as_capacity_reached() -> None:
    with TapeDrive.open("virtual:lto9?realtime=0&capacity=8M&ew=2M") as drive:
        r = run_test(drive, TapePerfParams(direction="write+read", pattern=Pattern.parse("random"), size=64 * MiB,
                                           verify=True))
    w = r.phase("write")
    assert r.status == "complete" and w.end_reason == "capacity reached" and w.error is None
    assert 4 * MiB <= w.bytes < 8 * MiB
    assert r.phase("read").bytes == w.bytes and r.phase("read").verify_errors == 0


def test_a_write_smaller_than_the_buffer_is_not_faster_than_the_drive() -> None:
    # 48 MiB of random data into LTO-5's 256 MiB buffer goes in at the link's speed; the data is
    # only on tape once the closing filemark has flushed it. Real time: about 0.35 s at 140 MB/s.
    # How long the WRITEs took is the host's (a loaded machine sends them slower, while the tape may
    # already be writing); what they left of the tape's time, the closing filemark waits for.
    with TapeDrive.open("virtual:lto5") as drive:
        r = run_test(drive, TapePerfParams(direction="write", pattern=Pattern.parse("random"), size=48 * MiB))
    w = r.phase("write")
    assert w.flush_seconds is not None and w.streaming_seconds is not None
    tape = 48 * MiB / (140e6 * 1.10)  # the least time LTO-5 needs to put 48 MiB on tape
    writes = w.streaming_seconds - w.flush_seconds
    assert w.flush_seconds >= tape - writes, (w.flush_seconds, writes)
    assert w.streaming_mb_per_s is not None and w.streaming_mb_per_s <= 140 * 1.10
    assert r.percent_of_possible(w) is not None and r.percent_of_possible(w) <= 110


def test_cancel_stops_within_one_io_and_keeps_partial_results() -> None:
    # Cancelled from another thread, as the GUI's Stop button does, once 4 MiB are written (progress, not a
    # time: a loaded machine can take longer than any chosen delay to start writing).
    cancel, writing = CancelToken(), threading.Event()
    cancelled_at: list[float] = []

    def sink(event) -> None:
        if isinstance(event, Progress) and event.phase == "write" and event.done_bytes >= 4 * MiB:
            writing.set()

    def stop_button() -> None:
        if writing.wait(60):
            cancelled_at.append(time.monotonic())
            cancel.cancel()

    with TapeDrive.open("virtual:lto5?buffer=4M") as drive:  # real time: 140 MB/s
        threading.Thread(target=stop_button, daemon=True).start()
        p = TapePerfParams(direction="write+read", pattern=Pattern.parse("random"), size=None, duration=60.0)
        r = TapePerfTest(drive, p, pool_bytes=POOL).run(sink, cancel)
        returned = time.monotonic()
    assert r.status == "cancelled" and r.phase("write").end_reason == "cancelled"
    assert r.phase("read") is None  # a cancelled test does not go on to the next phase
    assert r.phase("write").bytes >= 4 * MiB and r.samples
    assert returned - cancelled_at[0] < 10  # not the 60 s asked for (one I/O is ~8 ms)


@pytest.mark.parametrize(
    ("fault", "opcode", "words"),
    [(medium_error_write, 0x0A, "MEDIUM ERROR"), (hardware_error, 0x0A, "HARDWARE ERROR"),
     (connection_lost, 0x0A, "connection to the device was lost")],
)
def test_mid_write_faults_stop_cleanly_with_the_cause(fault, opcode: int, words: str) -> None:
    inner = TapeDrive.open("virtual:lto9?realtime=0").transport
    faulty = FaultyTransport(inner)
    faulty.inject(fault(), opcode=opcode, after=5, times=1)
    with TapeDrive(faulty, device="faulty:lto9") as drive:
        r = run_test(drive, TapePerfParams(direction="write+read", size=16 * MiB))
    w = r.phase("write")
    assert r.status == "failed" and w.end_reason == "error"
    assert words.lower() in r.error.lower() and words.lower() in w.error.lower()
    assert w.bytes == 5 * MiB and w.ios == 5  # partial results kept
    assert r.phase("read") is None


def test_medium_error_on_read_back(lto9: TapeDrive) -> None:
    faulty = FaultyTransport(lto9.transport)
    faulty.inject(medium_error_read(), opcode=0x08, after=4, times=1)  # the safety probe's READ, then 3 I/Os
    r = run_test(TapeDrive(faulty), TapePerfParams(direction="write+read", size=8 * MiB, verify=True))
    assert r.status == "failed" and "read failed after 3145728 bytes" in r.error
    assert r.phase("write").bytes == 8 * MiB and r.phase("read").verified_blocks == 12


def test_log_pages_the_drive_lacks_are_not_supported_not_failures(lto9: TapeDrive) -> None:
    faulty = FaultyTransport(lto9.transport)
    from tests.helpers.faults import check_condition

    faulty.inject(check_condition(0x5, 0x20, 0x00, "invalid opcode"), opcode=0x4D, times=None)  # no LOG SENSE at all
    r = run_test(TapeDrive(faulty), TapePerfParams(direction="write", size=2 * MiB))
    assert r.status == "complete"
    assert any("data compression (0x1B): not supported" in n for n in r.log_notes)
    assert r.drive_ratio is None and r.tapealert == []


def test_physical_end_of_medium_mid_write_stops_with_the_cause() -> None:
    from tests.helpers.faults import check_condition

    faulty = FaultyTransport(TapeDrive.open("virtual:lto9?realtime=0").transport)
    faulty.inject(check_condition(0xD, 0x00, 0x02, "VOLUME OVERFLOW end of partition", eom=True), opcode=0x0A, after=3)
    with TapeDrive(faulty) as drive:
        r = run_test(drive, TapePerfParams(direction="write+read", size=16 * MiB))
    assert r.status == "failed" and r.phase("write").bytes == 3 * MiB
    assert "VOLUME OVERFLOW" in r.error.upper()


def test_cancel_from_the_sink_stops_before_the_next_io() -> None:
    """Cancelled while the engine publishes: not one more WRITE is issued."""
    cancel = CancelToken()
    seen: list[int] = []

    def sink(event) -> None:
        if isinstance(event, SampleBatch) and not cancel.cancelled:
            seen.append(len(event.samples))
            cancel.cancel()

    with TapeDrive.open("virtual:lto5?buffer=4M") as drive:
        from tests.tapeperf.conftest import POOL
        from app.tapeperf import TapePerfTest

        r = TapePerfTest(drive, TapePerfParams(direction="write", size=None, duration=30.0), pool_bytes=POOL).run(sink, cancel)
    assert r.status == "cancelled" and r.phase("write").ios == seen[0] == len(r.samples)


@pytest.mark.parametrize("fault", [timeout, connection_lost])
def test_after_a_timeout_or_a_lost_connection_nothing_more_is_sent(fault) -> None:
    """A stuck WRITE ends the run with what was measured, and no command follows it (issue 14.9):
    a LOG SENSE on a stuck path would wait out its own timeout again."""
    inner = TapeDrive.open("virtual:lto9?realtime=0").transport
    faulty = FaultyTransport(inner)
    faulty.inject(fault(), opcode=0x0A, after=5, times=1)
    with TapeDrive(faulty, device="faulty:lto9") as drive:
        r = run_test(drive, TapePerfParams(direction="write+read", size=16 * MiB))
    stuck_call = faulty.fired[0][0]
    assert len(faulty.calls) == stuck_call, [hex(c[0]) for c in faulty.calls[stuck_call:]]
    w = r.phase("write")
    assert r.status == "failed" and w.end_reason == "error" and w.bytes == 5 * MiB


def test_tapealert_after_the_run_comes_from_page_0x12_and_stays_set(lto9: TapeDrive) -> None:
    """The drive lists the TapeAlert response page: the run reports the flags without clearing them."""
    lto9.transport.tapealert = {0x03}  # the virtual drive raises "hard error"
    faulty = FaultyTransport(lto9.transport)
    r = run_test(TapeDrive(faulty), TapePerfParams(direction="write", size=2 * MiB))
    assert r.status == "complete" and r.tapealert == ["03h Hard error"]
    assert not [cdb for cdb in faulty.calls if cdb[0] == 0x4D and cdb[2] & 0x3F == 0x2E]
    assert lto9.transport.tapealert == {0x03}  # still set for the next look (info, a technician)

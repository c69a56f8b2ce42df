"""A short write's two figures (issue 31): the host's rate into the drive's buffer, which the plot's curve shows,
and the rate onto tape counted to the end of the closing flush, which the headline judges
(``app.tapeperf.buffered``). Hand-made sample logs through the engine's own ``summarize``."""
from __future__ import annotations

import pytest

from app.tapeperf.buffered import NOTED_SHARE, buffered, buffered_writes, stretches
from app.tapeperf.results import PhaseResult, SampleLog, TapePerfResult, summarize
from native.units import rate_text

MB = 1_000_000


def _write(seconds: float, flush: float, phase: str = "write") -> PhaseResult:
    """I/Os of 12 MB every 10 ms (1,200 MB/s into the buffer) for ``seconds``, then a flush of ``flush`` s."""
    log = SampleLog(phase)
    n = int(round(seconds / 0.01))
    for i in range(n):
        log.add(0.01 * (i + 1), 0.009, 12 * MB)
    ph = PhaseResult(phase, bytes=12 * MB * n, ios=n)
    summarize(ph, log, 0.0, 0.01 * n + flush, flush_seconds=flush)
    return ph


def test_a_write_shorter_than_its_buffer_has_the_link_rate_on_the_curve_and_the_drives_in_the_headline() -> None:
    ph = _write(1.0, 0.5)  # 1.2 GB into a 1 GB buffer, then half a second to write out the rest
    b = buffered(ph, 1_073_741_824)
    assert b is not None and b.phase == "write"
    assert b.into_buffer_mb_s == pytest.approx(1200.0)  # the curve: the host's I/Os alone
    assert b.onto_tape_mb_s == ph.streaming_mb_per_s == pytest.approx(99 * 12 / 1.49)  # the flush counted
    assert b.flush_seconds == 0.5
    note = b.note()
    assert rate_text(b.into_buffer_mb_s) in note and rate_text(b.onto_tape_mb_s) in note
    assert "not what the drive wrote" in note and "1.07 GB buffer" in note


def test_a_long_write_and_a_read_need_no_note() -> None:
    long = _write(20.0, NOTED_SHARE * 20.0 * 0.5)  # the flush a small part of the streaming time: curve ≈ headline
    assert buffered(long) is None
    read = _write(1.0, 0.0, "read")  # a read has no flush
    assert buffered(read) is None


def test_the_run_kind_marks_each_noted_flush_on_the_plot() -> None:
    from app.tapeperf.kind import TAPE_PERF

    result = TapePerfResult("virtual:lto9", {}, phases=[_write(1.0, 0.5), _write(1.0, 0.0, "read")])
    assert [b.phase for b in buffered_writes(result)] == ["write"]
    marked = TAPE_PERF.stretches(result) if TAPE_PERF.stretches else []
    assert marked == stretches(result)
    assert [(s.phase, s.seconds, s.label) for s in marked] == [("write", 0.5, "flush to tape")]
    assert marked[0].note == buffered_writes(result)[0].note()


def test_the_assessment_marks_its_write_steps_flush_as_the_tape_test_does() -> None:
    """The assessment's write/read step is a short tape test: its plot's curve is the host's pace into the buffer
    too, so its flush is marked with the same words (``ASSESSMENT.stretches``)."""
    from app.assess.engine import AssessResult
    from app.assess.kind import ASSESSMENT

    tape = TapePerfResult("virtual:lto9", {}, phases=[_write(1.0, 0.5), _write(1.0, 0.0, "read")])
    result = AssessResult("virtual:lto9", {}, tape=tape.to_dict())
    marked = ASSESSMENT.stretches(result) if ASSESSMENT.stretches else []
    assert [(s.phase, s.seconds, s.note) for s in marked] == [(s.phase, s.seconds, s.note) for s in stretches(tape)]
    assert marked and ASSESSMENT.stretches is not None and ASSESSMENT.stretches(AssessResult("virtual:lto9", {})) == []


def test_the_assessments_plot_judges_against_what_its_speed_steps_judge_against() -> None:
    """The write/read step's yardstick ("400 MB/s possible for incompressible data on LTO-9") is the assessment
    plot's reference line and sets its scale, so that a few readings from the drive's buffer cannot squash it."""
    from app.assess.engine import AssessResult
    from app.assess.kind import ASSESSMENT
    from app.report.plots import throughput_plot
    from app.report.model import SeriesData

    tape = TapePerfResult("virtual:lto9", {}, phases=[_write(1.0, 0.0)], generation=9, predicted_ratio=1.0)
    result = AssessResult("virtual:lto9", {}, tape=tape.to_dict())
    stick = ASSESSMENT.yardstick(result) if ASSESSMENT.yardstick else None
    assert stick is not None and stick == tape.yardstick and stick[1] == 400
    spiky = SeriesData("read", tuple((i / 10, 1300.0 if i < 3 else 400.0) for i in range(100)))
    plot = throughput_plot("run 1", (spiky,), stick)
    assert plot is not None and plot.y_top == 500 and plot.reference == 400

"""The watch's engine over a fake kernel driven by a fake clock: the verdicts, the job's span, restarts,
gaps and cancel, whatever the machine's load (the real kernel: tests/kernel/test_watch_kernel.py)."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.events import CancelToken, DriveBusy, Event, Message, PhaseFinished, PhaseStarted, SampleBatch
from app.runs.typed import from_dict
from app.watch.engine import Watch
from app.watch.params import WatchParams
from app.watch.result import TapeFigures, WatchResult
from app.watch.text import findings, headline, render, rows
from tests.helpers.fakesys import FakeKernel, Job, build_tree


@pytest.fixture
def kernel(tmp_path: Path) -> FakeKernel:
    k = FakeKernel(build_tree(tmp_path))
    k.publish()
    return k


def watch(kernel: FakeKernel, events: list[Event] | None = None, cancel_at: float | None = None,
          on_wait=None, **params: object) -> WatchResult:
    cancel = CancelToken()

    def wait(token: CancelToken, seconds: float) -> bool:
        kernel.advance(seconds)
        if on_wait is not None:
            on_wait(kernel)
        if cancel_at is not None and kernel.now - kernel.t0 >= cancel_at:
            token.cancel()
        return token.cancelled

    values = {"device": "nst0", "query_drive": "off", **params}
    sink = events.append if events is not None else (lambda e: None)
    return Watch(WatchParams.from_values(values), paths=kernel.paths, clock=lambda: kernel.now, wait=wait).run(sink, cancel)


def test_a_slow_source_is_named_the_bottleneck_with_the_busy_disk(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=0.97))
    events: list[Event] = []
    result = watch(kernel, events, **{"for_": "20s", "source": "/dev/sdb"})
    assert result.status == "complete" and result.ended_by == "time"
    assert result.verdict.kind == "source-bound" and result.verdict.culprit == "source disk"
    assert result.tape.waiting_share == pytest.approx(0.75, abs=0.02)
    assert result.tape.write_mb_s == pytest.approx(40, rel=0.03)
    assert "the drive waited for data 75% of the time: the source is the bottleneck (the job read /dev/sdb at 97% busy)" \
        == result.verdict.line
    assert any("given (--source)" in e for e in result.verdict.evidence)
    assert isinstance(events[0], PhaseStarted) and isinstance(events[-1], PhaseFinished)
    busy = [e for e in events if isinstance(e, DriveBusy)]
    assert len(busy) == 100 and all(0 <= e.busy_share <= 1 for e in busy)
    written = sum(e.columns.nbytes[0] for e in events if isinstance(e, SampleBatch) and e.columns and e.columns.phase == "write")
    assert written == result.tape.write_bytes


@pytest.mark.parametrize("disk_busy, named", [(0.7, True), (0.2, False)])
def test_a_disk_busy_through_the_drives_waiting_is_named_though_not_saturated(kernel: FakeKernel, disk_busy: float,
                                                                              named: bool) -> None:
    """dd and tar read, then write, then read: their disk idles while they write, so it never shows 100 %.
    At 70 % busy while the drive waits 75 % of the time, the disk is what the drive waited for; at 20 % it is not."""
    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=disk_busy))
    result = watch(kernel, **{"for_": "10s", "source": "sdb"})
    assert result.verdict.kind == "source-bound"
    if named:
        assert result.verdict.line.endswith("(the job read /dev/sdb at 70% busy)") and result.verdict.culprit == "source disk"
    else:
        assert result.verdict.line.endswith("(nothing tapediag could see was saturated)") and result.verdict.culprit == "source"


def test_a_drive_kept_busy_is_named_the_limit(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=300, busy=0.93))
    result = watch(kernel, **{"for_": "10s"})
    assert result.verdict.kind == "drive-bound" and result.verdict.culprit == "drive"
    assert result.tape.busy_share == pytest.approx(0.93, abs=0.02)
    assert result.verdict.line.startswith("the drive was busy 93% of the time at 300.0 MB/s: the drive is the limit")


def test_small_records_are_named_before_the_drive(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=20, busy=0.95, record=10240))
    result = watch(kernel, **{"for_": "5s"})
    assert result.verdict.culprit == "record size", result.verdict
    assert "10 KiB per command" in result.verdict.line


def test_a_job_that_ends_during_the_watch_ends_it_and_its_idle_tail_is_left_out(kernel: FakeKernel) -> None:
    """The job runs from 2 s to 8 s; the watch ends 3 s after its last I/O, and the busy share covers the
    job's own span, not the idle time before and after it."""
    kernel.jobs.append(Job(mb_s=50, busy=0.5, start=2.0, end=8.0))
    result = watch(kernel, **{"until_idle": "3s", "for_": "60s"})
    assert result.ended_by == "idle" and result.job_ended and not result.job_under_way
    assert result.job_start_s == pytest.approx(2.0, abs=0.25) and result.job_end_s == pytest.approx(8.0, abs=0.25)
    assert result.watched_s == pytest.approx(11.0, abs=0.3)
    assert result.tape.seconds == pytest.approx(6.0, abs=0.4)
    assert result.tape.busy_share == pytest.approx(0.5, abs=0.03)
    assert "began at 2.0 s, ended at 8.0 s" in render(result)


def test_nothing_running_ends_after_until_idle_and_says_so(kernel: FakeKernel) -> None:
    events: list[Event] = []
    result = watch(kernel, events, **{"until_idle": "2s"})
    assert result.status == "nothing" and result.verdict.kind == "idle"
    assert result.verdict.line.startswith("nothing ran on nst0 during the watch (2 s)")
    assert any(isinstance(e, Message) and "nothing is running on nst0 now" in e.text for e in events)
    assert headline(result) == "nothing ran on nst0"


def test_counters_that_restart_mid_watch_are_counted_from_zero(kernel: FakeKernel) -> None:
    """The drive attached again at 5 s: its counters start over, and the watch neither loses the work
    after it nor counts negative work."""
    kernel.jobs.append(Job(mb_s=40, busy=0.3))
    restarted = []

    def at_five(k: FakeKernel) -> None:
        if not restarted and k.now - k.t0 >= 5.0:
            k.restart()
            restarted.append(True)

    result = watch(kernel, on_wait=at_five, **{"for_": "10s"})
    assert result.tape.restarts == 1
    assert result.tape.write_mb_s == pytest.approx(40, rel=0.05)
    assert any("counters went back at 5.0 s" in n for n in result.notes), result.notes


def test_a_drive_detached_mid_watch_leaves_a_gap(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.3))

    def gap(k: FakeKernel) -> None:
        t = k.now - k.t0
        if 4.0 <= t < 6.0 and not k.detached:
            k.detach()
        elif t >= 6.0 and k.detached:
            k.attach()

    result = watch(kernel, on_wait=gap, **{"for_": "10s"})
    assert any("vanished at 4.0 s" in n for n in result.notes) and any("back at 6.0 s" in n for n in result.notes)
    assert result.tape.seconds == pytest.approx(8.0, abs=0.5)  # the 2 s gap is not in the job's figures


def test_cancel_ends_the_watch_within_one_interval(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.3))
    result = watch(kernel, cancel_at=3.0, **{"for_": "60s"})
    assert result.status == "cancelled" and result.ended_by == "cancelled"
    assert result.watched_s == pytest.approx(3.0, abs=0.25)


def test_the_result_survives_the_history_round_trip(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=0.97))
    result = watch(kernel, **{"for_": "5s", "source": "sdb"})
    back = from_dict(WatchResult, result.to_dict())
    assert back.to_dict() == result.to_dict()
    assert render(back) == render(result) and rows(back) == rows(result)
    assert findings(back)[0].tone == "warn" and findings(back)[0].topic == "Backup bottleneck"
    assert result.series and all(len(row) == 4 for row in result.series)
    assert result.to_dict()["waiting_share"] == pytest.approx(0.75, abs=0.02)


def test_the_notes_say_nothing_was_sent_and_what_the_number_means(kernel: FakeKernel) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.25))
    result = watch(kernel, **{"for_": "3s"})
    assert result.notes[0].startswith("tapediag sent the drive nothing: it read the kernel's counters")
    assert "the drive was not asked (query drive off: the kernel's figures only)" in result.notes[0]
    assert result.notes[1].startswith("busy share: the time the kernel's st driver had a command outstanding")


def _waiting_tape() -> TapeFigures:
    return TapeFigures(seconds=60, write_bytes=60 * 110 * 10**6, write_cmds=25_000, commands=25_000, busy_s=15.0)


def test_a_full_network_link_is_named_when_no_disk_explains_the_wait() -> None:
    from app.watch.result import NetFigures, ProcessFigures, SourceDevice
    from app.watch.rules import verdict

    found = verdict(_waiting_tape(), restore=False, sources=[SourceDevice("sdb", "given (--source)", 0.05, 1.0, 0.0)],
                    processes=[ProcessFigures(7, "bareos-sd", "holds /dev/nst0 open", cpu_share=0.2)],
                    network=[NetFigures("eth0", rx_mb_s=112.0, tx_mb_s=0.5, link_mb_s=125.0), NetFigures("eth1", 0.1, 0.1)],
                    generation=None, ratio=None)
    assert found.kind == "source-bound" and found.culprit == "network", found
    assert found.line.endswith("(eth0 received at 90% of its link)")
    assert "eth0 received 112.0 MB/s of a 125.0 MB/s link (90%)" in found.evidence and not any("eth1" in e for e in found.evidence)


def test_a_process_busy_on_its_cpu_through_the_wait_is_named() -> None:
    from app.watch.result import ProcessFigures
    from app.watch.rules import verdict

    found = verdict(_waiting_tape(), restore=False, sources=[], network=[], generation=None, ratio=None,
                    processes=[ProcessFigures(9, "gzip", "feeds it through a pipe", cpu_share=0.97)])
    assert found.culprit == "backup process CPU" and found.line.endswith("(gzip used 97% of a CPU core)"), found

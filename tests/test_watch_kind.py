"""The watch as a run kind (issue 28): ``tapediag watch`` runs it through ``app.execute`` and records it once, and
``history``, ``show`` and the PDF word it: the one number (the share of time the drive waited for data), the verdict
naming its culprit with the evidence, the streaming floor with the source of its speed steps.

The kernel is the fake one the engine's tests use (``tests/helpers/fakesys``: the kernel's sysfs layout and
/proc files, moved on by simulated time); the drive asked before and after is the virtual LTO-9 behind watch's own
``QueriesOnly``. The real kernel: ``tests/kernel/test_watch_kernel.py``.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from app.cli import main
from app.history import History
from app.runs.stored import load
from tests.helpers.fakesys import FakeKernel, Job, watch_on, watched_kernel
from tests.helpers.words import unexpected


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeKernel:
    return watched_kernel(tmp_path, monkeypatch)


def _only_run() -> int:
    with History.open() as hist:
        runs = hist.list_runs()
    assert [r.kind for r in runs] == ["backup-watch"], [(r.kind, r.status) for r in runs]
    return runs[0].id


def test_tapediag_watch_records_one_run_that_history_show_and_the_pdf_word(
        kernel: FakeKernel, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=0.97))
    assert main(["watch", "nst0", "--for", "10s", "--source", "sdb"]) == 0
    out = capsys.readouterr()
    run_id = _only_run()
    assert f"Recorded as run {run_id}" in out.out
    assert "verdict: the drive waited for data 75% of the time: the source is the bottleneck (the job read /dev/sdb " \
           "at 97% busy)" in out.out
    assert "info: watching nst0" in out.err  # the watch's own messages as they come

    with History.open() as hist:
        run = hist.get_run(run_id, samples=True)
    assert run.status == "complete" and run.params["device"] == "nst0" and run.params["for_"] == 10.0
    assert run.samples, "the live curve's samples are kept like any run's"
    (who,) = run.results["identities"]  # the drive's identity, read before the watch through its sg node
    assert who["role"] == "tape drive" and who["serial"] and who["device"] == "nst0"
    loaded = load(run)
    assert loaded.headline() == ("the drive waited for data 75% of the time: the source is the bottleneck (source disk); "
                                 "40.0 MB/s written over 10 s")
    bottleneck, floor = loaded.findings()
    assert (bottleneck.topic, bottleneck.tone) == ("Backup bottleneck", "warn")
    assert "the job read /dev/sdb at 97% busy" in bottleneck.detail  # the evidence beside the verdict
    assert floor.topic == "Streaming floor" and "(speed steps: " in floor.detail
    rows = dict(loaded.rows() or [])
    assert rows["Drive waiting for the host"] == "75%" and rows["Speed steps from"] in floor.detail

    assert main(["history"]) == 0
    assert "waited for data 75% of the time" in capsys.readouterr().out
    assert main(["show", str(run_id)]) == 0
    shown = capsys.readouterr().out
    assert "Backup watch on nst0" in shown and "streaming floor: LTO-9" in shown and "Watch for 10 s, Until idle 1 min, Source sdb" in shown, shown

    if not shutil.which("pdftotext"):
        pytest.skip("poppler-utils not installed")
    pdf = tmp_path / "watch.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    page1 = " ".join(subprocess.run(["pdftotext", "-l", "1", "-layout", str(pdf), "-"], capture_output=True, text=True,
                                    check=True).stdout.split())
    assert "BACKUP BOTTLENECK · RUN #1 The drive waited for data 75% of the time: the source is the" in page1, page1
    assert "STREAMING FLOOR · RUN #1 40.0 MB/s delivered, below the 177.0 MB/s" in page1, page1
    assert "(speed steps: IBM Documentation, TS4300 Tape Library" in page1, page1
    whole = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert unexpected(whole) == []  # no option, key or code path in what the customer reads


def test_nothing_running_is_recorded_complete_and_exits_1_with_one_line(
        kernel: FakeKernel, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["watch", "nst0", "--until-idle", "2s", "--query-drive", "off", "--json"]) == 1
    out = capsys.readouterr()
    run_id = _only_run()
    printed = json.loads(out.out)
    assert printed["run_id"] == run_id and printed["status"] == "nothing"
    lines = [line for line in out.err.splitlines() if line.startswith("tapediag")]
    assert lines == ["tapediag: nothing ran on nst0 during the watch (2 s): the kernel's st driver completed no command "
                     "for it"], out.err
    with History.open() as hist:
        run = hist.get_run(run_id, samples=False)
    assert run.status == "complete" and load(run).headline() == "nothing ran on nst0"
    assert "identities" not in run.results  # the drive was not asked: no identity is claimed for it


def test_a_cancelled_watch_is_recorded_cancelled_and_exits_130(kernel: FakeKernel, monkeypatch: pytest.MonkeyPatch,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's token cancelled (as SIGTERM cancels it, ``app.stop``) once the job has moved 3 s on."""
    kernel.jobs.append(Job(mb_s=40, busy=0.3))
    monkeypatch.setattr("app.watch.kind.Watch", watch_on(kernel, cancel_at=3.0))
    assert main(["watch", "nst0", "--for", "60s", "--query-drive", "off"]) == 130
    out = capsys.readouterr()
    assert out.err.strip().endswith("tapediag: cancelled") and "cancelled" in out.out
    with History.open() as hist:
        (run,) = hist.list_runs()
    assert run.status == "cancelled" and run.kind == "backup-watch"
    assert run.results["watched_s"] == pytest.approx(3.0, abs=0.25)  # the partial result is kept

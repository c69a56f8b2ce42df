"""Troubleshooting takes the backup application's figure from a recorded watch of the job (issue 28): the rate the
kernel counted instead of a typed-in one, named as the source in the bottleneck table, with the drive's waiting
share beside the table, and the drive the watch identified.

The watch runs as a technician runs it (``tapediag watch``), on the fake kernel of the engine's tests
(``tests/helpers/fakesys``) with the virtual LTO-9 answering the queries before and after.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.history import History
from app.report import build_report
from app.troubleshoot.fromhistory import latest_figures
from app.troubleshoot.request import TroubleshootRequest, diagnose_recorded
from tests.helpers.fakesys import Job, watched_kernel

WATCHED = "run 1: the drive waited for data 75% of the time"


@pytest.fixture
def watched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> int:
    """A recorded watch of a backup at 40 MB/s, its drive waiting for data 75% of the time (run 1)."""
    kernel = watched_kernel(tmp_path, monkeypatch)
    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=0.97))
    assert main(["watch", "nst0", "--for", "10s", "--source", "sdb", "--json"]) == 0
    run_id = int(json.loads(capsys.readouterr().out)["run_id"])
    assert run_id == 1
    return run_id


def _backup(printed: dict) -> dict:
    return next(t for t in printed["tables"] if t["direction"] == "backup")


def test_the_backup_rate_comes_from_the_watch_and_is_named_as_its_source(watched: int,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["troubleshoot", "--tape-write", "300", "--disk-read", "45", "--backup-run", str(watched),
                 "--no-interactive", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    table = _backup(printed)
    app = table["rows"][-1]
    assert (app["component"], app["source"]) == ("application", WATCHED) and app["mb_s"] == pytest.approx(40, rel=0.01)
    assert table["bottleneck"] == "disk" and table["achieved_mb_s"] == app["mb_s"], table
    assert any(n.startswith(f"The backup rate is the one watched on the job itself ({WATCHED})") for n in printed["notes"])
    drive = printed["input"]["drive"]
    assert drive["generation"] == 9 and drive["serial"], drive  # the drive the watch identified

    assert main(["show", str(printed["run_id"])]) == 0
    shown = capsys.readouterr().out
    assert f"No  ({WATCHED})" in shown, shown  # the table's source column, as the session printed it
    with History.open() as hist:
        report = build_report(hist, [printed["run_id"]])
    (section,) = [b for b in report.bottlenecks if b.direction == "Backup"]
    assert section.rows[-1].source == WATCHED  # the PDF's bottleneck table names it too
    assert {s.run_id for s in report.runs} == {watched, printed["run_id"]}  # and brings the watch along, its evidence


def test_a_drive_the_watch_saw_waiting_is_not_called_the_bottleneck_silently(watched: int,
                                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The tape test is the slowest figure (a host that fed it badly?), yet the job's own watch saw the drive wait
    75% of the time: the session says the two disagree, and which way to look."""
    assert main(["troubleshoot", "--tape-write", "42", "--disk-read", "400", "--backup-run", str(watched),
                 "--no-interactive", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert _backup(printed)["bottleneck"] == "tape"
    (note,) = [n for n in printed["notes"] if WATCHED in n]
    assert "The drive did not set the job's pace, although the tape test is the slowest figure" in note


def test_the_gui_form_and_the_latest_runs_take_the_watch_as_the_cli_does(watched: int) -> None:
    with History.open() as hist:
        assert latest_figures(hist) == {"backup": watched}  # "Use the latest recorded runs" fills the backup's field
    dx, _run_id = diagnose_recorded(TroubleshootRequest.from_values({"tape_write": "300", "backup": f"run {watched}"}))
    app = dx.table("backup").rows[-1]  # type: ignore[union-attr]
    assert app.source == WATCHED and app.mb_s == pytest.approx(40, rel=0.01)


@pytest.mark.parametrize("args, words", [
    (["--backup-run", "2"], "run 2 is a troubleshoot run; the backup's achieved rate comes from a backup-watch run"),
    (["--restore-run", "1"], "run 1 watched a backup, not a restore: it gives no restore rate"),
    (["--backup-run", "1", "--backup", "40"], "the backup's rate is given twice (a figure and run 1): give one"),
])
def test_a_run_that_is_no_watch_of_that_direction_is_refused_in_one_line(watched: int, args: list[str], words: str,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["troubleshoot", "--tape-write", "300", "--no-interactive"]) == 0  # run 2: a troubleshoot run
    capsys.readouterr()
    assert main(["troubleshoot", "--tape-write", "300", *args, "--no-interactive"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err

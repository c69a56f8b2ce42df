"""One damaged row in the history (issue 27 §3): the others are listed, the bad one is named, no traceback.

A row whose parameters or results are not valid JSON (a disk error inside the database, a hand edit)
used to break the whole ``history`` listing; it is now listed as damaged beside the others, ``show``,
``export`` and ``report`` say in one line that it cannot be read, and the GUI's list shows them all.
"""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from app.cli import main
from app.history import History, default_path
from tests.helpers.kinds import tape_perf


def _history_with_a_bad_row(capsys: pytest.CaptureFixture[str]) -> tuple[int, int, int]:
    with History.open() as hist:
        ids = []
        for n in range(3):
            run_id = hist.start_run("tape-perf", "virtual:lto9", {"n": n})
            hist.finish_run(run_id, "complete", tape_perf(rates={"write": 26.2 + n}))
            ids.append(run_id)
    with sqlite3.connect(default_path()) as db:  # the middle one's results, damaged as a bad page would
        db.execute("UPDATE runs SET results = ? WHERE id = ?", ('{"write_mb_s": 27.2, "phas', ids[1]))
    capsys.readouterr()
    return ids[0], ids[1], ids[2]


def test_history_lists_the_others_and_names_the_damaged_one(capsys: pytest.CaptureFixture[str]) -> None:
    good1, bad, good2 = _history_with_a_bad_row(capsys)
    assert main(["history"]) == 0
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert set(rows) == {str(good1), str(bad), str(good2)}
    assert "record damaged: its results are not valid" in rows[str(bad)]  # in 100 columns (issue 31)
    assert "record damaged" not in rows[str(good1)] + rows[str(good2)]
    assert err.strip().splitlines() == [f"tapediag: note: 1 run ({bad}) has a damaged record in the history: "
                                        "listed without results; 'show' cannot read it"]
    assert main(["history", "--json"]) == 0
    listed = {r["id"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed[bad]["damaged"] and listed[bad]["results"] is None and listed[good1]["results"]["write_mb_s"]


@pytest.mark.parametrize("argv", [["show", "{bad}"], ["show", "--json", "{bad}"], ["export", "{bad}", "--json"],
                                  ["report", "{good}", "{bad}", "-o", "{tmp}/r.pdf"]])
def test_reading_the_damaged_run_is_one_line(argv: list[str], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    good, bad, _ = _history_with_a_bad_row(capsys)
    line = [a.format(bad=bad, good=good, tmp=tmp_path) for a in argv]
    assert main(line) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    assert f"run {bad} in the history" in err[0] and "is damaged: its results are not valid JSON" in err[0]
    assert not (tmp_path / "r.pdf").exists()
    assert main(["show", str(good)]) == 0  # the others still read


def test_results_that_do_not_fit_their_kind_are_named_never_shown_empty(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Valid JSON of the wrong shape (issue 26 §1): a figure that is text, a required field missing. Every reader
    reads through the one typed loader, so each says it in one line naming the run; none prints '' or []."""
    with History.open() as hist:
        good = hist.start_run("tape-perf", "virtual:lto9", {})
        hist.finish_run(good, "complete", tape_perf(rates={"write": 26.2}))
        bad = hist.start_run("tape-perf", "virtual:lto9", {})
        broken = tape_perf(rates={"write": 27.2})
        broken["phases"][0]["mb_s"] = "fast"
        hist.finish_run(bad, "complete", broken)
        gone = hist.start_run("read-data", "/srv", {})
        hist.finish_run(gone, "complete", {"mb_s": 50.0})  # no streams, no target: not a read-data result
    capsys.readouterr()
    assert main(["history"]) == 0
    out, err = capsys.readouterr()
    rows = {line.split()[0]: line for line in out.splitlines()[1:]}
    assert "write 26.2 MB/s overall" in rows[str(good)]
    # The list fits 100 columns (issue 31): each damaged row says so; 'show' and 'report' name the field.
    assert rows[str(bad)].split()[6:8] == ["record", "damaged:"] and f"run {bad} (tape-perf)" in rows[str(bad)]
    assert rows[str(gone)].split()[6:8] == ["record", "damaged:"] and f"run {gone} (read-data)" in rows[str(gone)]
    assert f"({gone}, {bad})" in err and "damaged record" in err
    expected = {str(bad): f"run {bad} (tape-perf) has results this tapediag cannot read: TapePerfResult.phases[0].mb_s:"
                          " 'fast' is not float",
                str(gone): f"run {gone} (read-data) has results this tapediag cannot read: ReadDataResult.kind: missing"}
    for argv in (["show", str(bad)], ["show", str(gone)], ["report", str(good), str(gone), "-o", str(tmp_path / "r.pdf")]):
        assert main(argv) == 1
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in lines[0] and "cannot read" in lines[0], lines
        if argv[0] == "show":
            assert expected[argv[1]] in lines[0]
    assert not (tmp_path / "r.pdf").exists()
    assert main(["show", str(good)]) == 0

"""Figures taken from history runs go through the one loader into each kind's typed result (issue 26 §1).

A field renamed in a kind's result used to read as nothing here (``p.get("limited_by")`` gave "", and a tape
figure the host limited was taken as the drive's); now it is an error in the test that reads the run. A run the
loader cannot read is named in one line; a run stored before a field existed still reads.
"""
from __future__ import annotations

import dataclasses
import re
import sys
import types
from pathlib import Path
from typing import Any

import pytest

import app.tapeperf.results as tape_results
from app.cli import main
from app.history import History
from app.runs import registry
from app.tapeperf.kind import TAPE_PERF
from app.tapeperf.results import PhaseResult, TapePerfResult
from app.troubleshoot.fromhistory import latest_figures
from app.troubleshoot.request import TroubleshootRequest, diagnose_recorded
from native.errors import InvalidParameter
from tests.helpers.kinds import tape_perf


def _host_limited() -> dict[str, Any]:
    """A stored LTO-9 tape-perf result whose write the host held back (65% of the streaming time between commands)."""
    phase = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_seconds=20.0, streaming_mb_per_s=120.0,
                        mb_s=118.0, host_share=0.65)
    result = TapePerfResult(device="virtual:lto9", params={"pattern": "random"}, vendor="HPE",
                            product="Ultrium 9-SCSI", generation=9, predicted_ratio=1.0, compression="on", phases=[phase])
    return result.to_dict()


def _stored(results: dict[str, Any], kind: str = "tape-perf") -> int:
    with History.open() as hist:
        run = hist.start_run(kind, "virtual:lto9", {})
        hist.finish_run(run, "complete", results)
    return run


def _session(run: int) -> dict[str, Any]:
    req = TroubleshootRequest.from_values({"tape_write": f"run {run}", "disk_read": "800", "backup": "110",
                                           "streams": "4"})
    dx, _ = diagnose_recorded(req)
    return dx.to_dict()


def _renamed(monkeypatch: pytest.MonkeyPatch, old: str, new: str, *, everywhere: bool) -> None:
    """The tape-perf kind with its result module's field ``old`` renamed ``new``: its declaration only (a rename
    that missed a reader), or every use in the module (a rename done throughout the kind). The kind is registered
    with the renamed result for this test only; every other module is the shipped one."""
    source = Path(tape_results.__file__).read_text()
    declaration = re.compile(rf"^(    ){old}(: )", re.MULTILINE)
    assert len(declaration.findall(source)) == 1, old
    source = re.sub(rf"\b{old}\b", new, source) if everywhere else declaration.sub(rf"\g<1>{new}\g<2>", source)
    module = types.ModuleType("renamed_tapeperf_results")
    monkeypatch.setitem(sys.modules, module.__name__, module)
    exec(compile(source, f"<{tape_results.__file__}, {old} renamed {new}>", "exec"), module.__dict__)
    monkeypatch.setitem(registry._REGISTRY, TAPE_PERF.name, dataclasses.replace(TAPE_PERF, result=module.TapePerfResult))


def test_the_host_limited_run_is_not_taken_for_the_drive() -> None:
    table = _session(_stored(_host_limited()))["tables"][0]
    assert table["bottleneck"] != "tape"
    assert "host" in {r["source"] for r in table["rows"] if r["test"] == "Tape write"}.pop()


@pytest.mark.parametrize("field", ["limited_by", "streaming_mb_per_s", "generation"])
def test_a_field_renamed_in_the_tape_result_fails_troubleshooting_loudly(field: str,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """What limited the phase, its streaming rate, the drive's generation: each read from the typed result. Renamed
    in the result's declaration only, the session fails naming the old field instead of going on without it."""
    run = _stored(_host_limited())
    _renamed(monkeypatch, field, f"{field}_renamed", everywhere=False)
    with pytest.raises(AttributeError, match=rf"\b{field}\b"):
        _session(run)


def test_a_rename_made_throughout_the_kind_changes_nothing_here(monkeypatch: pytest.MonkeyPatch) -> None:
    """Troubleshooting asks the result (``TapePerfResult.figure``), so a rename done in the kind alone keeps the
    session's answer: the host, judged from the stored figures, still limits the run."""
    run = _stored(_host_limited())
    _renamed(monkeypatch, "limited_by", "limiter_who", everywhere=True)
    table = _session(run)["tables"][0]
    assert table["bottleneck"] != "tape"
    assert [r["mb_s"] for r in table["rows"] if r["test"] == "Tape write"] == [120.0]


def test_a_row_stored_before_the_runs_said_their_limit_still_reads() -> None:
    """A tape-perf row from before ``limited_by`` was stored (no result version: version 0) reads through the loader;
    what limited it is then judged by the rule, as ``show`` judges it."""
    old = _host_limited()
    for key in ("possible_label", "possible_mb_s"):
        old.pop(key)
    for phase in old["phases"]:
        for key in ("limited_by", "limited_why", "percent_of_possible"):
            phase.pop(key)
    table = _session(_stored(old))["tables"][0]
    assert table["bottleneck"] != "tape"


def test_a_run_the_loader_cannot_read_is_named_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    broken = {**tape_perf(rates={"write": 100.0}), "phases": "not a list"}
    run = _stored(broken)
    assert main(["troubleshoot", "--tape-write-run", str(run), "--backup", "40", "--no-interactive"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"run {run} (tape-perf) has results this tapediag cannot read" in err[0], err
    assert "TapePerfResult.phases" in err[0]


def test_a_drive_run_that_stored_no_result_is_said(capsys: pytest.CaptureFixture[str]) -> None:
    info = _stored({"raw_pages": {}}, kind="drive-info")  # a ticket whose pages could not be decoded
    assert main(["troubleshoot", "--tape-write", "300", "--drive-run", str(info), "--no-interactive"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"tapediag: error: run {info} could not be read: it stored no drive-info result"]


def test_the_latest_runs_name_a_newest_run_that_cannot_be_read() -> None:
    """'Use the latest recorded runs' does not pass over the newest tape run for an older one when it cannot be read;
    an unreadable run older than the ones it uses is not read at all."""
    older_broken = _stored({**tape_perf(rates={"write": 90.0}), "phases": 7})
    good = _stored(tape_perf(rates={"write": 100.0, "read": 110.0}))
    with History.open() as hist:
        assert latest_figures(hist) == {"tape_write": good, "tape_read": good}
    newest_broken = _stored({**tape_perf(rates={"write": 100.0}), "phases": 7})
    with History.open() as hist, pytest.raises(InvalidParameter, match=f"run {newest_broken} .tape-perf. has results"):
        latest_figures(hist)
    assert older_broken < good

"""Issue 25 §3: troubleshooting never contradicts the runs it was given.

A recorded tape run says what limited it (``TapePerfResult.limiter``). Only a figure the drive
limited measures the drive; for every run that names the host, this machine, the link or a
run too short to tell, the answer must not name the drive as the bottleneck.
"""
from __future__ import annotations

import pytest

from app.cli import main
from app.troubleshoot.text import format_text
from app.history import History
from app.tapeperf.results import PhaseResult, TapePerfResult
from app.troubleshoot.model import TAPE_LIMITS
from app.troubleshoot.request import TroubleshootRequest, diagnose_recorded

DRIVE_WORDS = ("tape drive is the bottleneck", "nothing upstream holds the drive back", "bottleneck is the tape")


def _tape_run(who: str) -> dict:
    """A stored tape-perf result whose write phase the limiter attributes to ``who``: the engine's own shape."""
    ph = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_seconds=20.0, streaming_mb_per_s=120.0,
                     mb_s=118.0, host_share=0.05)
    result = TapePerfResult(device="virtual:lto9", params={"pattern": "random"}, generation=9, predicted_ratio=1.0,
                            compression="on", phases=[ph])
    if who == "host":
        ph.host_share = 0.65
    elif who == "emulator":
        ph.emulator_lag_seconds = 4.0
    elif who == "not steady":
        ph.streaming_seconds = 1.0
    elif who == "link":
        result.generation, result.predicted_ratio = 5, 10.0  # LTO-5, 10:1 data: the 600 MB/s link caps it
        ph.streaming_mb_per_s = ph.mb_s = 590.0
    elif who != "drive":
        raise AssertionError(who)
    assert result.limiter(ph).who == who
    return result.to_dict()


def _diagnose(results: dict, backup: str = "110") -> tuple[dict, str]:
    with History.open() as hist:
        run = hist.start_run("tape-perf", "virtual:lto9", {})
        hist.finish_run(run, "complete", results)
    req = TroubleshootRequest.from_values({"tape_write": f"run {run}", "disk_read": "800", "backup": backup,
                                           "streams": "4"})
    dx, _ = diagnose_recorded(req)
    return dx.to_dict(), format_text(dx)


@pytest.mark.parametrize("who", sorted(k for k, component in TAPE_LIMITS.items() if component != "tape"))
def test_a_tape_run_limited_by_anything_but_the_drive_never_names_the_drive(who: str) -> None:
    res = _tape_run(who)
    data, text = _diagnose(res)
    table = data["tables"][0]
    assert table["bottleneck"] != "tape", table["verdict"]
    assert not {r["id"] for r in data["recommendations"]} & {"tape-is-the-backup-bottleneck", "tape-slowest-disk-not-measured"}
    assert not [w for w in DRIVE_WORDS if w in text.lower()], text
    flat = " ".join(text.split())
    if who == "link":
        assert "limited by the connection to the drive" in flat
    else:
        assert res["phases"][0]["limited_why"] in flat  # the run's own words say what its figure is
        assert "tape-test-not-the-drive" in {r["id"] for r in data["recommendations"]}


def test_a_tape_run_the_link_limited_names_the_connection() -> None:
    data, _ = _diagnose(_tape_run("link"), backup="570")
    table = data["tables"][0]
    assert table["bottleneck"] == "link" and "the bottleneck is the connection to the tape drive" in table["verdict"]


def test_the_issues_run_limited_by_the_host_at_65_percent() -> None:
    data, text = _diagnose(_tape_run("host"))
    assert "the host: 65% of the streaming time passed between commands" in text
    assert data["tables"][0]["bottleneck"] is None
    assert "The tape test measured the host that ran it, not the drive" in text


def test_a_tape_run_the_drive_limited_still_names_the_drive() -> None:
    data, text = _diagnose(_tape_run("drive"))
    assert data["tables"][0]["bottleneck"] == "tape"
    assert "tape-is-the-backup-bottleneck" in {r["id"] for r in data["recommendations"]}


@pytest.mark.slow
def test_a_real_run_the_host_held_back_names_no_drive(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """tape-perf throttled to 60 MB/s (--host-rate: a slow source) on a virtual LTO-5, then troubleshooting."""
    dev = f"virtual:lto5?cartridge={tmp_path / 'c.img'}"
    assert main(["tape-perf", dev, "--size", "560M", "--direction", "write", "--pattern", "random",
                 "--host-rate", "60MB"]) == 0
    out = capsys.readouterr().out
    assert "limited by: the host" in out, out
    run = int(out.rsplit("Recorded as run ", 1)[1].split()[0])
    assert main(["troubleshoot", "--tape-write-run", str(run), "--disk-read", "500", "--backup", "55",
                 "--streams", "2", "--no-interactive"]) == 0
    text = capsys.readouterr().out
    assert not [w for w in DRIVE_WORDS if w in text.lower()], text
    assert "limited by the host" in text

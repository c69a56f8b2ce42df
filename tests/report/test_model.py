"""The Qt-free report model: what goes on which page, decided without rendering."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.events import Sample
from app.history import History
from app.report import build_report
from app.report.build import flatten, value_text

ROOT = Path(__file__).resolve().parents[2]


def _samples(phase: str, rate_mb_s: float, n: int = 200, t0: float = 0.0) -> list[Sample]:
    dt = 1_000_000 / (rate_mb_s * 1e6)
    return [Sample(t=t0 + (i + 1) * dt, nbytes=1_000_000, latency=dt, phase=phase) for i in range(n)]


@pytest.fixture
def hist() -> History:
    with History.open() as h:
        yield h


def _drive_info(serial: str, verdict: str, reasons: list[str], alerts: list[dict]) -> dict:
    """A drive-info run's results: the shape of ``DriveInfo.to_dict()`` (sections trimmed)."""
    return {"device": "/dev/sg3", "generation": 4,
            "identity": {"vendor": "HP", "product": "Ultrium 4-SCSI", "revision": "B63W", "serial": serial,
                         "wwn": None, "device_type": "tape"},
            "cartridge": {"supported": False, "reason": "no cartridge loaded"},
            "tapealerts": {"supported": True, "value": alerts},
            "health": {"verdict": verdict, "reasons": reasons}}


def test_device_identity_and_health_come_from_the_newest_drive_info_run(hist: History) -> None:
    old = hist.start_run("drive-info", "/dev/sg3")
    hist.finish_run(old, "complete", _drive_info("OLD000", "Attention", ["cleaning requested"], []))
    new = hist.start_run("drive-info", "/dev/sg3")
    flag = {"code": 20, "name": "Cleaning required", "severity": "Critical", "text": "The drive needs cleaning."}
    hist.finish_run(new, "complete", _drive_info("HU1234ABCD", "Attention", ["cleaning requested: 14h"], [flag]))
    tape = hist.start_run("tape-perf", "/dev/sg3")
    hist.finish_run(tape, "complete", {"vendor": "HP", "product": "Ultrium 4-SCSI", "generation": 4,
                                       "write_mb_s": 80.0, "tapealert": ["TapeAlert 03h Hard error"]})
    report = build_report(hist, [old, new, tape], customer="ACME")
    (dev,) = report.devices
    assert dev.device == "/dev/sg3" and dev.health == "Attention"
    fields = [(f.label, f.value) for f in dev.identity]
    assert ("Serial", "HU1234ABCD") in fields and ("Generation", "LTO-4") in fields
    assert ("Reason", "cleaning requested: 14h") in [(f.label, f.value) for f in dev.health_details]
    assert dev.alerts == ("TapeAlert 14h Cleaning required (Critical): The drive needs cleaning.",
                          "TapeAlert 03h Hard error")
    assert report.cover.customer == "ACME" and report.cover.date
    assert [f.value for f in report.runs[1].headline] == ["Attention"]


def test_two_tape_runs_are_summarised_and_overlaid(hist: History) -> None:
    ids = []
    for rate in (120.0, 80.0):
        run_id = hist.start_run("tape-perf", "virtual:lto4", {"block_size": 262144})
        hist.add_samples(run_id, _samples("write", rate))
        hist.finish_run(run_id, "complete", {"phases": [{"phase": "write", "mb_s": rate}], "write_mb_s": rate})
        ids.append(run_id)
    report = build_report(hist, ids)
    assert [r[3] for r in report.summary_rows] == ["Write 120 MB/s", "Write 80 MB/s"]  # no duplicate figure
    assert [s.label for s in report.comparison.series] == [f"Run {ids[0]} write", f"Run {ids[1]} write"]
    plotted = [max(y for _, y in s.points) for s in report.comparison.series]
    assert plotted == pytest.approx([120.0, 80.0], rel=0.02)
    assert ("Block size", "262,144 (256 KiB)") in [(f.label, f.value) for f in report.runs[0].parameters]
    assert report.verdict == "" and report.bottlenecks == ()


def test_troubleshoot_run_becomes_tables_verdict_and_recommendations(hist: History, capsys) -> None:
    assert main(["troubleshoot", "--tape-write", "154", "--disk-read", "105.25", "--disk-read-parallel", "262.24",
                 "--backup", "108.29", "--streams", "4", "--network", "1GbE", "--drive", "LTO-3"]) == 0
    capsys.readouterr()
    report = build_report(hist, [1], appendix=True)
    (section,) = report.bottlenecks
    assert section.direction == "Backup"
    assert [(r.test, r.mb_s, r.bottleneck) for r in section.rows if r.is_bottleneck] == \
        [("Network (Gigabit Ethernet)", "117.5", "Yes (Network)")]
    assert "network" in report.verdict and report.cover.summary == report.verdict
    assert any(r.title == "The network link is the limit" for r in report.recommendations)
    raw = [f.label for block in report.appendix for f in block.rows]
    assert "Result › Facts › link MB/s" in raw  # the raw figures behind the verdict


def test_unknown_run_is_refused(hist: History) -> None:
    from native.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="no run 5"):
        build_report(hist, [5])


def test_values_print_for_people() -> None:
    assert value_text("mb_s", 22.98) == "22.98" and value_text("x", None) == "—" and value_text("x", True) == "yes"
    assert value_text("io_size", 1 << 20) == "1,048,576 (1 MiB)"
    fields = flatten({"phases": [{"phase": "write", "mb_s": 1.5}], "n": 3})
    assert [(f.label, f.value) for f in fields] == [("Phases › write › phase", "write"),
                                                    ("Phases › write › MB/s", "1.5"), ("N", "3")]


def test_report_command_works_headless_without_qt_platform_set(hist: History, tmp_path: Path) -> None:
    run_id = hist.start_run("read-data", "/srv", {"streams": 1})
    hist.add_samples(run_id, _samples("read-data", 50.0))
    hist.finish_run(run_id, "complete", {"mb_s": 50.0})
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "app", "report", str(run_id), "-o", str(tmp_path / "r.pdf")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_drive_info_body_is_unwrapped_and_leaves_the_device_section_to_itself(hist: History) -> None:
    run_id = hist.start_run("drive-info", "/dev/sg3")
    res = _drive_info("HU1234ABCD", "Healthy", [], [])
    res.update(cleaning_required={"supported": True, "value": False},
               read_errors={"supported": False, "reason": "not supported by this device"},
               performance={"supported": True, "repositions_per_100mb": 37, "current_mb_s": 95.0},
               cartridge={"supported": True, "barcode": "ABC123L9", "attributes": {"Barcode": "ABC123L9"}})
    hist.finish_run(run_id, "complete", res)
    (section,) = build_report(hist, [run_id]).runs
    fields = {f.label: f.value for f in section.results}
    assert fields["Cleaning required"] == "no" and fields["Read errors"] == "not supported by this device"
    assert fields["Performance › repositions per 100 MB"] == "37" and fields["Performance › current MB/s"] == "95"
    assert fields["Cartridge › barcode"] == "ABC123L9"
    assert not [k for k in fields if k.startswith(("Identity", "Health", "Tapealerts", "Supported"))
                or "attributes" in k.lower()]

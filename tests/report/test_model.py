"""The Qt-free report model: what goes on which page, decided without rendering."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from app.events import Sample
from app.history import History
from app.report import build_report
from app.report.build import flatten, value_text
from tests.helpers.kinds import cartridge, drive_info, read_data, tape_perf

ROOT = Path(__file__).resolve().parents[2]


def _samples(phase: str, rate_mb_s: float, n: int = 200, t0: float = 0.0) -> list[Sample]:
    dt = 1_000_000 / (rate_mb_s * 1e6)
    return [Sample(t=t0 + (i + 1) * dt, nbytes=1_000_000, latency=dt, phase=phase) for i in range(n)]


@pytest.fixture
def hist() -> History:
    with History.open() as h:
        yield h


def _drive_info(serial: str, verdict: str, reasons: list[str], alerts: list[dict], **sections: Any) -> dict:
    """A drive-info run's results: the shape of ``DriveInfo.to_dict()``."""
    return drive_info(serial, verdict, tuple(reasons), tuple(alerts), **sections)


def test_device_identity_and_health_come_from_the_newest_drive_info_run(hist: History) -> None:
    old = hist.start_run("drive-info", "/dev/sg3")
    hist.finish_run(old, "complete", _drive_info("OLD000", "Attention", ["cleaning requested"], []))
    new = hist.start_run("drive-info", "/dev/sg3")
    flag = {"code": 20, "name": "Cleaning required", "severity": "Critical", "text": "The drive needs cleaning."}
    hist.finish_run(new, "complete", _drive_info("HU1234ABCD", "Attention", ["cleaning requested: 14h"], [flag]))
    tape = hist.start_run("tape-perf", "/dev/sg3")
    hist.finish_run(tape, "complete", tape_perf("/dev/sg3", {"write": 80.0}, vendor="HP", product="Ultrium 4-SCSI",
                                                generation=4, tapealert=["TapeAlert 03h Hard error"]))
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


def test_each_tape_run_keeps_its_own_plot_and_verdict(hist: History) -> None:
    ids = []
    for rate in (120.0, 80.0):
        run_id = hist.start_run("tape-perf", "virtual:lto4", {"block_size": 262144})
        hist.add_samples(run_id, _samples("write", rate))
        hist.finish_run(run_id, "complete", tape_perf("virtual:lto4", {"write": rate}))
        ids.append(run_id)
    report = build_report(hist, ids)
    # Page 1: each run's verdict from its kind, the rate with its unit; no timelines overlaid across runs.
    assert [(h.run_id, h.topic, h.words) for h in report.headlines] == [
        (ids[0], "Tape write rate", "120.0 MB/s overall"), (ids[1], "Tape write rate", "80.0 MB/s overall")]
    plotted = [max(y for _, y in s.points) for r in report.runs for s in r.plot.series]
    assert plotted == pytest.approx([120.0, 80.0], rel=0.02)
    assert ("Block size", "256 KiB") in [(f.label, f.value) for f in report.runs[0].parameters]
    assert report.verdict == "" and report.bottlenecks == () and report.bar_charts == ()


def test_troubleshoot_run_becomes_tables_verdict_and_recommendations(hist: History, capsys) -> None:
    assert main(["troubleshoot", "--tape-write", "154", "--disk-read", "105.25", "--disk-read-parallel", "262.24",
                 "--backup", "108.29", "--streams", "4", "--network", "1GbE", "--drive", "LTO-3"]) == 0
    capsys.readouterr()
    report = build_report(hist, [1], appendix=True)
    (section,) = report.bottlenecks
    assert section.direction == "Backup"
    assert [(r.test, r.mb_s, r.bottleneck) for r in section.rows if r.is_bottleneck] == \
        [("Network (Gigabit Ethernet)", "117.5", "Yes (Network)")]
    # The comparison is a bar per component against the application's rate, the bottleneck marked.
    (chart,) = report.bar_charts
    assert [(b.label, b.value, b.text, b.is_bottleneck) for b in chart.bars] == [
        ("Tape write", 154.0, "154.0 MB/s", False), ("Disk read, single stream", 105.25, "105.2 MB/s", False),
        ("Disk read, parallel streams", 262.24, "262.2 MB/s", False),
        ("Network (Gigabit Ethernet)", 117.5, "117.5 MB/s", True)]
    assert chart.reference == 108.29 and chart.reference_label.endswith("108.3 MB/s")
    assert [(h.topic, h.words, h.tone) for h in report.headlines][0] == ("Backup bottleneck", "The network (117.5 MB/s)",
                                                                         "warn")
    assert "network" in report.verdict and report.cover.summary == report.verdict
    assert any(r.title == "The network link is the limit" for r in report.recommendations)
    raw = [f.label for block in report.appendix for f in block.rows]
    assert "Result › Facts › link rate" in raw  # the raw figures behind the verdict


def test_unknown_run_is_refused(hist: History) -> None:
    from native.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="no run 5"):
        build_report(hist, [5])


def test_values_print_for_people() -> None:
    assert value_text("mb_s", 22.98) == "23.0 MB/s" and value_text("x", None) == "—"
    assert value_text("x", True) == "yes" and value_text("io_size", 1 << 20) == "1 MiB"
    # The examples: seconds, a percentage and a named raw counter, each with its unit and rounded.
    assert value_text("latency_max", 3.5183) == "3.5 s" and value_text("latency_p50", 0.0023) == "2.3 ms"
    assert value_text("percent_of_rated", 70.2003) == "70%"
    assert value_text("bytes_from_host", 4_294_967_296) == "4.29 GB"
    assert value_text("density_code", 0x60) == "LTO-9 (0x60)" and value_text("manufacture_date", "20261125") == "2026-11-25"
    fields = flatten({"phases": [{"phase": "write", "mb_s": 1.5}], "n": 3})
    assert [(f.label, f.value) for f in fields] == [("Phases › write › phase", "write"),
                                                    ("Phases › write › rate", "1.5 MB/s"), ("N", "3")]


def test_report_command_works_headless_without_qt_platform_set(hist: History, tmp_path: Path) -> None:
    run_id = hist.start_run("read-data", "/srv", {"streams": 1})
    hist.add_samples(run_id, _samples("read-data", 50.0))
    hist.finish_run(run_id, "complete", read_data(50.0, target="/srv"))
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    out = subprocess.run([sys.executable, "-m", "app", "report", str(run_id), "-o", str(tmp_path / "r.pdf")],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "r.pdf").read_bytes().startswith(b"%PDF")


def test_drive_info_section_shows_its_kind_rows_and_leaves_identity_to_the_device_section(hist: History) -> None:
    run_id = hist.start_run("drive-info", "/dev/sg3")
    res = _drive_info("HU1234ABCD", "Healthy", [], [], cleaning_required={"supported": True, "value": False},
                      performance={"supported": True, "repositions_per_100mb": 37, "buffer_in_mb_s": None,
                                   "max_possible_mb_s": None, "current_mb_s": None, "native_mb_s": 120.0},
                      media={"supported": True, "density_code": 0x46, "density_name": "LTO-4", "block_size": None,
                             "write_protected": False, "buffered_mode": 1, "block_mode": "variable"},
                      cartridge=cartridge(barcode="ABC123L4", density_code=0x46, manufacture_date="20240131",
                                          attributes={"Barcode": "ABC123L4"}))
    hist.finish_run(run_id, "complete", res)
    report = build_report(hist, [run_id])
    (section,) = report.runs
    fields = {f.label: f.value for f in section.results}
    assert fields["Cleaning required"] == "no"
    assert fields["Drive rating"] == "120.0 MB/s native, 37 repositions per 100 MB"
    assert fields["Cartridge"] == "ABC123L4, LTO-4 (0x46), made 2024-01-31"
    assert "Error counters" not in fields  # the drive did not answer them: nothing to show, not a raw "reason"
    identity = {f.label: f.value for f in report.devices[0].identity}
    assert identity == {"Vendor": "HP", "Product": "Ultrium 4-SCSI", "Serial": "HU1234ABCD", "Firmware": "B63W",
                        "Generation": "LTO-4", "Cartridge barcode": "ABC123L4", "Cartridge density": "LTO-4 (0x46)"}
    (health,) = report.headlines
    assert (health.topic, health.words, health.tone) == ("Drive health", "Healthy", "good") and health.action


def test_a_run_that_did_not_finish_still_says_so_on_page_one(hist: History) -> None:
    run_id = hist.start_run("tape-perf", "virtual:lto9", {"size": 1 << 40})
    hist.finish_run(run_id, "refused", None, "the cartridge holds data")
    (headline,) = build_report(hist, [run_id]).headlines
    assert (headline.topic, headline.words, headline.detail) == ("Tape performance", "Refused", "the cartridge holds data")
    assert headline.action

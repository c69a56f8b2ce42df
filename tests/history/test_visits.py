"""Issue 25 §4: history keyed by drive serial, cartridge barcode and MAM serial, telling drive from media.

Recorded runs on several virtual drives (``serial=``) and cartridges (a worn cartridge, ``wornmedia=``,
keeps its errors in its file, so they follow it into any drive; a worn drive head, ``wornhead=``,
stays with the drive), then what ``info``, ``scan`` and ``assess`` print about the earlier visits.
"""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.history import History, RunKeys
from app.history.schema import MIGRATIONS, migrate
from app.visits import for_run

ROOT = Path(__file__).resolve().parents[2]


def dev(tmp_path: Path, cart: str, serial: str, **options: object) -> str:
    query = {"realtime": "0", "capacity": "256M", "cartridge": str(tmp_path / f"{cart}.cart"), "serial": serial,
             **{k: str(v) for k, v in options.items()}}
    return "virtual:lto9?" + "&".join(f"{k}={v}" for k, v in query.items())


def write(device: str) -> None:
    assert main(["tape-perf", device, "--size", "64M", "--direction", "write", "--force"]) in (0, 10)


def scan(device: str, capsys: pytest.CaptureFixture[str]) -> dict:
    capsys.readouterr()
    main(["scan", device, "--json"])
    return json.loads(capsys.readouterr().out)


def test_a_cartridge_that_errs_in_two_drives_points_at_the_cartridge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(dev(tmp_path, "bad", "DRV1", wornmedia=50, barcode="BAD001L9"))
    write(dev(tmp_path, "good", "DRV1", barcode="GOOD01L9"))
    first = scan(dev(tmp_path, "bad", "DRV1"), capsys)
    # One drive cannot tell a cartridge worn all over from a worn head: a drive finding that says so, and the
    # cartridge is not condemned on it.
    assert first["verdict"] == "keep" and first["history"]["points_at"] == ""
    assert any("or of a cartridge worn all over" in f["text"] for f in first["findings"]), first["findings"]
    good = scan(dev(tmp_path, "good", "DRV2"), capsys)
    assert good["verdict"] == "keep"
    second = scan(dev(tmp_path, "bad", "DRV2"), capsys)
    # In a second drive the history settles it, and the verdict says what the history says.
    assert second["verdict"] == "monitor" and "this cartridge erred in 1 other drive too (run 1 (" in second["reasons"][0]
    assert not any(f["culprit"] == "drive" for f in second["findings"]), second["findings"]
    history = second["history"]
    assert history["points_at"] == "cartridge"
    assert history["why"] == "the cartridge erred in 2 different drives (DRV1, DRV2)"
    assert [v["run_id"] for v in history["cartridge_visits"]] == [1, 3]  # the tape test and the first scan
    # DRV2 read another cartridge cleanly: nothing against the drive.
    assert [v["erred"] for v in history["drive_visits"]] == [False]
    lines = history["lines"]
    assert lines[0].startswith("this cartridge (BAD001L9, MAM serial ") and "2 with errors (runs 1, 3), in drive DRV1" in lines[0]
    assert lines[1] == "this drive (DRV2): 1 earlier visit (1 scan), clean, with cartridge GOOD01L9"
    assert lines[2].startswith("corrected errors per GB on this cartridge, visit by visit: ") and "(run 5)" in lines[2]
    # info in a third drive says the same, in text.
    capsys.readouterr()
    main(["info", dev(tmp_path, "bad", "DRV3")])
    out = capsys.readouterr().out
    assert "History of this drive and cartridge" in out and "points at the cartridge: the cartridge erred in 2" in out


def test_a_drive_that_errs_on_several_cartridges_points_at_the_drive(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("c1", "c2"):
        write(dev(tmp_path, name, "CLEAN1", barcode=f"{name.upper()}0001L9"))
    scan(dev(tmp_path, "c1", "WORN1", wornhead=200), capsys)
    second = scan(dev(tmp_path, "c2", "WORN1", wornhead=200), capsys)
    # The history settles what one scan could not: the head, and the cartridge is kept.
    assert second["verdict"] == "keep"
    assert any(f["culprit"] == "drive" and "this drive erred on 1 other cartridge too" in f["text"]
               for f in second["findings"]), second["findings"]
    found = second["history"]
    assert found["points_at"] == "drive"
    assert found["why"] == "the drive erred on 2 different cartridges (" + ", ".join(
        sorted(v["mam_serial"] for v in found["drive_visits"] + [found["current"]] if v["drive_serial"] == "WORN1")) + ")"
    # The same cartridges read cleanly in their first drive: their history says so.
    c1 = found["cartridge_visits"]
    assert [(v["drive_serial"], v["erred"]) for v in c1] == [("CLEAN1", False)]


def test_clean_earlier_scans_are_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(dev(tmp_path, "c", "HU01", barcode="KEEP01L9"))
    scan(dev(tmp_path, "c", "HU01"), capsys)
    scan(dev(tmp_path, "c", "HU01"), capsys)
    capsys.readouterr()
    main(["scan", dev(tmp_path, "c", "HU01")])
    out = capsys.readouterr().out
    assert ("this cartridge (KEEP01L9, MAM serial " in out
            and "): 3 earlier visits (1 tape test, 2 scans), all clean, in drive HU01" in out)
    assert "points at" not in out


def _v2_database(path: Path) -> None:
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, MIGRATIONS[:2])
    rows = [
        ("drive-info", {"identity": {"serial": "HU0001"}, "cartridge": {"supported": True, "barcode": "ABC001L9",
                                                                          "serial": "MAM0001"}}),
        ("media-scan", {"cartridge": {"barcode": "ABC001L9", "serial": "MAM0001"}, "read": {"bytes": 10**9}}),
        ("assessment", {"serial": "HU0002"}),
    ]
    for kind, results in rows:
        conn.execute("INSERT INTO runs (kind, device, status, started_at, results) VALUES (?, 'virtual:lto9', "
                     "'complete', '2026-01-01T00:00:00+00:00', ?)", (kind, json.dumps(results)))
    conn.execute("INSERT INTO runs (kind, device, status, started_at, results) VALUES ('media-scan', 'x', 'complete', "
                 "'2026-01-01T00:00:00+00:00', '{not json')")
    conn.close()


def test_migration_keys_existing_runs_and_keeps_a_damaged_one(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    _v2_database(path)
    with History.open(path) as hist:
        assert [hist.keys(i) for i in (1, 2, 3, 4)] == [
            RunKeys("HU0001", "ABC001L9", "MAM0001"), RunKeys(None, "ABC001L9", "MAM0001"), RunKeys("HU0002"), RunKeys()]
        runs = hist.keyed_runs(RunKeys(mam_serial="MAM0001"))
        assert [run.id for run, _ in runs] == [1, 2]
        found = for_run(2, hist)
        assert found is not None and [v.run_id for v in found.cartridge_visits] == [1]


def test_a_run_keeps_the_keys_read_before_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(dev(tmp_path, "k", "HUKEY", barcode="KEY001L9"))
    with History.open() as hist:
        (run,) = hist.list_runs()
        keys = hist.keys(run.id)
    assert keys.drive_serial == "HUKEY" and keys.barcode == "KEY001L9" and keys.mam_serial


def test_assess_names_the_cartridges_earlier_visits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write(dev(tmp_path, "a", "HUA", barcode="ASSESSL9"))
    scan(dev(tmp_path, "a", "HUA"), capsys)
    capsys.readouterr()
    main(["assess", dev(tmp_path, "a", "HUB"), "--no-write"])
    out = capsys.readouterr().out
    assert "History of this drive and cartridge" in out
    assert "2 earlier visits (1 tape test, 1 scan), both clean, in drive HUA" in out
    assert "this drive (HUB): no earlier visit in this history" in out


def test_every_visit_kind_says_its_own_figures() -> None:
    """A kind that visits a cartridge answers for its figures (``RunKind.visit``): a kind listed without one would
    make every run of it a visit with no figures, which ``erred`` can never be."""
    from app import catalog  # noqa: F401  (installs the kinds)
    from app.runs import registry
    from app.visits import VISIT_KINDS

    assert [k for k in VISIT_KINDS if registry.get(k).visit is None] == []


def _tapediag(*args: str) -> subprocess.CompletedProcess[str]:
    """The command as a technician runs it: its own process, which loads only the run kinds it runs."""
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, check=False)


def test_scan_and_info_judge_by_the_visits_in_processes_of_their_own(tmp_path: Path) -> None:
    """The visits are read from the figures stored with each run, not through the run kinds' catalog, which the
    command line does not load for ``scan`` or ``info`` (reading through it refused every such command once)."""
    bad = dev(tmp_path, "bad", "PROC1", wornmedia=50, barcode="PROC01L9")
    assert _tapediag("tape-perf", bad, "--size", "64M", "--direction", "write", "--force").returncode in (0, 10)
    first = _tapediag("scan", dev(tmp_path, "bad", "PROC1"))
    second = _tapediag("scan", dev(tmp_path, "bad", "PROC2"))
    info = _tapediag("info", dev(tmp_path, "bad", "PROC3"))
    for done in (first, second, info):
        assert "Traceback" not in done.stderr and "catalog" not in done.stderr, done.stderr
    assert "2 with errors (runs 1, 2), in drive PROC1" in second.stdout, second.stdout
    assert "points at the cartridge: the cartridge erred in 2 different drives (PROC1, PROC2)" in info.stdout, info.stdout


def test_migration_to_4_gives_older_runs_their_figures(tmp_path: Path) -> None:
    """A history written before the figures existed (schema 3): its scans' and tape tests' figures come from their
    stored results, once, so earlier visits still count; a run of another kind gets none."""
    path = tmp_path / "history.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    migrate(conn, MIGRATIONS[:3])
    rows = [
        ("tape-perf", {"phases": [{"bytes": 2 * 10**9}], "log_deltas": [
            {"name": "write errors corrected", "before": 0, "after": 10, "delta": 10}]}),
        ("media-scan", {"read": {"bytes": 10**9}, "slow_zones": [{"start": 0}], "cartridge_signals": ["slow zones"],
                        "log_deltas": []}),
        ("disk-read", {"phases": [{"bytes": 10**9}]}),
    ]
    for kind, results in rows:
        conn.execute("INSERT INTO runs (kind, device, status, started_at, results, mam_serial) VALUES (?, "
                     "'virtual:lto9', 'complete', '2026-01-01T00:00:00+00:00', ?, 'MAMOLD')", (kind, json.dumps(results)))
    conn.close()
    with History.open(path) as hist:
        tape, scanned, disk = (hist.visit_row(i) for i in (1, 2, 3))
    assert tape.figures is not None and (tape.figures.gb, tape.figures.corrected) == (2.0, 10)
    assert scanned.figures is not None and scanned.figures.slow and scanned.figures.signals == ("slow zones",)
    assert disk.figures is None
    with History.open(path) as hist:
        found = for_run(2, hist)
    assert found is not None and found.current is not None and found.current.erred
    assert [v.run_id for v in found.cartridge_visits] == [1]

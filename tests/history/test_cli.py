"""`tapediag history / show / export` against a real history in the test's data dir."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from app.cli import main
from app.events import Sample
from app.history import History
from tests.helpers.kinds import tape_perf


@pytest.fixture
def stored_run() -> int:
    with History.open() as hist:
        run_id = hist.start_run("tape-perf", "virtual:lto9", {"block_size": 262144})
        hist.add_samples(run_id, [Sample(t=(i + 1) * 0.01, nbytes=1_000_000, latency=0.01, phase="write")
                                  for i in range(200)])
        hist.finish_run(run_id, "complete", tape_perf(rates={"write": 100.0}, product="Ultrium VL9-0001"))
        hist.start_run("read-data", "/srv/data", {})  # left incomplete
    return run_id


def test_history_path_prints_the_database_location(isolated_data_dir: Path, capsys) -> None:
    assert main(["history", "--path"]) == 0
    assert capsys.readouterr().out.strip() == str(isolated_data_dir / "history.sqlite")


def test_history_lists_runs_as_table_and_json(stored_run: int, capsys) -> None:
    assert main(["history"]) == 0
    out = capsys.readouterr().out
    assert "virtual:lto9" in out and "complete" in out and "write 100.0 MB/s" in out
    assert "incomplete" in out and "/srv/data" in out
    assert main(["history", "--json", "--kind", "tape-perf"]) == 0
    runs = json.loads(capsys.readouterr().out)
    assert [r["id"] for r in runs] == [stored_run] and runs[0]["results"]["phases"][0]["mb_s"] == 100.0


def test_history_when_empty(capsys) -> None:
    assert main(["history"]) == 0
    assert "No runs" in capsys.readouterr().out


def test_show_prints_params_results_and_rates(stored_run: int, capsys) -> None:
    assert main(["show", str(stored_run)]) == 0
    out = capsys.readouterr().out
    assert "Block size 256 KiB" in out and "VL9-0001" in out  # the parameters (labelled by tape-perf's fields), then the run's text
    assert "write 100.0 MB/s overall" in out
    assert main(["show", str(stored_run), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data["samples"]) == 200 and data["status"] == "complete"


def test_show_unknown_run_is_one_line_error(capsys) -> None:
    assert main(["show", "42"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no run 42" in err


def test_export_csv_and_json_to_files(stored_run: int, tmp_path: Path) -> None:
    assert main(["export", str(stored_run), "--csv", "-o", str(tmp_path / "s.csv")]) == 0
    rows = list(csv.reader(io.StringIO((tmp_path / "s.csv").read_text())))
    assert rows[0] == ["t_s", "nbytes", "latency_s", "phase", "stream"]
    assert len(rows) == 201 and rows[1][1] == "1000000" and rows[1][3] == "write"
    assert main(["export", str(stored_run), "--json", "-o", str(tmp_path / "r.json")]) == 0
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["params"] == {"block_size": 262144} and len(data["samples"]) == 200


def test_export_unknown_run_creates_no_file(tmp_path: Path) -> None:
    assert main(["export", "7", "--csv", "-o", str(tmp_path / "x.csv")]) == 2
    assert not (tmp_path / "x.csv").exists()


def test_every_history_row_fits_100_columns_and_show_has_the_rest(capsys) -> None:
    """A tape run's and a troubleshooting session's rows were 300+ characters wide (issue 31): each row now fits
    100 columns, its device and result shortened with an ellipsis; 'show' prints the whole result."""
    device = "virtual:lto9?cartridge=/srv/tapediag/cartridges/customer-acme/TD0001L9.cart&realtime=0"
    with History.open() as hist:
        tape = hist.start_run("tape-perf", device, {})
        hist.finish_run(tape, "complete", tape_perf(device, {"write": 301.2}))
    # A real session whose verdict is long: the backup faster than the disk test that should bound it.
    assert main(["troubleshoot", "--backup", "40", "--disk-read", "22.58", "--tape-write", "300"]) == 0
    capsys.readouterr()
    assert main(["history"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert all(len(line) <= 100 for line in lines), [len(line) for line in lines]
    session = next(line for line in lines if line.split()[3] == "troubleshoot")
    assert "Backup: the backup achieved 40 MB/s" in session and session.endswith("…")
    shown_device = next(line for line in lines if line.startswith(f"{tape} ")).split()[4]
    assert shown_device.startswith("virtual:") and shown_device.endswith("time=0") and "…" in shown_device
    assert main(["show", session.split()[0]]) == 0
    shown = capsys.readouterr().out
    assert "Backup: the backup achieved 40 MB/s, more than the file system test measured" in " ".join(shown.split())

"""`tapediag troubleshoot`: flags, history runs, prompts, JSON, and the recorded session."""
from __future__ import annotations

import io
import json

import pytest


from tests.helpers.kinds import drive_info, read_data, tape_perf
from app.identity import IDENTITIES, TAPE_DRIVE, DeviceIdentity
from app.cli import main
from app.events import Sample
from app.history import History

TABLE2 = ["troubleshoot", "--tape-write", "154", "--tape-read", "156", "--disk-read", "10.59",
          "--disk-read-parallel", "29.02", "--backup", "22.98", "--streams", "4", "--block-size", "64K",
          "--software-compression", "on", "--small-files", "--drive", "LTO-4"]


def test_table2_from_flags_prints_the_table_and_records_a_run(capsys) -> None:
    assert main(TABLE2) == 0
    out = capsys.readouterr().out
    assert "Backup — bottleneck determination" in out
    assert "Disk read, parallel streams" in out and "29  Yes (File system)" in out
    assert "the bottleneck is the file system" in out
    assert "Use a tape block size of 256 KB or more" in out and "Turn software compression off" in out
    with History.open() as hist:
        (run,) = hist.list_runs(kind="troubleshoot")
    assert run.status == "complete"
    assert run.results["tables"][0]["bottleneck"] == "disk"
    assert run.params["workload"]["block_size"] == 65536


def test_json_output(capsys) -> None:
    assert main(TABLE2 + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["run_id"] == 1 and "file system" in data["verdict"]
    assert {r["id"] for r in data["recommendations"]} >= {"block-size-below-256k", "software-compression-with-hardware-compression"}


def test_figures_from_history_runs(capsys) -> None:
    with History.open() as hist:
        tape = hist.start_run("tape-perf", "virtual:lto9", {"block_size": 262144})
        # 100 I/Os of 2 MB in 1 s = 200 MB/s computed from the samples; no phase (so no rate) in the results. The drive
        # as the run recorded it (``app.identity``): its serial is only there.
        hist.add_samples(tape, [Sample(t=(i + 1) * 0.01, nbytes=2_000_000, latency=0.01, phase="write") for i in range(100)])
        drive = DeviceIdentity("virtual:lto9", TAPE_DRIVE, "HPE", "Ultrium 9-SCSI", "VX9001")
        hist.finish_run(tape, "complete", {**tape_perf(vendor="HPE", product="Ultrium 9-SCSI"),
                                           IDENTITIES: [drive.to_dict()]})
        disk = hist.start_run("read-data", "/srv/data", {"streams": 8})
        hist.finish_run(disk, "complete", read_data(350.5, files=800, streams=8))
    assert main(["troubleshoot", "--tape-write-run", str(tape), "--disk-read-run", str(disk),
                 "--backup", "190", "--streams", "8", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {r["test"]: r for r in data["tables"][0]["rows"]}
    assert rows["Tape write"]["mb_s"] == 200.0 and rows["Tape write"]["source"] == f"run {tape}"
    assert rows["Disk read, parallel streams"]["mb_s"] == 350.5
    assert data["tables"][0]["bottleneck"] == "tape"
    assert data["input"]["drive"]["generation"] == 9 and data["input"]["drive"]["serial"] == "VX9001"
    with History.open() as hist:
        assert hist.list_runs(kind="troubleshoot")[0].device == "virtual:lto9"


def test_a_run_of_the_wrong_kind_is_refused(capsys) -> None:
    with History.open() as hist:
        disk = hist.start_run("read-data", "/srv/data", {})
        hist.finish_run(disk, "complete", read_data(50.0))
    assert main(["troubleshoot", "--tape-write-run", str(disk), "--backup", "40"]) == 2
    err = capsys.readouterr().err
    assert "is a read-data run" in err and err.count("\n") == 1


def test_no_figures_is_a_usage_error(capsys) -> None:
    assert main(["troubleshoot", "--no-interactive"]) == 2
    assert "no figures given" in capsys.readouterr().err


def test_bad_block_size_is_one_line(capsys) -> None:
    assert main(["troubleshoot", "--backup", "20", "--block-size", "huge"]) == 2
    assert "block size" in capsys.readouterr().err


def test_interactive_prompts_walk_the_five_steps(monkeypatch, capsys) -> None:
    answers = ["154", "156", "", "", "10.59", "29.02",  # steps 1-4
               "22.98", "", "4", "64K", "off", "", "yes", "LTO-4"]  # step 5, drive
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(answers) + "\n"))
    assert main(["troubleshoot", "--interactive"]) == 0
    out = capsys.readouterr().out
    assert "1. Tape write" in out and "5. What the backup application achieved" in out
    assert "Yes (File system)" in out and "Turn software compression off" not in out
    assert "Use a tape block size of 256 KB or more" in out


def test_a_wrong_answer_is_asked_again_in_words(monkeypatch, capsys) -> None:
    """'256K' typed at the streams prompt (the block size's, one line further down) is said in words and asked
    again; once it printed Python's "invalid literal for int() with base 10: '256K'" (issue 31)."""
    answers = ["154", "156", "", "", "10.59", "29.02", "22.98", "", "256K", "4", "256K", "off", "", "yes", "LTO-4"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(answers) + "\n"))
    assert main(["troubleshoot", "--interactive"]) == 0
    out = capsys.readouterr().out
    assert "'256K' is not a whole number of streams" in out and "invalid literal" not in out
    assert out.count("Streams into the drive") == 2  # asked again, then answered with 4


def test_show_prints_a_stored_session_as_it_was_printed(capsys) -> None:
    assert main(TABLE2) == 0
    printed = capsys.readouterr().out
    assert main(["show", "1"]) == 0
    shown = capsys.readouterr().out
    assert shown.splitlines()[0] == "Run 1: Troubleshooting session — complete"
    assert printed.split("\n\nRecorded as run")[0] in shown


def test_drive_from_a_drive_info_run_and_run_ids_in_prompts(monkeypatch, capsys) -> None:
    with History.open() as hist:
        info = hist.start_run("drive-info", "/dev/sg4", {})
        hist.finish_run(info, "complete", drive_info(serial="HU19KT1234", device="/dev/sg4"))  # an HP LTO-4
        tape = hist.start_run("tape-perf", "/dev/sg4", {})
        stored = tape_perf("/dev/sg4", {"write": 118.0})
        hist.finish_run(tape, "complete", stored)
    answers = [f"#{tape}", "", "", "", "10.59", "", "22.98", "", "1", "64K", "", "", "no"]
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(answers) + "\n"))
    assert main(["troubleshoot", "--interactive", "--drive-run", str(info), "--json"]) == 0
    with History.open() as hist:
        run = hist.list_runs(kind="troubleshoot")[0]
    assert run.device == "/dev/sg4"
    assert run.params["drive"]["generation"] == 4 and run.params["drive"]["serial"] == "HU19KT1234"
    said = stored["phases"][0]  # what the run said limited it (it never streamed: "not steady"), taken as it said it
    assert said["limited_by"] == "not steady"
    assert run.params["measurements"]["tape_write"] == {"mb_s": 118.0, "run_id": tape, "source": f"run {tape}",
                                                        "limited_by": said["limited_by"],
                                                        "limited_why": said["limited_why"]}
    assert {r["id"] for r in run.results["recommendations"]} >= {"block-size-below-256k"}


def test_small_files_are_recognised_from_the_read_data_run(capsys) -> None:
    with History.open() as hist:
        disk = hist.start_run("read-data", "/srv/home", {"streams": 1})
        # 2,000,000 files of 8 KB on average: the white paper's "millions of small files".
        hist.finish_run(disk, "complete", read_data(10.59, files=2_000_000, seconds=2_000_000 * 8192 / 10.59e6))
    assert main(["troubleshoot", "--tape-write", "154", "--disk-read-run", str(disk), "--backup", "9.8",
                 "--streams", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["input"]["workload"]["avg_file_kb"] == 8.0 and data["input"]["workload"]["file_count"] == 2_000_000
    assert data["facts"]["small_files"] is True
    assert "small-files-backup-file-system-bound" in {r["id"] for r in data["recommendations"]}


@pytest.mark.parametrize("args", [["--backup", "-5"], ["--tape-write", "1e9", "--backup", "3"], ["--backup", "nan"],
                                  ["--backup", "inf"], ["--streams", "0", "--backup", "5"], ["--os", "beos"]])
def test_implausible_input_is_one_line_and_exit_2(args: list[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os
    import subprocess
    import sys
    from pathlib import Path

    got = subprocess.run([str(Path(sys.executable).with_name("tapediag")), "troubleshoot", *args, "--no-interactive"],
                         capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TAPEDIAG_DATA_DIR": str(tmp_path)})
    assert got.returncode == 2 and len(got.stderr.strip().splitlines()) == 1, got.stderr
    assert "Traceback" not in got.stderr


def test_the_operating_system_reaches_the_advice(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["troubleshoot", "--tape-read", "156", "--disk-write", "19.94", "--backup", "22.98", "--restore", "3.38",
                 "--streams", "1", "--small-files", "--os", "windows", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "small-files-restore-windows-single-stream" in {r["id"] for r in data["recommendations"]}


def test_the_link_is_shown_by_its_name_not_as_it_was_typed(capsys) -> None:
    """'gige' is what a technician types; 'Gigabit Ethernet' is what the customer reads in show and the report."""
    assert main(["troubleshoot", "--tape-write", "300", "--disk-read", "200", "--backup", "90", "--network", "gige"]) == 0
    capsys.readouterr()
    assert main(["show", "1"]) == 0
    out = capsys.readouterr().out
    assert "Network link Gigabit Ethernet" in out and "gige" not in out

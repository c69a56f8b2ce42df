"""The CLI commands: --json output, exit statuses, one-line errors, the history record."""
from __future__ import annotations

import json
from pathlib import Path

from app.cli import EXIT_REFUSED, EXIT_USAGE, main


def test_create_read_clean_json(tmp_path: Path, capsys) -> None:
    target = tmp_path / "t"
    assert main(["create-data", str(target), "--depth", "2", "--breadth", "2", "--files-per-dir", "10",
                 "--min-size", "1K", "--max-size", "8K", "--pattern", "2:1", "--streams", "2", "--json"]) == 0
    created = json.loads(capsys.readouterr().out)
    assert created["kind"] == "create-data" and created["status"] == "complete"
    assert created["total_files"] == 2 * 6 * 10 and len(created["streams"]) == 2
    assert {"mb_s", "files_s", "seconds", "latency", "manifest", "history_run_id"} <= set(created)
    assert created["latency"]["count"] == 120

    assert main(["read-data", str(target), "--streams", "3", "--buffer", "64K", "--json"]) == 0
    read = json.loads(capsys.readouterr().out)
    assert read["total_files"] == 120 and read["tree_walk"]["files"] == 120  # the manifest is not data
    assert read["buffer_size"] == 65536 and len(read["streams"]) == 3

    assert main(["clean", str(target), "--json"]) == 0
    cleaned = json.loads(capsys.readouterr().out)
    assert cleaned["files_removed"] == 120
    assert not target.exists()  # created by create-data, so removed with the last run

    assert main(["history", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)
    kinds = {r["kind"] for r in (runs if isinstance(runs, list) else runs.get("runs", []))}
    assert {"create-data", "read-data"} <= kinds


def test_text_output(tmp_path: Path, capsys) -> None:
    assert main(["create-data", str(tmp_path / "t"), "--depth", "1", "--breadth", "1", "--files", "5"]) == 0
    out = capsys.readouterr().out
    assert "create-data" in out and "MB/s" in out and "slowest stream" in out


def test_refusal_is_one_line_and_exit_3(tmp_path: Path, capsys) -> None:
    (tmp_path / "keep.txt").write_text("x")
    assert main(["create-data", str(tmp_path), "--files", "3"]) == EXIT_REFUSED
    err = capsys.readouterr().err.strip()
    assert err.startswith("tapediag: refused:") and "not empty" in err and "\n" not in err


def test_bad_parameters_are_usage_errors(tmp_path: Path, capsys) -> None:
    assert main(["create-data", str(tmp_path / "t"), "--streams", "9"]) == EXIT_USAGE
    assert main(["create-data", str(tmp_path / "t"), "--min-size", "1M", "--max-size", "4K"]) == EXIT_USAGE
    assert main(["read-data", str(tmp_path / "nothing-here")]) == EXIT_USAGE
    assert not (tmp_path / "t").exists()


def test_bad_size_is_a_usage_error_not_a_traceback(tmp_path: Path, capsys) -> None:
    assert main(["create-data", str(tmp_path / "t"), "--min-size", "4Q"]) == EXIT_USAGE  # one line, by from_values
    assert "'4Q' is not a size" in capsys.readouterr().err

"""`tapediag tape-perf` end to end on the virtual drive: JSON, CSV samples, history, exit codes."""
from __future__ import annotations

import csv
import json

import pytest

from app.cli import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, main
from app.history import History

DEV = "virtual:lto9?realtime=0"


def test_json_result_samples_csv_and_history(tmp_path, capsys) -> None:
    samples = tmp_path / "s.csv"
    code = main(["tape-perf", DEV, "--pattern", "4.3:1", "--block-size", "256K", "--io-size", "1M", "--mode", "fixed",
                 "--size", "8M", "--filemarks-every", "0", "--compression", "on", "--direction", "write,read",
                 "--verify", "--json", "--samples", str(samples)])
    out = capsys.readouterr()
    assert code == EXIT_OK, out.err
    result = json.loads(out.out)
    assert result["status"] == "complete" and result["compression"] == "on"
    assert [p["phase"] for p in result["phases"]] == ["write", "read"]
    assert result["phases"][1]["verified_blocks"] == 32
    rows = list(csv.DictReader(samples.open()))
    assert len(rows) == 16 and {r["phase"] for r in rows} == {"write", "read"}
    assert sum(int(r["bytes"]) for r in rows) == 16 << 20
    with History.open() as hist:
        runs = hist.list_runs(kind="tape-perf")
    assert len(runs) == 1 and runs[0].status == "complete" and runs[0].device == DEV


def test_human_summary(capsys) -> None:
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "4.19 MB in" in out and "MB/s streaming (overall" in out and "latency p50" in out and "LTO-9" in out
    assert "possible for 2:1 data on LTO-9" in out
    assert "not steady: only" in out  # 4 MB says nothing about what limits the drive


def test_data_on_tape_is_one_line_and_exit_3(capsys) -> None:
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write"]) == EXIT_OK
    capsys.readouterr()
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write"]) == EXIT_REFUSED
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "refused: the cartridge holds data: a block at BOT of 256 KiB" in err[0]
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write", "--force"]) == EXIT_OK


def test_bad_input_is_one_line_and_exit_2(capsys) -> None:
    assert main(["tape-perf", DEV, "--block-size", "256K", "--io-size", "1000K"]) == EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "multiple of the block size" in err[0]
    assert main(["tape-perf", DEV, "--pattern", "12:1"]) == EXIT_USAGE
    assert main(["tape-perf", DEV, "--size", "lots"]) == EXIT_USAGE


def test_hpux_form(capsys) -> None:
    assert main(["tape-perf", DEV, "--block-size", "64K", "--blocks-per-io", "4", "--repeats", "8", "--direction",
                 "write", "--json"]) == EXIT_OK
    result = json.loads(capsys.readouterr().out)
    assert result["params"]["io_size"] == 256 << 10 and result["phases"][0]["ios"] == 8


def test_a_refusal_leaves_no_samples_file(tmp_path, capsys) -> None:
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write"]) == EXIT_OK
    samples = tmp_path / "s.csv"
    assert main(["tape-perf", DEV, "--size", "4M", "--direction", "write", "--samples", str(samples)]) == EXIT_REFUSED
    assert not samples.exists()


def test_block_size_zero_is_bad_input(capsys) -> None:
    assert main(["tape-perf", DEV, "--block-size", "0"]) == EXIT_USAGE
    assert "block size must be at least 1 byte" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--direction", "--pattern", "--io-size", "--size", "--block-size",
                                    "--history-size", "--host-rate"])
def test_an_empty_value_is_refused_not_taken_for_the_default(option: str, tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    # `--direction ""` used to run a write test.
    cart = tmp_path / "c.img"
    assert main(["tape-perf", f"virtual:lto9?realtime=0&cartridge={cart}", "--force", f"{option}="]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "is empty" in err[0], err
    assert not cart.exists() or cart.stat().st_size <= 64 << 10  # nothing written


@pytest.mark.parametrize("seed", ["-1", "99999999999999999999"])
def test_a_seed_out_of_range_is_refused(seed: str, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["tape-perf", "virtual:lto9?realtime=0", "--seed", seed]) == 2
    assert "--seed" in capsys.readouterr().err

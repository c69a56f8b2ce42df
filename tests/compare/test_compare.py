"""`tapediag compare` on real runs of the virtual drive (issue 30 §2): a slow link and a worn head, then the same
drive fixed; a repeat; another drive with another block size; another kind of run.

The runs are made once for the module, by the command line as a technician makes them: ``interface=100`` (a link
at 100 MB/s, e.g. a cable or an HBA port negotiated down) and ``wornhead=300`` (300 corrected errors per GB) on a
drive with serial HU100, twice; then the same drive and cartridge without them, twice.
"""
from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path
from typing import Iterator

import pytest

from app.cli import main
from app.compare import compare_runs
from app.compare.noise import COUNTS, IMPROVED, NOISE, RATE, SAME, WORSE, judge_count, judge_must_not_happen, judge_rate
from app.history import History, default_path
from tests.helpers.words import unexpected

SIZE = ["--size", "128M", "--pattern", "random", "--direction", "write,read"]


def _drive(base: Path, extra: str = "", serial: str = "HU100", cart: str = "c.cart") -> str:
    return f"virtual:lto9?cartridge={base / cart}&serial={serial}&buffer=32M&capacity=1G{extra}"


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, int]]]:
    """The module's history: its directory and the runs by name."""
    base = tmp_path_factory.mktemp("compare")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TAPEDIAG_DATA_DIR", str(base / "data"))
        mp.setenv("TAPEDIAG_LOCK_DIR", str(tmp_path_factory.mktemp("locks")))
        worn = _drive(base, "&interface=100&wornhead=300")
        plan = [("before1", ["tape-perf", worn, *SIZE]), ("before2", ["tape-perf", worn, *SIZE, "--force"]),
                ("after1", ["tape-perf", _drive(base), *SIZE, "--force"]),
                ("after2", ["tape-perf", _drive(base), *SIZE, "--force"]),
                ("other", ["tape-perf", _drive(base, serial="HU200", cart="d.cart"), *SIZE, "--block-size", "128K"]),
                ("info", ["info", _drive(base)])]
        ids: dict[str, int] = {}
        for name, argv in plan:
            assert main(argv) in (0, 10), argv
            with History.open() as hist:
                ids[name] = hist.list_runs(limit=1)[0].id
        yield base / "data", ids


@pytest.fixture
def use(history: tuple[Path, dict[str, int]], monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(history[0]))
    return history[1]


def _rows(before: int, after: int) -> dict[str, tuple[str, str]]:
    with History.open() as hist:
        c = compare_runs(hist, before, after)
    return {r.figure: (r.judgement, r.basis) for r in c.rows}


def test_a_fixed_link_and_head_improve_and_only_the_device_options_differ(use: dict[str, int], capsys) -> None:
    with History.open() as hist:
        c = compare_runs(hist, use["before1"], use["after1"])
    assert [d.what for d in c.differences] == ["Device"]  # same serial, cartridge, parameters and version
    assert "interface=100" in c.differences[0].before and "same drive" in c.differences[0].words
    rows = {r.figure: r for r in c.rows}
    for phase in ("Write", "Read"):
        assert rows[f"{phase} rate"].judgement == IMPROVED, rows[f"{phase} rate"]
        assert rows[f"{phase} rate"].change.startswith("+")
        assert rows[f"{phase} errors corrected"].judgement == IMPROVED
        assert rows[f"{phase} errors uncorrected"].judgement == SAME
        # The slow link made the drive stop and restart; how often depends on this machine's timing too: never worse.
        assert rows[f"{phase} back-hitches (the drive's own)"].judgement != WORSE
    assert rows["TapeAlert flags after the test"].judgement == SAME
    assert main(["compare", str(use["before1"]), str(use["after1"])]) == 0
    out = capsys.readouterr().out.splitlines()
    # What differs comes first, in words, then the figures, then how noise was judged.
    assert out[1] == "What differs besides the figures:" and out[2].startswith("  Device: ")
    assert out.index("How noise is judged:") > next(i for i, line in enumerate(out) if "Write rate" in line)


def test_a_repeat_is_within_noise_and_says_which_band(use: dict[str, int]) -> None:
    rows = _rows(use["before1"], use["before2"])
    assert rows["Write rate"][0] == NOISE and rows["Read rate"][0] == NOISE, rows
    assert "band" in rows["Write rate"][1]
    assert rows["Write errors corrected"][0] in (NOISE, SAME)


def test_three_repeats_give_a_measured_spread(use: dict[str, int]) -> None:
    with History.open() as hist:
        c = compare_runs(hist, use["before2"], use["after1"])
    rows = {r.figure: r for r in c.rows}
    assert rows["Write rate"].judgement == IMPROVED and "measured spread" in rows["Write rate"].basis
    note = next(n for n in c.notes if n.startswith("Write rate"))
    ids = ", ".join(str(use[n]) for n in ("before1", "before2", "after1", "after2"))
    assert f"measured on runs {ids}" in note, note
    with History.open() as hist:  # one run on each side: fewer than three, the rule's band
        c = compare_runs(hist, use["before1"], use["before2"])
    assert any("fewer than 3 repeated runs" in n for n in c.notes)


def test_another_drive_and_block_size_are_said_first_and_still_compared(use: dict[str, int], capsys) -> None:
    with History.open() as hist:
        c = compare_runs(hist, use["after2"], use["other"])
    said = {d.what: d for d in c.differences}
    assert said["Drive serial"].before == "HU100" and said["Drive serial"].after == "HU200"
    assert "two different drives" in said["Drive serial"].words
    assert said["Block size"].before == "256 KiB" and said["Block size"].after == "128 KiB"
    assert "Cartridge barcode" in said and "Device" in said
    assert c.differences[0].what == "Drive serial"
    assert {r.figure for r in c.rows} >= {"Write rate", "Read rate", "Write errors corrected"}
    assert main(["compare", str(use["after2"]), str(use["other"])]) == 0
    out = capsys.readouterr().out
    assert out.index("Drive serial: HU100 / HU200") < out.index("Write rate")


def test_another_kind_is_said_and_compared_by_verdicts(use: dict[str, int]) -> None:
    with History.open() as hist:
        c = compare_runs(hist, use["after2"], use["info"])
    assert c.differences[0].what == "Kind of run"
    assert all(r.figure.startswith("Verdict: ") for r in c.rows)


def test_json_and_nothing_is_recorded(use: dict[str, int], capsys) -> None:
    with History.open() as hist:
        before = [r.id for r in hist.list_runs()]
    assert main(["compare", str(use["before1"]), str(use["after1"]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["before"]["run_id"] == use["before1"] and data["rows"][0]["figure"] == "Write rate"
    assert "figures improved" in data["summary"] and {r["judgement"] for r in data["rows"]} >= {"improved", "same"}
    with History.open() as hist:
        assert [r.id for r in hist.list_runs()] == before  # a comparison measures nothing and is no run


@pytest.mark.parametrize("argv", [["1", "1"], ["1", "999"], ["abc", "1"]])
def test_bad_input_is_one_line_and_exit_2(use: dict[str, int], argv: list[str], capsys) -> None:
    try:
        code = main(["compare", *argv])
    except SystemExit as stop:  # argparse's own refusal (not a number), one line by ``app.cli._Parser``
        code = int(stop.code or 0)
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err


@pytest.mark.parametrize("damage", ['{"phases": "none", "status": "complete"}', '{"write_mb_s": 27.2, "phas'],
                         ids=["wrong type", "not JSON"])
def test_a_damaged_record_is_exit_2_naming_the_run(damage: str, capsys) -> None:
    from tests.helpers.kinds import tape_perf

    with History.open() as hist:
        ids = []
        for n in range(2):
            run_id = hist.start_run("tape-perf", "virtual:lto9", {"n": n})
            hist.finish_run(run_id, "complete", tape_perf(rates={"write": 26.2 + n}))
            ids.append(run_id)
    with sqlite3.connect(default_path()) as db:
        db.execute("UPDATE runs SET results = ? WHERE id = ?", (damage, ids[1]))
    assert main(["compare", str(ids[0]), str(ids[1])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"run {ids[1]}" in err[0], err


@pytest.mark.skipif(not all(shutil.which(t) for t in ("pdftotext", "pdftoppm")), reason="poppler-utils not installed")
def test_the_pdf_is_one_report_with_both_runs_and_the_table_on_page_1(use: dict[str, int], tmp_path: Path,
                                                                        capsys) -> None:
    pdf = tmp_path / "compare.pdf"
    a, b = str(use["before1"]), str(use["after1"])
    assert main(["compare", a, b, "-o", str(pdf), "--customer", "ACME", "--ticket", "4711"]) == 0
    assert f"Report written to {pdf}" in capsys.readouterr().out
    page1 = subprocess.run(["pdftotext", "-layout", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True,
                           text=True, check=True).stdout
    assert "Before and after" in page1 and f"Run #{a}" in page1 and f"Run #{b}" in page1
    for words in ("Write rate", "Read rate", "Write errors corrected", "improved", "What differs besides the figures"):
        assert words in page1, words
    assert unexpected(page1) == []
    everything = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert f"Run #{a}: Tape performance" in everything and f"Run #{b}: Tape performance" in everything
    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "p")], check=True)
    assert any(tmp_path.glob("p*.png"))


def test_the_noise_rule_never_calls_2_percent_an_improvement() -> None:
    assert judge_rate(400.0, 408.0, RATE.relative) == NOISE
    assert judge_rate(400.0, 392.0, RATE.relative) == NOISE
    assert judge_rate(400.0, 440.0, RATE.relative) == IMPROVED and judge_rate(400.0, 360.0, RATE.relative) == WORSE
    # Counts: 10 back-hitches against 12 over the same GB is chance; 40 against 2 is not; fewer than 3 apart never.
    assert judge_count(10, 1.0, 12, 1.0) == NOISE and judge_count(40, 1.0, 2, 1.0) == IMPROVED
    assert judge_count(0, 1.0, COUNTS.min_change - 1, 1.0) == NOISE
    assert judge_count(5, 1.0, 10, 2.0) == NOISE  # the same rate per GB over twice the data
    assert judge_must_not_happen(0, 1) == WORSE and judge_must_not_happen(1, 0) == IMPROVED


def test_an_older_run_without_identities_is_told_by_the_history_keys() -> None:
    """Runs recorded before identities were (issue 25) are keyed by what their results carried: another drive is
    still said first."""
    from app.history.keys import RunKeys
    from tests.helpers.kinds import tape_perf

    with History.open() as hist:
        ids = []
        for serial, barcode in (("HU1", "TD0001L9"), ("HU2", "TD0001L9")):
            run_id = hist.start_run("tape-perf", "/dev/sg3", {"pattern": "2:1"})
            hist.finish_run(run_id, "complete", tape_perf("/dev/sg3", rates={"write": 300.0}))
            hist.set_keys(run_id, RunKeys(serial, barcode, None))
            ids.append(run_id)
        c = compare_runs(hist, ids[0], ids[1])
    assert [(d.what, d.before, d.after) for d in c.differences] == [("Drive serial", "HU1", "HU2")]
    assert {r.figure: r.judgement for r in c.rows}["Write rate"] == NOISE  # 300 against 300 MB/s

"""PDF reports from real runs: tape-perf on the virtual drive, create/read-data on real
files, a drive identity read from the virtual drive, and a troubleshooting session
built on them. The PDF is read back with pdftotext and rendered with pdftoppm."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.kinds import findings as kind_findings
from app.cli import main
from app.history import History
from app.report import build_report
from app.runs.words import mb_s

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("pdftoppm"),
                                reason="poppler-utils not installed")


def _json_run(argv: list[str], capsys) -> dict:
    """``main(argv + --json)``'s JSON; without capsys (module fixtures) stdout is captured here."""
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(argv + ["--json"])
    out = buf.getvalue() + (capsys.readouterr().out if capsys is not None else "")
    assert code in (0, 10, 11, 12), out  # info exits with the verdict's code (0 only for Healthy)
    return json.loads(out)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Real runs, recorded once for the module in its own data directory."""
    data = tmp_path_factory.mktemp("report-data")
    mp = pytest.MonkeyPatch()
    mp.setenv("TAPEDIAG_DATA_DIR", str(data))
    ids: dict = {"data_dir": data}
    try:
        # The drive-info run as a user makes it: `tapediag info DEVICE --json`, TapeAlert flags raised.
        info = _json_run(["info", "virtual:lto5?tapealert=3,20"], None)
        ids["info"], ids["serial"], ids["drive_info"] = info["run_id"], info["identity"]["serial"], info
        src = tmp_path_factory.mktemp("tree") / "data"
        for argv in (["tape-perf", "virtual:lto5", "--size", "48M"],
                     ["create-data", str(src), "--depth", "2", "--breadth", "3", "--files-per-dir", "60", "--streams", "2"],
                     ["read-data", str(src), "--streams", "2"]):
            code = main(argv)
            assert code == 0, argv
        with History.open() as hist:
            listed = {r.kind: r.id for r in hist.list_runs()}
        ids.update(tape=listed["tape-perf"], create=listed["create-data"], read=listed["read-data"])
    finally:
        mp.undo()
    return ids


@pytest.fixture
def in_runs_dir(runs: dict, monkeypatch: pytest.MonkeyPatch) -> dict:
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(runs["data_dir"]))
    return runs


def _pdftotext(path: Path) -> str:
    return subprocess.run(["pdftotext", "-layout", str(path), "-"], capture_output=True, text=True, check=True).stdout


def _pages_as_gray(path: Path, tmp_path: Path) -> list[np.ndarray]:
    subprocess.run(["pdftoppm", "-gray", "-r", "30", str(path), str(tmp_path / "page")], check=True)
    images = []
    for pgm in sorted(tmp_path.glob("page-*.pgm")):
        raw = pgm.read_bytes()
        header = raw.split(b"\n", 3)  # P5, "w h", maxval, pixels (pdftoppm writes no comments)
        w, h = map(int, header[1].split())
        images.append(np.frombuffer(header[3], dtype=np.uint8)[: w * h].reshape(h, w))
    return images


def test_troubleshoot_report_from_real_runs(in_runs_dir: dict, tmp_path: Path, capsys) -> None:
    r = in_runs_dir
    pdf = tmp_path / "out" / "report.pdf"
    code = main(["troubleshoot", "--tape-write-run", str(r["tape"]), "--tape-read-run", str(r["tape"]),
                 "--disk-read-run", str(r["read"]), "--disk-write-run", str(r["create"]),
                 "--backup", "22.98", "--restore", "9.5", "--streams", "4", "--block-size", "64K",
                 "--software-compression", "on", "--small-files", "--json",
                 "--report", str(pdf), "--customer", "ACME Corp", "--site", "Berlin DC",
                 "--technician", "J. Doe", "--ticket", "INC-4711"])
    assert code == 0
    session = json.loads(capsys.readouterr().out)
    text = _pdftotext(pdf)
    flat = " ".join(text.split())
    for needle in ("ACME Corp", "Berlin DC", "J. Doe", "INC-4711", "Bottleneck analysis", "Recommendations",
                   "Turn software compression off"):
        assert needle in flat, needle
    assert "Appendix: raw figures" not in flat  # the customer's report: raw figures only with --appendix
    assert int(next(l.split()[1] for l in subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True,
                                                          check=True).stdout.splitlines() if l.startswith("Pages:"))) <= 6
    for table in session["tables"]:
        assert " ".join(table["verdict"].split()) in flat  # the verdict, word for word
        for row in table["rows"]:
            assert mb_s(row["mb_s"]).removesuffix(" MB/s") in text, row  # every figure of the bottleneck table

    # The runs behind the figures come along: their sections and plots are in the report.
    for kind_title in ("Tape performance", "Disk read (read data)", "Disk write (create data)"):
        assert kind_title in flat, kind_title
    # A throughput plot per run, a bar chart per direction: painted as vectors, their labels are text.
    assert flat.count("Throughput (MB/s)") >= 3 and flat.count("MB/s (decimal)") == len(session["tables"])
    for table in session["tables"]:
        assert f"{table['direction'].capitalize()}: each component's rate against the application's" in flat
    pages = _pages_as_gray(pdf, tmp_path)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert len(pages) == int(next(l.split()[1] for l in info.splitlines() if l.startswith("Pages:"))) >= 3
    for page in pages:
        assert page.min() < 128 and page.std() > 5  # ink on every page, not a blank sheet


def test_report_command_with_device_identity_runs_and_plots(in_runs_dir: dict, tmp_path: Path, capsys) -> None:
    r = in_runs_dir
    pdf = tmp_path / "runs.pdf"
    assert main(["report", str(r["info"]), str(r["tape"]), str(r["create"]), str(r["read"]),
                 "-o", str(pdf), "--customer", "ACME Corp"]) == 0
    assert "Report written to" in capsys.readouterr().out
    text = _pdftotext(pdf)
    flat = " ".join(text.split())
    assert r["serial"] in text  # the device serial from the drive-info run
    info = r["drive_info"]
    assert f"LTO-{info['generation']}" in flat and f"Health: {info['health']['verdict']}" in flat
    for alert in info["tapealerts"]["value"]:  # each TapeAlert flag the snapshot saw
        assert f"TapeAlert {alert['code']:02X}h {alert['name']}" in flat
    with History.open() as hist:
        report = build_report(hist, [r["info"], r["tape"], r["create"], r["read"]])
        tape = hist.get_run(r["tape"], samples=False)
        disk = hist.get_run(r["read"], samples=False)
    for kind, res in (("tape-perf", tape.results), ("read-data", disk.results)):  # each kind's verdicts, as worded
        for finding in kind_findings(kind, res):
            assert " ".join(finding.words.split()) in flat, finding
    assert all(r.plot is not None for r in report.runs if r.kind != "drive-info")  # each run its own timeline
    assert report.bar_charts == () and "Tape performance" in text


def test_drive_info_cli_run_then_report_subprocess(tmp_path: Path) -> None:
    """As a user does it: `tapediag info --json`, then `tapediag report <that run>` next to a tape-perf run."""
    env = {**os.environ, "TAPEDIAG_DATA_DIR": str(tmp_path / "data")}
    exe = str(ROOT / ".venv" / "bin" / "tapediag")
    dev = "virtual:lto9?realtime=0&tapealert=5&cartridge=" + str(tmp_path / "c.cart")
    got = subprocess.run([exe, "info", dev, "--json"], env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == 11, got.stderr  # TapeAlert 05h (Read) is Critical: verdict Failing
    info = json.loads(got.stdout)
    tape = subprocess.run([exe, "tape-perf", dev, "--size", "16M", "--json"], env=env, capture_output=True,
                          text=True, timeout=120)
    # The flag is still set when the test ends: part of the run's verdict, as 'info' rates it (Failing: 11).
    assert tape.returncode == 11, tape.stderr
    with History.open(tmp_path / "data" / "history.sqlite") as hist:
        tape_id = next(r.id for r in hist.list_runs(kind="tape-perf"))
    for ids, name in (([info["run_id"]], "info.pdf"), ([tape_id, info["run_id"]], "both.pdf")):
        out = subprocess.run([exe, "report", *map(str, ids), "-o", str(tmp_path / name)], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        flat = " ".join(_pdftotext(tmp_path / name).split())
        assert info["identity"]["serial"] in flat and "LTO-9" in flat
        assert "Health: Failing" in flat and "TapeAlert 05h Read" in flat


def test_report_refuses_unknown_runs_and_non_pdf_names(in_runs_dir: dict, tmp_path: Path, capsys) -> None:
    assert main(["report", "999", "-o", str(tmp_path / "x.pdf")]) == 2
    assert "no run 999" in capsys.readouterr().err
    assert main(["report", str(in_runs_dir["tape"]), "-o", str(tmp_path / "x.txt")]) == 2
    assert "x.pdf" in capsys.readouterr().err
    assert not (tmp_path / "x.pdf").exists()


def test_the_raw_appendix_only_when_asked(in_runs_dir: dict, tmp_path: Path, capsys) -> None:
    r = in_runs_dir
    plain, full = tmp_path / "plain.pdf", tmp_path / "full.pdf"
    assert main(["report", str(r["tape"]), "-o", str(plain)]) == 0
    assert main(["report", str(r["tape"]), "-o", str(full), "--appendix"]) == 0
    assert "Appendix: raw figures" not in " ".join(_pdftotext(plain).split())
    assert "Appendix: raw figures" in " ".join(_pdftotext(full).split())

"""The PDF as a customer gets it, from runs made the way a technician makes them (the
``tapediag`` command, each in its own process): one tape run fits in 3 pages and a
troubleshooting session in 6; page 1 says the verdicts, the drive's serial and the
headline rate with its unit; every page renders with ink on it."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from tests.helpers.kinds import findings as kind_findings
from app.history import History
from app.runs.words import mb_s

ROOT = Path(__file__).resolve().parents[2]
EXE = str(ROOT / ".venv" / "bin" / "tapediag")

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("pdftotext", "pdftoppm", "pdfinfo")),
                                reason="poppler-utils not installed")


def _tapediag(args: list[str], env: dict, ok: tuple[int, ...] = (0,)) -> str:
    out = subprocess.run([EXE, *args], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode in ok, (args, out.stdout, out.stderr)
    return out.stdout


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Drive info, a write+read tape run, disk runs (one and two streams) and a troubleshooting session on them."""
    base = tmp_path_factory.mktemp("pages")
    env = {**os.environ, "TAPEDIAG_DATA_DIR": str(base / "data"), "QT_QPA_PLATFORM": "offscreen"}
    dev = f"virtual:lto9?realtime=0&cartridge={base / 'c.cart'}"
    info = json.loads(_tapediag(["info", dev, "--json"], env))
    _tapediag(["tape-perf", dev, "--size", "64M", "--direction", "write,read"], env)
    for name, streams in (("one", "1"), ("two", "2")):
        tree = str(base / name)
        _tapediag(["create-data", tree, "--depth", "1", "--breadth", "2", "--files-per-dir", "8", "--streams", streams],
                  env)
        _tapediag(["read-data", tree, "--streams", streams], env)
    with History.open(base / "data" / "history.sqlite") as hist:
        ids: dict[str, list[int]] = {}
        for run in hist.list_runs():
            ids.setdefault(run.kind, []).append(run.id)
        tape = hist.get_run(ids["tape-perf"][0], samples=False)
    tape_id = str(tape.id)
    args = ["troubleshoot", "--tape-write-run", tape_id, "--tape-read-run", tape_id, "--backup", "40",
            "--restore", "35", "--streams", "2", "--no-interactive"]
    for run_id in ids["read-data"]:
        args += ["--disk-read-run", str(run_id)]
    for run_id in ids["create-data"]:
        args += ["--disk-write-run", str(run_id)]
    _tapediag(args, env)
    with History.open(base / "data" / "history.sqlite") as hist:
        troubleshoot = next(r.id for r in hist.list_runs(kind="troubleshoot"))
    return {"base": base, "env": env, "info": info, "tape": tape, "ids": ids, "troubleshoot": troubleshoot}


def _report(session: dict, ids: list[int], name: str) -> Path:
    pdf = session["base"] / name
    _tapediag(["report", *map(str, ids), "-o", str(pdf), "--customer", "ACME", "--technician", "J. Doe",
               "--ticket", "4711"], session["env"])
    return pdf


def _pages(pdf: Path) -> int:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    return int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))


def _page_one(pdf: Path) -> str:
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                          check=True).stdout
    return " ".join(text.split())


def _every_page_renders(pdf: Path, out: Path) -> None:
    out.mkdir()
    subprocess.run(["pdftoppm", "-gray", "-r", "30", str(pdf), str(out / "p")], check=True)
    pages = sorted(out.glob("p-*.pgm"))
    assert len(pages) == _pages(pdf)
    for pgm in pages:
        magic, size, _maxval, pixels = pgm.read_bytes().split(b"\n", 3)
        w, h = map(int, size.split())
        page = np.frombuffer(pixels, dtype=np.uint8)[: w * h]
        assert page.min() < 128 and page.std() > 5, pgm.name  # ink on it, not a blank sheet


def test_a_tape_run_fits_in_three_pages_with_its_verdicts_on_page_one(session: dict, tmp_path: Path) -> None:
    pdf = _report(session, [session["ids"]["drive-info"][0], session["tape"].id], "tape.pdf")
    assert _pages(pdf) <= 3
    first = _page_one(pdf)
    info = session["info"]
    for needle in ("ACME", "J. Doe", "4711", info["identity"]["serial"], info["health"]["verdict"], "What to do"):
        assert needle in first, needle
    assert "Details" not in first  # page 2's heading, not a hair of it clipped onto page 1
    rate = session["tape"].results["phases"][0]["streaming_mb_per_s"]
    assert mb_s(rate) in first and mb_s(rate).endswith(" MB/s")  # the headline rate with its unit
    for finding in kind_findings("tape-perf", session["tape"].results):  # each tape verdict, word for word
        assert " ".join(finding.words.split()) in first, finding
    _every_page_renders(pdf, tmp_path / "png")


def test_a_troubleshooting_session_fits_in_six_pages_with_the_bottleneck_on_page_one(session: dict,
                                                                                     tmp_path: Path) -> None:
    pdf = _report(session, [session["troubleshoot"]], "session.pdf")
    assert _pages(pdf) <= 6
    first = _page_one(pdf)
    with History.open(session["base"] / "data" / "history.sqlite") as hist:
        res = hist.get_run(session["troubleshoot"], samples=False).results
    findings = kind_findings("troubleshoot", res)
    assert [f.topic for f in findings][:2] == ["Backup bottleneck", "Restore bottleneck"]
    for finding in findings:  # both bottlenecks and the first recommendation, when there is one
        assert " ".join(finding.words.split()) in first, finding
    # The session did not name the drive-info run: the serial comes from the drive's newest snapshot.
    assert session["info"]["identity"]["serial"] in first
    assert "Bottleneck analysis" not in first  # page 2 starts with it
    _every_page_renders(pdf, tmp_path / "png")

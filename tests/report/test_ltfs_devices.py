"""The report names the LTFS volume a cartridge holds where it names the cartridge (issue 30 §3): on page 1's device
line and on the devices page beside the barcode, from the cartridge memory (``info``, and every run's recorded
identity) and from the labels on tape (the scan, the erase), one volume once, and the run that erased it.
Real parts: the virtual LTO-9 with the records and attributes mkltfs wrote (``tests.helpers.ltfs``), the CLI, the
PDF read back with pdftotext."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from app.cli import main
from app.drive import TapeDrive
from app.history import History
from native.virtual import open_virtual
from tests.helpers.ltfs import VOLUME_NAME, VOLUME_UUID, write_mkltfs_volume

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils not installed")


def _pages(pdf: Path) -> list[str]:
    """Each page's text, whitespace folded (pdftotext -layout: a label and its value on one line)."""
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return [" ".join(page.split()) for page in text.split("\f")]


def _report(tmp_path: Path, *runs: int) -> list[str]:
    pdf = tmp_path / f"report-{'-'.join(map(str, runs))}.pdf"
    assert main(["report", *map(str, runs), "-o", str(pdf)]) == 0
    return _pages(pdf)


def _ids() -> dict[str, list[int]]:
    with History.open() as hist:
        out: dict[str, list[int]] = {}
        for run in reversed(hist.list_runs()):
            out.setdefault(f"{run.kind} {run.status}", []).append(run.id)
        return out


def test_the_devices_page_names_the_ltfs_volume_beside_the_cartridge(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    dev = f"virtual:lto9?realtime=0&capacity=64M&cartridge={tmp_path / 'ltfs.cart'}"
    with TapeDrive(open_virtual(dev)) as drive:
        write_mkltfs_volume(drive, first_mb=16)
    assert main(["info", dev]) == 0
    assert main(["tape-perf", dev, "--size", "1M"]) == 3  # refused: its identity names the volume from the memory
    assert main(["scan", dev]) == 0
    assert main(["erase", dev, "--short", "--force"]) == 0
    capsys.readouterr()
    ids = _ids()
    (info,), (refused,), (scan,), (erase,) = (ids["drive-info complete"], ids["tape-perf refused"],
                                              ids["media-scan complete"], ids["erase complete"])
    named = f"LTFS volume '{VOLUME_NAME}' (UUID {VOLUME_UUID}), written by IBM LTFS 2.4.8.4"
    for runs in ((info,), (refused,)):  # the cartridge memory's word: drive-info's own, and the recorded identity
        pages = _report(tmp_path, *runs)
        assert f"cartridge TD0001, {named}" in pages[0], pages[0]  # page 1's device line
        devices = next(p for p in pages if "Cartridge barcode" in p)
        assert f"Cartridge barcode TD0001 LTFS volume {named}" in devices, devices
    # Four runs, one volume: said once, in the labels' fuller words (the creator), and the run that erased it.
    devices = next(p for p in _report(tmp_path, info, refused, scan, erase) if "Cartridge barcode" in p)
    field = devices.split("Cartridge barcode TD0001 LTFS volume ", 1)[1].split(" Cartridge density", 1)[0]
    assert field == f"{named} (Prelim) - Linux - mkltfs; erased by run {erase}", field


def test_a_cartridge_without_ltfs_has_no_ltfs_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = f"virtual:lto9?realtime=0&capacity=64M&cartridge={tmp_path / 'plain.cart'}"
    assert main(["info", dev]) == 0
    capsys.readouterr()
    pages = _report(tmp_path, 1)
    assert "Cartridge barcode" in " ".join(pages) and "LTFS" not in " ".join(pages)

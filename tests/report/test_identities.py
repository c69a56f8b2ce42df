"""Identities on every report (issue 25 §6): each run that touches a device records its vendor, product,
serial and firmware and the cartridge's barcode (``app.identity``), and every report names them, page 1
included; a run from before they were recorded says "not recorded". Read back with pdftotext, page 1
rendered with pdftoppm."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from app.cli import main
from app.history import History
from app.identity import IDENTITIES, recorded
from app.report import build_report

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("pdftoppm"),
                                reason="poppler-utils not installed")


def _text(pdf: Path) -> str:
    return " ".join(subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())


def _page_one(pdf: Path, tmp_path: Path) -> str:
    """Page 1 alone, as text, after checking it renders (pdftoppm): a page with ink on it."""
    subprocess.run(["pdftoppm", "-gray", "-r", "30", "-f", "1", "-l", "1", str(pdf), str(tmp_path / "p1")], check=True)
    raw = next(tmp_path.glob("p1*.pgm")).read_bytes().split(b"\n", 3)
    w, h = map(int, raw[1].split())
    pixels = np.frombuffer(raw[3], dtype=np.uint8)[: w * h]
    assert (pixels < 128).mean() > 0.01  # text and the header bar, not a blank page
    return " ".join(subprocess.run(["pdftotext", "-layout", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True,
                                   text=True, check=True).stdout.split())


def _last_run(kind: str) -> tuple[int, dict]:
    with History.open() as hist:
        run = hist.list_runs(kind=kind)[0]
        return run.id, hist.get_run(run.id, samples=False).results or {}


def test_a_tape_perf_run_alone_names_serial_firmware_and_cartridge_on_page_one(tmp_path: Path, capsys) -> None:
    dev = f"virtual:lto8?realtime=0&cartridge={tmp_path / 'c.cart'}&barcode=ABC123L8"
    assert main(["tape-perf", dev, "--size", "32M"]) == 0
    run_id, results = _last_run("tape-perf")
    (ident,) = recorded(results) or []
    assert (ident.vendor, ident.product, ident.firmware, ident.barcode) == ("HPE", "Ultrium 8-SCSI", "V8A0", "ABC123L8")
    assert ident.serial and ident.serial.startswith("TDV8") and ident.cartridge_serial
    pdf = tmp_path / "r.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    capsys.readouterr()
    first = _page_one(pdf, tmp_path)
    assert "Devices virtual:lto8?realtime=0" in first  # the long device path may wrap; what follows it may not
    assert f"ABC123L8: HPE Ultrium 8-SCSI, serial {ident.serial}, firmware V8A0, cartridge ABC123L8" in first, first
    whole = _text(pdf)
    for label, value in (("Vendor", "HPE"), ("Product", "Ultrium 8-SCSI"), ("Serial", ident.serial),
                         ("Firmware", "V8A0"), ("Cartridge barcode", "ABC123L8")):
        assert f"{label} {value}" in whole


def test_scan_and_assess_record_the_drive_and_the_cartridge(tmp_path: Path, capsys) -> None:
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.cart'}&barcode=XYZ001L9"
    assert main(["assess", dev, "--size", "16M"]) in (0, 10)
    assert main(["scan", dev]) in (0, 10, 12)
    capsys.readouterr()
    for kind in ("assessment", "media-scan"):
        _, results = _last_run(kind)
        (ident,) = recorded(results) or []
        assert (ident.product, ident.barcode, ident.firmware) == ("Ultrium 9-SCSI", "XYZ001L9", "V9A0"), kind
        assert ident.serial and ident.role == "tape drive"


def test_an_old_run_without_identities_says_not_recorded(tmp_path: Path, capsys) -> None:
    """A tape-perf run recorded before issue 25: vendor and product only. The report says what is missing."""
    assert main(["tape-perf", f"virtual:lto7?realtime=0&cartridge={tmp_path / 'c.cart'}", "--size", "16M"]) == 0
    run_id, results = _last_run("tape-perf")
    old = {k: v for k, v in results.items() if k != IDENTITIES}
    with History.open() as hist:
        old_id = hist.start_run("tape-perf", "/dev/sg7", {"size": 16 << 20})
        hist.finish_run(old_id, "complete", old)
        report = build_report(hist, [old_id])
    (section,) = report.devices
    fields = {f.label: f.value for f in section.identity}
    assert fields["Drive"] == "HPE Ultrium 7-SCSI" and fields["Serial"] == "not recorded"
    assert fields["Firmware"] == "not recorded" and fields["Cartridge barcode"] == "not recorded"
    pdf = tmp_path / "old.pdf"
    assert main(["report", str(old_id), "-o", str(pdf)]) == 0
    capsys.readouterr()
    assert "/dev/sg7: HPE Ultrium 7-SCSI, serial not recorded, firmware not recorded, cartridge not recorded" in \
        _page_one(pdf, tmp_path)


def test_two_cartridges_in_one_report_are_each_named_with_their_run(tmp_path: Path, capsys) -> None:
    ids = []
    for label in ("AAA001L9", "BBB002L9"):
        cart = tmp_path / f"{label}.cart"
        dev = f"virtual:lto9?realtime=0&cartridge={cart}&barcode={label}"
        assert main(["tape-perf", dev, "--size", "16M"]) == 0
        ids.append(_last_run("tape-perf")[0])
    capsys.readouterr()
    with History.open() as hist:
        report = build_report(hist, ids)
    # two cartridge files: two device strings, each with its own cartridge
    barcodes = sorted(f.value for d in report.devices for f in d.identity if f.label == "Cartridge barcode")
    assert barcodes == ["AAA001L9", "BBB002L9"]


def test_a_library_exercise_names_the_library_its_drives_and_the_cartridges_moved(tmp_path: Path, capsys) -> None:
    lib = f"virtual:library?dir={tmp_path / 'lib'}&drives=2&slots=4&ie=0&realtime=0"
    assert main(["library-test", lib, "--moves", "2", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    library, *drives = recorded(res) or []
    assert (library.role, library.vendor, library.product, library.serial, library.firmware) == (
        "library", "TAPEDIAG", "VIRTUAL LIBRARY", "TDLIB0001", "V1.0")
    assert library.barcode == "TD0000L9, TD0001L9"
    assert [(d.role, d.serial) for d in drives] == [("library drive", "TDLIBDRV000"), ("library drive", "TDLIBDRV001")]
    pdf = tmp_path / "lib.pdf"
    assert main(["report", str(res["run_id"]), "-o", str(pdf)]) == 0
    capsys.readouterr()
    first = _page_one(pdf, tmp_path)
    assert "TAPEDIAG VIRTUAL LIBRARY, serial TDLIB0001, firmware V1.0, cartridge TD0000L9, TD0001L9" in first
    assert "HPE Ultrium 9-SCSI, serial TDLIBDRV000, firmware V9A0" in first and "TDLIBDRV001" in first


def test_several_drives_at_once_name_each_drive(tmp_path: Path, capsys) -> None:
    devs = [f"virtual:lto9?realtime=0&cartridge={tmp_path / n}.cart&barcode={n.upper()}001L9" for n in ("aa", "bb")]
    assert main(["tape-perf", *devs, "--size", "16M", "--alone", "0", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    with History.open() as hist:
        run = hist.get_run(res["run_id"], samples=False)
        report = build_report(hist, [run.id])
    assert [(i.device, i.barcode) for i in recorded(run.results) or []] == [(devs[0], "AA001L9"), (devs[1], "BB001L9")]
    named = {d.device: {f.label: f.value for f in d.identity} for d in report.devices}
    assert named[devs[0]]["Cartridge barcode"] == "AA001L9" and named[devs[1]]["Serial"].startswith("TDV9")

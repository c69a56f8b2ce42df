"""Media that fits the drive (issue 25 §5), on real parts: the virtual library and drives, tgt's changer.

Every check is made before anything is loaded, moved or written, and refuses in one line
(exit 3) naming the cartridge, the drive's generation, the rule and its source.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app import media
from app.cli import main
from app.drive import TapeDrive
from app.library import Changer
from native.errors import MediumError, NotReady
from native.scsi.media import ident_for
from native.scsi.smc import ElementType
from native.virtual.library import VirtualLibrary
from tests.helpers.tgt_library import TgtLibraryFactory
from tests.tapeperf.conftest import blank_at_bot

PERF = ["--size", "4M", "--block-size", "64K", "--io-size", "256K"]


def _lib(tmp_path: Path, **extra: str) -> str:
    opts = {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "4", "ie": "0", "realtime": "0", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _state(tmp_path: Path, dev: str) -> dict:
    """Where the library's cartridges are, by element address, as every process sees it: its file once a
    move has written one, else the new library it opens as."""
    path = tmp_path / "lib" / "library.json"
    if path.exists():
        return json.loads(path.read_text())["contents"]
    lib = VirtualLibrary(dev)
    return {str(a): b for a, b in lib.contents.items()}


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.mark.parametrize("lto", [5, 6, 7, 8, 9, 10])
def test_the_virtual_library_labels_its_cartridges_for_its_drives_generation(tmp_path: Path, lto: int) -> None:
    """LTO-8 drives get L8 barcodes, LTO-10 ones LA; the cartridge memory says the same generation."""
    dev = _lib(tmp_path, lto=str(lto))
    with Changer.open(dev) as changer:
        inv = changer.inventory()
        labels = [e.barcode for e in inv.of(ElementType.STORAGE)]
        assert labels == [f"TD000{i}{ident_for(lto)}" for i in range(3)] + ["CLN003L1"]
        changer.move("slot:2", "drive:0")
    with TapeDrive.open(f"virtual:lto{lto}?library={tmp_path / 'lib'}&drive=0&realtime=0") as drive:
        fit = media.loaded_fit(drive)
        assert drive.read_attributes().barcode == labels[1]
    assert fit.access.value == "read/write" and fit.medium is not None and fit.medium.generation == lto
    assert fit.notes == ()  # label and cartridge memory agree


def test_a_cartridge_of_the_wrong_generation_is_refused_before_the_move(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _lib(tmp_path, lto="8", media="L8,L9")
    before = (tmp_path / "lib" / "library.json").exists()
    assert main(["library", dev, "--move", "slot:2", "drive:0"]) == 3
    line = _one_error_line(capsys)
    assert line.startswith("tapediag: refused: moving TD0001L9 into drive:0: TD0001L9 is LTO-9 media (its barcode), "
                           "which an LTO-8 drive can neither read nor write (an LTO-8 drive reads and writes L7, M8 "
                           "and L8: IBM TS4500 manual, Table 13"), line
    assert (tmp_path / "lib" / "library.json").exists() == before  # nothing moved, so nothing was written
    with Changer.open(dev) as changer:
        inv = changer.inventory()
    assert inv.find("slot:2").barcode == "TD0001L9" and not inv.find("drive:0").full
    assert not (tmp_path / "lib" / "cartridges" / "TD0001L9.cart").exists()  # never near a drive
    assert main(["library", dev, "--move", "slot:1", "drive:0"]) == 0  # its own generation moves
    assert "moved TD0000L8 from slot:1" in capsys.readouterr().out


def test_the_virtual_robot_asked_anyway_cannot_load_it_and_puts_it_back(tmp_path: Path) -> None:
    """What another program gets, sending MOVE MEDIUM itself: the drive refuses the load (03/53/00, media load
    or eject failed), the cartridge is back in its slot, as a library with a failed load leaves it."""
    with Changer.open(_lib(tmp_path, lto="10", media="LA,L9")) as changer:
        inv = changer.inventory()
        with pytest.raises(MediumError, match="53/00"):
            changer.send_move(inv.find("slot:2"), inv.find("drive:0"))
        after = changer.inventory()
    assert after.find("slot:2").barcode == "TD0001L9" and not after.find("drive:0").full


def test_library_run_refuses_a_write_test_on_a_cartridge_the_drive_can_only_read_before_loading_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _lib(tmp_path, lto="7", media="L7,L5")
    assert main(["library-run", dev, "--barcode", "TD0001L5", "--run", "tape-perf", *PERF]) == 3
    line = _one_error_line(capsys)
    assert "moving TD0001L5 into drive:0: TD0001L5 is LTO-5 media (its barcode), which an LTO-7 drive can only " \
           "read" in line and line.count("and the test writes") == 1, line
    state = _state(tmp_path, dev)
    assert state["1001"] == "TD0001L5" and state["500"] is None
    assert main(["library-run", dev, "--barcode", "TD0001L5", "--run", "assess", "--size", "4M"]) == 3
    capsys.readouterr()
    # A read test may go: loaded, read (nothing written), returned; the run says why it only reads.
    assert main(["library-run", dev, "--barcode", "TD0001L5", "--run", "tape-perf", *PERF, "--direction", "read"]) == 0
    out = capsys.readouterr()
    assert "which an LTO-7 drive can only read" in out.err and "reading only" in out.err
    assert "returned TD0001L5 from drive:0 to slot:2" in out.out


def test_the_exerciser_moves_only_cartridges_every_drive_takes(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    dev = _lib(tmp_path, lto="8", media="L8,L9,L7")
    assert main(["library-test", dev, "--moves", "4", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    moved = {m["barcode"] for m in res["moves"]}
    assert moved == {"TD0000L8", "TD0002L7"} and res["verdict"] == "PASS"
    assert any(s.startswith("TD0001L9 in slot:2 (does not fit drive:0: TD0001L9 is LTO-9 media") for s in res["skipped"])


def test_tape_perf_refuses_to_write_a_cartridge_the_drive_only_reads_and_reads_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An LTO-5 cartridge in an LTO-7 drive (by its cartridge memory): a write test is refused before anything
    is written; a read test runs with a one-line note."""
    cart = tmp_path / "old.cart"
    with TapeDrive.open(f"virtual:lto5?realtime=0&cartridge={cart}") as drive:  # made an LTO-5 cartridge
        drive.rewind()
    dev = f"virtual:lto7?realtime=0&cartridge={cart}"
    assert main(["tape-perf", dev, *PERF]) == 3
    line = _one_error_line(capsys)
    assert line.startswith("tapediag: refused: the tape test: TD") and "L5 is LTO-5 media (MAM 0405h = 0x58), which " \
        "an LTO-7 drive can only read" in line and line.count("and the test writes") == 1, line
    with TapeDrive.open(dev) as drive:
        assert blank_at_bot(drive)  # nothing written
    assert main(["tape-perf", dev, *PERF, "--direction", "read"]) == 0
    assert "which an LTO-7 drive can only read" in capsys.readouterr().err


def test_a_label_the_cartridge_memory_contradicts_is_said_and_the_chip_believed(tmp_path: Path) -> None:
    cart = tmp_path / "l8.cart"
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}&barcode=ABC123L8") as drive:
        fit = media.loaded_fit(drive)
        assert fit.access.value == "read/write" and fit.medium is not None and fit.medium.name == "LTO-9"
        assert fit.notes == ("barcode ABC123L8 says LTO-8, the cartridge says LTO-9 (MAM 0405h = 0x60): the label is "
                             "wrong; the cartridge is believed",)


def test_tgt_changer_a_cartridge_of_the_wrong_generation_is_refused_before_the_move(
        tgt_library_factory: TgtLibraryFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """tgt's drives named "Ultrium 6-SCSI" (their generation); its changer's volume tags are the labels."""
    lib = tgt_library_factory(drives=2, slots=3, ie=0, barcodes=("TGT001L6", "TGT002L8", "TGT003L4"),
                              drive_product="Ultrium 6-SCSI")
    assert main(["devices", "--add-iscsi", lib.drive_url(0), "--no-probe"]) == 0  # drive:0's identifier names it
    capsys.readouterr()
    assert main(["library", lib.url, "--move", "slot:2", "drive:0"]) == 3
    line = _one_error_line(capsys)
    assert "moving TGT002L8 into drive:0: TGT002L8 is LTO-8 media (its barcode), which an LTO-6 drive can neither " \
           "read nor write" in line, line
    with TapeDrive.open(lib.drive_url(0)) as drive, pytest.raises(NotReady):
        drive.test_unit_ready()  # tgt's drive LUN never got the cartridge
    assert main(["library", lib.url, "--move", "slot:3", "drive:0"]) == 0  # LTO-4 in LTO-6: loads, read only
    out = capsys.readouterr().out
    assert "moved TGT003L4 from slot:3" in out and "note: TGT003L4 is LTO-4 media" in out and "reading only" in out

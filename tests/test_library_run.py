"""A library drive end to end (issue 17): a scratch cartridge by barcode into a drive, tape-perf there, home again.

On the virtual library the drive is a virtual LTO drive holding that cartridge's file, so
what tape-perf wrote stays on the cartridge (the second run finds data and is refused,
as on any drive); on tgt's library the drive LUN serves the cartridge's tape file. Each
run's end is checked by a second inventory, and a failing step by where its one line
says the cartridge is.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.drive import set_read_only_session
from tests.helpers.tgt import show_blocks
from tests.helpers.tgt_library import TgtLibraryFactory

PERF = ["--run", "tape-perf", "--size", "4M", "--block-size", "64K", "--io-size", "256K"]


def _dev(tmp_path: Path, **extra: str) -> str:
    opts = {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "4", "ie": "0", "realtime": "0", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _where(device: str, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[bool, str]]:
    """What is where, by a fresh inventory."""
    capsys.readouterr()
    assert main(["library", device, "--json"]) == 0
    return {e["name"]: (e["full"], e["barcode"]) for e in json.loads(capsys.readouterr().out)["elements"]}


def _one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_virtual_load_tape_perf_return_and_the_data_stays_on_that_cartridge(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev(tmp_path)
    before = _where(dev, capsys)
    assert main(["library-run", dev, "--barcode", "TD0001L9", *PERF]) == 0
    out = capsys.readouterr().out
    assert "loaded TD0001L9 from slot:2 into drive:0 (virtual:lto9?library=" in out
    assert "returned TD0001L9 from drive:0 to slot:2" in out and "final inventory: every cartridge where it was" in out
    assert _where(dev, capsys) == before
    # The cartridge's own file took the 4 MiB (stored uncompressed); the other cartridges were never loaded.
    cartridges = tmp_path / "lib" / "cartridges"
    assert (cartridges / "TD0001L9.cart").stat().st_size >= 4 << 20 and not (cartridges / "TD0000L9.cart").exists()
    # Now it holds data: the tape safety rule refuses it as on any drive, and it still goes home.
    assert main(["library-run", dev, "--barcode", "TD0001L9", "--drive", "drive:1", *PERF]) == 3
    assert "the cartridge holds data" in _one_error_line(capsys)
    assert _where(dev, capsys) == before
    assert main(["library-run", dev, "--barcode", "TD0001L9", "--drive", "drive:1", *PERF, "--force"]) == 0
    assert _where(dev, capsys) == before


def test_virtual_a_robot_fault_on_the_way_back_says_the_cartridge_is_in_the_drive(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev(tmp_path)
    _where(dev, capsys)
    assert main(["library-run", _dev(tmp_path, robotfault="2"), "--barcode", "TD0002L9", *PERF]) == 1
    line = _one_error_line(capsys)
    assert "returning TD0002L9 from drive:0 to slot:3 failed" in line and "HARDWARE ERROR" in line \
        and line.endswith("TD0002L9 is in drive:0"), line
    assert _where(dev, capsys)["drive:0"] == (True, "TD0002L9")
    assert main(["library", dev, "--move", "drive:0", "slot:3"]) == 0  # the technician puts it back: it can be
    assert _where(dev, capsys)["slot:3"] == (True, "TD0002L9")


def test_virtual_a_robot_fault_on_the_way_in_runs_no_test(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev(tmp_path)
    before = _where(dev, capsys)
    assert main(["library-run", _dev(tmp_path, robotfault="1"), "--barcode", "TD0000L9", *PERF]) == 1
    line = _one_error_line(capsys)
    assert "loading TD0000L9 into drive:0 failed" in line and line.endswith("TD0000L9 is in slot:1"), line
    assert _where(dev, capsys) == before and not (tmp_path / "lib" / "cartridges" / "TD0000L9.cart").exists()


@pytest.mark.parametrize(("args", "words"), [
    (["--barcode", "NOPE01L9"], "no cartridge with barcode NOPE01L9"),
    (["--barcode", "CLN003L1"], "is a cleaning cartridge"),
    (["--barcode", "TD0000L9", "--drive", "slot:2"], "slot:2 is a slot, not a drive"),
    (["--barcode", "TD0000L9", "--drive", "drive:7"], "the library has 2 drive elements"),
])
def test_bad_input_is_one_line_and_nothing_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 args: list[str], words: str) -> None:
    dev = _dev(tmp_path)
    before = _where(dev, capsys)
    assert main(["library-run", dev, *args, *PERF]) == 2
    assert words in _one_error_line(capsys)
    assert _where(dev, capsys) == before


def test_only_a_test_is_run_and_a_read_only_session_moves_nothing(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev(tmp_path)
    before = _where(dev, capsys)
    assert main(["library-run", dev, "--barcode", "TD0000L9", "--run", "clean", "/tmp"]) == 2
    assert "name the test after --run: tape-perf or assess" in _one_error_line(capsys)
    try:
        assert main(["--read-only", "library-run", dev, "--barcode", "TD0000L9", *PERF]) == 3
    finally:
        set_read_only_session(False)
    assert "MOVE MEDIUM was not sent" in _one_error_line(capsys)
    assert _where(dev, capsys) == before


def test_tgt_load_tape_perf_return_everything_back_in_its_slot(tgt_library_factory: TgtLibraryFactory,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=4, ie=0, barcodes=("TGT001L6", "TGT002L6", "CLN001L1"), size_mb=16)
    for index in range(2):
        assert main(["devices", "--add-iscsi", lib.drive_url(index), "--no-probe"]) == 0
    before = _where(lib.url, capsys)
    assert main(["library-run", lib.url, "--barcode", "TGT002L6", *PERF, "--direction", "write"]) == 0, \
        capsys.readouterr().err
    out = capsys.readouterr().out
    # drive:0 is the only drive tgt names in full (docs/tgt-changer.md): the test ran through its LUN.
    assert f"loaded TGT002L6 from slot:2 into drive:0 ({lib.drive_url(0)})" in out
    assert "returned TGT002L6 from drive:0 to slot:2" in out and "every cartridge where it was" in out
    assert _where(lib.url, capsys) == before
    blocks = show_blocks(lib.slot_file("TGT002L6"))  # tape-perf's records are on that cartridge's tape file
    assert sum(1 for b in blocks if b.type == "DATA") >= 4 and not any(b.type == "DATA"
                                                                        for b in show_blocks(lib.slot_file("TGT001L6")))


def test_virtual_assess_runs_on_the_library_drive_and_is_recorded_against_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from app.history import History

    dev = _dev(tmp_path)
    before = _where(dev, capsys)
    code = main(["library-run", dev, "--barcode", "TD0002L9", "--run", "assess", "--size", "16M", "--json"])
    captured = capsys.readouterr()
    result = json.loads(captured.out)  # --json: stdout is the assessment's JSON, the cycle's steps are on stderr
    assert "loaded TD0002L9 from slot:3 into drive:0" in captured.err and "every cartridge where it was" in captured.err
    assert result["device"].endswith("&drive=0&realtime=0") and result["verdict"] == "PASS" and code == 0
    with History.open() as hist:
        runs = hist.list_runs(kind="assessment")
    assert [r.device for r in runs] == [result["device"]]
    assert _where(dev, capsys) == before


@pytest.mark.parametrize("test", [["tape-perf", "{other}", "--size", "4M"], ["tape-perf", "--size", "4M", "{other}"],
                                  ["assess", "{other}", "--size", "4M"]])
def test_a_device_after_run_is_refused_before_anything_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             test: list[str]) -> None:
    """Issue 27 §3: an extra device after --run was quietly tested too, beside the library drive."""
    dev = _dev(tmp_path)
    other = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'other.img'}"
    before = _where(dev, capsys)
    words = [w.replace("{other}", other) for w in test]
    assert main(["library-run", dev, "--barcode", "TD0000L9", "--run", *words]) == 2
    line = _one_error_line(capsys)
    assert other in line, line
    if test[0] == "tape-perf" and test[1] == "{other}":
        assert "is not the drive the cartridge goes into; library-run tests only that drive" in line
    assert _where(dev, capsys) == before and not (tmp_path / "other.img").exists()

"""SIGTERM (and SIGHUP) put back what a run changed, like Ctrl-C; a library not as the last run left it
is said; an error after the first change still puts back and is recorded (issue 27).

Seen at ed91ad2: a killed ``scan`` or ``assess`` left a drive in variable-block mode (it was fixed
512-byte blocks); a killed ``library-test`` left cartridges in drives, and the next one said "every
cartridge is back in its home slot" while two slots were empty; a bad-input error raised after the
moves had begun exited 2 with the cartridges out and deleted the run's record. Every signal here is
sent on progress: READs or WRITEs in tgtd's own command log, a cartridge in a drive in the virtual
library's ``library.json``, a MOVE MEDIUM in tgtd's log.
"""
from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

from app.cli import main
from app.drive import TapeDrive
from app.history import History
from app.library import Changer, NotAChanger
from tests.helpers.stopping import enable_command_log, history, opcodes, start, wait_for
from tests.helpers.tgt import TgtFactory, TgtTarget
from tests.helpers.tgt_library import TgtLibraryFactory

pytestmark = pytest.mark.slow

READ6, WRITE6, MOVE_MEDIUM = 0x08, 0x0A, 0xA5


def _runs(data_dir: Path) -> list[tuple[str, str]]:
    return [(r["kind"], r["status"]) for r in history(data_dir)]


def _block_size(url: str) -> int | None:
    with TapeDrive.open(url) as drive:
        return drive.block_size()


def _fixed_512_with_data(target: TgtTarget, data_dir: Path) -> None:
    """256 MB of 64 KiB blocks on the tape, then the drive switched to fixed 512-byte blocks."""
    proc = start(["tape-perf", target.url, "--size", "256M", "--direction", "write", "--mode", "variable",
                  "--block-size", "64K"], data_dir)
    assert proc.wait(timeout=300) == 0, proc.communicate()
    with TapeDrive.open(target.url) as drive:
        drive.set_block_size(512)
    assert _block_size(target.url) == 512


def _terminate_on(target: TgtTarget, proc: subprocess.Popen[str], opcode: int, what: str) -> str:
    wait_for(lambda: opcodes(target).count(opcode) >= 3, proc, what)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    return out


@pytest.mark.tgt
def test_sigterm_mid_scan_puts_the_fixed_block_mode_back(tmp_path: Path, tgt_factory: TgtFactory) -> None:
    data = tmp_path / "data"
    target = tgt_factory(size_mb=1024)
    _fixed_512_with_data(target, data)
    enable_command_log(target)
    out = _terminate_on(target, start(["scan", target.url, "--json"], data), READ6, "the scan reading")
    result = json.loads(out)
    assert result["status"] == "cancelled" and "put back to fixed 512 bytes" in result["settings"]
    assert _block_size(target.url) == 512
    assert _runs(data)[0] == ("media-scan", "cancelled")


@pytest.mark.tgt
def test_sigterm_mid_assess_puts_the_fixed_block_mode_back(tmp_path: Path, tgt_factory: TgtFactory) -> None:
    data = tmp_path / "data"
    target = tgt_factory(size_mb=2048)
    _fixed_512_with_data(target, data)
    enable_command_log(target)
    proc = start(["assess", target.url, "--size", "1G", "--force", "--json"], data)
    out = _terminate_on(target, proc, WRITE6, "the write step writing")
    assert json.loads(out)["status"] == "cancelled"
    assert _block_size(target.url) == 512
    assert _runs(data)[0] == ("assessment", "cancelled")


# -- libraries ---------------------------------------------------------------------------------------


def _virtual(tmp_path: Path, **extra: str) -> str:
    opts = {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "6", "ie": "1", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _loaded(tmp_path: Path) -> bool:
    """The virtual library's own state: a drive element (addresses 500 on) holds a cartridge."""
    state = tmp_path / "lib" / "library.json"
    if not state.exists():  # not made yet
        return False
    contents = json.loads(state.read_text())["contents"]
    return any(500 <= int(address) < 1000 and barcode for address, barcode in contents.items())


def _inventory(device: str) -> dict[str, str]:
    with Changer.open(device) as changer:
        inv = changer.inventory()
    return {inv.name(e): e.barcode for e in inv.elements if e.full}


def _in_a_drive(device: str) -> bool:
    return any(name.startswith("drive:") for name in _inventory(device))


def test_sigterm_mid_library_test_puts_every_cartridge_back_virtual(tmp_path: Path) -> None:
    data = tmp_path / "data"
    device = _virtual(tmp_path)  # the robot takes its time (0.3-2 s a move): the run is caught mid-way
    before = _inventory(device)
    proc = start(["library-test", device, "--moves", "20", "--json"], data)
    wait_for(lambda: _loaded(tmp_path), proc, "a cartridge in a drive")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["status"] == "cancelled" and result["restored"] is True
    assert result["moves"][-1]["returning"] is True
    assert _inventory(device) == before
    assert _runs(data) == [("library-test", "cancelled")]


@pytest.mark.tgt
def test_sigterm_mid_library_test_puts_every_cartridge_back_tgt(tmp_path: Path,
                                                                 tgt_library_factory: TgtLibraryFactory) -> None:
    data = tmp_path / "data"
    lib = tgt_library_factory(drives=2, slots=5, ie=1, barcodes=("TGT001L6", "TGT002L6", "TGT003L6"))
    before = _inventory(lib.url)
    enable_command_log(lib)
    proc = start(["library-test", lib.url, "--moves", "5000", "--json"], data)
    wait_for(lambda: MOVE_MEDIUM in opcodes(lib, lib.changer_lun), proc, "a MOVE MEDIUM")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    result = json.loads(out)
    assert result["status"] == "cancelled" and result["restored"] is True
    assert 0 < len([m for m in result["moves"] if not m["returning"]]) < 5000
    assert _inventory(lib.url) == before
    assert _runs(data) == [("library-test", "cancelled")]


def test_the_next_run_says_what_differs_from_how_the_last_one_left_the_library(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    device = _virtual(tmp_path, realtime="0")
    assert main(["library-test", device, "--moves", "2"]) == 0
    capsys.readouterr()
    assert main(["library", device, "--move", "slot:2", "drive:1"]) == 0  # by hand, between two runs
    capsys.readouterr()
    assert main(["library-test", device, "--moves", "2", "--json"]) == 0
    captured = capsys.readouterr()
    said = [line for line in captured.err.splitlines() if "not as the last run on it left it" in line]
    assert [line.split("left it: ")[1] for line in said] == [
        "drive:1 was empty after run 1, holds TD0001L9 now",
        "slot:2 held TD0001L9 after run 1, empty now",
    ], captured.err
    assert json.loads(captured.out)["not_as_left"] == [line.split("left it: ")[1] for line in said]


def test_a_run_killed_outright_is_noticed_by_the_next_from_where_it_began(tmp_path: Path) -> None:
    """SIGKILL cannot be handled: the run stays "incomplete", but the inventory it began from was kept."""
    data = tmp_path / "data"
    device = _virtual(tmp_path)
    before = _inventory(device)
    proc = start(["library-test", device, "--moves", "20"], data)
    wait_for(lambda: _loaded(tmp_path), proc, "a cartridge in a drive")
    proc.kill()
    proc.communicate(timeout=60)
    assert _in_a_drive(device) and _inventory(device) != before  # what the issue saw: a cartridge left in a drive
    nxt = start(["library-test", device, "--moves", "1"], data)
    _, err = nxt.communicate(timeout=120)
    said = [line for line in err.splitlines() if "not as the last run on it left it" in line]
    assert said and all("when run 1 began (it never finished)" in line for line in said), err
    assert any(line.split("left it: ")[1].startswith("drive:") for line in said), said


def test_an_error_after_the_first_move_still_puts_everything_back_and_is_recorded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad input found mid-run (an InvalidParameter: the changer's LUN answered INQUIRY as something else
    at the second move, NotAChanger) goes through the putting back like any failure, and is recorded."""
    device = _virtual(tmp_path, realtime="0")
    before = _inventory(device)
    real_move = Changer.send_move
    sent: list[int] = []

    def move_once_refused(self: Changer, src, dst) -> float:  # type: ignore[no-untyped-def]
        sent.append(src.address)
        if len(sent) == 2:
            raise NotAChanger(f"{self.device} is a sequential-access device (peripheral type 1), not a media changer")
        return real_move(self, src, dst)

    monkeypatch.setattr(Changer, "send_move", move_once_refused)
    code = main(["library-test", device, "--moves", "4", "--json"])
    captured = capsys.readouterr()
    assert code not in (0, 2), captured.err  # not "bad input, nothing happened": it happened after a move
    result = json.loads(captured.out)
    assert result["status"] == "failed" and "not a media changer" in result["reason"], result
    assert result["moves"][-1]["returning"] is True  # the first move's cartridge went home
    assert result["restored"] is True and _inventory(device) == before
    with History.open() as hist:
        [run] = hist.list_runs()
    assert (run.kind, run.status) == ("library-test", "failed") and "not a media changer" in (run.error or "")


def test_sigterm_mid_library_run_ends_the_test_and_the_cartridge_goes_home(tmp_path: Path) -> None:
    """``library-run`` runs the test through ``main`` again: one policy, one token, the put-back last."""
    data = tmp_path / "data"
    device = _virtual(tmp_path, realtime="0")
    before = _inventory(device)
    cartridge = tmp_path / "lib" / "cartridges" / "TD0000L9.cart"
    proc = start(["library-run", device, "--barcode", "TD0000L9", "--run", "tape-perf", "--size", "2G",
                  "--direction", "write"], data)
    wait_for(lambda: cartridge.exists() and cartridge.stat().st_size > 8 << 20, proc, "the test writing")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "returned TD0000L9 from drive:0 to slot:1" in out
    assert "cancelled" in err and "back in slot:1" in err, err
    assert _inventory(device) == before
    assert _runs(data) == [("tape-perf", "cancelled")]

"""The GUI's erase (issue 30 §3): from the drive's panel, a confirmation that names the cartridge (barcode, LTFS
volume, what it holds) and wants the barcode typed and the box ticked before anything is written. Cancel writes
nothing (the virtual cartridge's records are compared byte for byte); confirmed, the cartridge is erased and the run
recorded once, as the CLI records it."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.drive import TapeDrive, set_read_only_session
from app.history import History
from native.virtual import open_virtual
from tests.gui.conftest import select_device, wait_idle
from tests.helpers.ltfs import VOLUME_NAME, write_mkltfs_volume

pytestmark = pytest.mark.gui


def _device(tmp_path: Path, realtime: bool = False) -> str:
    """A 64 MiB virtual LTO-9 cartridge; ``realtime``: a long erase takes its 0.17 s of wall clock (the dialog polls
    every 5 s, as for a real drive), else each status poll is a sixteenth of it."""
    return f"virtual:lto9?realtime={int(realtime)}&capacity=64M&cartridge={tmp_path / 'c.cart'}"


def _records(tmp_path: Path) -> str:
    return hashlib.sha256((tmp_path / "c.cart").read_bytes()[64 << 10:]).hexdigest()


def _first_read(device: str) -> str:
    with TapeDrive(open_virtual(device)) as drive:
        drive.rewind()
        out = drive.read(bytearray(1 << 20))
        return "blank" if out.eod else f"{out.nbytes} bytes"


def _runs() -> list[tuple[str, str, dict]]:
    with History.open() as hist:
        return [(r.kind, r.status, r.params) for r in hist.list_runs()]


def _dialog(qtbot, window, device: str):  # type: ignore[no-untyped-def]
    select_device(qtbot, window, "virtual:lto9")
    panel = window.show_panel("info")
    wait_idle(qtbot, window)
    panel.set_device(device)
    panel.erase_buttons[0].click()
    dialog = panel.erase_dialog
    qtbot.waitUntil(lambda: dialog.check is not None or "Cannot" in dialog.cartridge.text(), timeout=30000)
    return dialog


def test_cancel_writes_nothing_and_a_confirmed_erase_erases(qtbot, window, tmp_path: Path) -> None:
    device = _device(tmp_path)
    with TapeDrive(open_virtual(device)) as drive:
        write_mkltfs_volume(drive, first_mb=16)
    before = _records(tmp_path)
    dialog = _dialog(qtbot, window, device)
    text = dialog.cartridge.text()
    assert "Cartridge: <b>TD0001</b>" in text and f"LTFS volume '{VOLUME_NAME}'" in text
    assert "Holds data: a block at BOT of 80 bytes" in text and "will be lost" in dialog.warning.text()
    assert dialog.typed.isVisible() and dialog.tick.isVisible() and not dialog.erase_button.isEnabled()
    dialog.tick.setChecked(True)
    assert not dialog.erase_button.isEnabled()  # ticked, but the barcode not typed
    dialog.close_button.click()  # Cancel
    assert not dialog.isVisible()
    wait_idle(qtbot, window)
    assert _records(tmp_path) == before and _runs() == []  # nothing written, nothing recorded
    dialog = _dialog(qtbot, window, device)
    qtbot.keyClicks(dialog.typed, "TD0002")
    dialog.tick.setChecked(True)
    assert not dialog.erase_button.isEnabled()  # another barcode typed
    dialog.typed.clear()
    qtbot.keyClicks(dialog.typed, "TD0001")
    assert dialog.erase_button.isEnabled()
    dialog.erase_button.click()
    qtbot.waitUntil(lambda: dialog.run_id is not None or "Refused" in dialog.status.text(), timeout=30000)
    assert "Short erase of TD0001: done" in dialog.status.text() and "end of data at BOT" in dialog.status.text()
    wait_idle(qtbot, window)
    assert _first_read(device) == "blank"
    assert _runs() == [("erase", "complete", {"kind": "short", "force": True, "barcode": "TD0001",
                                              "poll_seconds": 5.0})]
    dialog.close_button.click()
    assert not dialog.isVisible()
    history = window.show_panel("history")  # listed in the History panel in the kind's words
    history.refresh()
    qtbot.waitUntil(lambda: [r.kind for r in history.runs] == ["erase"], timeout=10000)
    assert history.table.item(0, 5).text() == "short erase of TD0001: done"


def test_a_blank_cartridge_needs_the_tick_and_a_long_erase_says_it_cannot_be_stopped(qtbot, window,
                                                                                       tmp_path: Path) -> None:
    device = _device(tmp_path, realtime=True)
    dialog = _dialog(qtbot, window, device)
    assert "On it: blank at the start of the tape" in dialog.cartridge.text() and not dialog.typed.isVisible()
    dialog.kind.setCurrentIndex(dialog.kind.findData("long"))
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=30000)
    warning = dialog.warning.text()
    assert "A long erase takes <b>about " in warning and "<b>it cannot be stopped</b>" in warning
    assert not dialog.erase_button.isEnabled()
    dialog.tick.setChecked(True)
    dialog.erase_button.click()
    qtbot.waitUntil(lambda: dialog.run_id is not None, timeout=30000)
    assert "Long erase" in dialog.status.text() and "erased to the end of the tape" in dialog.status.text()
    wait_idle(qtbot, window)
    assert [(kind, status) for kind, status, _ in _runs()] == [("erase", "complete")]


@pytest.mark.parametrize("how", ["write-protected", "read-only session"])
def test_what_cannot_be_erased_offers_no_erase(qtbot, window, tmp_path: Path, how: str) -> None:
    device = _device(tmp_path) + ("&wp=1" if how == "write-protected" else "")
    set_read_only_session(how == "read-only session")
    try:
        dialog = _dialog(qtbot, window, device)
        assert "Cannot erase" in dialog.cartridge.text() + dialog.warning.text()
        assert not dialog.tick.isVisible() and not dialog.erase_button.isEnabled()
        dialog.close_button.click()
        wait_idle(qtbot, window)
    finally:
        set_read_only_session(False)
    assert _runs() == []


@pytest.mark.tgt
def test_on_tgt_a_cartridge_without_a_barcode_is_confirmed_by_the_word(qtbot, window, tgt_target) -> None:
    """tgt has no cartridge memory (no barcode) and no ERASE: the dialog says the long erase cannot run there, asks
    the word for the short one, and Cancel leaves tgtd's cartridge file as it was; confirmed, a filemark at BOT."""
    from app.cli import main

    assert main(["tape-perf", tgt_target.url, "--size", "1M", "--direction", "write"]) == 0
    data = tgt_target.data_blocks()
    dialog = _dialog(qtbot, window, tgt_target.url)
    assert "no barcode in its memory" in dialog.cartridge.text() and "Holds data: a block at BOT of 256 KiB" in \
        dialog.cartridge.text()
    assert "type the word <b>ERASE</b>" in dialog.typed_label.text()
    dialog.kind.setCurrentIndex(dialog.kind.findData("long"))
    qtbot.waitUntil(lambda: dialog.check is not None, timeout=30000)
    assert "does not implement ERASE" in dialog.warning.text() and not dialog.tick.isVisible()
    dialog.close_button.click()
    wait_idle(qtbot, window)
    assert tgt_target.data_blocks() == data and [k for k, _s, _p in _runs()] == ["tape-perf"]
    dialog = _dialog(qtbot, window, tgt_target.url)
    qtbot.keyClicks(dialog.typed, "ERASE")
    dialog.tick.setChecked(True)
    dialog.erase_button.click()
    qtbot.waitUntil(lambda: dialog.run_id is not None, timeout=30000)
    wait_idle(qtbot, window)
    assert [r.type for r in tgt_target.show_blocks()] == ["BOT", "FILEMARK", "EOD"]
    assert _runs()[0][:2] == ("erase", "complete") and _runs()[0][2]["barcode"] == ""

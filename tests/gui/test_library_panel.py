"""Issue 17: the library panel against the virtual library, through the same app/ calls as the CLI.

The inventory is shown with barcodes, the cleaning cartridge and each drive's tape drive; a move
made with the panel's Move button is in the next reading (and in library.json, the library's
own state); a move the robot refuses is one line; the exerciser runs to PASS with live progress
and its run is in the history as the CLI records it.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def _library(tmp_path: Path, **extra: str) -> str:
    opts = {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "6", "ie": "1", "realtime": "0", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _panel(qtbot, window, device: str):  # type: ignore[no-untyped-def]
    from ui.panels.library import LibraryPanel

    panel = window.show_panel("library")
    assert isinstance(panel, LibraryPanel)
    wait_idle(qtbot, window)
    panel.library.setEditText(device)
    return panel


def _rows(panel) -> dict[str, list[str]]:  # type: ignore[no-untyped-def]
    tree = panel.map
    out = {}
    for i in range(tree.topLevelItemCount()):
        group = tree.topLevelItem(i)
        for j in range(group.childCount()):
            item = group.child(j)
            out[item.text(0)] = [item.text(c) for c in range(tree.columnCount())]
    return out


def _read(qtbot, window, panel, **kw) -> None:  # type: ignore[no-untyped-def]
    panel.read(**kw)
    wait_idle(qtbot, window)
    assert panel.last_error is None, panel.last_error


def test_the_inventory_shows_every_element_barcodes_cleaners_and_the_drives(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(qtbot, window, _library(tmp_path))
    assert panel.library.findText("virtual:library") >= 0  # discovery's list, the virtual library last
    _read(qtbot, window, panel)
    rows = _rows(panel)
    assert [rows[f"slot:{i}"][2] for i in range(1, 7)] == ["TD0000L9", "TD0001L9", "TD0002L9", "TD0003L9",
                                                          "TD0004L9", "CLN005L1"]
    assert "cleaning cartridge" in rows["slot:6"][3] and rows["ie:0"][2] == "empty"
    assert rows["drive:0"][4].startswith("virtual:lto9?library=") and rows["drive:0"][4].endswith("&drive=0&realtime=0")
    assert "TDLIBDRV001" in rows["drive:1"][3]
    assert "2 drives, 6 slots (6 full), 1 mail slot" in panel.summary.text()
    groups = [(panel.map.topLevelItem(i).text(0), panel.map.topLevelItem(i).text(2))
              for i in range(panel.map.topLevelItemCount())]
    assert groups == [("Robot", "0 of 1 full"), ("Drives", "0 of 2 full"), ("Mail slots", "0 of 1 full"),
                      ("Slots", "6 of 6 full")]


def test_a_move_with_the_button_is_in_the_next_reading_and_a_refusal_is_one_line(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    device = _library(tmp_path)
    panel = _panel(qtbot, window, device)
    _read(qtbot, window, panel)
    panel.source.setCurrentText("slot:2")
    panel.destination.setCurrentText("drive:0")
    panel.move_button.click()
    wait_idle(qtbot, window)
    assert panel.last_error is None, panel.last_error
    assert "moved TD0001L9 from slot:2 (address 1001) to drive:0 (address 500)" in panel.status.text()
    _read(qtbot, window, panel)  # a second, independent reading
    rows = _rows(panel)
    assert rows["drive:0"][2] == "TD0001L9" and rows["slot:2"][2] == "empty" and "from slot:2" in rows["drive:0"][3]
    state = json.loads((tmp_path / "lib" / "library.json").read_text())["contents"]
    assert state["500"] == "TD0001L9" and state["1001"] is None
    # Clicking elements in the map chooses the move: the full drive is the source, the empty slot the destination.
    group = panel.map.findItems("drive:0", __import__("PySide6.QtCore", fromlist=["Qt"]).Qt.MatchFlag.MatchRecursive)[0]
    panel._element_clicked(group, 0)
    panel.destination.setCurrentText("slot:2")
    assert panel.source.currentText() == "drive:0"
    panel.move_button.click()  # out of a drive: unloaded through its virtual LTO drive first
    wait_idle(qtbot, window)
    assert "unloaded" in panel.status.text() and panel.last_error is None
    # To the mail slot and back: locked for the move, released after.
    panel.source.setCurrentText("slot:3")
    panel.destination.setCurrentText("ie:0")
    panel.move_button.click()
    wait_idle(qtbot, window)
    assert "mail slot locked during the move" in panel.status.text() and _rows(panel)["ie:0"][2] == "TD0002L9"
    # A robot that fails: the one line the CLI prints, and the map is still there.
    panel.library.setEditText(_library(tmp_path, robotfault="1"))
    _read(qtbot, window, panel)
    panel.source.setCurrentText("ie:0")
    panel.destination.setCurrentText("slot:3")
    panel.move_button.click()
    wait_idle(qtbot, window)
    assert panel.last_error and "\n" not in panel.last_error and "HARDWARE ERROR" in panel.last_error.upper()
    assert panel.error.text() == panel.last_error and _rows(panel)["ie:0"][2] == "TD0002L9"


def test_initialize_element_status_from_the_button_finds_what_changed_by_hand(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(qtbot, window, _library(tmp_path))
    _read(qtbot, window, panel)
    from native.virtual.library import VirtualLibrary

    VirtualLibrary(_library(tmp_path)).save()  # its file, for the operator's hand edit (a reading writes none)
    path = tmp_path / "lib" / "library.json"
    state = json.loads(path.read_text())
    state["contents"]["1000"], state["contents"]["10"] = None, "TD0000L9"  # an operator moved it behind the door
    path.write_text(json.dumps(state))
    panel.init_button.click()
    wait_idle(qtbot, window)
    assert panel.last_error is None, panel.last_error
    rows = _rows(panel)
    assert rows["ie:0"][2] == "TD0000L9" and rows["slot:1"][2] == "empty"


def test_the_exerciser_runs_to_pass_live_and_lands_in_the_history(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.history import History
    from app.runs.stored import load

    device = _library(tmp_path)
    panel = _panel(qtbot, window, device)
    _read(qtbot, window, panel)
    before = _rows(panel)
    panel.moves.setText("6")
    panel.exercise_button.click()
    assert panel.current_page() == "running"
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)
    assert panel.progress.value() == 6 and panel.progress.maximum() == 6
    moves = panel.result_dict["moves"]  # 6 exercised, then the cartridges still in the drives put back
    assert len(panel.plot.points["move"]) == 6 and not panel.plot.points["failed"]
    assert len(panel.plot.points["back"]) == len([m for m in moves if m["returning"]]) == 2
    assert "PASS" in panel.result_label.text()
    with History.open() as history:
        runs = [r for r in history.list_runs() if r.kind == "library-test"]
    assert [r.id for r in runs] == [panel.run_id] and runs[0].device == device
    assert runs[0].results["verdict"] == "PASS" and runs[0].params == {"moves": 6, "slots": [], "drives": [],
                                                                       "unload": True}
    assert load(runs[0]).headline().startswith("PASS: 8 moves")
    panel.back_to_library()
    def where(rows: dict[str, list[str]]) -> dict[str, str]:
        return {name: row[2] for name, row in rows.items()}

    assert where(_rows(panel)) == where(before)  # everything home again, by the reading made after the run
    # Bad input: the CLI's one line, nothing recorded.
    panel.drives.setText("slot:1")
    panel.exercise_button.click()
    wait_idle(qtbot, window)
    assert panel.current_page() == "library" and "drives: slot:1 is a slot, not a drive" in (panel.last_error or "")
    with History.open() as history:
        assert len([r for r in history.list_runs() if r.kind == "library-test"]) == 1


def test_a_device_that_is_no_library_or_a_bad_option_is_one_line(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    panel = _panel(qtbot, window, "virtual:lto9?realtime=0")
    panel.read()
    wait_idle(qtbot, window)
    assert panel.last_error and "not a media changer" in panel.last_error and "\n" not in panel.last_error
    assert panel.error.text() == panel.last_error and panel.view is None
    panel.library.setEditText(_library(tmp_path, drives="99"))
    panel.read()
    wait_idle(qtbot, window)
    assert panel.last_error and "drives='99' is out of range" in panel.last_error


def test_a_cancelled_exercise_puts_everything_back_and_says_not_assessed(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With the robot's real-time pacing the run is still moving when Cancel is clicked; the GUI thread stays free."""
    device = _library(tmp_path, realtime="1")
    panel = _panel(qtbot, window, device)
    _read(qtbot, window, panel)
    before = {name: row[2] for name, row in _rows(panel).items()}
    panel.moves.setText("40")
    panel.exercise_button.click()
    qtbot.waitUntil(lambda: panel.moves_done >= 1, timeout=30000)
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)
    assert panel.result_dict is not None and panel.result_dict["verdict"] == "NOT ASSESSED"
    assert panel.moves_done < 40 and "NOT ASSESSED" in panel.result_label.text()
    assert {name: row[2] for name, row in _rows(panel).items()} == before
    report = tmp_path / "library.pdf"
    panel.save_report(report)
    wait_idle(qtbot, window)
    assert panel.last_report == report and report.read_bytes().startswith(b"%PDF")


@pytest.mark.tgt
def test_tgt_library_from_discovery_inventory_and_a_mail_slot_move(qtbot, window, tgt_library_factory) -> None:  # type: ignore[no-untyped-def]
    """tgt's changer LUN, remembered as an iSCSI target, is listed by discovery; its map and a move on it."""
    from app.targets import add_target

    lib = tgt_library_factory(drives=1, slots=3, ie=1, barcodes=("TGT001L6", "CLN001L1"))
    add_target(lib.url)
    panel = _panel(qtbot, window, "")
    panel.refresh_list()
    wait_idle(qtbot, window, timeout=40000)
    assert panel.library.findText(lib.url) >= 0
    panel.library.setEditText(lib.url)
    _read(qtbot, window, panel)
    rows = _rows(panel)
    assert rows["slot:1"][2] == "TGT001L6" and "cleaning cartridge" in rows["slot:2"][3] and rows["ie:0"][2] == "empty"
    panel.source.setCurrentText("slot:1")
    panel.destination.setCurrentText("ie:0")
    panel.move_button.click()
    wait_idle(qtbot, window)
    assert panel.last_error is None, panel.last_error
    assert "does not support PREVENT MEDIUM REMOVAL" in panel.status.text()
    _read(qtbot, window, panel)
    assert _rows(panel)["ie:0"][2] == "TGT001L6" and _rows(panel)["slot:1"][2] == "empty"
    panel.init_button.click()  # tgt accepts INITIALIZE ELEMENT STATUS and changes nothing
    wait_idle(qtbot, window)
    assert panel.last_error is None and _rows(panel)["ie:0"][2] == "TGT001L6"

"""Issue 11 §5: the GUI never shows one drive's results under another's name.

Selecting another drive takes the previous drive's verdict away (or names the drive it
came from); while a test runs the device selection is locked, the run page names its
drive, and the lock goes when the run ends.
"""
from __future__ import annotations

import socket

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import select_device, wait_idle

pytestmark = pytest.mark.gui

A = "virtual:lto9"
B = "virtual:lto7"


def _dead_portal_url() -> str:
    """An iSCSI URL on a loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"iscsi://127.0.0.1:{port}/iqn.2026-11.org.tapediag.test:gone/1"


def _read_info(qtbot, window):
    info = window.show_panel("info")
    info.run_button.click()
    qtbot.waitUntil(lambda: info.current_page() == "results", timeout=30000)
    return info


def test_another_drive_selected_takes_the_previous_verdict_away(qtbot, window):
    select_device(qtbot, window, A)
    info = _read_info(qtbot, window)
    assert "Health:" in info.verdict.text()
    assert A in info.subject.text()  # the results name the drive they were read from
    wait_idle(qtbot, window)

    select_device(qtbot, window, B)
    assert info.verdict.text() == "" and info.tree.topLevelItemCount() == 0
    assert info.current_page() == "choose"
    assert B in info.device_label.text() and A in info.device_label.text()  # "… read from A is in History"
    wait_idle(qtbot, window)


def test_an_unreachable_target_never_shows_the_previous_drives_healthy(qtbot, window):
    """The issue's case: a green "Healthy — HPE Ultrium" stayed up under a dead iSCSI target."""
    select_device(qtbot, window, A)
    info = _read_info(qtbot, window)
    wait_idle(qtbot, window)
    dead = _dead_portal_url()
    window.devices.add_target(dead)
    qtbot.waitUntil(lambda: window.devices.selected == dead, timeout=30000)
    assert "Healthy" not in info.verdict.text() and "HPE" not in info.verdict.text()
    assert info.current_page() == "choose"
    info.run_button.click()  # reading the dead target fails: an error, never A's verdict
    qtbot.waitUntil(lambda: info.last_error is not None, timeout=30000)
    assert info.verdict.text() == ""
    wait_idle(qtbot, window)


def test_tape_results_name_their_drive_after_the_selection_moves(qtbot, window):
    select_device(qtbot, window, A)
    panel = window.show_panel("tapeperf")
    _start_tape_run(qtbot, panel, "64M")
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=90000)
    assert A in panel.result_subject.text() and "Not the selected" not in panel.result_subject.text()
    wait_idle(qtbot, window)
    select_device(qtbot, window, B)
    text = panel.result_subject.text()
    assert f"<b>drive {A}</b>" in text and "Not the selected device" in text and B in text
    wait_idle(qtbot, window)


def _start_tape_run(qtbot, panel, size: str) -> None:
    panel.choose_next.click()
    panel.apply_preset("Quick check")
    panel.apply_values({"size": size, "direction": "write+read"})
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    qtbot.waitUntil(lambda: panel.found_label.text() and "Checking" not in panel.found_label.text(), timeout=20000)
    if panel.confirm_box.isVisible():
        panel.confirm_box.setChecked(True)
    panel.start_button.click()
    assert panel.current_page() == "run"


def test_the_selection_is_locked_while_a_test_runs(qtbot, window):
    select_device(qtbot, window, A)
    qtbot.waitUntil(lambda: B in window.devices.devices(), timeout=10000)
    panel = window.show_panel("tapeperf")
    _start_tape_run(qtbot, panel, "1G")
    pane = window.devices
    # Locked: the list is disabled, a note says why, and no way of selecting moves it.
    assert pane.locked_to == A
    assert not pane.list.isEnabled() and pane.lock_note.isVisible()
    assert A in pane.lock_note.text() and "tape performance" in pane.lock_note.text()
    assert not pane.refresh_button.isEnabled() and not pane.add_button.isEnabled()
    assert not window.refresh_action.isEnabled() and not window.add_target_action.isEnabled()
    assert pane.select(B) is False
    row_b = pane.devices().index(B)
    pane.list.setCurrentRow(row_b)  # as a keyboard move or a re-listing would
    rect = pane.list.visualItemRect(pane.list.item(row_b))
    qtbot.mouseClick(pane.list.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert pane.selected == A and pane.list.currentItem().data(Qt.ItemDataRole.UserRole) == A
    assert pane.identity["device"].full_text() == A
    assert all(p.device == A for p in window.panels.values() if getattr(p, "uses_device", True)
               and p.key not in ("troubleshoot", "history"))
    assert pane.refresh() is None  # a re-listing would move the selection: refused too
    assert f"tape performance on {A}" in window.busy_label.text()  # so does the status bar
    # The run page names its drive.
    assert panel.runview.subject.isVisible()
    assert f"<b>drive {A}</b>" in panel.runview.subject.text()

    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=120000)
    assert panel.outcome == "complete", panel.result_dict
    wait_idle(qtbot, window)
    # After the run the lock is released: B can be selected.
    assert pane.locked_to is None and pane.list.isEnabled() and not pane.lock_note.isVisible()
    assert window.refresh_action.isEnabled()
    select_device(qtbot, window, B)
    assert panel.device == B
    wait_idle(qtbot, window)


def test_a_cancelled_run_releases_the_lock(qtbot, window):
    select_device(qtbot, window, A)
    panel = window.show_panel("tapeperf")
    _start_tape_run(qtbot, panel, "6G")
    assert window.devices.locked_to == A
    qtbot.waitUntil(lambda: panel.runview.plot.sample_count > 5, timeout=30000)
    panel.cancel()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)
    assert window.devices.locked_to is None and window.devices.list.isEnabled()


def test_a_late_cartridge_check_of_the_previous_drive_is_not_shown_for_the_next(qtbot, window):
    """The confirm page's "found on the cartridge" must describe the selected drive's
    cartridge: an answer from the previous drive's check arriving late is dropped."""
    wait_idle(qtbot, window)
    panel = window.show_panel("tapeperf")
    panel.set_device("virtual:lto9?wp=1")  # A: a write-protected cartridge
    panel.choose_next.click()
    panel.apply_preset("Quick check")
    panel.params_next.click()
    check_a = next(j for j in window.workers.active_jobs() if j.title == "cartridge check")
    deliver_a, answers = check_a.on_done, []
    check_a.on_done = answers.append  # hold A's answer back (callbacks run on this thread)
    panel.set_device(B)  # another drive selected before A's check answered
    assert panel.current_page() == "choose"
    panel.choose_next.click()
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=20000)  # B's own check
    qtbot.waitUntil(lambda: bool(answers), timeout=20000)
    assert answers[0].state.write_protected  # A's answer really says write-protected ...
    deliver_a(answers[0])  # ... and arrives now, late
    assert panel.refusal is None and "blank" in panel.found_label.text()
    assert panel.start_button.isEnabled()
    wait_idle(qtbot, window)

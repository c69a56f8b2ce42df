"""Issue 12: the "Add iSCSI target" dialog against a real tgtd on 127.0.0.1.

Host/port/IQN/LUN/CHAP fields, SendTargets discovery that fills the target name, and a
test before saving: a portal that does not answer, or a LUN that is not a tape drive,
is remembered only when the technician answers "Save anyway".
"""
from __future__ import annotations

import socket

import pytest
from PySide6.QtWidgets import QMessageBox

from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui


def _remembered() -> list[str]:
    from app.targets import list_targets

    return [t.display for t in list_targets()]


def _dialog(qtbot, window):
    wait_idle(qtbot, window)
    dialog = window.devices.ask_add_target()
    qtbot.waitExposed(dialog)
    return dialog


def _answer(qtbot, dialog, button: QMessageBox.StandardButton) -> str:
    qtbot.waitUntil(lambda: dialog.question is not None and dialog.question.isVisible(), timeout=30000)
    text = dialog.question.text()
    dialog.question.button(button).click()
    return text


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.tgt
def test_discover_the_target_then_save_a_tape_lun(qtbot, window, tgt_target):
    dialog = _dialog(qtbot, window)
    assert not dialog.save_button.isEnabled()  # nothing to save yet
    dialog.host.setText("127.0.0.1")
    dialog.port.setText(str(tgt_target.port))
    dialog.discover_button.click()
    qtbot.waitUntil(lambda: dialog.iqn.count() == 1, timeout=30000)
    assert dialog.iqn.currentText() == tgt_target.iqn  # SendTargets found it
    assert "offers 1 target" in dialog.status.text()
    dialog.lun.setValue(1)
    assert dialog.preview.text() == f"Device: {tgt_target.url}"
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.remembered is not None, timeout=30000)
    assert dialog.question is None  # a tape answered: nothing to ask
    assert not dialog.isVisible()
    assert tgt_target.url in _remembered()
    qtbot.waitUntil(lambda: window.devices.selected == tgt_target.url, timeout=30000)
    qtbot.waitUntil(lambda: window.devices.identity["vendor"].text() == "IET", timeout=30000)
    wait_idle(qtbot, window)


@pytest.mark.tgt
def test_a_lun_that_is_not_a_tape_is_saved_only_when_asked(qtbot, window, tgt_target):
    dialog = _dialog(qtbot, window)
    dialog.host.setText("127.0.0.1")
    dialog.port.setText(str(tgt_target.port))
    dialog.iqn.setEditText(tgt_target.iqn)
    dialog.lun.setValue(0)  # tgt's LUN 0 is its controller
    dialog.save_button.click()
    text = _answer(qtbot, dialog, QMessageBox.StandardButton.Cancel)
    assert "not a tape drive" in text and "Save" in text
    wait_idle(qtbot, window)
    assert "Not saved" in dialog.status.text() and dialog.isVisible()
    assert _remembered() == []
    dialog.reject()
    wait_idle(qtbot, window)


def test_a_portal_that_does_not_answer_is_saved_only_when_asked(qtbot, window):
    port = _free_port()
    dialog = _dialog(qtbot, window)
    dialog.host.setText("127.0.0.1")
    dialog.port.setText(str(port))
    dialog.discover_button.click()
    qtbot.waitUntil(lambda: "Discovery failed" in dialog.status.text(), timeout=30000)
    assert f"no iSCSI target answers at 127.0.0.1:{port}" in dialog.status.text()
    dialog.iqn.setEditText("iqn.2026-11.org.tapediag.test:gone")
    dialog.lun.setValue(1)
    url = f"iscsi://127.0.0.1:{port}/iqn.2026-11.org.tapediag.test:gone/1"

    dialog.save_button.click()  # first time: answer Cancel, nothing is remembered
    text = _answer(qtbot, dialog, QMessageBox.StandardButton.Cancel)
    assert "no iSCSI target answers" in text and "anyway" in text
    wait_idle(qtbot, window)
    assert _remembered() == [] and dialog.isVisible()

    dialog.save_button.click()  # then "Save anyway": remembered, listed as unreachable
    _answer(qtbot, dialog, QMessageBox.StandardButton.Save)
    qtbot.waitUntil(lambda: dialog.remembered == url, timeout=30000)
    assert _remembered() == [url]
    qtbot.waitUntil(lambda: url in window.devices.devices(), timeout=30000)
    wait_idle(qtbot, window)


def test_fields_make_the_url_and_the_chap_secret_is_never_shown(qtbot, window, tmp_path):
    dialog = _dialog(qtbot, window)
    dialog.host.setText("127.0.0.1")
    dialog.iqn.setEditText("iqn.2004-04.com.example:tape")
    dialog.lun.setValue(2)
    assert dialog.preview.text() == "Device: iscsi://127.0.0.1:3260/iqn.2004-04.com.example:tape/2"
    dialog.user.setText("tech")
    dialog.secret.setText("s3cret-value")
    assert dialog.preview.text() == "Device: iscsi://tech@127.0.0.1:3260/iqn.2004-04.com.example:tape/2"
    assert dialog.url() == "iscsi://tech%s3cret-value@127.0.0.1:3260/iqn.2004-04.com.example:tape/2"
    dialog.port.setText("70000")
    assert not dialog.save_button.isEnabled() and "not a TCP port" in dialog.preview.text()
    dialog.port.setText("3260")
    dialog.host.setText("")
    assert not dialog.save_button.isEnabled() and not dialog.discover_button.isEnabled()
    from PySide6.QtWidgets import QLabel

    shown = " ".join(w.text() for w in dialog.findChildren(QLabel))
    assert "s3cret" not in shown
    dialog.reject()
    wait_idle(qtbot, window)


def test_the_dialog_has_its_own_mnemonics(qtbot, window):
    from tests.gui.test_mnemonics import _duplicates, _entries

    problems: list[str] = []
    dialog = _dialog(qtbot, window)
    entries = _entries(dialog, "add target dialog", problems)
    _duplicates("add target dialog", entries, problems)
    assert not problems, "\n".join(problems)
    assert {k for k, _ in entries} >= {"h", "o", "t", "l", "u", "e", "d"}
    dialog.reject()
    wait_idle(qtbot, window)


@pytest.mark.tgt
def test_a_chap_target_is_tried_with_its_secret_and_the_secret_stays_in_the_targets_file(qtbot, window, tgt_target,
                                                                                        tmp_path):
    from app.paths import data_dir

    from tests.transport.test_chap_secret import SECRET, USER, _chap_target

    _chap_target(tgt_target)
    dialog = _dialog(qtbot, window)
    dialog.host.setText("127.0.0.1")
    dialog.port.setText(str(tgt_target.port))
    dialog.user.setText(USER)
    dialog.secret.setText("WrongSecret12345")
    dialog.discover_button.click()
    qtbot.waitUntil(lambda: dialog.iqn.count() == 1 or "failed" in dialog.status.text(), timeout=30000)
    if dialog.iqn.count() == 0:  # a portal may also want CHAP for discovery: then type the name
        dialog.iqn.setEditText(tgt_target.iqn)
    dialog.lun.setValue(1)
    dialog.save_button.click()  # the wrong secret: the login fails, and saving is asked
    text = _answer(qtbot, dialog, QMessageBox.StandardButton.Cancel)
    assert "login" in text.lower() and "WrongSecret" not in text
    wait_idle(qtbot, window)
    assert _remembered() == []

    dialog.secret.setText(SECRET)
    dialog.save_button.click()
    qtbot.waitUntil(lambda: dialog.remembered is not None, timeout=30000)
    shown = tgt_target.url.replace("iscsi://", f"iscsi://{USER}@")
    assert dialog.remembered == shown and _remembered() == [shown]
    qtbot.waitUntil(lambda: window.devices.identity["vendor"].text() == "IET", timeout=30000)  # logs in from the file
    wait_idle(qtbot, window)
    holders = [p.name for p in data_dir().rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert holders == ["iscsi_targets.json"]

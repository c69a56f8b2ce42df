"""18.6 in the GUI: the device pane's notes give the same Windows advice as ``devices``."""
from __future__ import annotations

import ctypes.util

import pytest

from app import discovery
from native import _iscsi_lib
from tests.gui.conftest import wait_idle


def test_device_pane_gives_the_windows_iscsi_advice(qtbot, window, monkeypatch: pytest.MonkeyPatch) -> None:
    wait_idle(qtbot, window)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_iscsi_lib, "LIBRARY_NAMES", ("libiscsi-not-here.so.99",))
    monkeypatch.setattr(discovery, "windows_tape_drives", lambda: [])  # kernel32's CreateFileW, Windows only
    _iscsi_lib.load.cache_clear()
    monkeypatch.setattr("sys.platform", "win32")
    try:
        pane = window.devices
        pane.refresh()
        wait_idle(qtbot, window)
        text = pane.notes.text()
    finally:
        monkeypatch.undo()
        _iscsi_lib.load.cache_clear()
    assert pane.notes.isVisibleTo(window)
    assert "Microsoft iSCSI Initiator (iscsicpl.exe)" in text and "\\\\.\\TapeN" in text
    assert "apt-get" not in text and "libiscsi7" not in text

"""18.6: on Windows a missing libiscsi is not an apt-get away.

With ``sys.platform`` set to win32 and no libiscsi to load, the advice that ``devices``
prints and ``iscsi://`` commands raise must point at the Microsoft iSCSI Initiator (the
target's drive is then a ``\\\\.\\TapeN``), and never at apt-get. The GUI's device pane shows
the same notes (``tests/gui/test_device_notes.py``). The enumeration of ``\\\\.\\TapeN``
itself needs kernel32, so it is the one part replaced here.
"""
from __future__ import annotations

import ctypes.util

import pytest

from app import discovery
from app.cli import main
from native import _iscsi_lib
from native.errors import TransportUnavailable
from native.iscsi import IscsiTransport


@pytest.fixture
def windows_without_libiscsi(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_iscsi_lib, "LIBRARY_NAMES", ("libiscsi-not-here.so.99",))
    monkeypatch.setattr(discovery, "windows_tape_drives", lambda: [])  # kernel32's CreateFileW, Windows only
    _iscsi_lib.load.cache_clear()
    monkeypatch.setattr("sys.platform", "win32")
    yield
    monkeypatch.undo()
    _iscsi_lib.load.cache_clear()


def _windows_advice(text: str) -> None:
    assert "Microsoft iSCSI Initiator (iscsicpl.exe)" in text
    assert "\\\\.\\TapeN" in text
    assert "apt-get" not in text and "libiscsi7" not in text


def test_devices_gives_the_windows_advice(windows_without_libiscsi, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devices", "--no-probe"]) == 0
    err = capsys.readouterr().err
    iscsi_lines = [line for line in err.splitlines() if "iSCSI" in line or "iscsi" in line]
    assert len(iscsi_lines) == 1, err
    assert iscsi_lines[0].startswith("unavailable: ")
    _windows_advice(iscsi_lines[0])


def test_an_iscsi_url_gives_the_windows_advice(windows_without_libiscsi) -> None:
    with pytest.raises(TransportUnavailable) as info:
        IscsiTransport("iscsi://127.0.0.1/iqn.x:y/1")
    _windows_advice(str(info.value))


def test_linux_keeps_the_package_advice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    assert _iscsi_lib.missing().hint == "apt-get install libiscsi7"
    assert _iscsi_lib.install_hint() == "apt-get install libiscsi7"

"""GUI test fixtures: a main window on the offscreen platform, its own settings.

Settings and history live in the per-test ``TAPEDIAG_DATA_DIR`` (tests/conftest.py),
so no test sees another's last device or runs.
"""
from __future__ import annotations

import os

import pytest

from tests.helpers.words import gui_texts, unexpected

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

pytest.importorskip("PySide6")
pytest.importorskip("pyqtgraph")


@pytest.fixture(autouse=True)
def collect_on_gui_thread(qapp):
    """Collection on the GUI thread from before a test's window exists until after its teardown, so
    no worker thread of the next test collects this one's Qt objects (see ``ui.gcthread``)."""
    from ui import gcthread

    gcthread.start()
    yield
    gcthread.stop()


@pytest.fixture
def window(qtbot):
    from ui.mainwindow import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.resize(1280, 860)
    w.show()
    qtbot.waitExposed(w)
    yield w
    shown = gui_texts(w)  # what the test left on the screen: no option, raw key or code path (issue 31)
    w.close()
    found = sorted({word for text in shown for word in unexpected(text)})
    assert not found, f"the window shows {found}"


def wait_idle(qtbot, window, timeout: int = 20000) -> None:
    """Until no worker has a job (all callbacks delivered)."""
    qtbot.waitUntil(lambda: not window.workers.active_jobs(), timeout=timeout)


def select_device(qtbot, window, device: str) -> None:
    wait_idle(qtbot, window)
    if not window.devices.select(device):
        window.devices.refresh(select=device)
        qtbot.waitUntil(lambda: device in window.devices.devices(), timeout=10000)
        window.devices.select(device)
    qtbot.waitUntil(lambda: window.devices.selected == device, timeout=5000)


def as_read(text: str) -> str:
    """A label's text as a reader reads it: the joins that keep a figure whole on one line (``ui.format.unbroken``:
    a no-break space, a word joiner after a unit's slash) are invisible."""
    return text.replace("\u2060", "").replace("\u00a0", " ")

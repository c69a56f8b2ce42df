"""The main window: panels, keyboard reach, settings that persist, errors as dialogs."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

PANELS = ["info", "tapeperf", "assess", "scan", "create", "read", "watch", "troubleshoot", "history",
          "library"]  # Ctrl+1…9, Ctrl+0


def test_every_panel_is_there_and_reachable_by_keyboard(qtbot, window):
    assert list(window.panels) == PANELS + ["network"]  # the network test: in a window of its own (Ctrl+Shift+N)
    qtbot.keyClick(window, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert window.windows["network"].isVisible() and window.windows["network"].panel is window.panels["network"]
    window.windows["network"].close()
    for i, key in enumerate(PANELS):
        digit = Qt.Key.Key_1 + i if i < 9 else Qt.Key.Key_0
        qtbot.keyClick(window, digit, Qt.KeyboardModifier.ControlModifier)
        assert window.tabs.currentWidget() is window.panels[key]
    # every push button and line edit of every page can take keyboard focus
    from PySide6.QtWidgets import QLineEdit, QPushButton

    for panel in window.panels.values():
        for w in panel.findChildren(QPushButton) + panel.findChildren(QLineEdit):
            assert w.focusPolicy() & Qt.FocusPolicy.TabFocus, f"{type(panel).__name__}: {w.text()!r}"
    wait_idle(qtbot, window)


def test_geometry_and_panel_persist_between_runs(qtbot):
    from ui.mainwindow import MainWindow

    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.resize(900, 640)
    saved = (first.size().width(), first.size().height())
    first.show_panel("troubleshoot")
    first.panels["troubleshoot"].fields["tape_write"].setText("154")
    wait_idle(qtbot, first)
    first.close()
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    assert second.tabs.currentWidget() is second.panels["troubleshoot"]
    assert second.size().height() == saved[1]  # (the offscreen screen is 800 px wide: width is clamped)
    assert second.panels["troubleshoot"].fields["tape_write"].text() == "154"
    wait_idle(qtbot, second)
    second.close()


def test_a_failure_on_a_worker_becomes_a_dialog_with_the_decoded_cause(qtbot, window):
    panel = window.show_panel("troubleshoot")
    panel.fields["tape_write"].setText("run 4242")  # a run that is not in the history
    panel.show_page("workload")
    with qtbot.waitSignal(window.workers.busy_changed, timeout=10000):
        panel.analyse_button.click()
    qtbot.waitUntil(lambda: panel.last_error is not None, timeout=10000)
    assert "no run 4242 in the history" in panel.last_error
    dialogs = [d for d in panel.findChildren(QMessageBox) if d.isVisible()]
    assert dialogs and "no run 4242" in dialogs[0].text()
    assert "Traceback" not in dialogs[0].text()
    dialogs[0].accept()


def test_tapediag_gui_self_test_starts_and_exits(tmp_path):
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TAPEDIAG_DATA_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "app", "gui", "--self-test"], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "window shown" in out.stdout and "devices listed" in out.stdout


def test_the_plot_follows_a_dark_palette(qtbot, window):
    from PySide6.QtGui import QColor, QPalette
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    old = app.palette()
    dark = QPalette()
    dark.setColor(QPalette.ColorRole.Window, QColor("#202124"))
    dark.setColor(QPalette.ColorRole.Base, QColor("#17181a"))
    dark.setColor(QPalette.ColorRole.Text, QColor("#e8eaed"))
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#e8eaed"))
    try:
        app.setPalette(dark)
        plot = window.panels["tapeperf"].runview.plot
        qtbot.waitUntil(lambda: plot.view.backgroundBrush().color().name() == "#17181a", timeout=5000)
        assert plot.view.getPlotItem().getAxis("left").textPen().color().name() == "#e8eaed"
    finally:
        app.setPalette(old)
    wait_idle(qtbot, window)


def test_last_device_and_last_parameters_persist(qtbot):
    from ui.mainwindow import MainWindow

    from tests.gui.conftest import select_device

    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    select_device(qtbot, first, "virtual:lto7")
    tape = first.show_panel("tapeperf")
    tape.choose_next.click()
    tape.apply_preset("HP-UX style")
    tape.apply_values({"size": "2G", "verify": True})
    wait_idle(qtbot, first)
    first.close()

    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    qtbot.waitUntil(lambda: second.devices.selected == "virtual:lto7", timeout=15000)
    values = second.panels["tapeperf"].values()
    assert (values["block_size"], values["size"], values["verify"]) == ("128K", "2G", True)
    wait_idle(qtbot, second)
    second.close()


def test_first_start_selects_the_newest_virtual_drive(qtbot, window):
    """No remembered device and no drive attached: the README's promise, the newest virtual LTO (LTO-10)."""
    qtbot.waitUntil(lambda: window.devices.selected is not None, timeout=15000)
    assert window.devices.selected == "virtual:lto10"
    wait_idle(qtbot, window)


def test_default_device_prefers_an_attached_drive():
    from ui.devices import default_device
    from ui.engines import DeviceRow

    virtual = [DeviceRow(f"virtual:lto{n}", "virtual", f"Virtual LTO-{n}", "") for n in (5, 6, 7, 8, 9)]
    drive = DeviceRow("/dev/sg3", "passthrough", "HPE Ultrium 9", "")
    gone = DeviceRow("iscsi://127.0.0.1/iqn.x/1", "iscsi", "VTL", "", reachable=False)
    assert default_device(virtual) == "virtual:lto9"
    assert default_device([gone, *virtual, drive]) == "/dev/sg3"
    assert default_device([gone, *virtual]) == "virtual:lto9"
    assert default_device([gone]) == gone.device and default_device([]) is None


QUIT_SCRIPT = r"""
import faulthandler
import sys
faulthandler.dump_traceback_later(90, exit=True)  # a hang says where every thread waits, before the test's timeout
from PySide6.QtCore import QTimer
import ui.mainwindow as mw

shown = mw.MainWindow.show


def show(self):
    shown(self)

    def report():
        history = self.show_panel("history")
        job = history.save_report([int(sys.argv[1])], sys.argv[2], {"customer": "ACME"})
        job.on_done = lambda path: (history._report_saved(path), self.quit_action.trigger())
        # A failed report says why and quits (its dialog would wait for a click that never comes: a hang, once
        # seen under load with nothing said)
        job.on_error = lambda err: (print(f"report failed: {err!r}", file=sys.stderr), self.quit_action.trigger())

    QTimer.singleShot(500, report)


mw.MainWindow.show = show
from app.__main__ import provide_front_ends
from app.cli import main

provide_front_ends()  # as the tapediag command does: the desktop app for 'gui' (app.frontends)
sys.exit(main(["gui"]))
"""


def test_quitting_after_a_report_prints_no_qt_timer_warnings(tmp_path):
    """Issue 12: quitting printed "QBasicTimer::start: current thread's event dispatcher has
    already been destroyed" (the PDF's text layout started timers on a worker thread)."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "TAPEDIAG_DATA_DIR": str(tmp_path / "data")}
    info = subprocess.run([sys.executable, "-m", "app", "info", "virtual:lto9", "--json"], capture_output=True,
                          text=True, env=env, timeout=120)
    run_id = json.loads(info.stdout)["run_id"]
    pdf = tmp_path / "report.pdf"
    out = subprocess.run([sys.executable, "-c", QUIT_SCRIPT, str(run_id), str(pdf)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == 0 and "report failed" not in out.stderr, out.stderr
    assert pdf.read_bytes().startswith(b"%PDF-")  # the report was written, then File > Quit
    assert "QBasicTimer" not in out.stderr and "QThread" not in out.stderr, out.stderr
    assert "Traceback" not in out.stderr, out.stderr


def test_closing_during_a_run_cancels_it_and_ends_the_device_threads(qtbot):
    """The workers are QThreads: closing the window mid-run cancels the test and waits for
    every thread (a QThread destroyed while running would abort the process)."""
    import time

    from tests.gui.conftest import select_device
    from ui.mainwindow import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    select_device(qtbot, w, "virtual:lto9")
    panel = w.show_panel("tapeperf")
    panel.choose_next.click()
    panel.apply_preset("Quick check")
    panel.apply_values({"size": "8G", "direction": "write"})
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=20000)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.runview.plot.sample_count > 5, timeout=30000)
    threads = list(w.workers._executors.values())
    job = panel.job
    started = time.monotonic()
    w.close()
    assert time.monotonic() - started < 20
    assert job.cancel.cancelled
    assert threads and all(t.isFinished() for t in threads)


def test_read_only_session_toggle_shows_in_the_title_and_refuses_a_tape_write(qtbot, window, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from app.drive import read_only_session, set_read_only_session
    from app.tapeperf import TapePerfParams
    from native.errors import SafetyRefusal
    from ui import engines

    try:
        window.read_only_action.trigger()
        assert window.read_only_action.isChecked() and "[read-only]" in window.windowTitle()
        assert read_only_session()
        with engines.open_drive(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}") as drive:
            assert drive.read_only
            from app.tapeperf.engine import TapePerfTest

            with pytest.raises(SafetyRefusal, match="read-only session"):
                TapePerfTest(drive, TapePerfParams(size=4 << 20)).run()
        window.read_only_action.trigger()
        assert "[read-only]" not in window.windowTitle() and not read_only_session()
    finally:
        set_read_only_session(False)

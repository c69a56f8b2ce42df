"""Issue 12: the window at the sizes technicians use. At 1024×700 the nine panel tabs
fit (they scrolled out of sight) and a history run's whole result is readable (the
Result column cut it); at 1600×1000 the device pane takes its share and a long iSCSI
name is shortened in the middle with the whole name in its tooltip (it was cut)."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import as_read, select_device, wait_idle

pytestmark = pytest.mark.gui

LONG = "iscsi://127.0.0.1:3260/iqn.2004-04.com.hpe:storeonce.vtl1.tape-drive-01/1"


def _fresh_window(qtbot, width: int, height: int):
    from ui.mainwindow import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.resize(width, height)
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.width() == width, timeout=5000)
    return w


def test_at_1024_the_tabs_fit_and_a_runs_whole_result_is_shown(qtbot):
    from app.cli import main as cli

    assert cli(["tape-perf", "virtual:lto9", "--size", "64M", "--force"]) == 0  # a run with a long headline
    w = _fresh_window(qtbot, 1024, 700)
    bar = w.tabs.tabBar()
    assert not bar.usesScrollButtons()
    total = sum(bar.tabRect(i).width() for i in range(bar.count()))
    assert total <= bar.width(), (total, bar.width())
    for i in range(bar.count()):  # no title shortened either
        assert bar.tabRect(i).width() >= bar.tabSizeHint(i).width(), bar.tabText(i)

    history = w.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: len(history.runs) == 1, timeout=10000)
    history.select_run(history.runs[0].id)
    qtbot.waitUntil(lambda: history.current_run is not None, timeout=10000)
    from ui import engines

    headline = engines.run_headline(history.current_run)
    cell = history.table.item(0, 5)
    cut = history.table.columnWidth(5) < history.table.fontMetrics().horizontalAdvance(cell.text())
    assert cut  # the column alone cannot show it at this width ...
    summary = history.summary  # ... the run's summary line does, wrapped
    assert summary.isVisible() and summary.wordWrap()
    from html import escape

    assert escape(headline) in as_read(summary.text()) and "Run " in summary.text()
    assert summary.geometry().right() <= history.width()
    # every wrapped line gets its room once the layout has run
    qtbot.waitUntil(lambda: summary.height() >= summary.heightForWidth(summary.width()) - 1, timeout=5000)
    wait_idle(qtbot, w)
    w.close()


def test_at_1600_the_device_pane_takes_its_share_and_long_names_are_elided(qtbot):
    from app.targets import add_target

    add_target(LONG)
    w = _fresh_window(qtbot, 1600, 1000)
    qtbot.waitUntil(lambda: LONG in w.devices.devices(), timeout=20000)
    from ui.mainwindow import device_pane_width

    assert w.devices.width() >= device_pane_width(1600) - 20, w.devices.width()
    lst = w.devices.list
    assert lst.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    assert lst.textElideMode() == Qt.TextElideMode.ElideMiddle
    item = lst.item(w.devices.devices().index(LONG))
    assert LONG in item.toolTip()
    wait_idle(qtbot, w)
    select_device(qtbot, w, LONG)
    label = w.devices.identity["device"]
    assert label.full_text() == LONG and label.toolTip() == LONG
    assert label.fontMetrics().horizontalAdvance(label.text()) <= label.width()  # shortened, never cut
    assert "…" in label.text()
    wait_idle(qtbot, w, timeout=40000)
    w.close()


def test_the_device_pane_starts_at_a_quarter_of_the_window():
    from ui.mainwindow import device_pane_width

    assert device_pane_width(1024) == 240 and device_pane_width(1600) == 384
    assert device_pane_width(800) == 240 and device_pane_width(2560) == 480

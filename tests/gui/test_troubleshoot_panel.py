"""Troubleshooting end to end: the white paper's Table 2 figures typed in, the
bottleneck named, recommendations shown, the run recorded and listed in History."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import as_read, wait_idle
from tests.helpers.kinds import read_data

pytestmark = pytest.mark.gui


def test_table_2_names_the_file_system_and_lands_in_history(qtbot, window):
    panel = window.show_panel("troubleshoot")
    for key, text in {"tape_write": "154", "disk_read": "10.59", "disk_read_parallel": "29.02",
                      "backup": "22.98"}.items():
        panel.fields[key].setText(text)
    panel.fields["streams"].setText("4")
    panel.fields["block_size"].setText("256K")
    qtbot.mouseClick(panel.figures_next, Qt.MouseButton.LeftButton)
    assert panel.current_page() == "workload"
    panel.analyse_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=15000)
    assert panel.run_id is not None
    verdict = as_read(panel.verdict.text()).lower()
    assert "file system" in verdict or "disk" in verdict
    bottleneck_rows = [panel.table.item(r, 2).text() for r in range(panel.table.rowCount())
                       if panel.table.item(r, 2).text().startswith("Yes")]
    assert bottleneck_rows and set(bottleneck_rows) == {"Yes (File system)"}
    assert panel.table.item(0, 1).text() == "154"  # the CLI's and the PDF's figure (native.units.rate_figure)
    assert panel.recommendation_titles
    assert panel.recommendation_titles[0] in panel.recommendations.toPlainText()

    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: any(r.id == panel.run_id for r in history.runs), timeout=10000)
    assert history.select_run(panel.run_id)
    qtbot.waitUntil(lambda: history.current_run is not None and history.current_run.id == panel.run_id,
                    timeout=10000)
    assert history.details.find_value("kind") == "Troubleshooting session"  # its title, as the PDF names it
    wait_idle(qtbot, window)


def test_a_bad_figure_is_refused_beside_the_field(qtbot, window):
    panel = window.show_panel("troubleshoot")
    panel.fields["tape_write"].setText("fast")
    assert "neither MB/s nor 'run N'" in panel.fields["tape_write"].error.text()
    panel.fields["tape_write"].setText("154")
    assert panel.fields["tape_write"].error.text() == ""
    wait_idle(qtbot, window)


def test_latest_runs_file_a_4_stream_read_as_parallel_like_the_cli(qtbot, window):
    from app.history import History
    from app.troubleshoot.fromhistory import latest_figures

    with History.open() as hist:
        one = hist.start_run("read-data", "/srv", {"streams": 1})
        hist.finish_run(one, "complete", read_data(105.0, target="/srv"))
        four = hist.start_run("read-data", "/srv", {"streams": 4})
        hist.finish_run(four, "complete", read_data(262.0, target="/srv", streams=4))
        expected = latest_figures(hist)
    assert expected["disk_read"] == one and expected["disk_read_parallel"] == four
    panel = window.show_panel("troubleshoot")
    panel.fill_from_history()
    qtbot.waitUntil(lambda: panel.fields["disk_read_parallel"].text() == f"run {four}", timeout=10000)
    assert panel.fields["disk_read"].text() == f"run {one}"
    wait_idle(qtbot, window)


def test_the_form_takes_what_the_cli_takes_windows_small_file_restore(qtbot, window):
    panel = window.show_panel("troubleshoot")
    for key, text in {"tape_read": "156", "disk_write": "19.94", "backup": "22.98", "restore": "3.38"}.items():
        panel.fields[key].setText(text)
    panel.fields["streams"].setText("1")
    panel.small_files.setCurrentIndex(panel.small_files.findData(True))
    panel.os.setCurrentIndex(panel.os.findData("windows"))
    panel.fields["application"].setText("Data Protector")
    panel.analyse_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=15000)
    assert "Millions of small files on Windows: restore in a single stream" in panel.recommendation_titles
    assert panel.diagnosis is not None and panel.diagnosis.input.workload.os == "windows"
    wait_idle(qtbot, window)


def test_at_1024_by_700_every_source_is_read_whole_and_every_row_shown(qtbot):
    """Issue 31: at 1024 pixels the Source column was cut ("125 MB/s line rate, practical…", the rest only in a
    tooltip) and, once wrapped, the last rows scrolled out of sight. Each source now wraps in its row, and the
    table is as tall as its rows."""
    from PySide6.QtCore import QRect

    from ui.mainwindow import MainWindow

    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.resize(1024, 700)
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.width() == 1024, timeout=5000)
    from app.history import History
    from tests.helpers.kinds import short_write

    with History.open() as hist:
        tape = short_write(hist)  # a recorded figure: its source names the run and what limited it
    panel = w.show_panel("troubleshoot")
    for key, text in {"tape_write": f"run {tape}", "disk_read_parallel": "1633", "backup": "95", "restore": "90",
                      "tape_read": "814.7", "disk_write_parallel": "1644"}.items():
        panel.fields[key].setText(text)
    panel.fields["block_size"].setText("64K")
    panel.fields["network"].setText("1GbE")
    panel.figures_next.click()
    panel.analyse_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=15000)
    table = panel.table
    sources = [as_read(table.item(r, 3).text()) for r in range(table.rowCount())]
    longest = max(sources, key=len)
    assert longest.startswith(f"run {tape}, limited by")  # a source wider than its column at this size ...
    qtbot.waitUntil(lambda: table.columnWidth(3) < table.fontMetrics().horizontalAdvance(longest), timeout=5000)
    for r in range(table.rowCount()):  # ... wrapped whole in its row
        cell = table.visualRect(table.model().index(r, 3))
        needed = table.fontMetrics().boundingRect(QRect(0, 0, cell.width() - 8, 10_000), Qt.TextFlag.TextWordWrap,
                                                  table.item(r, 3).text()).height()
        assert cell.height() >= needed, (sources[r], cell.height(), needed)
    last = table.visualRect(table.model().index(table.rowCount() - 1, 0))
    assert last.bottom() <= table.viewport().height() and not table.verticalScrollBar().isVisible()  # every row shown
    assert table.geometry().bottom() <= panel.height()
    wait_idle(qtbot, w)
    w.close()

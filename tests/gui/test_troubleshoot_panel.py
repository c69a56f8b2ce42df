"""Troubleshooting end to end: the white paper's Table 2 figures typed in, the
bottleneck named, recommendations shown, the run recorded and listed in History."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.gui.conftest import wait_idle

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
    verdict = panel.verdict.text().lower()
    assert "file system" in verdict or "disk" in verdict
    bottleneck_rows = [panel.table.item(r, 2).text() for r in range(panel.table.rowCount())
                       if panel.table.item(r, 2).text().startswith("Yes")]
    assert bottleneck_rows and set(bottleneck_rows) == {"Yes (File system)"}
    assert panel.table.item(0, 1).text() == "154.00"
    assert panel.recommendation_titles
    assert panel.recommendation_titles[0] in panel.recommendations.toPlainText()

    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: any(r.id == panel.run_id for r in history.runs), timeout=10000)
    assert history.select_run(panel.run_id)
    qtbot.waitUntil(lambda: history.current_run is not None and history.current_run.id == panel.run_id,
                    timeout=10000)
    assert history.details.find_value("kind") == "troubleshoot"
    wait_idle(qtbot, window)


def test_a_bad_figure_is_refused_beside_the_field(qtbot, window):
    panel = window.show_panel("troubleshoot")
    panel.fields["tape_write"].setText("fast")
    assert "neither MB/s nor 'run N'" in panel.fields["tape_write"].error.text()
    panel.fields["tape_write"].setText("154")
    assert panel.fields["tape_write"].error.text() == ""
    wait_idle(qtbot, window)

"""The history's "Compare with…" and "Repeat this run" (issue 30 §2), on runs the command line recorded on the
virtual drive: a worn head (``wornhead=300``) against the same drive and cartridge without it."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from PySide6.QtCore import QItemSelectionModel, QTimer
from PySide6.QtWidgets import QApplication

from app.cli import main
from app.history import History
from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

SIZE = ["--size", "32M", "--pattern", "random", "--direction", "write,read"]


def _runs(tmp_path: Path) -> tuple[str, int, int]:
    """Two tape-perf runs of one drive (serial HU100) and cartridge: with a worn head, then without."""
    base = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.cart'}&serial=HU100&capacity=1G"
    assert main(["tape-perf", f"{base}&wornhead=300", *SIZE]) == 0
    assert main(["tape-perf", base, *SIZE, "--force"]) == 0
    with History.open() as hist:
        after, before = (r.id for r in hist.list_runs(limit=2))
    return base, before, after


def _history(qtbot, window):
    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: len(history.runs) >= 2, timeout=10000)
    return history


def _select(history, *ids: int) -> None:
    history.table.clearSelection()
    model = history.table.selectionModel()
    for r in range(history.table.rowCount()):
        if history._run_id_at(r) in ids:
            model.select(history.table.model().index(r, 0),
                         QItemSelectionModel.SelectionFlag.Select | QItemSelectionModel.SelectionFlag.Rows)


def test_two_selected_runs_are_compared_and_saved_as_one_report(qtbot, window, tmp_path) -> None:
    _base, before, after = _runs(tmp_path)
    history = _history(qtbot, window)
    _select(history, before, after)
    assert history.compare_button.isEnabled() and not history.repeat_button.isEnabled()  # two runs: no repeat
    history.compare_button.click()
    qtbot.waitUntil(lambda: history.current_page() == "compare", timeout=15000)
    view = history.compare_view
    judged = view.judgements()
    assert judged["Write errors corrected"] == "improved" and judged["Read errors corrected"] == "improved"
    assert judged["TapeAlert flags after the test"] == "same"
    heading = view.heading.text()
    assert f"<b>Run {before}</b>" in heading and "What differs besides the figures" in heading and "Device" in heading
    if os.environ.get("TAPEDIAG_SCREENSHOT_DIR"):  # to look at it (Xvfb, 1024x700)
        window.resize(1024, 700)
        qtbot.wait(200)
        window.grab().save(str(Path(os.environ["TAPEDIAG_SCREENSHOT_DIR"]) / "history-compare.png"))
    if shutil.which("pdftotext"):
        pdf = tmp_path / "compare.pdf"
        history.save_comparison(pdf, {"customer": "ACME"})
        qtbot.waitUntil(lambda: history.last_report == pdf, timeout=60000)
        page1 = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True, text=True,
                               check=True).stdout
        assert "Before and after" in page1 and "Write errors corrected" in page1 and f"Run #{after}" in page1
    history.show_page("runs")
    wait_idle(qtbot, window)


def test_compare_with_picks_the_other_run_of_the_same_kind_first(qtbot, window, tmp_path) -> None:
    _base, before, after = _runs(tmp_path)
    assert main(["info", "virtual:lto9"]) in (0, 10)  # a run of another kind, newer than both
    history = _history(qtbot, window)
    qtbot.waitUntil(lambda: len(history.runs) >= 3, timeout=10000)
    _select(history, after)

    def choose() -> None:
        picker = QApplication.activeModalWidget()
        assert picker is not None and picker.list.item(0).text().startswith(f"Run {before} — tape-perf")
        picker.accept()

    QTimer.singleShot(200, choose)
    history.compare_button.click()
    qtbot.waitUntil(lambda: history.comparison is not None, timeout=15000)
    assert (history.comparison.before.run_id, history.comparison.after.run_id) == (before, after)
    wait_idle(qtbot, window)


def test_repeat_this_run_opens_its_panel_at_the_confirmation_with_its_parameters(qtbot, window, tmp_path) -> None:
    base, _before, after = _runs(tmp_path)
    history = _history(qtbot, window)
    _select(history, after)
    assert history.repeat_button.isEnabled()
    history.repeat_button.click()
    tape = window.panels["tapeperf"]
    assert window.tabs.currentWidget() is tape and tape.device == base
    assert tape.current_page() == "confirm"
    values = tape.values()
    assert values["size"] == "32M" and values["pattern"] == "random" and values["direction"] == "write+read"
    # The cartridge holds the earlier run's data: the same confirmation as any overwrite, nothing started yet.
    qtbot.waitUntil(lambda: tape.confirm_box.isVisible(), timeout=20000)
    assert not tape.start_button.isEnabled()
    with History.open() as hist:
        assert hist.list_runs(limit=1)[0].id == after
    tape.confirm_box.setChecked(True)
    tape.start_button.click()
    qtbot.waitUntil(lambda: tape.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)
    with History.open() as hist:
        new, old = hist.list_runs(limit=1)[0], hist.get_run(after, samples=False)
    assert new.id == tape.run_id != after and new.device == old.device
    assert {k: v for k, v in new.params.items() if k != "force"} == {k: v for k, v in old.params.items() if k != "force"}

"""History & reports: runs made in the panels are listed, their curve redrawn from the
stored samples, and a PDF report is saved from them. Closing the window mid-test
cancels the test cleanly."""
from __future__ import annotations

import subprocess
import time

import pytest

from tests.helpers.kinds import findings

from tests.gui.conftest import as_read, select_device, wait_idle

pytestmark = pytest.mark.gui


def _quick_tape_run(qtbot, panel, size: str = "128M") -> None:
    panel.choose_next.click()
    panel.apply_preset("Quick check")
    panel.apply_values({"size": size, "direction": "write+read"})
    panel.params_next.click()
    qtbot.waitUntil(lambda: panel.found_label.text() and "Checking" not in panel.found_label.text(), timeout=20000)
    if panel.confirm_box.isVisible():
        panel.confirm_box.setChecked(True)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=90000)


def test_runs_are_listed_replotted_and_reported_as_pdf(qtbot, window, tmp_path):
    select_device(qtbot, window, "virtual:lto7")
    info = window.show_panel("info")
    info.run_button.click()
    qtbot.waitUntil(lambda: info.current_page() == "results", timeout=30000)
    tape = window.show_panel("tapeperf")
    _quick_tape_run(qtbot, tape)
    assert tape.outcome == "complete"
    wait_idle(qtbot, window)

    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: {r.kind for r in history.runs} >= {"drive-info", "tape-perf"}, timeout=10000)
    assert history.select_run(tape.run_id)
    qtbot.waitUntil(lambda: history.current_run is not None and history.current_run.id == tape.run_id, timeout=10000)
    assert set(history.plot.phases()) == {"write", "read"}  # redrawn from the stored samples
    assert history.plot.sample_count == history.current_run.sample_count > 0
    assert [line.value() for line in history.plot._refs] == [600.0]  # what the headline judges against: 2:1 on LTO-7

    pdf = tmp_path / "report.pdf"
    history.save_report([info.run_id, tape.run_id], pdf, {"customer": "ACME Backup", "technician": "J. Doe"})
    qtbot.waitUntil(lambda: history.last_report is not None, timeout=60000)
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "ACME Backup" in text
    serial = info.info.identity.serial
    assert serial in text
    for finding in findings("tape-perf", tape.result_dict):  # each phase's verdict, as the run kind words it
        assert " ".join(finding.words.split()) in " ".join(text.split()), finding
    wait_idle(qtbot, window)


def test_closing_the_window_during_a_test_cancels_it_and_waits(qtbot, window):
    select_device(qtbot, window, "virtual:lto9")
    panel = window.show_panel("tapeperf")
    panel.choose_next.click()
    panel.apply_preset("Quick check")
    panel.apply_values({"size": "6G", "direction": "write"})
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=20000)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.runview.plot.sample_count > 10, timeout=30000)
    job = panel.job
    t0 = time.monotonic()
    window.close()  # closeEvent cancels and joins the device threads
    assert time.monotonic() - t0 < 10
    assert job.cancel.cancelled
    from ui import gcthread

    assert not gcthread.held()  # the closed window's run view no longer holds the collector off
    assert not window.workers.active_jobs() or all(j.cancel.cancelled for j in window.workers.active_jobs())
    from app.history import History

    with History.open() as h:
        runs = h.list_runs(kind="tape-perf")
    assert len(runs) == 1 and runs[0].status == "cancelled"


def test_a_run_over_several_drives_is_listed_and_plotted_per_drive(qtbot, window, tmp_path):
    """Recorded by ``tapediag tape-perf DEV1 DEV2``: the GUI's history shows it from its run kind alone."""
    from app.cli import main

    from tests.tapeperf.conftest import paced

    devices = [paced(tmp_path, n) for n in "ab"]  # paced: the drives write at the same time on a loaded machine
    assert main(["tape-perf", *devices, "--size", "16M", "--alone", "8M", "--json"]) == 0
    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: any(r.kind == "tape-perf-multi" for r in history.runs), timeout=10000)
    run = next(r for r in history.runs if r.kind == "tape-perf-multi")
    row = next(i for i in range(history.table.rowCount()) if history.table.item(i, 0).text() == str(run.id))
    assert history.table.item(row, 5).text().startswith("2 drives: write together")
    assert history.select_run(run.id)
    qtbot.waitUntil(lambda: history.current_run is not None and history.current_run.id == run.id, timeout=10000)
    shown = [k for k in history.plot._curves if k.startswith("curve:")]
    assert len(shown) == 3  # drive 1, drive 2, all together
    history.plot.clear()
    assert not history.plot._curves
    wait_idle(qtbot, window)


def test_a_damaged_run_is_listed_among_the_others(qtbot, window, capsys) -> None:  # type: ignore[no-untyped-def]
    """Issue 27 §3: one damaged row is listed as such among the others."""
    from tests.history.test_damaged_rows import _history_with_a_bad_row

    good1, bad, good2 = _history_with_a_bad_row(capsys)
    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: {r.id for r in history.runs} == {good1, bad, good2}, timeout=10000)
    rows = {history.table.item(r, 0).text(): history.table.item(r, 5).text() for r in range(history.table.rowCount())}
    assert rows[str(bad)] == "record damaged: its results are not valid JSON"
    wait_idle(qtbot, window)


def test_a_selected_run_is_read_once_and_shown_in_words_with_its_flush(qtbot, window, monkeypatch):
    """Issue 31: selecting a run read it three times (its line, its curves, its yardstick), and its details were the
    stored dictionaries (snake_case keys, raw numbers). Now one review job reads it once, and the details are the
    run kind's words: its verdicts, its parameters by the field table's labels, its report rows. A short write's
    flush is shaded on the plot with the note naming both figures, as in the PDF."""
    from app.history import History
    from app.history import summary
    from app.runs.stored import load
    from app.tapeperf.buffered import buffered_writes
    from tests.helpers.kinds import short_write
    from tests.helpers.words import gui_texts, number_problems, unexpected
    from ui import engines

    with History.open() as hist:
        run_id = short_write(hist)
    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: any(r.id == run_id for r in history.runs), timeout=10000)
    wait_idle(qtbot, window)
    loads: list[int] = []
    reviews: list[int] = []

    def counted(run):
        loads.append(run.id)
        return load(run)

    review = engines.review_run
    monkeypatch.setattr(engines, "load", counted)
    monkeypatch.setattr(summary, "load", counted)
    monkeypatch.setattr(engines, "review_run", lambda rid: reviews.append(rid) or review(rid))
    assert history.select_run(run_id)
    qtbot.waitUntil(lambda: history.current_run is not None and history.current_run.id == run_id, timeout=10000)
    wait_idle(qtbot, window)
    assert loads == [run_id] and reviews == [run_id]  # one job, one read of the result
    history.refresh()  # the list read again re-selects the same run: not reviewed again
    qtbot.waitUntil(lambda: reviews != [run_id] or not window.workers.active_jobs(), timeout=10000)
    wait_idle(qtbot, window)
    assert reviews == [run_id]

    shown = gui_texts(history.details)
    assert not sorted({w for t in shown for w in unexpected(t)})
    assert not [p for t in shown for p in number_problems(t)]
    assert history.details.find_value("Kind") == "Tape performance"  # its title, not "tape-perf"
    assert history.details.find_value("Data pattern") == "2:1"  # the field table's label
    assert history.details.find_value("Tape write rate").startswith("826.3 MB/s streaming")  # its verdict
    assert history.details.find_value("Write commands") == "200 I/Os, 800 blocks, 1 filemark, 0 slow I/Os"

    with History.open() as hist:
        [written] = buffered_writes(load(hist.get_run(run_id)).result)
    [(start, end, words)] = history.plot.shaded()
    assert words == "flush to tape" and start == pytest.approx(2.0) and end - start == pytest.approx(0.9)
    assert history.plot.note.isVisibleTo(history) and as_read(history.plot.note.text()) == written.note()

"""The Network panel end to end on 127.0.0.1: a real server (the panel's own, and a ``tapediag net-serve``
process), the token typed masked and never saved, the live curve, the results page, the run in the history."""
from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QLineEdit

from app.history import History
from tests.gui.conftest import as_read, wait_idle
from tests.helpers.nettest import start_server

pytestmark = pytest.mark.gui


def _to_confirm(qtbot, panel, port: int, token: str, values: dict) -> None:  # type: ignore[no-untyped-def]
    panel.choose_next.click()
    assert panel.current_page() == "params"
    panel.apply_values({"host": "127.0.0.1", "port": str(port), **values})
    assert not panel.params_next.isEnabled()  # no token yet
    assert "token" in panel.params_error.text()
    panel.token_edit.setText(token)
    assert panel.token_edit.echoMode() == QLineEdit.EchoMode.Password  # masked
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    assert panel.current_page() == "confirm"


def test_a_test_against_a_server_process_runs_recorded_and_the_token_is_never_kept(qtbot, window,
                                                                                    isolated_data_dir) -> None:
    server = start_server()
    panel = window.show_panel("network")
    _to_confirm(qtbot, panel, server.port, server.token, {"streams": "2", "seconds": "2", "direction": "both"})
    assert f"127.0.0.1:{server.port}" in panel.confirm_label.text()
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    assert server.finish()[0] == 0
    assert panel.outcome == "complete", panel.result_dict
    assert panel.runview.plot.sample_count > 0 and set(panel.runview.plot.phases()) == {"backup", "restore"}
    headline = as_read(panel.result_label.text())
    assert "backup" in headline and "restore" in headline and "Mbit/s" in headline and "2 streams" in headline
    assert panel.result_tree.find_value("Stream 2") is not None
    assert "MB/s" in (panel.result_tree.find_value("Total") or "")
    assert panel.result_tree.find_value("Data pattern").startswith("2:1")
    assert f"run {panel.run_id}" in panel.result_subject.text()
    with History.open() as hist:
        run = hist.get_run(panel.run_id, samples=False)
    assert run.kind == "net-test" and run.status == "complete" and "token" not in run.params
    window.close()  # the form's settings are written
    wait_idle(qtbot, window)
    kept = "".join(p.read_text(errors="replace") for p in isolated_data_dir.rglob("*") if p.is_file()
                   and p.suffix in (".json", ".ini", ".conf", ""))
    assert server.token not in kept and server.token.replace("-", "") not in kept


def test_the_panels_own_server_shows_its_token_and_serves_one_session(qtbot, window) -> None:
    panel = window.show_panel("network")
    panel.serve_fields["bind"].setText("127.0.0.1")
    panel.serve_fields["port"].setText("0")
    panel.start_server()
    qtbot.waitUntil(lambda: panel.listening is not None, timeout=30000)
    listening = panel.listening
    status = panel.server_status.text()
    assert f"port {listening.port}" in status and listening.token in status
    from tests.helpers.words import gui_texts, unexpected

    shown = gui_texts(window.windows["network"])
    assert not sorted({w for text in shown for w in unexpected(text)})  # no option: the GUI's words
    assert re.fullmatch(r"[0-9A-Z]{4}(-[0-9A-Z]{4}){3}", listening.token)
    assert not panel.serve_button.isEnabled() and panel.stop_server_button.isEnabled()
    _to_confirm(qtbot, panel, listening.port, listening.token, {"streams": "1", "seconds": "1",
                                                                "direction": "backup"})
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    assert panel.outcome == "complete", panel.result_dict
    qtbot.waitUntil(lambda: panel.server_outcome is not None, timeout=30000)
    assert panel.server_outcome.status == "complete"
    assert "Session complete" in panel.server_status.text() and listening.token not in panel.server_status.text()
    log = [panel.server_log.item(i).text() for i in range(panel.server_log.count())]
    assert any(line.startswith("session from 127.0.0.1:") for line in log), log
    assert panel.serve_button.isEnabled()


def test_a_server_can_be_stopped_and_bad_input_is_said_beside_the_button(qtbot, window) -> None:
    panel = window.show_panel("network")
    panel.serve_fields["bind"].setText("")
    assert panel.start_server() is None
    assert "no address to listen on given" in panel.serve_error.text()
    panel.serve_fields["bind"].setText("127.0.0.1")
    panel.serve_fields["port"].setText("0")
    panel.start_server()
    qtbot.waitUntil(lambda: panel.listening is not None, timeout=30000)
    panel.stop_server_button.click()
    qtbot.waitUntil(lambda: panel.server_outcome is not None, timeout=30000)
    assert panel.server_outcome.status == "cancelled" and panel.server_status.text() == "Stopped."
    wait_idle(qtbot, window)


def test_the_troubleshooting_form_offers_the_recorded_network_test_and_opens_one(qtbot, window) -> None:
    """A recorded net-test is the troubleshooting's network figure: 'Use the latest recorded runs' puts it in
    the form, the diagnosis names the network from it; 'Measure the network…' opens the Network test."""
    server = start_server()
    from app.cli import main

    assert main(["net-test", f"127.0.0.1:{server.port}", "--token", server.token, "--time", "1",
                 "--direction", "backup"]) == 0
    assert server.finish()[0] == 0
    with History.open() as hist:
        net = hist.list_runs(kind="net-test")[0].id
    panel = window.show_panel("troubleshoot")
    panel.measure_network.click()
    assert window.windows["network"].isVisible()
    window.windows["network"].close()
    panel.fill_from_history()
    qtbot.waitUntil(lambda: panel.fields["network_run"].text() == f"run {net}", timeout=10000)
    panel.fields["tape_write"].setText("1000000")
    panel.fields["network_run"].setText("12 MB/s")  # a rate is not a run: said beside the field
    assert not panel.fields["network_run"].ok
    panel.fields["network_run"].setText(f"run {net}")
    panel.fields["tape_write"].setText("90000")
    panel.show_page("workload")
    panel.analyse()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=30000)
    cells = [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]
    assert "Backup: Network, client to server" in cells, cells
    row = cells.index("Backup: Network, client to server")
    assert panel.table.item(row, 3).text() == f"run {net}, net-test"
    assert "the network" in as_read(panel.verdict.text())
    wait_idle(qtbot, window)


def test_the_current_rate_starts_again_with_each_phase(qtbot) -> None:
    """Each phase's clock starts at 0: the run page's 'current rate' once reached back across the change (the
    backup's last second and the restore's first tenths) and said 3,006,760 MB/s (seen under Xvfb)."""
    from app.events import Sample, SampleBatch
    from ui.runview import RunView
    from ui.worker import Job

    view = RunView()
    qtbot.addWidget(view)
    job: Job = Job("net-test", "network test", lambda j: None)
    view.attach(job, phases=("backup", "restore"))
    job.sink(SampleBatch(tuple(Sample(3.0 + i / 10, 10_000_000, 0.1, "backup", 1) for i in range(11))))
    view.drain()
    # 110 MB over the 1.1 s from when the first sample's bytes began (2.9 s) to the last one's end (4.0 s)
    assert view.figures["current"].text() == "100.0 MB/s"
    job.sink(SampleBatch(tuple(Sample(i / 10, 5_000_000, 0.1, "restore", 1) for i in range(1, 6))))
    view.drain()
    assert view.figures["current"].text() == "50.0 MB/s"  # 25 MB over the restore's own 0.5 s, none of the backup's
    view.detach("Finished.")

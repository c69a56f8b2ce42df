"""Drive assessment and media scan through their panels on the virtual LTO-9 drive (issue 16):
the verdict shown in words and colour under the drive's name, the run in the history exactly
as the CLI records it, the same confirmation as tape-perf for a cartridge holding data, and
the read-only session refusing the assessment with nothing written (and letting the scan run)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.assess.kind import ASSESSMENT
from app.scan.kind import MEDIA_SCAN
from tests.gui.conftest import as_read, select_device, wait_idle

pytestmark = pytest.mark.gui

DEVICE = "virtual:lto9"


def _history(kind: str):  # type: ignore[no-untyped-def]
    from app.history import History

    with History.open() as h:
        return h.list_runs(kind=kind)


def _to_confirm(qtbot, panel, values: dict) -> None:  # type: ignore[no-untyped-def]
    if panel.current_page() == "choose":
        panel.choose_next.click()
    assert panel.current_page() == "params"
    panel.apply_values(values)
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    assert panel.current_page() == "confirm"


def _checked(qtbot, panel) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: as_read(panel.found_label.text()) and "Checking" not in as_read(panel.found_label.text()), timeout=20000)


def _run(qtbot, panel) -> None:  # type: ignore[no-untyped-def]
    assert panel.start_button.isEnabled()
    panel.start_button.click()
    assert panel.current_page() == "run"
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=120000)


def _records(cart: Path) -> str:
    return hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest()


def test_assessment_then_scan_show_their_verdicts_and_are_recorded_as_the_cli_records_them(qtbot, window):
    from app.assess import AssessParams
    from app.cli import main as cli
    from app.scan import ScanParams
    from ui.panels.verdictpanel import verdict_colour

    select_device(qtbot, window, DEVICE)
    panel = window.show_panel("assess")
    assert panel.device == DEVICE
    _to_confirm(qtbot, panel, {"no_write": False, "size": "256M"})
    assert "writes 256 MiB" in panel.confirm_label.text() and "overwritten" in panel.confirm_label.text()
    _checked(qtbot, panel)
    assert "blank" in as_read(panel.found_label.text())
    _run(qtbot, panel)
    verdict = panel.result_dict["verdict"]
    assert verdict in ("PASS", "PASS WITH WARNINGS") and panel.outcome == "complete"  # a healthy virtual drive
    label = as_read(panel.result_label.text())
    assert f"Drive assessment: {verdict}" in label and verdict_colour(ASSESSMENT, panel.result) in label
    assert f"Next: {panel.result_dict['next_action']}" in label
    assert f"Results of <b>drive {DEVICE}</b> (run {panel.run_id})" in panel.result_subject.text()
    assert panel.result_tree.find_value("PASS: write, read back and verify").startswith("268 MB written")
    assert panel.copy_text().startswith(f"{DEVICE}: HPE Ultrium 9-SCSI")  # the CLI's text, for the ticket

    # The history row: the CLI's kind and parameters dictionary, as `tapediag assess --size 256M` records them.
    (row,) = _history("assessment")
    assert (row.id, row.device, row.status) == (panel.run_id, DEVICE, "complete")
    assert row.params == AssessParams.from_text("256M").to_dict() == {"size": 256 << 20, "no_write": False,
                                                                      "force": False}
    wait_idle(qtbot, window)
    # The panel's run left data on the cartridge: the CLI's write step is refused, and nothing passes without it.
    assert cli(["assess", DEVICE, "--size", "256M", "--json"]) == 12
    cli_row = next(r for r in _history("assessment") if r.id != panel.run_id)
    assert (cli_row.kind, cli_row.device, cli_row.params) == (row.kind, row.device, row.params)

    # The media scan reads what the assessment wrote; the cartridge is judged, nothing written.
    scan = window.show_panel("scan")
    scan.choose_next.click()
    scan.fields["limit"].setText("lots")
    assert not scan.fields["limit"].ok and not scan.params_next.isEnabled()
    _to_confirm(qtbot, scan, {"limit": "", "zone": "100MB"})
    assert "Nothing is written" in scan.confirm_label.text()
    _run(qtbot, scan)
    assert scan.result_dict["verdict"] == "keep" and scan.result_dict["end_reason"] == "end of data"
    label = as_read(scan.result_label.text())
    assert "Cartridge KEEP: 268 MB read" in label and verdict_colour(MEDIA_SCAN, scan.result) in label
    assert f"Results of <b>drive {DEVICE}</b> (run {scan.run_id})" in scan.result_subject.text()
    assert scan.result_tree.find_value("Cartridge verdict") == "KEEP"
    assert scan.result_tree.find_value("Layout") == "1 file, 1 filemark, 256 blocks"
    (row,) = _history("media-scan")
    assert (row.id, row.device, row.status) == (scan.run_id, DEVICE, "complete")
    assert row.params == ScanParams.from_text(None, "100MB").to_dict()
    wait_idle(qtbot, window)

    history = window.show_panel("history")
    history.refresh()
    qtbot.waitUntil(lambda: {r.kind for r in history.runs} >= {"assessment", "media-scan"}, timeout=10000)


def test_a_cartridge_holding_data_needs_the_confirmation_and_read_only_refuses(qtbot, window, tmp_path):
    from app.cli import main as cli
    from app.drive import set_read_only_session

    cart = tmp_path / "customer.img"
    device = f"virtual:lto9?realtime=0&cartridge={cart}"
    assert cli(["tape-perf", device, "--size", "8M", "--direction", "write"]) == 0  # it holds data now
    before = _records(cart)
    wait_idle(qtbot, window)  # the initial device listing selects a drive for every panel: choose ours after it
    panel = window.show_panel("assess")
    panel.set_device(device)
    _to_confirm(qtbot, panel, {"no_write": False, "size": "8M"})
    _checked(qtbot, panel)
    # tape-perf's flow: the engine's own finding, a box to tick, Start only once it is ticked.
    assert "Found on the cartridge" in as_read(panel.found_label.text()) and "block at BOT" in as_read(panel.found_label.text())
    assert panel.confirm_box.isVisible() and not panel.start_button.isEnabled()

    # File › Read-only session: ticking the box cannot get the write through; refused before any command.
    try:
        window.read_only_action.trigger()
        assert "[read-only]" in window.windowTitle()
        panel.confirm_box.setChecked(True)
        _run_refused(qtbot, panel)
        assert "read-only session" in as_read(panel.found_label.text()) and not panel.start_button.isEnabled()
        assert "assessment was not started" in as_read(panel.found_label.text())
        refused = _history("assessment")[0]
        assert refused.status == "refused" and refused.params["force"] is True
        # The media scan needs no write: it runs in the read-only session and judges the customer's cartridge.
        scan = window.show_panel("scan")
        scan.set_device(device)
        _to_confirm(qtbot, scan, {"limit": "", "zone": "1GB"})
        _run(qtbot, scan)
        assert scan.outcome == "complete" and scan.result_dict["verdict"] == "keep"
        assert scan.result_tree.find_value("Layout") == "1 file, 1 filemark, 32 blocks"  # tape-perf's 8M in 256K
    finally:
        window.read_only_action.trigger()
        set_read_only_session(False)
    assert _records(cart) == before

    # Out of read-only, confirmed: written over, and the history says it was forced.
    panel.show_page("params")
    panel.params_next.click()
    _checked(qtbot, panel)
    panel.confirm_box.setChecked(True)
    assert panel.start_button.text() == "&Overwrite and start"
    _run(qtbot, panel)
    assert _history("assessment")[0].params["force"] is True and _records(cart) != before
    wait_idle(qtbot, window)


def _run_refused(qtbot, panel) -> None:  # type: ignore[no-untyped-def]
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "confirm" and "read-only" in as_read(panel.found_label.text()),
                    timeout=20000)


def test_a_failing_self_test_is_shown_as_fail_in_red_with_the_next_action(qtbot, window, tmp_path):
    from ui.panels.verdictpanel import verdict_colour

    wait_idle(qtbot, window)  # the initial device listing selects a drive for every panel: choose ours after it
    panel = window.show_panel("assess")
    panel.set_device(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&selftest=fail")
    _to_confirm(qtbot, panel, {"no_write": True})
    assert "Nothing is written" in panel.confirm_label.text() and not panel.fields["size"].isEnabled()
    _run(qtbot, panel)
    label = as_read(panel.result_label.text())
    assert "Drive assessment: FAIL" in label and verdict_colour(ASSESSMENT, panel.result) in label
    assert "support case" in label
    assert panel.result_tree.find_value("FAIL: drive self-test").startswith("the self-test failed")
    assert panel.result_tree.find_value("NOT RUN: write, read back and verify") == "skipped (asked not to write)"
    assert _history("assessment")[0].params == {"size": None, "no_write": True, "force": False}
    wait_idle(qtbot, window)

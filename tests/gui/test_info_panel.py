"""Drive information end to end: identity, MAM, TapeAlert with severity colours, health."""
from __future__ import annotations

import contextlib
import io

import pytest

from app.cli import main
from tests.gui.conftest import select_device, wait_idle

pytestmark = pytest.mark.gui


def test_virtual_drive_information_with_tapealerts_and_verdict(qtbot, window):
    select_device(qtbot, window, "virtual:lto8")
    panel = window.show_panel("info")
    wait_idle(qtbot, window)
    panel.set_device("virtual:lto8?tapealert=3,20")  # flags raised by the drive itself
    panel.run_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=30000)
    assert "Health: Attention" in panel.verdict.text()
    assert "Cleaning required" in panel.verdict.text()
    assert panel.tree.find_value("product") == "Ultrium 8-SCSI"
    assert panel.tree.find_value("LTO generation") == "LTO-8"
    assert panel.tree.find_value("barcode")  # the cartridge memory was read
    alerts = [panel.tree.topLevelItem(i) for i in range(panel.tree.topLevelItemCount())
              if panel.tree.topLevelItem(i).text(0) == "TapeAlert"][0]
    rows = {alerts.child(i).text(0): alerts.child(i) for i in range(alerts.childCount())}
    # by hex number as the verdict says "TapeAlert 14h", with the decimal beside it
    assert set(rows) == {"03h (3) Hard error", "14h (20) Cleaning required", "Read from"}
    assert "0x12" in rows["Read from"].text(1)  # TapeAlert response page: the flags were not cleared
    assert rows["14h (20) Cleaning required"].text(1).startswith("Critical:")
    assert rows["14h (20) Cleaning required"].foreground(1).color().name() == "#d62728"
    assert rows["03h (3) Hard error"].foreground(1).color().name() == "#e08a00"
    assert panel.run_id is not None  # recorded as a drive-info run
    # The same fields, names and formats as 'tapediag info' prints (app.info_view): no raw 96 or 1.
    assert panel.tree.find_value("Density") == "LTO-8 (0x5E)"
    assert panel.tree.find_value("Buffered mode").startswith("on")
    assert "(" in panel.tree.find_value("Capacity maximum") and "MiB)" in panel.tree.find_value("Capacity maximum")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(["show", str(panel.run_id)])
    shown = [panel.tree.topLevelItem(i).text(0) for i in range(panel.tree.topLevelItemCount())]
    # The drive's and cartridge's earlier visits come from the history, after the snapshot's own sections.
    assert shown.pop() == "History of this drive and cartridge"
    printed = [line for line in out.getvalue().splitlines() if line and not line.startswith(" ")]
    first = printed.index(shown[0])  # after show's own header line
    assert shown == printed[first:first + len(shown)], (shown, printed)
    wait_idle(qtbot, window)


def test_an_unreachable_device_is_a_dialog_not_a_crash(qtbot, window):
    panel = window.show_panel("info")
    wait_idle(qtbot, window)
    panel.set_device("virtual:lto9?loaded=maybe")  # the virtual drive rejects the option
    panel.run_button.click()
    qtbot.waitUntil(lambda: panel.last_error is not None, timeout=30000)
    assert "loaded" in panel.last_error and "Traceback" not in panel.last_error
    assert panel.current_page() == "choose"
    wait_idle(qtbot, window)

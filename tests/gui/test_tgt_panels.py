"""The panels against a real tape LUN: tgtd over iSCSI on 127.0.0.1 (tests/helpers/tgt.py).

Add the target in the device pane (remembered), read its information (what tgt does not
implement shows as "not supported"), run a tape test to the end and check the blocks on
the cartridge file, cancel another."""
from __future__ import annotations

import pytest

from tests.gui.conftest import wait_idle

pytestmark = [pytest.mark.gui, pytest.mark.tgt]


def _add_and_select(qtbot, window, url: str) -> None:
    wait_idle(qtbot, window)
    window.devices.add_target(url)
    qtbot.waitUntil(lambda: url in window.devices.devices() and window.devices.selected == url, timeout=30000)
    qtbot.waitUntil(lambda: window.devices.identity["vendor"].text() == "IET", timeout=30000)
    assert window.devices.identity["product"].text() == "VIRTUAL-TAPE"


def test_tgt_lun_information_and_a_finished_tape_run(qtbot, window, tgt_target):
    _add_and_select(qtbot, window, tgt_target.url)
    from app.targets import list_targets

    assert tgt_target.url in [t.url for t in list_targets()]  # remembered between runs

    info = window.show_panel("info")
    info.run_button.click()
    qtbot.waitUntil(lambda: info.current_page() == "results", timeout=30000)
    assert info.tree.find_value("vendor") == "IET"
    assert (info.tree.find_value("Cartridge (MAM)") or "") == "not supported by this device"  # said once
    # Issue 11: tgt reports no TapeAlert and no error counters: Not assessed, in grey, never a green Healthy.
    assert "Health: Not assessed" in info.verdict.text() and "Healthy" not in info.verdict.text()
    assert info.verdict.palette().color(info.verdict.foregroundRole()).name() == "#7f7f7f"

    panel = window.show_panel("tapeperf")
    panel.choose_next.click()
    panel.apply_preset("L&TT Windows default")
    panel.apply_values({"size": "16M", "compression": "leave"})
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=30000)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    assert panel.outcome == "complete", panel.result_dict
    assert panel.runview.plot.curve_points("write") > 0
    phases = {p["phase"]: p for p in panel.result_dict["phases"]}
    assert phases["write"]["bytes"] == 16 << 20 and phases["read"]["bytes"] == 16 << 20
    wait_idle(qtbot, window)
    blocks = tgt_target.show_blocks()
    data = [b for b in blocks if b.type == "DATA"]
    assert len(data) == 64 and {b.size for b in data} == {256 << 10}


def test_cancel_a_tape_run_on_tgt(qtbot, window, tgt_factory):
    target = tgt_factory(size_mb=1024)
    _add_and_select(qtbot, window, target.url)
    panel = window.show_panel("tapeperf")
    panel.choose_next.click()
    panel.apply_preset("L&TT Windows default")
    panel.apply_values({"size": "900M", "direction": "write", "compression": "leave"})
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=30000)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.runview.plot.sample_count > 3, timeout=30000)
    panel.runview.cancel_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    assert panel.outcome == "cancelled"
    written = panel.result_dict["phases"][0]["bytes"]
    assert 0 < written < 900 << 20
    wait_idle(qtbot, window)
    data = [b for b in target.show_blocks() if b.type == "DATA"]
    assert sum(b.size for b in data) == written  # the cartridge holds exactly what the run reported


def test_cancel_with_the_target_frozen_ends_the_run_within_seconds(qtbot, window, tgt_factory):
    """Issue 27: the GUI's Cancel is the same token as the CLI's signals; with tgtd stopped (kill -STOP)
    once the run is streaming, the run ends cancelled within seconds, and says what the drive may be doing."""
    import time

    from app.history import History
    from tests.helpers.stopping import frozen

    target = tgt_factory(size_mb=1024)
    _add_and_select(qtbot, window, target.url)
    panel = window.show_panel("tapeperf")
    panel.choose_next.click()
    panel.apply_preset("L&TT Windows default")
    panel.apply_values({"size": "900M", "direction": "write", "compression": "leave"})
    panel.params_next.click()
    qtbot.waitUntil(lambda: "blank" in panel.found_label.text(), timeout=30000)
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.runview.plot.sample_count > 3, timeout=30000)
    with frozen(target):
        pressed = time.monotonic()
        panel.runview.cancel_button.click()
        qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=30000)
        took = time.monotonic() - pressed
    assert took < 10, took
    assert panel.outcome == "cancelled"
    assert any("may still be executing WRITE" in m for m in panel.result_dict["messages"]), panel.result_dict
    wait_idle(qtbot, window)
    with History.open() as hist:
        assert [(r.kind, r.status) for r in hist.list_runs()] == [("tape-perf", "cancelled")]


def test_a_disk_lun_reads_not_a_tape_drive_with_no_verdict(qtbot, window, tgt_factory):
    """Issue 11: identity, "Not a tape drive" in grey, no health verdict; nothing written."""
    import hashlib

    disk = tgt_factory(device_type="disk", size_mb=8)
    before = hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest()
    wait_idle(qtbot, window)
    info = window.show_panel("info")
    info.set_device(disk.url)
    info.run_button.click()
    qtbot.waitUntil(lambda: info.current_page() == "results", timeout=30000)
    text = info.verdict.text()
    assert "Not a tape drive" in text and "Health:" not in text and "VIRTUAL-DISK" in text
    assert info.verdict.palette().color(info.verdict.foregroundRole()).name() == "#7f7f7f"
    wait_idle(qtbot, window)
    assert hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest() == before

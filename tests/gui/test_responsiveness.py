"""The event loop while a test runs at full speed: a 10 ms QTimer records the gaps
between its ticks; no gap of the app's own may exceed 100 ms (the window never freezes).

The anchor is measured in the same span: for each gap, Linux's per-thread scheduler counts
say how much of it the GUI thread spent waiting for a CPU, or blocked while the thread
holding the GIL waited for one (``tests/helpers/machine.py``): the (shared, loaded)
machine's part, taken out. What is left is the app's: the GUI thread's own work, or its
wait for a thread of the app that was running (a callback that runs long, a worker that
hogs the GIL). The same timer first runs for 2 s with the window idle, printed beside.

The goal (p99 < 16 ms, max < 50 ms on the wall clock, issue 19) is measured by
``benchmarks/bench_gui_fluid.py`` against an idle anchor interleaved round by round."""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QTimer

from tests.gui.conftest import wait_idle
from tests.helpers.machine import Gap, GapMeter, describe, percentile
from ui import gcthread

pytestmark = pytest.mark.gui


def _measure(qtbot, until, timeout_ms: int, running=lambda: True) -> list[Gap]:
    """Gaps between 10 ms ticks while ``running()``; waits until ``until()``."""
    meter = GapMeter()
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: meter.tick(running()))
    meter.tick(False)
    timer.start()
    qtbot.waitUntil(until, timeout=timeout_ms)
    timer.stop()
    return meter.gaps


def _run_and_measure(qtbot, window, device: str, size: str) -> tuple[dict, list[Gap], list[Gap]]:
    """A write of ``size`` (a byte count, so the work is the same however loaded the machine is; a
    duration such as "4s" made 475 I/Os on a loaded machine where a quiet one makes thousands)."""
    wait_idle(qtbot, window)  # the initial device listing selects a drive; choose ours after it
    panel = window.show_panel("tapeperf")
    panel.set_device(device)
    panel.show_page("choose")
    panel.choose_next.click()
    panel.apply_preset("L&TT Windows default")  # 256 KiB fixed blocks, 1 MiB I/Os, 2:1
    panel.apply_values({"direction": "write", "size": size})
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    wait_idle(qtbot, window)  # the cartridge probe
    if panel.confirm_box.isVisible():  # a second attempt finds the first one's data
        panel.confirm_box.setChecked(True)
    t_idle = time.perf_counter() + 2.0
    idle = _measure(qtbot, lambda: time.perf_counter() > t_idle, 10000)
    panel.start_button.click()
    # Measured while the test streams: from its first samples on screen to the moment the
    # job is handed back. The page changes either side (to the run page, to the results
    # page) are one-off layout work, like opening a dialog, not the live view.
    gaps = _measure(qtbot, lambda: panel.current_page() == "results", 240000,
                    running=lambda: panel.runview.plot.sample_count > 0 and not panel.job.finished)
    assert panel.outcome == "complete", panel.result_dict
    write = panel.result_dict["phases"][0]
    print(f"\n{device}: {write['mb_s']:.0f} MB/s, {write['ios']} I/Os in {write['elapsed']:.2f} s; "
          f"event loop during the test: {describe(gaps)}; idle: {describe(idle)}")
    assert panel.runview.plot.sample_count == write["ios"]  # every I/O reached the plot
    assert not gcthread.held() and gcthread.active()  # the collector, held off while streaming, runs again
    wait_idle(qtbot, window)
    return write, gaps, idle


def test_no_event_loop_gap_over_100_ms_while_the_virtual_drive_streams_at_full_speed(qtbot, window):
    """The virtual LTO-9 at its full modelled rate (2:1 data: about twice native)."""
    write, gaps, _idle = _run_and_measure(qtbot, window, "virtual:lto9", "1G")
    assert write["bytes"] == 1 << 30 and write["ios"] == 1024  # 1 MiB I/Os: every one on the plot, checked above
    assert max(g.app for g in gaps) < 0.100, describe(gaps)


def test_the_window_stays_fluid_while_the_null_device_takes_gigabytes_per_second(qtbot, window):
    """``virtual:null`` accepts every WRITE at once, so the engine's Python loop runs flat
    out (several GB/s, ~10,000 I/Os a second) and competes with the GUI thread for the GIL
    on every Qt call. What keeps the gaps short: redraws at most 5 a second with stepped
    axis ranges, pyqtgraph warmed up before the run, a 50 µs GIL switch interval, no
    cyclic-GC pass while streaming. Typically the longest gap is 30-50 ms here; one repaint
    now and then may still take 100-120 ms, so the bound for this artificial worst case is on
    the 99th percentile of the app's own part of the gaps (and 250 ms for any one gap); the
    real-drive case above holds every gap under 100 ms."""
    write, gaps, _ = _run_and_measure(qtbot, window, "virtual:null", "16G")
    assert write["bytes"] == 16 << 30 and write["ios"] == 16384
    apps = [g.app for g in gaps]
    assert percentile(apps, 0.99) < 0.100 and max(apps) < 0.250, describe(gaps)

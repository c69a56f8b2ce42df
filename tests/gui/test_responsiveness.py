"""The event loop while a test runs at full speed: a 10 ms QTimer records the gaps
between its ticks; no gap may exceed 100 ms (the window never freezes).

The same timer is first run for 2 s with the window idle: that anchor says how much
of any gap is the (shared, loaded) machine rather than the app, and is printed.

These bounds are deliberately loose, for a test suite on a shared machine; the goal
(p99 < 16 ms, max < 50 ms, issue 19) is measured by ``benchmarks/bench_gui_fluid.py``,
which also says how much of each long gap was the machine's load."""
from __future__ import annotations

import time

import pytest
from PySide6.QtCore import QTimer

from tests.gui.conftest import wait_idle
from ui import gcthread

pytestmark = pytest.mark.gui


def _measure(qtbot, until, timeout_ms: int, running=lambda: True) -> list[float]:
    """Gaps between 10 ms ticks while ``running()``; waits until ``until()``."""
    gaps: list[float] = []
    last = [time.perf_counter()]

    def tick() -> None:
        now = time.perf_counter()
        if running():
            gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    timer.start()
    qtbot.waitUntil(until, timeout=timeout_ms)
    timer.stop()
    return gaps


def _fmt(gaps: list[float]) -> str:
    return f"{len(gaps)} ticks, max gap {max(gaps) * 1000:.1f} ms, p99 {sorted(gaps)[int(len(gaps) * 0.99)] * 1000:.1f} ms"


def _run_and_measure(qtbot, window, device: str) -> tuple[dict, list[float], list[float]]:
    wait_idle(qtbot, window)  # the initial device listing selects a drive; choose ours after it
    panel = window.show_panel("tapeperf")
    panel.set_device(device)
    panel.show_page("choose")
    panel.choose_next.click()
    panel.apply_preset("L&TT Windows default")  # 256 KiB fixed blocks, 1 MiB I/Os, 2:1
    panel.apply_values({"direction": "write", "size": "4s"})
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
    gaps = _measure(qtbot, lambda: panel.current_page() == "results", 60000,
                    running=lambda: panel.runview.plot.sample_count > 0 and not panel.job.finished)
    assert panel.outcome == "complete", panel.result_dict
    write = panel.result_dict["phases"][0]
    print(f"\n{device}: {write['mb_s']:.0f} MB/s, {write['ios']} I/Os in {write['elapsed']:.2f} s; "
          f"event loop during the test: {_fmt(gaps)}; idle anchor: {_fmt(idle)}")
    assert panel.runview.plot.sample_count == write["ios"]  # every I/O reached the plot
    assert not gcthread.held() and gcthread.active()  # the collector, held off while streaming, runs again
    wait_idle(qtbot, window)
    return write, gaps, idle


def test_no_event_loop_gap_over_100_ms_while_the_virtual_drive_streams_at_full_speed(qtbot, window):
    """The virtual LTO-9 at its full modelled rate (2:1 data: about twice native).

    Run on a 2-core machine shared with other test suites, a single scheduling hiccup
    of another process can stretch one gap; so a second run is allowed, and one of the
    two must be clean. An app that stalls its own event loop fails both."""
    attempts = []
    for _ in range(2):
        write, gaps, _idle = _run_and_measure(qtbot, window, "virtual:lto9")
        assert write["ios"] > 500
        attempts.append(max(gaps))
        if max(gaps) < 0.100:
            break
    assert min(attempts) < 0.100, attempts


def test_the_window_stays_fluid_while_the_null_device_takes_gigabytes_per_second(qtbot, window):
    """``virtual:null`` accepts every WRITE at once, so the engine's Python loop runs flat
    out (several GB/s, ~10,000 I/Os a second) and competes with the GUI thread for the GIL
    on every Qt call. What keeps the gaps short: redraws at most 5 a second with stepped
    axis ranges, pyqtgraph warmed up before the run, a 50 µs GIL switch interval, no
    cyclic-GC pass while streaming. Typically the longest gap is 30-50 ms here; on this
    shared, loaded 2-core machine one repaint now and then still takes 100-120 ms, so the
    bound for this artificial worst case is on the 99th percentile (and 250 ms for any one
    gap); the real-drive case above holds every gap under 100 ms."""
    write, gaps, _ = _run_and_measure(qtbot, window, "virtual:null")
    assert write["ios"] > 1000
    assert sorted(gaps)[int(len(gaps) * 0.99)] < 0.100
    assert max(gaps) < 0.250

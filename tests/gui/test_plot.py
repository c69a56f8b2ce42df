"""The live plot's arithmetic: bytes spread over the time each I/O took, averages,
stalls. Samples are built by hand here because the numbers must be known exactly."""
from __future__ import annotations

import numpy as np
import pytest

from app.events import Sample

pytestmark = pytest.mark.gui


def test_rate_of_a_steady_stream_is_exact(qtbot):
    from ui.plot import BIN_S, ThroughputPlot

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    # 100 MB/s: a 1 MB I/O every 10 ms for 2 s.
    samples = [Sample(t=(i + 1) * 0.01, nbytes=1_000_000, latency=0.01, phase="write") for i in range(200)]
    plot.add_samples(samples, final=True)
    x, y = plot._curves["write"][0].getData()
    assert len(x) == int(round(2.0 / BIN_S))
    assert np.allclose(y, 100.0, rtol=1e-6)


def test_a_long_io_is_spread_over_its_duration_and_marked_as_a_stall(qtbot):
    from ui.plot import ThroughputPlot

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    fast = [Sample(t=(i + 1) * 0.01, nbytes=1_000_000, latency=0.01, phase="write") for i in range(100)]
    # then one I/O that took 2 s (a back-hitch) moving 1 MB
    stall = Sample(t=3.0, nbytes=1_000_000, latency=2.0, phase="write")
    plot.add_samples(fast + [stall], final=True)
    x, y = plot._curves["write"][0].getData()
    during = y[(x > 1.1) & (x < 2.9)]
    assert np.allclose(during, 1_000_000 / 2.0 / 1e6)  # 0.5 MB/s, not one spike
    assert plot.stall_count() == 1


def test_phases_get_their_own_curves_and_the_average_smooths(qtbot):
    from ui.plot import ThroughputPlot, rolling_mean

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    write = [Sample(t=(i + 1) * 0.01, nbytes=1_000_000, latency=0.01, phase="write") for i in range(100)]
    read = [Sample(t=1 + (i + 1) * 0.02, nbytes=1_000_000, latency=0.02, phase="read") for i in range(100)]
    plot.add_samples(write[:50])
    plot.add_samples(write[50:] + read, final=True)
    assert plot.phases() == ["write", "read"]
    assert rolling_mean(np.array([1.0, 3.0, 5.0]), 2).tolist() == [1.0, 2.0, 4.0]


def test_reference_lines_are_replaced_not_accumulated(qtbot):
    from ui.plot import ThroughputPlot

    plot = ThroughputPlot()
    qtbot.addWidget(plot)
    plot.set_reference_rates([("LTO-9 native", 400.0), ("LTO-9 compressed", 1000.0)])
    plot.set_reference_rates([("LTO-8 native", 360.0)])
    assert [line.value() for line in plot._refs] == [360.0]

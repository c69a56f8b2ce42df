"""A plot's yardstick and scale (``app.report.plots``): the figure the headline judges against, and a scale that
a few read spikes cannot squash (issue 31: 0-4,000 MB/s for an 800 MB/s drive)."""
from __future__ import annotations

from app.report.model import SeriesData
from app.report.plots import HEADROOM, scale_top, throughput_plot, yardstick

TAPE = {"possible_mb_s": 800.0, "possible_label": "800 MB/s possible for 2:1 data on LTO-9"}


def test_a_tape_runs_plot_draws_its_headlines_yardstick_and_ends_a_quarter_above_it() -> None:
    spikes = SeriesData("read", tuple((t / 10, 4000.0 if t % 25 == 0 else 790.0) for t in range(200)))
    plot = throughput_plot("Throughput of run 2", (spikes,), TAPE)
    assert plot is not None
    assert (plot.reference, plot.reference_label) == (800.0, TAPE["possible_label"])
    assert plot.y_top == 800.0 * HEADROOM  # the spikes (4 % of the readings) are marked above it, not scaled to


def test_the_bulk_of_the_readings_always_fits_and_a_run_without_yardstick_keeps_its_highest_reading() -> None:
    assert scale_top([3000.0] * 95 + [9000.0] * 5, 800.0) == 3000.0 * 1.1  # an unpaced virtual drive's rates
    assert scale_top([1.0, 2.0], None) is None
    plot = throughput_plot("disk", (SeriesData("read", ((0.0, 50.0), (1.0, 60.0))),), {"mb_s": 55.0})
    assert plot is not None and plot.reference is None and plot.y_top is None


def test_several_drives_scale_to_what_they_can_do_together_without_a_line() -> None:
    multi = {"drives": [{"together": TAPE}, {"together": {"possible_mb_s": 720.0, "possible_label": "720 ..."}}]}
    plot = throughput_plot("run 8", (SeriesData("all", ((0.0, 1500.0), (1.0, 9000.0))),), multi)
    assert plot is not None and plot.reference is None and plot.y_top == 1520.0 * HEADROOM


def test_no_plot_for_a_run_too_short_to_have_a_reading_and_no_yardstick_from_odd_results() -> None:
    assert throughput_plot("run 7", (SeriesData("read-data", ()),), {}) is None
    assert yardstick({"possible_mb_s": True, "possible_label": "x"}) is None and yardstick(None) is None

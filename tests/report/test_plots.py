"""A plot's yardstick and scale (``app.report.plots``): the figure the headline judges against, and a scale that
a few read spikes cannot squash (issue 31: 0-4,000 MB/s for an 800 MB/s drive). The yardstick comes from the
run's typed result through its kind (``RunKind.yardstick``, ``Loaded.yardstick()``), never from stored keys."""
from __future__ import annotations

from app.report.model import SeriesData
from app.report.plots import HEADROOM, scale_top, throughput_plot
from app.runs.stored import result_of
from app.tapeperf.kind import TAPE_PERF, TAPE_PERF_MULTI
from app.tapeperf.multiresult import DriveRun, MultiTapePerfResult
from app.tapeperf.results import TapePerfResult
from tests.helpers.kinds import tape_perf

LABEL = "800 MB/s possible for 2:1 data on LTO-9"


def _stored_lto9(generation: int = 9) -> TapePerfResult:
    """A tape run of an LTO drive with 2:1 data, stored and read back as the report reads it."""
    result = result_of(TAPE_PERF, tape_perf(f"virtual:lto{generation}", {"write": 790.0}, generation=generation,
                                            predicted_ratio=2.0, compression="on"))
    assert isinstance(result, TapePerfResult)
    return result


def test_a_tape_runs_plot_draws_its_headlines_yardstick_and_ends_a_quarter_above_it() -> None:
    stick = TAPE_PERF.yardstick(_stored_lto9()) if TAPE_PERF.yardstick else None
    assert stick == (LABEL, 800.0)  # what the headline's "possible" says, kept with the run
    spikes = SeriesData("read", tuple((t / 10, 4000.0 if t % 25 == 0 else 790.0) for t in range(200)))
    plot = throughput_plot("Throughput of run 2", (spikes,), stick)
    assert plot is not None
    assert (plot.reference, plot.reference_label) == (800.0, LABEL)
    assert plot.y_top == 800.0 * HEADROOM  # the spikes (4 % of the readings) are marked above it, not scaled to


def test_the_bulk_of_the_readings_always_fits_and_a_run_without_yardstick_keeps_its_highest_reading() -> None:
    assert scale_top([3000.0] * 95 + [9000.0] * 5, 800.0) == 3000.0 * 1.1  # an unpaced virtual drive's rates
    assert scale_top([1.0, 2.0], None) is None
    plot = throughput_plot("disk", (SeriesData("read", ((0.0, 50.0), (1.0, 60.0))),), None)
    assert plot is not None and plot.reference is None and plot.y_top is None


def test_several_drives_scale_to_what_they_can_do_together_without_a_line() -> None:
    lto9, lto8 = _stored_lto9(), _stored_lto9(8)
    multi = MultiTapePerfResult(["virtual:lto9", "virtual:lto8"], {},
                                drives=[DriveRun("virtual:lto9", lto9, lto9), DriveRun("virtual:lto8", lto8, lto8)])
    assert TAPE_PERF_MULTI.yardstick is None and TAPE_PERF_MULTI.scale is not None
    ceiling = TAPE_PERF_MULTI.scale(multi)
    assert ceiling == 800.0 + 720.0  # LTO-8: 360 native x 2
    plot = throughput_plot("run 8", (SeriesData("all", ((0.0, 1500.0), (1.0, 9000.0))),), None, ceiling)
    assert plot is not None and plot.reference is None and plot.y_top == 1520.0 * HEADROOM


def test_no_plot_for_a_run_too_short_to_have_a_reading_and_no_yardstick_for_an_unknown_generation() -> None:
    assert throughput_plot("run 7", (SeriesData("read-data", ()),), None) is None
    unknown = result_of(TAPE_PERF, tape_perf("/dev/sg3", {"write": 80.0}))
    assert isinstance(unknown, TapePerfResult) and unknown.yardstick is None

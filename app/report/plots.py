"""A throughput plot's yardstick and scale: the same figure the verdict judges against, and a scale
that a few spikes cannot squash.

A tape run's headline says "194.6 MB/s streaming: 24% of the 800 MB/s possible for 2:1 data on
LTO-9" (``app.tapeperf.rated.possible``); its plot draws that 800 MB/s as its one reference line,
not the generation's native and compressed marketing figures (issue 31). A read's first
commands come from the drive's buffer: a few readings of 4,000 MB/s once scaled the plot of an
800 MB/s drive so that the tape's own trace was a flat line at the bottom. The scale now ends a
quarter above the yardstick (or above the bulk of the readings, should they be higher), and
what lies above is marked at the top edge by the renderer.
"""
from __future__ import annotations

from typing import Iterable

from .model import Plot, SeriesData

#: The scale's top over the yardstick: room for a drive a little faster than its rating.
HEADROOM = 1.25
#: The share of the readings that always fits under the scale's top (the rest may be marked above it).
BULK = 0.9


def scale_top(values: Iterable[float], reference: float | None) -> float | None:
    """The scale's top: ``HEADROOM`` above the reference, or above ``BULK`` of the readings when they are
    higher; None (the highest reading) when there is no reference."""
    if reference is None or reference <= 0:
        return None
    ordered = sorted(v for v in values if v > 0)
    bulk = ordered[int(BULK * (len(ordered) - 1))] if ordered else 0.0
    return max(reference * HEADROOM, bulk * 1.1)


def throughput_plot(title: str, series: tuple[SeriesData, ...], stick: tuple[str, float] | None,
                    ceiling: float | None = None) -> Plot | None:
    """The plot of ``series`` with the run's yardstick (``Loaded.yardstick()``: label, MB/s) and a scale that
    spikes cannot squash, made for ``ceiling`` when there is no yardstick (``Loaded.scale()``); None when no
    series has a point (a run of a few milliseconds: an empty frame says nothing)."""
    series = tuple(s for s in series if s.points)
    if not series:
        return None
    values = [y for s in series for _, y in s.points]
    if stick is not None:
        return Plot(title, series, reference=stick[1], reference_label=stick[0], y_top=scale_top(values, stick[1]))
    return Plot(title, series, y_top=scale_top(values, ceiling))


__all__ = ["BULK", "HEADROOM", "scale_top", "throughput_plot"]

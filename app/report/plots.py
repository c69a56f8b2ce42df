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

from typing import TYPE_CHECKING, Any, Iterable, Sequence

from .model import Plot, SeriesData, Shaded

if TYPE_CHECKING:
    from app.runs.kind import Stretch
    from app.runs.stored import Loaded

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


def stretches_of(loaded: "Loaded[Any]") -> list["Stretch"]:
    """What the run's kind marks on its plot besides the samples (``RunKind.stretches``: a write's flush)."""
    if loaded.kind is None or loaded.kind.stretches is None or loaded.result is None:
        return []
    return loaded.kind.stretches(loaded.result)


def placed(series: Sequence[SeriesData], stretches: Sequence["Stretch"]) -> tuple[Shaded, ...]:
    """Each stretch on the time axis: from its phase's last reading (the end of its last I/O), as long as it lasted.
    A stretch whose phase has no readings is left out (nothing to place it after)."""
    ends = {s.label: s.points[-1][0] for s in series if s.points}
    return tuple(Shaded(ends[st.phase], ends[st.phase] + st.seconds, st.label) for st in stretches if st.phase in ends)


def throughput_plot(title: str, series: tuple[SeriesData, ...], stick: tuple[str, float] | None,
                    ceiling: float | None = None, stretches: Sequence["Stretch"] = ()) -> Plot | None:
    """The plot of ``series`` with the run's yardstick (``Loaded.yardstick()``: label, MB/s) and a scale that
    spikes cannot squash, made for ``ceiling`` when there is no yardstick (``Loaded.scale()``), the ``stretches``
    shaded and their notes under it; None when no series has a point (a run of a few milliseconds: an empty frame
    says nothing)."""
    series = tuple(s for s in series if s.points)
    if not series:
        return None
    values = [y for s in series for _, y in s.points]
    shaded = placed(series, stretches)
    notes = tuple(st.note for st in stretches if any(st.phase == s.label for s in series))
    if stick is not None:
        return Plot(title, series, reference=stick[1], reference_label=stick[0], y_top=scale_top(values, stick[1]),
                    shaded=shaded, notes=notes)
    return Plot(title, series, y_top=scale_top(values, ceiling), shaded=shaded, notes=notes)


__all__ = ["BULK", "HEADROOM", "placed", "scale_top", "stretches_of", "throughput_plot"]

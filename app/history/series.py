"""Throughput over time, computed from stored samples (for plots and reports).

Samples are per I/O (or per batch of I/Os); plotting millions of points is useless,
so they are integrated into fixed intervals. Counting bytes by the bin their I/O
*ended* in aliases badly (a bin holding 1 or 2 I/Os reads as 100 or 200 MB/s), so
each sample's bytes are spread evenly over the time since the previous sample of the
same stream — the time the host spent getting them — and each bin gets exactly the
share that fell inside it. MB/s are decimal; all streams of a phase are summed,
because the drive sees their total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    import numpy as np

    from app.events import Sample


@dataclass(frozen=True)
class ThroughputPoint:
    t: float  # seconds since the test started, at the end of the bin
    mb_s: float
    phase: str

    def to_dict(self) -> dict:
        return {"t": self.t, "mb_s": self.mb_s, "phase": self.phase}


def _stream_intervals(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, end, bytes) per sample of one stream, sorted; the first starts ``latency`` before it ends."""
    import numpy as np  # here, not at import: the history list must not load numpy
    rows = rows[np.argsort(rows[:, 0], kind="stable")]
    end, nbytes, latency = rows[:, 0], rows[:, 1], rows[:, 2]
    start = np.empty_like(end)
    start[0] = max(end[0] - max(latency[0], 0.0), 0.0)
    start[1:] = end[:-1]
    return start, end, nbytes


def _cumulative(start: np.ndarray, end: np.ndarray, nbytes: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Bytes transferred by times ``at`` if each interval's bytes flow evenly across it."""
    import numpy as np  # here, not at import: the history list must not load numpy
    cum = np.concatenate(([0.0], np.cumsum(nbytes)))
    done = np.searchsorted(end, at, side="right")  # intervals finished by t
    total = cum[done]
    inside = done < len(end)
    idx = np.minimum(done, len(end) - 1)
    span = np.maximum(end[idx] - start[idx], 1e-12)
    frac = np.clip((at - start[idx]) / span, 0.0, 1.0)
    return total + np.where(inside, nbytes[idx] * frac, 0.0)


def throughput_series(samples: Iterable[Sample], interval: float | None = None, max_points: int = 600) -> dict[str, list[ThroughputPoint]]:
    """Per phase, MB/s in bins of ``interval`` seconds (chosen to give ≤ ``max_points`` bins if None)."""
    return series_from_rows(((s.t, s.nbytes, s.latency, s.phase, s.stream) for s in samples), interval, max_points)


def series_from_rows(rows: Iterable[tuple[float, int, float, str, int]], interval: float | None = None,
                     max_points: int = 600) -> dict[str, list[ThroughputPoint]]:
    """``throughput_series`` over plain (t, nbytes, latency, phase, stream) rows."""
    import numpy as np  # here, not at import: the history list must not load numpy
    by_phase: dict[str, dict[int, list[tuple[float, int, float]]]] = {}
    for t, nbytes, latency, phase, stream in rows:
        by_phase.setdefault(phase, {}).setdefault(stream, []).append((t, nbytes, latency))
    return series_from_arrays({phase: [np.asarray(r, dtype=np.float64) for r in streams.values()]
                               for phase, streams in by_phase.items()}, interval, max_points)


def series_from_arrays(groups: dict[str, list[np.ndarray]], interval: float | None = None,
                       max_points: int = 600) -> dict[str, list[ThroughputPoint]]:
    """The binning itself: per phase, one (n, 3) array of (t, nbytes, latency) per stream."""
    import numpy as np  # here, not at import: the history list must not load numpy
    out: dict[str, list[ThroughputPoint]] = {}
    for phase, arrays in groups.items():
        intervals = [_stream_intervals(a) for a in arrays if len(a)]
        if not intervals:
            continue
        t_start = min(float(iv[0][0]) for iv in intervals)
        t_end = max(float(iv[1][-1]) for iv in intervals)
        span = max(t_end - t_start, 1e-9)
        width = interval if interval else _nice_interval(span / max_points)
        nbins = max(1, int(np.ceil(span / width - 1e-9)))
        edges = t_start + width * np.arange(nbins + 1)
        edges[-1] = min(edges[-1], t_end) if nbins > 1 else t_end
        moved = np.zeros(len(edges))
        for iv in intervals:
            moved += _cumulative(*iv, edges)
        widths = np.diff(edges)
        keep = widths >= width * 0.5  # a last bin cut very short by the phase's end says little
        keep[:-1] = True
        out[phase] = [
            ThroughputPoint(t=round(float(edges[i + 1]), 6), mb_s=float(moved[i + 1] - moved[i]) / float(widths[i]) / 1e6,
                            phase=phase)
            for i in range(nbins) if keep[i] and widths[i] > 0
        ]
    return out


def _nice_interval(raw: float) -> float:
    """Round a bin width up to 1, 2 or 5 × a power of ten (at least 10 ms)."""
    import numpy as np  # here, not at import: the history list must not load numpy
    raw = max(raw, 0.01)
    exp = np.floor(np.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10**exp >= raw:
            return float(m * 10**exp)
    return float(10 ** (exp + 1))

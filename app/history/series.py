"""Throughput over time, computed from stored samples (for plots and reports).

Samples are per I/O; plotting millions of points is useless, so they are binned into
fixed intervals: MB/s in a bin = bytes whose I/O ended in that bin / bin width
(decimal MB, as everywhere in tapediag). All streams of a phase are summed, because
the drive sees their total.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np

from app.events import Sample


@dataclass(frozen=True)
class ThroughputPoint:
    t: float  # seconds since the test started, at the end of the bin
    mb_s: float
    phase: str

    def to_dict(self) -> dict:
        return {"t": self.t, "mb_s": self.mb_s, "phase": self.phase}


def throughput_series(samples: Iterable[Sample], interval: float | None = None, max_points: int = 600) -> dict[str, list[ThroughputPoint]]:
    """Per phase, MB/s in bins of ``interval`` seconds (chosen to give ≤ ``max_points`` bins if None)."""
    by_phase: dict[str, list[tuple[float, int]]] = {}
    for s in samples:
        by_phase.setdefault(s.phase, []).append((s.t, s.nbytes))
    out: dict[str, list[ThroughputPoint]] = {}
    for phase, rows in by_phase.items():
        arr = np.asarray(rows, dtype=np.float64)
        t, nbytes = arr[:, 0], arr[:, 1]
        t0, t1 = float(t.min()), float(t.max())
        # The phase starts before its first I/O completes: back off by one typical I/O.
        start = max(0.0, t0 - float(np.median(np.diff(np.sort(t)))) if len(t) > 1 else t0)
        span = max(t1 - start, 1e-9)
        width = interval if interval else _nice_interval(span / max_points)
        nbins = max(1, int(np.ceil(span / width - 1e-9)))
        # Bin i holds the I/Os that ended in (start + i*width, start + (i+1)*width].
        idx = np.clip(np.ceil((t - start) / width - 1e-9).astype(np.int64) - 1, 0, nbins - 1)
        sums = np.bincount(idx, weights=nbytes, minlength=nbins)
        points = [
            ThroughputPoint(t=round(start + (i + 1) * width, 6), mb_s=float(b) / width / 1e6, phase=phase)
            for i, b in enumerate(sums)
        ]
        # The last bin is usually cut short by the end of the phase: rate it over the time it covers
        # (a full-width divisor would draw a false dip), or drop it when it covers under half a bin.
        last_width = t1 - (start + (nbins - 1) * width)
        if nbins > 1 and last_width < width * 0.5:
            points.pop()
        elif 0 < last_width < width:
            points[-1] = ThroughputPoint(t=round(t1, 6), mb_s=float(sums[-1]) / last_width / 1e6, phase=phase)
        out[phase] = points
    return out


def _nice_interval(raw: float) -> float:
    """Round a bin width up to 1, 2 or 5 × a power of ten (at least 10 ms)."""
    raw = max(raw, 0.01)
    exp = np.floor(np.log10(raw))
    for m in (1.0, 2.0, 5.0, 10.0):
        if m * 10**exp >= raw:
            return float(m * 10**exp)
    return float(10 ** (exp + 1))

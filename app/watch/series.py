"""The watch's curve for the result (the report's plot): MB/s and busy share per time bin.

Samples come a few times a second for as long as the watch runs; the result keeps at most
``MAX_BINS`` bins, doubling their width when it would hold more, so a day-long watch stays
small. (The live curve and the history's samples get every interval as it comes.)
"""
from __future__ import annotations

from app.watch.busy import Interval
from app.watch.result import MB

MAX_BINS = 1000


class SeriesBins:
    def __init__(self, width_s: float = 1.0) -> None:
        self.width = width_s
        # per bin: [write bytes, read bytes, busy seconds, covered seconds]
        self._bins: list[list[float]] = []

    def add(self, iv: Interval) -> None:
        index = max(int((iv.t - 1e-9) // self.width), 0)
        while index >= len(self._bins):
            self._bins.append([0.0, 0.0, 0.0, 0.0])
        b = self._bins[index]
        b[0] += iv.write_bytes
        b[1] += iv.read_bytes
        b[2] += iv.busy_s
        b[3] += iv.seconds
        if len(self._bins) > MAX_BINS:
            self._halve()

    def _halve(self) -> None:
        merged = []
        for i in range(0, len(self._bins), 2):
            pair = self._bins[i:i + 2]
            merged.append([sum(col) for col in zip(*pair)])
        self._bins = merged
        self.width *= 2

    def rows(self) -> list[list[float]]:
        """[t end, write MB/s, read MB/s, busy share] per bin that saw any sample."""
        out = []
        for i, (wb, rb, busy, covered) in enumerate(self._bins):
            if covered <= 0:
                continue
            out.append([round((i + 1) * self.width, 3), round(wb / covered / MB, 3), round(rb / covered / MB, 3),
                        round(min(busy / covered, 1.0), 4)])
        return out

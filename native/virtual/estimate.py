"""What a WRITE costs on tape: an SLDC estimate cheap enough for 1 GB/s.

The exact model (``native.sldc``, in C) runs at about 150-600 MB/s, too slow to see
every byte at the rates we emulate. Two facts make sampling accurate:

* the bytes just after the start of a window have no history, so a window alone
  under-counts long-distance copies (a 16 KiB window can look 1:1 on data that is
  3.8:1 with 16 KiB history). Instead we encode the record's first ``history`` bytes
  and then ``history + window`` bytes: the difference is the steady-state cost of
  ``window`` bytes with a full history, and the first part is the start-up cost the
  record really pays;
* test data is homogeneous over many records, so a fresh estimate is needed only
  every ``budget`` bytes; records in between reuse the last ratio, unless a 4 KiB
  probe at the start of the record (about 30 us) compresses clearly differently from
  the probe taken with the last estimate: then the data changed and we re-estimate.
"""
from __future__ import annotations

from typing import Callable

_bits: "Callable[[bytes | bytearray | memoryview, int], int] | None"
try:
    from native.sldc import compressed_bits as _bits
except ImportError:  # pragma: no cover - the C helper is not built
    _bits = None
    import zlib


class CompressionEstimator:
    def __init__(self, history: int, *, window: int = 16384, budget: int = 4 << 20, probe: int = 4096) -> None:
        self.history = history
        self.window = window
        self.budget = budget
        self.probe = probe
        self._ratio = 1.0
        self._probe_bits = -1  # the probe's cost when the ratio was estimated
        self._since = budget  # bytes since the last fresh estimate; start fresh

    def _cost_bits(self, data: memoryview) -> int:
        if _bits is not None:
            return _bits(data, self.history)
        return min(len(zlib.compress(data, 1)), len(data)) * 8 + 32  # rough fallback

    def compressed(self, data: memoryview) -> int:
        """Estimated compressed bytes of ``data`` (one or more records of one WRITE)."""
        n = len(data)
        if n == 0:
            return 0
        probe = self._cost_bits(data[: self.probe]) if n >= self.probe else -1
        if self._since >= self.budget or (probe >= 0 and abs(probe - self._probe_bits) > 0.15 * self._probe_bits):
            self._since, self._probe_bits = 0, probe
            h, w = self.history, self.window
            bits: float
            if n <= h + 2 * w:
                bits = self._cost_bits(data)
            else:
                head = self._cost_bits(data[:h])
                body = self._cost_bits(data[: h + w])
                bits = body + (body - head) * (n - h - w) / w
            self._ratio = max(n * 8 / max(bits, 1), 1.0 / 1.01)
        self._since += n
        return max(1, int(n / self._ratio))

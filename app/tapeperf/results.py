"""What a tape performance test found: per-phase rates, latencies, stalls, and the drive's view.

Everything is computed from host-side samples (bytes and monotonic end time per I/O),
never from polling the drive while it streams. A *stall* is an I/O whose latency is far
above the phase's median: on a tape drive that is the signature of a back-hitch (the
drive ran out of data, stopped, rewound a little and restarted).
"""
from __future__ import annotations

import math
from array import array
from dataclasses import asdict, dataclass, field
from typing import Any

from app.events import Sample

MB = 1_000_000
MiB = 1 << 20

#: An I/O counts as a stall when its latency exceeds both STALL_FACTOR x the median
#: and the median + STALL_MIN_SECONDS (so scheduling jitter on a loaded host is not
#: called a back-hitch; a real one costs a second or more).
STALL_FACTOR = 8.0
STALL_MIN_SECONDS = 0.25


@dataclass(frozen=True)
class Stall:
    t: float  # seconds since the test started, end of the slow I/O
    latency: float
    phase: str


@dataclass
class PhaseResult:
    """One write or read pass."""

    phase: str
    bytes: int = 0
    ios: int = 0
    blocks: int = 0
    filemarks: int = 0
    elapsed: float = 0.0
    mb_s: float = 0.0
    mib_s: float = 0.0
    # Decimal MB/s of the data I/Os alone (phase start to the last I/O's end). Not named *_mb_s so that
    # history summaries, which list every *_mb_s figure, show the phase rate only.
    streaming_mb_per_s: float | None = None
    per_second_min_mb_s: float | None = None
    per_second_max_mb_s: float | None = None
    latency_p50: float | None = None
    latency_p99: float | None = None
    latency_max: float | None = None
    time_to_first_byte: float | None = None
    stalls: list[Stall] = field(default_factory=list)
    end_reason: str = ""  # "size reached", "duration reached", "capacity reached", "filemark", "end of data", "cancelled", "error"
    error: str | None = None
    verified_blocks: int = 0
    verify_errors: int = 0
    first_verify_error: str | None = None

    @property
    def stall_count(self) -> int:
        return len(self.stalls)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stall_count"] = self.stall_count
        return d


@dataclass
class SampleLog:
    """The samples of one phase in flat arrays: appending costs no object per I/O."""

    phase: str
    t: array = field(default_factory=lambda: array("d"))
    latency: array = field(default_factory=lambda: array("d"))
    nbytes: array = field(default_factory=lambda: array("q"))

    def __len__(self) -> int:
        return len(self.t)

    def samples(self, start: int = 0, stop: int | None = None) -> tuple[Sample, ...]:
        stop = len(self.t) if stop is None else stop
        ph = self.phase
        t, lat, nb = self.t, self.latency, self.nbytes
        return tuple(Sample(t[i], nb[i], lat[i], ph) for i in range(start, stop))


def _percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of an ascending list (q in 0..100)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q / 100.0 * len(sorted_values)))
    return sorted_values[min(rank, len(sorted_values)) - 1]


def summarize(result: PhaseResult, log: SampleLog, start_t: float, end_t: float) -> None:
    """Fill the rates, latency figures and stalls of ``result`` from its samples.

    ``start_t``/``end_t`` bound the phase on the test's clock; ``mb_s`` covers the whole
    phase (the closing filemark that flushes the drive's buffer included: data only
    counts once it is on tape), ``streaming_mb_per_s`` the data I/Os alone, the per-second
    figures only whole seconds of streaming.
    """
    result.elapsed = max(end_t - start_t, 1e-9)
    result.mb_s = result.bytes / result.elapsed / MB
    result.mib_s = result.bytes / result.elapsed / MiB
    if not len(log):
        return
    lats = sorted(log.latency)
    p50 = _percentile(lats, 50)
    result.latency_p50 = p50
    result.latency_p99 = _percentile(lats, 99)
    result.latency_max = lats[-1]
    result.time_to_first_byte = log.t[0] - start_t
    streamed = log.t[-1] - start_t
    if streamed > 0:
        result.streaming_mb_per_s = sum(log.nbytes) / streamed / MB
    threshold = max(p50 * STALL_FACTOR, p50 + STALL_MIN_SECONDS)
    result.stalls = [Stall(t, lat, log.phase) for t, lat in zip(log.t, log.latency) if lat > threshold]
    # Whole seconds of the phase: bytes completed in each.
    seconds = int((log.t[-1] - start_t) // 1.0)
    if seconds >= 1:
        bins = [0] * seconds
        for t, n in zip(log.t, log.nbytes):
            k = int((t - start_t) // 1.0)
            if k < seconds:
                bins[k] += n
        result.per_second_min_mb_s = min(bins) / MB
        result.per_second_max_mb_s = max(bins) / MB


@dataclass
class LogDelta:
    """A counter read before and after the test (None where the drive lacks it)."""

    name: str
    before: int | None
    after: int | None

    @property
    def delta(self) -> int | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


@dataclass
class TapePerfResult:
    """The whole test. ``status``: complete, cancelled or failed (with ``error``)."""

    device: str
    params: dict
    status: str = "complete"
    error: str | None = None
    vendor: str = ""
    product: str = ""
    generation: int | None = None
    history: int = 1024
    phases: list[PhaseResult] = field(default_factory=list)
    predicted_ratio: float | None = None
    drive_ratio: float | None = None
    drive_ratio_note: str = ""
    rated_native_mb_s: float | None = None
    rated_compressed_mb_s: float | None = None
    compression: str = ""  # what happened to the compression setting
    log_deltas: list[LogDelta] = field(default_factory=list)
    log_notes: list[str] = field(default_factory=list)  # "page 0x1B: not supported"...
    tapealert: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list, repr=False)

    def phase(self, name: str) -> PhaseResult | None:
        return next((p for p in self.phases if p.phase == name), None)

    def percent_of_rated(self, phase: PhaseResult) -> float | None:
        """The measured rate as % of what the drive can do with this data.

        The reference is the native rate times the predicted ratio, capped at the rated
        compressed rate (the drive's interface/compressor ceiling).
        """
        if not self.rated_native_mb_s:
            return None
        ratio = self.predicted_ratio if (self.predicted_ratio and self.compression != "off") else 1.0
        ref = self.rated_native_mb_s * max(ratio, 1.0)
        if self.rated_compressed_mb_s:
            ref = min(ref, self.rated_compressed_mb_s)
        return 100.0 * phase.mb_s / ref

    def to_dict(self, *, samples: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {
            k: v for k, v in asdict(self).items() if k not in ("phases", "samples", "log_deltas")
        }
        d["phases"] = []
        for p in self.phases:
            pd = p.to_dict()
            pd["percent_of_rated"] = self.percent_of_rated(p)
            d["phases"].append(pd)
            d[f"{p.phase}_mb_s"] = p.mb_s  # headline figures for history tables and rules
        d["log_deltas"] = [dict(name=x.name, before=x.before, after=x.after, delta=x.delta) for x in self.log_deltas]
        d["sample_count"] = len(self.samples)
        if samples:
            d["samples"] = [asdict(s) for s in self.samples]
        return d


__all__ = ["PhaseResult", "TapePerfResult", "SampleLog", "Stall", "LogDelta", "summarize", "MB", "MiB"]

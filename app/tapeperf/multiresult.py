"""What a tape performance test on several drives at once found, and the shared-path verdict.

Technicians script this by hand: run each drive alone, then all together, and compare the
aggregate with the sum of the single-drive rates. When the aggregate flattens below that
sum, what the drives share (the HBA, its port, the SAN or iSCSI target, the host) is the
limit, not the drives. The figures:

* each drive *alone* (short) and *together*, as the one-drive test reports them (streaming
  rate, limiter, latencies: ``TapePerfResult``);
* the *aggregate* of a phase: the bytes all drives moved while every one of them was streaming
  that phase, over that common window (the closing filemark's flush counted as streaming
  time, as the one-drive figure counts it), so drives that started or ended apart do not
  inflate it;
* the ratio aggregate / sum of the single-drive rates, and the verdict in words.

Curves (per drive over the whole run, and all drives together) are binned here, so the
history, the report and a ticket carry them in the result without the raw samples.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

from app.events import Sample
from app.tapeperf.results import MB, STEADY_SECONDS, TapePerfResult, headline_rate, phase_headline
from native.units import percent, plural, rate_text

#: The aggregate at or above this share of the sum of the single-drive rates: the drives scale.
SCALES_AT = 0.90
#: The whole machine's CPUs at least this busy while the drives ran together: the host may be what they share.
HOST_BUSY = 0.90
#: Points per curve in the result (history, report): enough for a page-wide plot.
CURVE_POINTS = 300
PHASES = ("write", "read")


@dataclass
class Curve:
    """One line of the plot: MB/s (decimal) against seconds since the run started."""

    label: str
    t: list[float] = field(default_factory=list)
    mb_s: list[float] = field(default_factory=list)


@dataclass
class DriveRun:
    """One drive: its short run alone (None when skipped) and its run with the others."""

    device: str
    together: TapePerfResult
    alone: TapePerfResult | None = None

    def ratio(self, phase: str) -> float | None:
        """Together / alone streaming rate for ``phase`` (None when either is missing)."""
        if self.alone is None:
            return None
        a, t = self.alone.phase(phase), self.together.phase(phase)
        ra = headline_rate(a) if a else None
        rt = headline_rate(t) if t else None
        return rt / ra if ra and rt is not None else None


@dataclass
class AggregatePhase:
    """All drives in one phase. ``verdict``: "scales", "shared path" or "not judged" (``why`` says)."""

    phase: str
    mb_s: float | None = None  # all drives, over the window in which every one streamed
    seconds: float = 0.0  # that window
    bytes: int = 0  # moved by all drives in that window
    sum_alone_mb_s: float | None = None  # the single-drive rates added up
    ratio: float | None = None  # mb_s / sum_alone_mb_s
    verdict: str = "not judged"
    why: str = ""


@dataclass
class MultiTapePerfResult:
    """The whole multi-drive test. ``status``: complete, cancelled or failed (with ``error``)."""

    devices: list[str]
    params: dict
    status: str = "complete"
    error: str | None = None
    drives: list[DriveRun] = field(default_factory=list)
    phases: list[AggregatePhase] = field(default_factory=list)
    curves: list[Curve] = field(default_factory=list)
    cpu_share: float | None = None  # this process's CPU while together, as a share of all the host's cores
    cpus: int | None = None
    host_busy: float | None = None  # the whole machine's CPUs (every process) while together; None: unknown
    messages: list[str] = field(default_factory=list)

    def phase(self, name: str) -> AggregatePhase | None:
        return next((p for p in self.phases if p.phase == name), None)

    @property
    def ceiling(self) -> float | None:
        """What the drives can do together (the sum of each one's possible rate), for the plot's scale only: their
        verdict judges each against its own rate, which no single line shows. None: a drive of unknown generation."""
        sticks = [d.together.yardstick for d in self.drives]
        if not sticks or any(s is None for s in sticks):
            return None
        return sum(s[1] for s in sticks if s is not None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "devices": list(self.devices), "params": dict(self.params), "status": self.status, "error": self.error,
            "drives": [{"device": d.device, "together": d.together.to_dict(),
                        "alone": d.alone.to_dict() if d.alone is not None else None} for d in self.drives],
            "phases": [vars(p).copy() for p in self.phases],
            "curves": [vars(c).copy() for c in self.curves],
            "cpu_share": self.cpu_share, "cpus": self.cpus, "host_busy": self.host_busy,
            "messages": list(self.messages),
        }


# -- the aggregate ---------------------------------------------------------------------------

def _span(samples: Sequence[Sample], flush: float) -> tuple[float, float] | None:
    """(end of the first data I/O, end of the last plus the closing flush): when the drive streamed."""
    if len(samples) < 2:
        return None
    return samples[0].t, samples[-1].t + flush


def _bytes_between(samples: Sequence[Sample], a: float, b: float) -> float:
    """Bytes moved in [a, b], each I/O's bytes spread evenly over the time since the previous one ended."""
    total = 0.0
    prev = samples[0].t - samples[0].latency
    for s in samples:
        lo, hi = max(prev, a), min(s.t, b)
        if hi > lo and s.t > prev:
            total += s.nbytes * (hi - lo) / (s.t - prev)
        prev = s.t
    return total


def aggregate(phase: str, drives: Sequence[DriveRun], *, host_busy: float | None = None) -> AggregatePhase:
    """The phase's aggregate rate over the window every drive streamed in, against the sum alone.

    ``host_busy``: the machine's CPUs while together; when they were saturated the verdict says the host
    itself may be the shared limit (an iSCSI target on the same machine, or a host too small for N drives)."""
    out = AggregatePhase(phase)
    spans, streams = [], []
    for d in drives:
        ph = d.together.phase(phase)
        samples = [s for s in d.together.samples if s.phase == phase]
        span = _span(samples, ph.flush_seconds or 0.0) if ph else None
        if span is None:
            out.why = f"{d.device} did not stream in the {phase} phase together with the others"
            return out
        spans.append(span)
        streams.append(samples)
    start, end = max(s[0] for s in spans), min(s[1] for s in spans)
    if end <= start:
        out.why = f"the drives did not {phase} at the same time"
        return out
    out.seconds = end - start
    out.bytes = int(sum(_bytes_between(s, start, end) for s in streams))
    out.mb_s = out.bytes / out.seconds / MB
    alone = []
    for d in drives:
        ph = d.alone.phase(phase) if d.alone is not None else None
        rate = headline_rate(ph) if ph else None
        if rate is None or ph is None:
            out.why = ("no single-drive figures to compare with (the drives were not measured alone)"
                       if d.alone is None else f"{d.device} did not stream in its {phase} alone")
            return out
        unsteady = d.alone.limiter(ph) if d.alone is not None else None
        if unsteady is not None and unsteady.who == "not steady" and not out.why:  # the one-drive test's own rule
            out.why = f"{d.device} alone: {unsteady.why}"
        alone.append(rate)
    out.sum_alone_mb_s = sum(alone)
    out.ratio = out.mb_s / out.sum_alone_mb_s if out.sum_alone_mb_s > 0 else None
    if out.why:
        return out
    for d in drives:  # together, each drive by the same rule (long enough, more than its buffer)
        ph = d.together.phase(phase)
        unsteady = d.together.limiter(ph) if ph is not None else None
        if unsteady is not None and unsteady.who == "not steady":
            out.why = f"{d.device} together: {unsteady.why}"
            return out
    if out.seconds < STEADY_SECONDS:
        out.why = (f"the drives streamed together for only {out.seconds:.1f} s: too short to judge "
                   f"(run at least {STEADY_SECONDS:.0f} s, better a minute)")
        return out
    if out.ratio is None:
        out.why = "the drives moved no data alone"
        return out
    said = (f"aggregate {rate_text(out.mb_s)} = {percent(out.ratio)} of the sum of the single-drive rates "
            f"({rate_text(out.sum_alone_mb_s)})")
    if out.ratio >= SCALES_AT:
        out.verdict, out.why = "scales", f"{said}: the drives scale"
    else:
        out.verdict, out.why = "shared path", f"{said}: the shared path (HBA/port/target) is the limit"
        if host_busy is not None and host_busy >= HOST_BUSY:
            out.why += (f"; this host's CPUs were {percent(host_busy)} busy meanwhile: the host itself may be "
                        "what the drives share")
    return out


def curves(drives: Sequence[DriveRun], max_points: int = CURVE_POINTS) -> list[Curve]:
    """Each drive's MB/s over the whole run (alone, then together) and all drives' together."""
    import numpy as np

    from app.history.series import series_from_arrays

    def arrays(result: TapePerfResult | None) -> list[Any]:
        if result is None:
            return []
        out = []
        for ph in PHASES:
            rows = [(s.t, s.nbytes, s.latency) for s in result.samples if s.phase == ph]
            if rows:
                out.append(np.asarray(rows, dtype=np.float64))
        return out

    # Short labels: a legend of four iSCSI URLs hides the plot; the result lists the devices in this order.
    groups = {f"drive {i + 1}": arrays(d.alone) + arrays(d.together) for i, d in enumerate(drives)}
    groups[f"all {len(drives)} drives together"] = [a for d in drives for a in arrays(d.together)]
    series = series_from_arrays({k: v for k, v in groups.items() if v}, max_points=max_points)
    return [Curve(label, [round(p.t, 3) for p in points], [round(p.mb_s, 3) for p in points])
            for label, points in series.items()]


# -- words -----------------------------------------------------------------------------------

def headline(result: MultiTapePerfResult) -> str:
    """'2 drives: write together 812 MB/s = 97% of the sum alone (scales); read ...'."""
    parts = []
    for ph in result.phases:
        if ph.mb_s is None:
            parts.append(f"{ph.phase} not judged")
            continue
        text = f"{ph.phase} together {rate_text(ph.mb_s)}"
        if ph.ratio is not None:
            text += f" = {percent(ph.ratio)} of the sum alone"
        parts.append(text + f" ({ph.verdict})")
    return f"{plural(len(result.devices), 'drive')}: " + "; ".join(parts) if parts else ""


def summary_lines(result: MultiTapePerfResult) -> list[str]:
    """The human-readable result, one fact a line (what ``tape-perf`` prints for several drives)."""
    lines = [f"{plural(len(result.devices), 'drive')} at once: {', '.join(result.devices)}"]
    for i, d in enumerate(result.drives, 1):
        r = d.together
        gen = f"LTO-{r.generation}" if r.generation else "generation unknown"
        lines.append(f"drive {i}: {d.device}: {r.vendor} {r.product} ({gen}), compression {r.compression}")
        for stage, res in (("alone", d.alone), ("together", d.together)):
            if res is None:
                continue
            for phase in res.phases:
                lines.append(f"  {stage}: " + phase_headline(res, phase))
            if res.status != "complete":
                lines.append(f"  {stage}: status {res.status}" + (f": {res.error}" if res.error else ""))
        for ph in PHASES:
            ratio = d.ratio(ph)
            if ratio is not None:
                lines.append(f"  {ph} together at {percent(ratio)} of its rate alone")
        if r.settings:
            lines.append(f"  {r.settings}")
    for agg in result.phases:
        if agg.mb_s is not None:
            lines.append(f"{agg.phase}, all drives together: {rate_text(agg.mb_s)} over {agg.seconds:.1f} s "
                         f"in which every drive streamed")
        lines.append(f"{agg.phase}: {agg.verdict}: {agg.why}")
    if result.cpu_share is not None and result.cpus:
        busy = f"; all processes: {percent(result.host_busy)}" if result.host_busy is not None else ""
        lines.append(f"this host's CPU while together: {percent(result.cpu_share)} of its {plural(result.cpus, 'core')} "
                     f"(tapediag's process){busy}")
    if result.status != "complete":
        lines.append(f"status: {result.status}" + (f": {result.error}" if result.error else ""))
    return lines


__all__ = ["AggregatePhase", "Curve", "DriveRun", "MultiTapePerfResult", "aggregate", "curves", "headline",
           "summary_lines", "SCALES_AT"]

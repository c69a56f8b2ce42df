"""A tape performance result as ``tapediag tape-perf`` prints it, one fact a line (and ``show`` prints it again)."""
from __future__ import annotations

from app.alerts import judge_alerts
from app.tapeperf.results import MB, MiB, TapePerfResult, phase_headline
from native.units import plural, rate_text


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def summary_lines(result: TapePerfResult) -> list[str]:
    """The human-readable result, one fact a line."""
    gen = f"LTO-{result.generation}" if result.generation else "generation unknown"
    lines = [f"{result.device}: {result.vendor} {result.product} ({gen}), compression {result.compression}"]
    predicted = f"{result.predicted_ratio:.2f}:1" if result.predicted_ratio else "-"
    drive = f"{result.drive_ratio:.2f}:1" if result.drive_ratio else "not reported"
    model = (f"model predicts {predicted}" if result.generates_data else
             f"taken as {predicted} (a read that does not verify makes no data)")
    lines.append(f"pattern {result.pattern}: {model}, drive reports {drive}")
    plan = result.size_plan
    if plan is not None and (plan.auto or plan.capped):
        lines.append(f"size {plan.why}")
    for ph in result.phases:
        limiter, _pct = result.judged(ph)
        lines.append(phase_headline(result, ph))
        mib = (f"streaming {ph.streaming_mb_per_s * MB / MiB:,.1f} MiB/s, "
               if ph.streaming_mb_per_s is not None else "")
        lines.append(f"  {ph.bytes / 1e9:.3f} GB in {ph.elapsed:.1f} s ({mib}overall {ph.mib_s:,.1f} MiB/s); "
                     f"ended: {ph.end_reason}")
        lines.append(f"  limited by: {limiter.why}" if limiter.who != "not steady" else f"  not steady: {limiter.why}")
        if ph.per_second_min_mb_s is not None:
            lines.append(f"  per second: min {rate_text(ph.per_second_min_mb_s)}, max {rate_text(ph.per_second_max_mb_s)}")
        lines.append(f"  latency p50 {_ms(ph.latency_p50)}, p99 {_ms(ph.latency_p99)}, max {_ms(ph.latency_max)}; "
                     f"first byte after {_ms(ph.time_to_first_byte)}; "
                     + (f"buffer flushed in {_ms(ph.flush_seconds)}; " if ph.flush_seconds else "")
                     + f"{plural(ph.ios, 'I/O')}, {plural(ph.blocks, 'block')}, {plural(ph.filemarks, 'filemark')}")
        if ph.stalls:
            where = ", ".join(f"{s.t:.1f}s" for s in ph.stalls[:8]) + (" ..." if len(ph.stalls) > 8 else "")
            caused = len(ph.host_stalls)
            lines.append(f"  {plural(len(ph.stalls), 'stall')} (back-hitch signature) at {where}"
                         + (f"; {caused} of them the host caused (it did not keep up)" if caused else ""))
        if ph.verified_blocks or ph.verify_errors:
            lines.append(f"  verify: {ph.verified_blocks} blocks identical, {ph.verify_errors} differ"
                         + (f" ({ph.first_verify_error})" if ph.first_verify_error else ""))
    for d in result.log_deltas:
        if d.delta:
            lines.append(f"log: {d.name} +{d.delta}")
    lines.extend(f"log: {note}" for note in result.log_notes)
    alerts = judge_alerts(result.tapealert)
    if alerts is not None:
        lines.append(f"TapeAlert after the test: {', '.join(alerts.flags)}: {alerts.verdict}")
        lines.extend(f"  what to do: {advice}" for advice in alerts.advice)
    if result.status != "complete":
        lines.append(f"status: {result.status}" + (f": {result.error}" if result.error else ""))
    if result.settings:
        lines.append(result.settings)
    return lines


__all__ = ["summary_lines"]

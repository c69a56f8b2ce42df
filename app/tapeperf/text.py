"""A tape performance result as ``tapediag tape-perf`` prints it, one fact a line (and ``show`` prints it again)."""
from __future__ import annotations

from app.alerts import judge_alerts
from app.tapeperf.results import MB, MiB, PhaseResult, TapePerfResult, phase_headline
from native.units import count_text, duration_text, plural, rate_text, size_text

_ms = duration_text  # latencies: '0.3 ms', '1.2 s' (one formatter, ``native.units``)


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
        lines.append(f"  {size_text(ph.bytes)} in {duration_text(ph.elapsed)} ({mib}overall {ph.mib_s:,.1f} MiB/s); "
                     f"ended: {ph.end_reason}")
        lines.append(f"  limited by: {limiter.why}" if limiter.who != "not steady" else f"  not steady: {limiter.why}")
        if ph.per_second_min_mb_s is not None:
            lines.append(f"  per second: min {rate_text(ph.per_second_min_mb_s)}, max {rate_text(ph.per_second_max_mb_s)}")
        lines.append(f"  latency p50 {_ms(ph.latency_p50)}, p99 {_ms(ph.latency_p99)}, max {_ms(ph.latency_max)}; "
                     f"first byte after {_ms(ph.time_to_first_byte)}; "
                     + (f"buffer flushed in {_ms(ph.flush_seconds)}; " if ph.flush_seconds else "")
                     + f"{plural(ph.ios, 'I/O')}, {plural(ph.blocks, 'block')}, {plural(ph.filemarks, 'filemark')}")
        if ph.stalls:
            lines.append(f"  {stall_words(ph)}")
        if ph.verified_blocks or ph.verify_errors:
            lines.append(f"  verify: {plural(ph.verified_blocks, 'block')} identical, {count_text(ph.verify_errors)} differ"
                         + (f" ({ph.first_verify_error})" if ph.first_verify_error else ""))
    lines += [f"drive counter: {d.line}" for d in result.log_deltas if d.delta]
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


def stall_words(ph: PhaseResult) -> str:
    """The slow I/Os named by what the run concluded they were: back-hitches only where the host kept up (the
    drive's own), "waits for the host" where the host did not keep up (issue 31: never "back-hitch" in a block
    that says the host set the pace)."""
    drive = len(ph.drive_stalls)
    host = sum(1 for s in ph.stalls if s.cause == "host")
    machine = len(ph.stalls) - drive - host  # an emulated drive behind its own model: this machine's time
    where = ", ".join(f"{s.t:.1f} s" for s in ph.stalls[:8]) + (" ..." if len(ph.stalls) > 8 else "")
    parts = []
    if drive:
        parts.append(f"{plural(drive, 'back-hitch', 'back-hitches')} (the drive paused while the host kept up)")
    if host:
        parts.append(f"{plural(host, 'wait')} for the host (it did not keep up, the drive waited)")
    if machine:
        parts.append(f"{plural(machine, 'pause')} of this machine (the emulated drive fell behind its own model)")
    return f"{plural(len(ph.stalls), 'slow I/O')}: {'; '.join(parts)}; at {where}"


__all__ = ["stall_words", "summary_lines"]

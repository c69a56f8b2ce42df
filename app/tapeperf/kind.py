"""The tape performance test as run kinds: ``tape-perf`` (one drive) and ``tape-perf-multi`` (several at once).

Each kind's parameters, engine, typed result and renderers (``app.runs.RunKind``); ``app.catalog`` lists
them. The words here are the report's and the history's; the CLI's text is ``app.tapeperf.text``.
"""
from __future__ import annotations

from app.alerts import judge_alerts, worst_exit
from app.history.figures import VisitFigures
from app.runs.kind import (EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, Command, Finding, RunContext, RunKind, Rows, Series, Target)
from app.runs.words import count, duration, mb_s, volume
from app.tapeperf.buffered import stretches as flush_stretches
from app.tapeperf.engine import TapePerfTest
from app.tapeperf.multi import MultiDriveTest, MultiParams
from app.tapeperf.multiresult import DriveRun, MultiTapePerfResult, headline as multi_headline
from app.tapeperf.multiresult import summary_lines as multi_lines
from app.tapeperf.params import TapePerfParams
from app.tapeperf.results import PhaseResult, TapePerfResult, error_deltas, headline
from app.tapeperf.text import summary_lines
from native.units import percent, plural


def exit_code(result: TapePerfResult) -> int:
    """0 done, 1 failed, 130 cancelled; a TapeAlert flag the drive left set makes a done run 10 or 11, as
    ``tapediag info`` rates it (``app.alerts``)."""
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return worst_exit(EXIT_FAILED if result.status == "failed" else EXIT_OK, judge_alerts(result.tapealert))


def multi_exit_code(result: MultiTapePerfResult) -> int:
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED if result.status == "failed" else EXIT_OK


# -- page 1 -------------------------------------------------------------------------------------
def _tape_action(who: str, pct: float | None, share: float | None) -> tuple[str, str]:
    """Tone and action for a phase from who limited it (``TapePerfResult.limiter``)."""
    if who in ("drive", "link") and pct is not None and pct >= 90:
        return "good", "None: the drive streams at what it can do with this data."
    if who == "link":
        return "warn", "The connection to the drive is the limit: use a faster HBA or link to reach the drive's rating."
    if who == "drive":
        return "warn", ("The drive itself is slow: clean it and repeat with another cartridge; if it stays slow, "
                        "open a support case quoting the serial and firmware.")
    if who == "host":
        lost = f" ({share:.0%} of the time was spent between commands)" if share is not None else ""
        return "warn", f"Feed the drive faster{lost}: check the data source, CPU and HBA, then repeat."
    if who == "emulator":
        return "none", "Repeat on a less loaded machine: this figure is the test machine's, not the drive's."
    return "none", "Repeat with a larger size (a minute of streaming or more) before judging the drive."


def tapealert_findings(flags: list[str] | None, topic: str) -> list[Finding]:
    """The TapeAlert flags a run left set, judged as ``tapediag info`` judges them (``app.alerts``)."""
    alerts = judge_alerts(flags)
    if alerts is None:
        return []
    return [Finding(topic, f"{alerts.verdict}: TapeAlert " + ", ".join(alerts.flags), alerts.tone,
                    "Flags set on the drive when the test ended (read once, after it).", " ".join(alerts.advice))]


def _phase_finding(result: TapePerfResult, ph: PhaseResult) -> Finding:
    limiter, pct = result.judged(ph)
    rate = ph.streaming_mb_per_s if ph.streaming_mb_per_s is not None else ph.mb_s
    words = mb_s(rate) + (" streaming" if ph.streaming_mb_per_s is not None else " overall")
    label = result.possible_words
    if pct is not None and label:
        words += f": {pct:.0f}% of the {label}"
    tone, action = _tape_action(limiter.who, pct, ph.host_share)
    if ph.error:
        tone, action = "bad", "The run failed: see the error in the run's section, fix it and repeat."
    detail = limiter.why if limiter.who == "not steady" or not limiter.why else f"limited by {limiter.why}"
    return Finding(f"Tape {ph.phase} rate", words, tone, detail, action)


def findings(result: TapePerfResult) -> list[Finding]:
    return (tapealert_findings(result.tapealert, "Drive alarms during the test")
            + [_phase_finding(result, ph) for ph in result.phases])


_SHARED_TONES = {"scales": "good", "shared path": "warn", "not judged": "none"}
_SHARED_ACTIONS = {
    "scales": "None: the path the drives share carries them all at their own rates.",
    "shared path": ("Spread the drives over more HBAs or HBA ports (or target portals), check the link rate each "
                    "port negotiated, and on an iSCSI target its CPU and network; then repeat."),
    "not judged": "Measure each drive alone for at least a few seconds and run the drives together longer.",
}


def multi_findings(result: MultiTapePerfResult) -> list[Finding]:
    """Several drives at once: per phase, whether the aggregate scales with the drives."""
    out = []
    n = len(result.devices)
    for ph in result.phases:
        words = f"{mb_s(ph.mb_s)} from {plural(n, 'drive')} together" if ph.mb_s is not None else "Not measured"
        if ph.ratio is not None:
            words += f": {ph.ratio:.0%} of the sum of their rates alone ({mb_s(ph.sum_alone_mb_s)})"
        out.append(Finding(f"Drives together ({ph.phase})", words, _SHARED_TONES.get(ph.verdict, "none"), ph.why,
                           _SHARED_ACTIONS.get(ph.verdict, "")))
    return out


# -- the report's rows ----------------------------------------------------------------------------
def _phase_rows(ph: PhaseResult) -> Rows:
    name = ph.phase.capitalize()
    rows = [(name, f"{volume(ph.bytes)} in {duration(ph.elapsed)}; ended: {ph.end_reason or '—'}"
                   + (f"; error: {ph.error}" if ph.error else ""))]
    rate = f"{mb_s(ph.mb_s)} overall"
    if ph.per_second_min_mb_s is not None and ph.per_second_max_mb_s is not None:
        rate += f"; each second between {mb_s(ph.per_second_min_mb_s)} and {mb_s(ph.per_second_max_mb_s)}"
    rows.append((f"{name} rate", rate))
    latency = (f"median {duration(ph.latency_p50)}, 99th percentile {duration(ph.latency_p99)}, "
               f"max {duration(ph.latency_max)}")
    if ph.flush_seconds:
        latency += f"; buffer flushed in {duration(ph.flush_seconds)}"
    rows.append((f"{name} command time", latency))
    rows.append((f"{name} commands", f"{count(ph.ios, 'I/O')}, {count(ph.blocks, 'block')}, "
                                     f"{count(ph.filemarks, 'filemark')}, {count(len(ph.stalls), 'slow I/O')}"))
    if ph.verified_blocks or ph.verify_errors:
        rows.append((f"{name} verify", f"{count(ph.verified_blocks, 'block')} checked, "
                                       f"{count(ph.verify_errors, 'error')}"))
    return rows


def rows(result: TapePerfResult) -> Rows:
    out: Rows = []
    drive = " ".join(p for p in (result.vendor, result.product) if p)
    if result.generation:
        drive += f" (LTO-{result.generation})"
    if drive:
        out.append(("Drive", drive))
    ratio = result.drive_ratio
    out.append(("Data and compression", f"pattern {result.pattern}, compression "
                f"{result.compression or '—'}" + (f", the drive compressed {ratio:.2f}:1" if ratio else "")))
    for ph in result.phases:
        out += _phase_rows(ph)
    counters = [d.line for d in result.log_deltas if d.delta is not None]
    if counters:
        out.append(("Drive counters during the test", "; ".join(counters)))
    if result.tapealert:
        out.append(("TapeAlert after the test", "; ".join(result.tapealert)))
    if result.settings:
        out.append(("Drive settings", result.settings))
    return out


def _multi_drive_rows(i: int, run: DriveRun) -> Rows:
    together, alone = run.together, run.alone
    out: Rows = []
    for ph in together.phases:
        was = alone.phase(ph.phase) if alone is not None else None
        rate = ph.streaming_mb_per_s if ph.streaming_mb_per_s is not None else ph.mb_s
        text = f"together {mb_s(rate)}"
        if was is not None:
            before = was.streaming_mb_per_s if was.streaming_mb_per_s is not None else was.mb_s
            text = f"alone {mb_s(before)}, " + text + (f" ({rate / before:.0%})" if before and rate is not None else "")
        out.append((f"Drive {i} {ph.phase}", f"{text}; {volume(ph.bytes)}; ended: {ph.end_reason or '—'}"
                                             + (f"; error: {ph.error}" if ph.error else "")))
    if together.settings:
        out.append((f"Drive {i} settings", together.settings))
    return out


def multi_rows(result: MultiTapePerfResult) -> Rows:
    """Several drives at once: the aggregate against the sum alone, then each drive alone and together."""
    out: Rows = []
    for i, d in enumerate(result.drives, 1):  # "drive N" is what the plot's legend calls it
        product = " ".join(p for p in (d.together.vendor, d.together.product) if p)
        gen = f" (LTO-{d.together.generation})" if d.together.generation else ""
        out.append((f"Drive {i}", f"{d.device or '—'}" + (f": {product}{gen}" if product else "")))
    for ph in result.phases:
        name = ph.phase.capitalize()
        if ph.mb_s is not None:
            out.append((f"{name}, all together", f"{mb_s(ph.mb_s)} over {duration(ph.seconds)} in which "
                                                 f"every drive streamed ({volume(ph.bytes)})"))
        if ph.sum_alone_mb_s is not None:
            ratio = f", {ph.ratio:.0%} of it together" if ph.ratio is not None else ""
            out.append((f"{name}, sum alone", f"{mb_s(ph.sum_alone_mb_s)}{ratio}"))
        out.append((f"{name} verdict", f"{ph.verdict or '—'}: {ph.why or '—'}"))
    for i, d in enumerate(result.drives, 1):
        out += _multi_drive_rows(i, d)
    if result.cpu_share is not None and result.cpus:
        busy = f"; all processes {percent(result.host_busy)}" if result.host_busy is not None else ""
        out.append(("Host CPU while together", f"{percent(result.cpu_share)} of {count(result.cpus, 'core')} "
                                               f"(tapediag's process){busy}"))
    return out


def multi_series(result: MultiTapePerfResult) -> Series:
    """Each drive's curve and their aggregate, as the result carries them."""
    return [(c.label, list(zip(c.t, c.mb_s))) for c in result.curves]


# -- the kinds -----------------------------------------------------------------------------------
def _engine(ctx: RunContext[TapePerfParams]) -> TapePerfTest:
    return TapePerfTest(ctx.drive, ctx.params)


def _multi_engine(ctx: RunContext[MultiParams]) -> MultiDriveTest:
    return MultiDriveTest(ctx.drives, ctx.params)


def visit_figures(result: TapePerfResult) -> VisitFigures:
    """What a tape test says about its cartridge and drive (``app.visits``): the bytes of every phase, the error
    counters' change over them. The assessment's write/read step says the same."""
    corrected, uncorrected = error_deltas(result.log_deltas)
    return VisitFigures(sum(p.bytes for p in result.phases) / 1e9 or None, corrected, uncorrected)


TAPE_PERF: RunKind[TapePerfParams, TapePerfResult] = RunKind(
    "tape-perf", "Tape performance", Target.DRIVE, TapePerfParams, TapePerfResult, _engine,
    headline=headline, text=lambda r: "\n".join(summary_lines(r)), rows=rows, findings=findings, exit_code=exit_code,
    yardstick=lambda r: r.yardstick, stretches=flush_stretches, visit=visit_figures,
    command=Command("tape-perf", "measure a tape drive's write/read rate"))

TAPE_PERF_MULTI: RunKind[MultiParams, MultiTapePerfResult] = RunKind(
    "tape-perf-multi", "Tape performance, several drives", Target.DRIVES, MultiParams, MultiTapePerfResult,
    _multi_engine, headline=multi_headline, text=lambda r: "\n".join(multi_lines(r)), rows=multi_rows,
    findings=multi_findings, series=multi_series, exit_code=multi_exit_code, scale=lambda r: r.ceiling,
    claim="tape-perf")

__all__ = ["TAPE_PERF", "TAPE_PERF_MULTI", "exit_code", "findings", "rows", "tapealert_findings"]

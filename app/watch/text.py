"""What a technician reads about a watch: the run's text, its headline, its report rows and findings.

``render`` is what the run prints; ``headline`` one line for a history list; ``rows`` the
labelled, rounded figures a report shows; ``findings`` the verdicts in words for page 1 (with
their tone and what to do); ``curves`` the result's own plot. They read a typed
``WatchResult`` (``app.runs.typed.from_dict`` turns a stored one back into it).
"""
from __future__ import annotations

from app.runs import Finding
from app.watch.result import WatchResult
from native.units import block_text, percent, plural, rate_text, size_text

#: Each verdict's tone (the PDF's colour) and what to do. A drive that is the limit is the white paper's goal
#: ("The goal is that a tape drive becomes a performance bottleneck": then backup times are predictable).
ACTIONS: dict[str, tuple[str, str]] = {
    "drive-bound": ("good", "None for the backup's pace: the drive sets it, as it should. If the rate is below what "
                            "the drive can take, run tape-perf on it to tell the drive, its path and the cartridge apart."),
    "source-bound": ("warn", "Feed the drive faster: the source named above is the limit (more streams at once, a faster "
                             "disk, less work per byte on the backup server), then watch again."),
    "destination-bound": ("warn", "The restore's destination is the limit: write to a faster disk or several at once, "
                                  "then watch again."),
    "mixed": ("warn", "Neither side alone: run the disk and tape tests to see each part's own rate."),
    "too-short": ("none", "Watch a longer stretch of the job (a minute or more of I/O)."),
    "idle": ("none", "Start the watch while the backup runs, on the drive it writes to."),
}


def _drive_words(r: WatchResult) -> str:
    d = r.drive
    if not d.queried:
        return f"{r.device} ({r.scsi_address or r.node})"
    gen = f", LTO-{d.generation}" if d.generation else ""
    serial = f" serial {d.serial}" if d.serial else ""
    return f"{r.device} ({d.vendor} {d.product}{serial}{gen})"


def _job_words(r: WatchResult) -> str:
    if r.job_start_s is None:
        return "no I/O"
    if r.job_under_way:
        begun = "under way when the watch began"
    elif r.job_start_s <= 2 * float(r.params.get("interval") or 0.2):
        begun = "began as the watch began"
    else:
        begun = f"began at {r.job_start_s:.1f} s"
    ended = f"ended at {r.job_end_s:.1f} s" if r.job_ended and r.job_end_s is not None else "still running at the end"
    return f"{begun}, {ended}"


def tape_line(r: WatchResult) -> str:
    t = r.tape
    moved = t.read_bytes if r.direction == "restore" else t.write_bytes
    verb = "read" if r.direction == "restore" else "written"
    record = f", {block_text(round(t.record_bytes))} records" if t.record_bytes else ""
    return (f"{r.direction}: {rate_text(r.mb_s)} {verb} ({size_text(moved)} in {t.seconds:.1f} s{record}, "
            f"{plural(t.commands, 'command')}); busy {percent(t.busy_share)}, waiting {percent(t.waiting_share)}")


def _drive_counters(r: WatchResult) -> list[str]:
    d = r.drive
    if not d.queried:
        return [f"not asked ({d.why_not})"] if d.why_not else []
    ratio = f"compression {d.ratio:.2f}:1 ({d.ratio_note})" if d.ratio else f"compression: {d.ratio_note}"
    errors = [f"{c.name} +{c.delta}" for c in d.counters if "error" in c.name and c.delta is not None]
    alerts = f"TapeAlert {', '.join(d.tapealert)}" if d.tapealert else ""
    return [", ".join(x for x in (ratio, "; ".join(errors), alerts) if x)]


def render(r: WatchResult) -> str:
    """The result as the run prints it."""
    lines = [f"Watch of {_drive_words(r)} for {r.watched_s:.1f} s: the kernel's tape statistics, nothing sent to the "
             "drive during the job",
             f"  job: {_job_words(r)}"]
    if r.job_start_s is not None:
        lines.append("  " + tape_line(r))
    lines.append(f"  verdict: {r.verdict.line}")
    lines += [f"    - {e}" for e in r.verdict.evidence]
    if r.floor is not None:
        lines.append(f"  streaming floor: {r.floor.line}")
        if r.floor.source:
            fit = f"; {r.floor.fit}" if r.floor.fit else ""
            lines.append(f"    (speed steps: {r.floor.source}{fit})")
    lines += [f"  drive: {x}" for x in _drive_counters(r)]
    lines += [f"  note: {n}" for n in r.notes]
    if r.status in ("cancelled", "stopped"):
        lines.append(f"  {r.status}: {r.error}" if r.error else f"  {r.status}")
    return "\n".join(lines)


def headline(r: WatchResult) -> str:
    """One short line for a history list: the number, the verdict's kind, the rate."""
    if r.job_start_s is None:
        return f"nothing ran on {r.device}"
    where = f" ({r.verdict.culprit})" if r.verdict.culprit else ""
    text = (f"{r.verdict.kind}{where}: waited {percent(r.tape.waiting_share)}, {rate_text(r.mb_s)} "
            f"{'read' if r.direction == 'restore' else 'written'}, {r.tape.seconds:.0f} s")
    return text if r.status == "complete" else f"{text} ({r.status})"


def rows(r: WatchResult) -> list[tuple[str, str]]:
    """The report's labelled, rounded figures."""
    t = r.tape
    out = [("Drive", _drive_words(r)), ("Job", _job_words(r)), ("Direction", r.direction or "-"),
           ("Rate", rate_text(r.mb_s)), ("Drive busy", percent(t.busy_share)),
           ("Drive waiting for the host", percent(t.waiting_share)),
           ("Record size", block_text(round(t.record_bytes)) if t.record_bytes else "-"),
           ("Verdict", r.verdict.line)]
    if r.floor is not None:
        out.append(("Streaming floor", r.floor.line))
    if r.drive.ratio:
        out.append(("Compression (drive)", f"{r.drive.ratio:.2f}:1"))
    return out


def findings(r: WatchResult) -> list[Finding]:
    """Page 1: the bottleneck, and the streaming floor when the job fell below it."""
    tone, action = ACTIONS.get(r.verdict.kind, ("none", ""))
    out = [Finding("Backup bottleneck", r.verdict.line, tone, "; ".join(r.verdict.evidence), action)]
    if r.floor is not None and r.floor.below and r.verdict.kind != "drive-bound":
        out.append(Finding("Streaming floor", f"{rate_text(r.floor.delivered_mb_s)} delivered, below the "
                                              f"{rate_text(r.floor.host_floor_mb_s)} this drive needs to stream",
                           "warn", r.floor.line, "Feed the drive above its slowest speed: several streams at once "
                                                 "(multiplexing) or a faster source; below it the drive shoe-shines, "
                                                 "which wears heads and tape."))
    return out


def curves(r: WatchResult) -> list[tuple[str, list[tuple[float, float]]]]:
    """The result's own curves (MB/s against time) for the report's plot."""
    out = [("written", [(row[0], row[1]) for row in r.series])]
    if any(row[2] for row in r.series):
        out.append(("read", [(row[0], row[2]) for row in r.series]))
    return out

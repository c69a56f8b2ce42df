"""The end of a watch: the job's figures, the verdict, the streaming floor and what to say about them."""
from __future__ import annotations

from app.watch.busy import JobWindow, Totals
from app.watch.floor import streaming_floor
from app.watch.host import HostSide
from app.watch.node import TapeNode
from app.watch.result import TapeFigures, Verdict, WatchResult
from app.watch.rules import verdict
from app.watch.series import SeriesBins
from native.units import percent, plural

#: Said with every watch: what the one number is, and where it can mislead.
MEANING = ("busy share: the time the kernel's st driver had a command outstanding on the drive (its io_ns); a WRITE "
           "completes once the drive's buffer holds the data, so in the job's first seconds, while that buffer fills, "
           "a drive that will be the limit still looks idle; positioning commands (rewind, space, filemarks) count as "
           "busy; commands sent through the drive's /dev/sgN are not counted at all")


def _tape(totals: Totals) -> TapeFigures:
    return TapeFigures(seconds=totals.seconds, write_bytes=totals.write_bytes, read_bytes=totals.read_bytes,
                       write_cmds=totals.write_cmds, read_cmds=totals.read_cmds, commands=totals.commands,
                       busy_s=totals.busy_s, write_s=totals.write_s, read_s=totals.read_s, other_s=totals.other_s,
                       restarts=totals.restarts)


def _nothing(result: WatchResult, node: TapeNode, host: HostSide) -> Verdict:
    holders = [f"{p.name} (PID {p.pid})" for p in host.procs.values() if p.role.startswith("holds")]
    line = (f"nothing ran on {node.device} during the watch ({result.watched_s:.0f} s): the kernel's st driver "
            "completed no command for it")
    if holders:
        line += f"; {', '.join(holders)} held it open but sent nothing"
    return Verdict("idle", line)


def _queries(sent: list[str], when: str) -> str:
    """'INQUIRY, LOG SENSE 02h, ...' of the commands sent ``when`` ("before the watch"), each named once."""
    names = [s.split(" at ")[0] for s in sent if s.endswith(f"({when})")]
    return ", ".join(dict.fromkeys(names)) or "nothing"


def _sent_note(result: WatchResult, samples: int) -> str:
    asked = result.drive
    figures = f"read the kernel's counters ({result.stats_dir}) {plural(samples, 'time')}"
    if not asked.sent:
        return f"tapediag sent the drive nothing: it {figures}; the drive was not asked ({asked.why_not or 'no reason'})"
    return (f"tapediag sent the drive nothing during the job: it {figures}, and asked the drive only before the watch "
            f"({_queries(asked.sent, 'before the watch')}) and after it ({_queries(asked.sent, 'after the watch')})")


def finish(result: WatchResult, totals: Totals, window: JobWindow, host: HostSide, notes: list[str],
           bins: SeriesBins, samples: int, under_way: bool, in_flight_at_end: int) -> None:
    """Fill ``result`` from what the watch saw."""
    result.tape = _tape(totals)
    result.series, result.series_bin_s = bins.rows(), bins.width
    result.job_start_s, result.job_end_s = window.start, window.end
    result.job_under_way = under_way
    result.processes, result.sources, result.network = host.figures()
    node = host.node
    if window.start is None:
        result.verdict = _nothing(result, node, host)
        if result.status == "complete":
            result.status = "nothing"
    else:
        result.job_ended = in_flight_at_end == 0 and (window.end or 0.0) < result.watched_s - max(1.0, 2 * host.params.interval)
        restore = totals.read_bytes > totals.write_bytes
        result.direction = "restore" if restore else "backup"
        d = result.drive
        result.verdict = verdict(result.tape, restore=restore, sources=result.sources, processes=result.processes,
                                 network=result.network, generation=d.generation, ratio=d.ratio)
        if result.verdict.kind != "too-short":
            result.floor = streaming_floor(d.generation if d.queried else None, vendor=d.vendor, form=d.form,
                                           ratio=d.ratio, delivered_mb_s=result.mb_s, busy_share=result.tape.busy_share,
                                           drive_bound=result.verdict.kind == "drive-bound")
    if result.ended_by == "cancelled":
        result.status = "cancelled"
    own = []
    if result.own_cpu_share is not None:
        own.append(f"the watch itself used {percent(result.own_cpu_share)} of a CPU core while it watched: on a "
                   "busy single-CPU host that is time the job did not get")
    result.notes = [_sent_note(result, samples), MEANING, *own, *notes, *host.closing_notes(), *result.drive.notes]

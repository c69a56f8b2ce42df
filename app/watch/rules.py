"""The verdict of a watch: which side set the pace, in one number, with the evidence beside it.

The number is the share of the job's time the drive had no command outstanding (1 - busy
share, ``app.watch.busy``): time it waited for the host. A drive that is the limit has a
command outstanding nearly all the time (each WRITE waits for room in its buffer); a drive fed
too slowly takes each WRITE at once and then waits. Every threshold is here, with why.

Before blaming the drive, what else makes a busy drive slow is ruled out and named instead: a
small record size (each command's overhead then sets the pace), and a rate far below what the
drive's generation can take (then its path or the cartridge is as likely as the drive).
Before blaming "the source", the evidence tapediag can see is named: the busiest block device
the job read, the feeding process's CPU, a network interface near its link speed.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.tapeperf.rated import possible
from app.watch.result import NetFigures, ProcessFigures, SourceDevice, TapeFigures, Verdict
from native.units import block_text, percent, rate_text


@dataclass(frozen=True)
class Threshold:
    value: float
    why: str


#: The drive had a command outstanding at least this share of the job: it set the pace. A host that
#: writes in one thread spends some time between commands even when the drive is the limit (reading the
#: next block, the system call), so a limited drive shows 80-95 %, rarely 100 %.
DRIVE_BOUND_BUSY = Threshold(0.80, "a single-threaded writer leaves up to a fifth of the time between commands "
                                   "even when the drive is the limit")
#: The drive waited at least this share of the job: the host did not keep it busy.
SOURCE_BOUND_WAITING = Threshold(0.50, "the drive waited longer than it worked")
#: A block device with I/O in flight this share of the time has no room left (iostat's %util).
DISK_SATURATED = Threshold(0.80, "iostat's %util: a device with I/O in flight 80 % of the time has little left")
#: A job that reads, then writes to the tape, then reads again (dd, tar, a backup agent's stream) leaves its disk
#: idle while it writes, so that disk never shows 100 %: it explains the drive's waiting when it was busy through
#: most of the time the drive waited. The same holds for the CPU of such a process.
EXPLAINS_WAIT = Threshold(0.80, "a serial reader's disk is idle while it writes to the tape: busy through 80 % of "
                                "the drive's waiting, it is what the drive waited for")
#: A process using this share of one CPU core is bound by its CPU (compression or encryption in software).
CPU_BOUND = Threshold(0.90, "a process at 90 % of one core has no time left to read faster")
#: A network interface receiving at this share of its link speed is full.
NETWORK_FULL = Threshold(0.85, "TCP rarely carries more than about 90 % of a link's speed as payload")
#: Records below this are too small for an LTO drive: each command's own overhead sets the pace.
SMALL_RECORD = Threshold(128 * 1024, "HP recommends transfers of at least 256 KB, 128 KB the minimum "
                                     "(shared/design/lto-drives.md)")
#: A busy drive far below what its generation can take with this data: its path or cartridge may be the cause.
FAR_BELOW_POSSIBLE = Threshold(0.50, "below half of what the drive can take, a slow path (link, HBA) or a worn "
                                     "cartridge is as likely as the drive")
#: Less than this much active time, or fewer commands, is too little to judge.
MIN_JOB_SECONDS = Threshold(3.0, "a few seconds of I/O can be the drive's buffer filling, not the job's pace")
MIN_COMMANDS = Threshold(20, "a handful of commands is chance")


def explains(share: float | None, limit: Threshold, waiting: float) -> bool:
    """A part busy this share of the job's time is the limit: saturated, or busy through most of the drive's waiting."""
    return share is not None and share > 0 and (share >= limit.value or share >= EXPLAINS_WAIT.value * waiting)


def source_evidence(sources: list[SourceDevice], restore: bool, waiting: float = 1.0) -> tuple[list[str], SourceDevice | None]:
    """Lines on the job's block devices, busiest first, and the one that explains the drive's waiting, if any."""
    lines, saturated = [], None
    verb = "wrote" if restore else "read"
    ranked = sorted(sources, key=lambda s: s.busy_share or 0.0, reverse=True)
    for s in ranked:
        rate = s.write_mb_s if restore else s.read_mb_s
        lines.append(f"the job {verb} /dev/{s.name} at {percent(s.busy_share)} busy ({rate_text(rate)}; {s.found_by})")
        if saturated is None and explains(s.busy_share, DISK_SATURATED, waiting):
            saturated = s
    return lines, saturated


def process_evidence(processes: list[ProcessFigures], waiting: float = 1.0) -> tuple[list[str], ProcessFigures | None]:
    lines, bound = [], None
    for p in processes:
        what = [f"{percent(p.cpu_share)} of a CPU core" if p.cpu_share is not None else "CPU not readable"]
        if p.read_mb_s is not None:
            what.append(f"read {rate_text(p.read_mb_s)}")
        lines.append(f"{p.name} (PID {p.pid}, {p.role}): {', '.join(what)}")
        if bound is None and explains(p.cpu_share, CPU_BOUND, waiting):
            bound = p
    return lines, bound


def network_evidence(network: list[NetFigures], tape_mb_s: float) -> tuple[list[str], NetFigures | None]:
    """Interfaces that carried a fair share of the job's data; the full one if any."""
    lines, full = [], None
    for n in sorted(network, key=lambda x: x.rx_mb_s, reverse=True):
        if n.rx_mb_s < 0.5 * tape_mb_s or n.rx_mb_s <= 0:
            continue
        link = f" of a {rate_text(n.link_mb_s)} link ({percent(n.rx_mb_s / n.link_mb_s)})" if n.link_mb_s else ""
        lines.append(f"{n.name} received {rate_text(n.rx_mb_s)}{link}")
        if full is None and n.link_mb_s and n.rx_mb_s >= NETWORK_FULL.value * n.link_mb_s:
            full = n
    return lines, full


def _waiting(tape: TapeFigures, restore: bool, sources: list[SourceDevice], processes: list[ProcessFigures],
             network: list[NetFigures]) -> Verdict:
    side = "destination" if restore else "source"
    wait_for = "for the host to take data" if restore else "for data"
    disk_lines, disk = source_evidence(sources, restore, tape.waiting_share)
    proc_lines, cpu = process_evidence(processes, tape.waiting_share)
    net_lines, net = network_evidence(network, tape.read_mb_s if restore else tape.write_mb_s)
    head = f"the drive waited {wait_for} {percent(tape.waiting_share)} of the time: the {side} is the bottleneck"
    if disk is not None:
        verb = "wrote" if restore else "read"
        line, culprit = f"{head} (the job {verb} /dev/{disk.name} at {percent(disk.busy_share)} busy)", f"{side} disk"
    elif cpu is not None:
        line, culprit = f"{head} ({cpu.name} used {percent(cpu.cpu_share)} of a CPU core)", "backup process CPU"
    elif net is not None:
        line, culprit = f"{head} ({net.name} received at {percent(net.rx_mb_s / (net.link_mb_s or 1))} of its link)", "network"
    else:
        seen = "nothing tapediag could see was saturated" if (sources or processes or network) else \
            "tapediag saw none of the job's disks or processes"
        line, culprit = f"{head} ({seen})", side
    return Verdict(f"{side}-bound", line, culprit, disk_lines + proc_lines + net_lines)


def _busy(tape: TapeFigures, restore: bool, generation: int | None, ratio: float | None) -> Verdict:
    rate = tape.read_mb_s if restore else tape.write_mb_s
    head = f"the drive was busy {percent(tape.busy_share)} of the time at {rate_text(rate)}"
    evidence = [f"its commands took {tape.busy_s:.1f} s of the job's {tape.seconds:.1f} s"]
    record = tape.record_bytes
    if record is not None and record < SMALL_RECORD.value:
        evidence.append(f"the job's records are {block_text(round(record))}: {SMALL_RECORD.why}")
        return Verdict("drive-bound", f"{head}: the record size is the limit ({block_text(round(record))} per command; "
                                      "use records of 256 KB or more)", "record size", evidence)
    reference = possible(generation, ratio or 1.0)
    if reference is not None and rate < FAR_BELOW_POSSIBLE.value * reference.mb_s:
        evidence.append(f"{rate_text(rate)} is {percent(rate / reference.mb_s)} of the {reference.label}: {FAR_BELOW_POSSIBLE.why}")
        return Verdict("drive-bound", f"{head}: the drive or its path is the limit, far below what it can take "
                                      "(run tape-perf on it to tell the drive, its path and the cartridge apart)",
                       "drive or its path", evidence)
    if reference is not None:
        evidence.append(f"{rate_text(rate)} is {percent(rate / reference.mb_s)} of the {reference.label}")
    return Verdict("drive-bound", f"{head}: the drive is the limit", "drive", evidence)


def verdict(tape: TapeFigures, *, restore: bool, sources: list[SourceDevice], processes: list[ProcessFigures],
            network: list[NetFigures], generation: int | None, ratio: float | None) -> Verdict:
    """The verdict over the job's span (the caller handles a watch that saw no I/O)."""
    if tape.seconds < MIN_JOB_SECONDS.value or tape.commands < MIN_COMMANDS.value:
        return Verdict("too-short", f"the drive was active for {tape.seconds:.1f} s ({tape.commands} commands): too "
                                    "little to judge; watch a longer stretch of the job", "")
    if tape.busy_share >= DRIVE_BOUND_BUSY.value:
        found = _busy(tape, restore, generation, ratio)
        found.evidence += source_evidence(sources, restore)[0] + process_evidence(processes)[0]
    elif tape.waiting_share >= SOURCE_BOUND_WAITING.value:
        found = _waiting(tape, restore, sources, processes, network)
    else:
        side = "destination" if restore else "source"
        found = Verdict("mixed", f"the drive waited {percent(tape.waiting_share)} of the time: neither the {side} nor the "
                                 "drive alone set the pace", "",
                        source_evidence(sources, restore)[0] + process_evidence(processes)[0])
    if tape.busy_s > 0 and tape.other_s >= 0.2 * tape.busy_s:
        found.evidence.append(f"{percent(tape.other_s / tape.busy_s)} of the drive's busy time went to commands other than "
                              "reads and writes (positioning, filemarks, rewinds)")
    return found

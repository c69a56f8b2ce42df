"""What a watch found, typed: the drive's figures over the job, its sources, the verdict.

``WatchResult.to_dict()`` is the one JSON-safe form (``--json``, the history, reports);
``app.runs.typed.from_dict(WatchResult, d)`` reads it back. Figures are decimal MB/s
(10**6 bytes), as every figure tapediag prints.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MB = 1e6


@dataclass
class TapeFigures:
    """The drive over the job's span, from the kernel's tape statistics."""

    seconds: float = 0.0  # from the first interval with I/O to the last
    write_bytes: int = 0
    read_bytes: int = 0
    write_cmds: int = 0
    read_cmds: int = 0
    commands: int = 0
    busy_s: float = 0.0
    write_s: float = 0.0  # the completed WRITEs' own time (write_ns)
    read_s: float = 0.0
    other_s: float = 0.0  # positioning, filemarks, rewinds: io_ns less write_ns and read_ns
    restarts: int = 0  # times the counters went back (the drive attached again)

    @property
    def write_mb_s(self) -> float:
        return self.write_bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def read_mb_s(self) -> float:
        return self.read_bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def busy_share(self) -> float:
        return min(self.busy_s / self.seconds, 1.0) if self.seconds > 0 else 0.0

    @property
    def waiting_share(self) -> float:
        """The share of the job's time the drive had no command outstanding: waiting for the host."""
        return 1.0 - self.busy_share if self.seconds > 0 else 0.0

    @property
    def record_bytes(self) -> float | None:
        """Mean bytes per WRITE (or READ, for a restore): the job's record size."""
        if self.write_cmds:
            return self.write_bytes / self.write_cmds
        return self.read_bytes / self.read_cmds if self.read_cmds else None

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "write_mb_s": round(self.write_mb_s, 3), "read_mb_s": round(self.read_mb_s, 3),
                "busy_share": round(self.busy_share, 4), "waiting_share": round(self.waiting_share, 4),
                "record_bytes": None if self.record_bytes is None else round(self.record_bytes)}


@dataclass
class SourceDevice:
    """A block device the job read (or, for a restore, wrote), over the job's span."""

    name: str  # the kernel's name: "sdb", "dm-0"
    found_by: str  # "given (--source)", "open in dd (PID 412)"
    busy_share: float | None = None  # time with I/O in flight, as iostat's %util
    read_mb_s: float | None = None
    write_mb_s: float | None = None


@dataclass
class ProcessFigures:
    """A process of the job: the one holding the drive open, or one feeding it through a pipe."""

    pid: int
    name: str
    role: str  # "holds /dev/nst0 open", "feeds it through a pipe", "given (--pid)"
    cmdline: str = ""
    seconds: float = 0.0
    cpu_share: float | None = None  # of one CPU core
    read_mb_s: float | None = None  # everything it read (rchar): pipes, cache and disks
    disk_read_mb_s: float | None = None  # what its reads fetched from block devices (read_bytes)


@dataclass
class NetFigures:
    """A network interface over the job's span (a media server receiving the data)."""

    name: str
    rx_mb_s: float
    tx_mb_s: float
    link_mb_s: float | None = None


@dataclass
class CounterChange:
    """One of the drive's own counters, read at the start and at the end."""

    name: str
    before: int | None
    after: int | None

    @property
    def delta(self) -> int | None:
        if self.before is None or self.after is None or self.after < self.before:
            return None
        return self.after - self.before


@dataclass
class DriveFigures:
    """What the drive itself said, through its SCSI generic node, at the start and the end only."""

    queried: bool = False
    why_not: str = ""  # why the drive was not asked (permissions, no sg node, --query-drive off)
    sg: str = ""
    vendor: str = ""
    product: str = ""
    revision: str = ""
    serial: str = ""
    generation: int | None = None
    form: str | None = None  # "full height" / "half height" when the product name says so
    ratio: float | None = None  # host bytes / tape bytes over the watch (Data Compression page 1Bh)
    ratio_note: str = ""
    counters: list[CounterChange] = field(default_factory=list)
    tapealert: list[str] = field(default_factory=list)
    sent: list[str] = field(default_factory=list)  # every command sent to the drive, in order, with when
    notes: list[str] = field(default_factory=list)


@dataclass
class StreamingFloor:
    """Whether the job fed the drive fast enough to stream, against its published speed steps."""

    line: str
    generation: int | None = None
    lowest_native_mb_s: float | None = None
    ratio: float | None = None
    host_floor_mb_s: float | None = None  # lowest step x ratio: what the host must deliver
    delivered_mb_s: float | None = None
    below: bool | None = None  # None: not judged
    streams_needed: int | None = None
    source: str = ""  # the speed-matching table's source
    fit: str = ""  # how well that table fits this drive


@dataclass
class Verdict:
    """The bottleneck in one line, its culprit, and the evidence beside it."""

    kind: str  # "source-bound", "destination-bound", "drive-bound", "mixed", "idle", "too-short"
    line: str
    culprit: str = ""  # "source disk", "backup process CPU", "network", "source", "drive", "record size", ""
    evidence: list[str] = field(default_factory=list)


@dataclass
class WatchResult:
    """The whole watch. ``status``: complete, cancelled, nothing (no I/O seen) or stopped (``error``)."""

    device: str
    node: str = ""
    stats_dir: str = ""
    scsi_address: str = ""
    params: dict = field(default_factory=dict)
    status: str = "complete"
    error: str | None = None
    ended_by: str = ""  # "time", "idle", "cancelled", "error"
    started_at: str = ""  # local time the watch began, ISO 8601
    watched_s: float = 0.0
    job_start_s: float | None = None  # seconds into the watch; None: no I/O seen
    job_end_s: float | None = None
    job_under_way: bool = False  # the drive was already busy when the watch began
    job_ended: bool = False  # the drive fell idle before the watch ended
    direction: str = ""  # "backup" (writes), "restore" (reads), "" (neither)
    tape: TapeFigures = field(default_factory=TapeFigures)
    processes: list[ProcessFigures] = field(default_factory=list)
    sources: list[SourceDevice] = field(default_factory=list)
    network: list[NetFigures] = field(default_factory=list)
    drive: DriveFigures = field(default_factory=DriveFigures)
    floor: StreamingFloor | None = None
    verdict: Verdict = field(default_factory=lambda: Verdict("idle", ""))
    notes: list[str] = field(default_factory=list)
    own_cpu_share: float | None = None  # the watch's own CPU over the watch, of one core: what it took from the job
    series_bin_s: float = 1.0
    series: list[list[float]] = field(default_factory=list)  # [t end, write MB/s, read MB/s, busy share] per bin

    @property
    def mb_s(self) -> float:
        """The job's rate in its direction (writes for a backup, reads for a restore)."""
        return self.tape.read_mb_s if self.direction == "restore" else self.tape.write_mb_s

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the one form the CLI (--json), the history and reports share."""
        out = asdict(self)
        out["tape"] = self.tape.to_dict()
        out["drive"]["counters"] = [{**asdict(c), "delta": c.delta} for c in self.drive.counters]
        out["params"] = dict(self.params)
        # headline figures for history tables and the bottleneck rules
        out["mb_s"] = round(self.mb_s, 3)
        out["busy_share"] = round(self.tape.busy_share, 4)
        out["waiting_share"] = round(self.tape.waiting_share, 4)
        return out

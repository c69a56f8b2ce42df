"""What a media scan found: layout, rates, repositions, errors, and the cartridge verdict.

The rates, latencies and pauses come from ``app.tapeperf.results.summarize``, the rule
the tape performance test uses, so a "stall" (and who caused it) means the same thing in
both. The zones and their slow-zone rule are here; the verdict rules, each with the
evidence it needs and the culprit it names, are in ``app.scan.rules``.
"""
from __future__ import annotations

import enum
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from app.events import Sample
from native.scsi.ltfs import LtfsVolume
from app.scan.thresholds import SLOW_ZONE_MIN_READS, SLOW_ZONE_MIN_SECONDS, SLOW_ZONE_MIN_ZONES, SLOW_ZONE_SHARE
from app.tapeperf.results import EMULATOR_LAG_SHARE, HOST_SHARE_LIMIT, MB, LogDelta, PhaseResult, SampleLog, Stall

class CartridgeVerdict(str, enum.Enum):
    KEEP = "keep"
    #: Something slow was seen on this cartridge in one scan only: chance, a dirty head or the tape.
    #: Scanning again (after cleaning, better in another drive) tells them apart; a second sighting is MONITOR.
    CHECK_AGAIN = "check again"
    MONITOR = "monitor"
    RETIRE = "retire"
    NOT_ASSESSED = "not assessed"


#: ``tapediag scan``'s exit status per cartridge verdict: 0 good, 10 watch, 11 act, 12 no evidence (as ``info``
#: and ``assess``), 13 seen once: scan again. A drive finding of the scan can raise it (``ScanResult.exit_code``).
EXIT_CODES = {CartridgeVerdict.KEEP: 0, CartridgeVerdict.MONITOR: 10, CartridgeVerdict.RETIRE: 11,
              CartridgeVerdict.NOT_ASSESSED: 12, CartridgeVerdict.CHECK_AGAIN: 13}
#: How bad each verdict is, to weigh a drive finding against it (a code's number is not its weight).
_RANK = {CartridgeVerdict.KEEP: 0, CartridgeVerdict.NOT_ASSESSED: 1, CartridgeVerdict.CHECK_AGAIN: 2,
         CartridgeVerdict.MONITOR: 3, CartridgeVerdict.RETIRE: 4}
#: A drive or path finding's severity as a rank and exit code: a warning is "watch" (10), a critical one "act" (11).
FINDING_EXIT = {"warning": (3, 10), "critical": (4, 11)}


@dataclass
class ScanFinding:
    """What the scan saw that is not the cartridge's: ``culprit`` "drive", "host" or "path" (the connection);
    ``severity`` "information", "warning" or "critical"; ``words`` the finding in a few words (a report's
    headline), the evidence in ``text``, what to do in ``action``."""

    culprit: str
    severity: str
    text: str
    action: str = ""
    words: str = ""


@dataclass
class FileLayout:
    """One tape file (the blocks between filemarks) as the backup application wrote it."""

    index: int
    blocks: int = 0
    bytes: int = 0
    min_block: int = 0
    max_block: int = 0
    seconds: float = 0.0  # reading it, from its first block's start to its last block's end
    partition: int = 0  # the partition it is in (a two-partition cartridge: LTFS)

    def add(self, nbytes: int) -> None:
        self.blocks += 1
        self.bytes += nbytes
        self.min_block = nbytes if self.blocks == 1 else min(self.min_block, nbytes)
        self.max_block = max(self.max_block, nbytes)

    @property
    def mb_s(self) -> float | None:
        return self.bytes / self.seconds / MB if self.seconds > 0 else None


@dataclass
class Zone:
    """The read rate over ``ScanParams.zone_bytes`` of data of one record size (``zones_from``).

    A zone holds blocks of one record size only (``record_size``, the power of two at or above
    the block's length): a backup application's 64 KiB label file reads slower per byte than its
    1 MiB data, by the commands' overhead, not by any fault, so it is compared with its own kind."""

    start_byte: int
    bytes: int
    seconds: float
    #: The drive's own time: the sum of its READs' latencies, without the host's time between them, and
    #: without the stalls the host or this machine caused (``app.tapeperf.results.stall_cause``).
    drive_seconds: float = 0.0
    record_size: int = 0
    end_byte: int = 0  # where the zone's last block ends in the data (0: start_byte + bytes)
    #: An emulated drive: seconds it fell behind its own model while reading this zone (this machine's, not the
    #: drive's; already left out of ``drive_seconds``).
    lag_seconds: float = 0.0
    reads: int = 0
    #: The host's time: between READs, and the stalls it caused beyond a typical READ (None: ``seconds`` less
    #: ``drive_seconds``).
    host_seconds: float | None = None
    #: Why the zone was left out of the slow-zone rule: "tail", "short", "machine" or "host" ("" when judged),
    #: and in words (``not_judged``).
    left_out: str = ""
    not_judged: str = ""
    typical_mb_s: float | None = None  # a slow zone: the typical zone of its record size it was compared with

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def drive_mb_s(self) -> float:
        """The rate the drive delivered the zone at, whatever the host or this machine did (else ``mb_s``)."""
        return self.bytes / self.drive_seconds / MB if self.drive_seconds > 0 else self.mb_s

    @property
    def host_share(self) -> float:
        """The share of the zone's time that was the host's."""
        if self.seconds <= 0:
            return 0.0
        host = self.host_seconds if self.host_seconds is not None else self.seconds - self.drive_seconds
        return min(1.0, max(0.0, host / self.seconds))


@dataclass
class ScanResult:
    device: str
    params: dict[str, Any]
    vendor: str = ""
    product: str = ""
    serial: str = ""  # the drive's, so that a later scan of this cartridge can tell another drive from this one
    status: str = "complete"  # complete / failed / cancelled
    error: str | None = None
    # What stopped the read early: "medium" (MEDIUM ERROR), "hardware" (HARDWARE ERROR), "lost" (the
    # connection), "other" (any other error); "" when nothing did.
    error_kind: str = ""
    end_reason: str = ""  # "end of data", "blank cartridge", "limit reached", "cancelled", "error", "lost"
    partial: bool = False
    read: PhaseResult = field(default_factory=lambda: PhaseResult("read"))
    files: list[FileLayout] = field(default_factory=list)
    zones: list[Zone] = field(default_factory=list)
    slow_zones: list[Zone] = field(default_factory=list)  # read well below the typical zone (``slow_zones``)
    typical_zone_mb_s: float | None = None  # the typical zone of the record size holding the most data
    max_block_read: int = 0  # the buffer each READ asked for
    oversize_blocks: int = 0  # blocks longer than that buffer (their size is unknown)
    buffer_bytes: int | None = None  # the drive's buffer: the span stalls are judged over (``stall_cause``)
    settings: str = ""  # what was changed to read and whether it was put back
    log_deltas: list[LogDelta] = field(default_factory=list)
    log_notes: list[str] = field(default_factory=list)
    tapealert: list[str] | None = None
    drive_ratio: float | None = None
    drive_ratio_note: str = ""
    cartridge: dict[str, Any] = field(default_factory=dict)  # MAM figures (barcode, loads, ...)
    #: Partitions read, in order (0, then 1 on an LTFS cartridge: ``app.ltfs.partition_count``).
    partitions: int = 1
    #: The LTFS volume the cartridge holds (``native.scsi.ltfs``), None when it is not one.
    ltfs: LtfsVolume | None = None
    verdict: CartridgeVerdict = CartridgeVerdict.NOT_ASSESSED
    reasons: list[str] = field(default_factory=list)
    #: What pointed at the cartridge in this scan ("slow zones", "repositions"): what a later scan looks for.
    cartridge_signals: list[str] = field(default_factory=list)
    #: Earlier scans of this cartridge that saw it too (one sentence each), behind a MONITOR.
    earlier: list[str] = field(default_factory=list)
    findings: list[ScanFinding] = field(default_factory=list)  # the drive's, the host's, the path's
    samples: list[Sample] = field(default_factory=list, repr=False)

    @property
    def filemarks(self) -> int:
        return self.read.filemarks

    @property
    def exit_code(self) -> int:
        """The cartridge verdict's code (``EXIT_CODES``), or a worse drive or path finding's (``FINDING_EXIT``)."""
        rank, code = _RANK[self.verdict], EXIT_CODES[self.verdict]
        for f in self.findings:
            if f.culprit != "host" and f.severity in FINDING_EXIT and FINDING_EXIT[f.severity][0] > rank:
                rank, code = FINDING_EXIT[f.severity]
        return code

    def delta(self, name: str) -> int | None:
        return next((d.delta for d in self.log_deltas if d.name == name), None)

    def to_dict(self, *, samples: bool = False) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items()
             if k not in ("read", "files", "zones", "slow_zones", "samples", "log_deltas")}
        d["verdict"] = self.verdict.value
        d["exit_code"] = self.exit_code
        d["read"] = self.read.to_dict()
        d["ltfs"] = self.ltfs.to_dict() if self.ltfs is not None else None
        d["files"] = [{**asdict(f), "mb_s": f.mb_s} for f in self.files]
        d["zones"] = [{**asdict(z), "mb_s": z.mb_s, "drive_mb_s": z.drive_mb_s} for z in self.zones]
        d["slow_zones"] = [{**asdict(z), "mb_s": z.mb_s, "drive_mb_s": z.drive_mb_s} for z in self.slow_zones]
        d["log_deltas"] = [dict(name=x.name, before=x.before, after=x.after, delta=x.delta) for x in self.log_deltas]
        d["repositions"] = len(self.read.drive_stalls)
        d["reposition_seconds"] = sum(s.latency for s in self.read.drive_stalls)
        if samples:
            d["samples"] = [asdict(s) for s in self.samples]
        return d


def record_size(nbytes: int) -> int:
    """The record-size class of a block: the power of two at or above its length (1,000 -> 1,024)."""
    return 1 << max(0, (nbytes - 1).bit_length())


@dataclass
class _Open:
    """A zone being filled: its blocks' bytes and times so far."""

    start_byte: int
    bytes: int = 0
    seconds: float = 0.0
    drive_seconds: float = 0.0
    lag_seconds: float = 0.0
    end_byte: int = 0
    reads: int = 0
    host_seconds: float = 0.0

    def close(self, size: int) -> Zone:
        return Zone(self.start_byte, self.bytes, self.seconds, self.drive_seconds, size, self.end_byte, self.lag_seconds,
                    self.reads, self.host_seconds)


def zones_from(log: SampleLog, zone_bytes: int, stalls: list[Stall], start_t: float = 0.0) -> list[Zone]:
    """The read rate per ``zone_bytes`` of data of each record size, from the per-READ samples.

    Blocks of another record size in between do not end a zone: each size fills its own. A
    READ's share of the wall clock is the time since the previous READ ended; of the drive's
    time its latency, less what an emulated drive fell behind its model in it (this machine's)
    and what a stall the host caused (``stall_cause``) took beyond the typical READ (the
    host's); the first READ counts as a typical one (it carries the positioning after the rewind)."""
    import numpy as np

    n = len(log)
    if not n:
        return []
    t = np.frombuffer(log.t, dtype=np.float64)
    lat = np.frombuffer(log.latency, dtype=np.float64)
    sizes = np.frombuffer(log.nbytes, dtype=np.int64)
    lags = log.lags()
    lag = np.diff(np.frombuffer(lags, dtype=np.float64), prepend=lags[0]) if lags is not None else np.zeros(n)
    typical = float(np.median(lat[1:])) if n > 1 else float(lat[0])
    host_excess = np.zeros(n)
    caused = {round(s.t, 9) for s in stalls if s.cause == "host"}
    if caused:
        hit = np.isin(np.round(t, 9), list(caused))
        host_excess[hit] = np.maximum(lat[hit] - typical, 0.0)
    own = np.maximum(lat - lag - host_excess, 0.0)
    own[0] = min(own[0], typical)
    wall = np.diff(t, prepend=start_t)
    host = np.maximum(wall - lat, 0.0) + host_excess
    zones: list[Zone] = []
    open_: dict[int, _Open] = {}
    done = 0
    for i in range(n):
        nbytes = int(sizes[i])
        size = record_size(nbytes)
        z = open_.get(size)
        if z is None:
            z = open_[size] = _Open(done)
        done += nbytes
        z.bytes += nbytes
        z.seconds += float(wall[i])
        z.drive_seconds += float(own[i])
        z.lag_seconds += float(lag[i])
        z.host_seconds += float(host[i])
        z.reads += 1
        z.end_byte = done
        if z.bytes >= zone_bytes:
            zones.append(z.close(size))
            del open_[size]
    zones += [z.close(size) for size, z in open_.items()]
    return sorted(zones, key=lambda z: z.start_byte)


def slow_zones(zones: list[Zone], zone_bytes: int) -> tuple[list[Zone], float | None]:
    """The zones the drive read at less than ``SLOW_ZONE_SHARE`` of the typical full zone of their record
    size, and the typical rate of the record size holding the most data.

    Judged on the drive's own time (``drive_mb_s``), and only in zones where the host kept up and
    an emulated drive kept to its model: a host that fell behind for a while makes a zone slow on
    the wall clock, or makes the drive stop and reposition, and must not mark the customer's
    cartridge (``not_judged`` says why a zone was left out). Only full zones count: the last of
    each record size holds the tail of its data."""
    for z in zones:
        z.left_out, z.not_judged = _not_judged(z, zone_bytes)
    slow: list[Zone] = []
    typical_by_size: dict[int, tuple[int, float]] = {}
    for size in sorted({z.record_size for z in zones}):
        judged = [z for z in zones if z.record_size == size and not z.left_out]
        if len(judged) < SLOW_ZONE_MIN_ZONES:
            continue
        typical = statistics.median(z.drive_mb_s for z in judged)
        typical_by_size[size] = (sum(z.bytes for z in judged), typical)
        for z in judged:
            if z.drive_mb_s < typical * SLOW_ZONE_SHARE:
                z.typical_mb_s = typical
                slow.append(z)
    main = max(typical_by_size.values(), default=None)
    return sorted(slow, key=lambda z: z.start_byte), (main[1] if main else None)


def _not_judged(zone: Zone, zone_bytes: int) -> tuple[str, str]:
    """Why a zone says nothing about the tape: (category, words); ("", "") when it does."""
    if zone.bytes < zone_bytes:
        return "tail", "the tail of its record size's data, shorter than a zone"
    own = zone.drive_seconds
    if zone.lag_seconds > EMULATOR_LAG_SHARE * (own + zone.lag_seconds):
        return "machine", (f"this machine: the virtual drive fell {zone.lag_seconds:,.2f} s behind its own model "
                           "there (CPU or the cartridge file's storage)")
    if zone.host_share > HOST_SHARE_LIMIT:
        return "host", f"the host did not keep up there: {zone.host_share:.0%} of its time was the host's"
    if own < SLOW_ZONE_MIN_SECONDS or zone.reads < SLOW_ZONE_MIN_READS:
        return "short", (f"read in {own:,.3f} s and {zone.reads} READs: too short to tell a slow stretch from chance "
                         f"(at least {SLOW_ZONE_MIN_SECONDS:g} s and {SLOW_ZONE_MIN_READS} READs; a larger --zone)")
    return "", ""


def where(zone: Zone) -> str:
    """'4.0-5.0 MB' / '12.0-13.0 GB': where a zone lies from the beginning of the data."""
    scale, unit = (1e9, "GB") if zone.bytes >= 100 * MB else (MB, "MB")
    end = zone.end_byte or zone.start_byte + zone.bytes
    return f"{zone.start_byte / scale:,.1f}-{end / scale:,.1f} {unit}"

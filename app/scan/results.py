"""What a media scan found: layout, rates, repositions, errors, and the cartridge verdict.

The rates, latencies and pauses come from ``app.tapeperf.results.summarize``, the rule
the tape performance test uses, so a "stall" means the same thing in both. The verdict
rules are below, each with the evidence it needs; a partial scan only speaks for what it
read, and a drive without error counters is said to have none.
"""
from __future__ import annotations

import enum
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from app.events import Sample
from app.tapeperf.results import MB, LogDelta, PhaseResult
from native.units import plural

#: Corrected read errors per GB read above which the cartridge is worth watching. tapediag's own
#: threshold (no vendor publishes one); the figure itself is always shown.
CORRECTED_PER_GB_MONITOR = 1.0
#: Pauses while the host kept up (repositioning on reads) above which the cartridge is worth watching.
REPOSITIONS_MONITOR = 3
#: A zone read at less than this share of the cartridge's typical (median) zone rate is a slow zone:
#: the drive retried or crept over that stretch of tape. tapediag's threshold; every zone's rate is kept.
SLOW_ZONE_SHARE = 0.5
#: Full zones needed before any is called slow: the median of two or three says too little.
SLOW_ZONE_MIN_ZONES = 4
#: TapeAlert flags about the medium (SSC-5 Annex A): a cartridge showing them is retired.
MEDIA_FLAGS_RETIRE = {0x04: "media", 0x05: "read failure", 0x07: "media life", 0x08: "not data grade",
                      0x0F: "cartridge memory chip failure"}


class CartridgeVerdict(str, enum.Enum):
    KEEP = "keep"
    MONITOR = "monitor"
    RETIRE = "retire"
    NOT_ASSESSED = "not assessed"


@dataclass
class FileLayout:
    """One tape file (the blocks between filemarks) as the backup application wrote it."""

    index: int
    blocks: int = 0
    bytes: int = 0
    min_block: int = 0
    max_block: int = 0
    seconds: float = 0.0  # reading it, from its first block's start to its last block's end

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
    """The read rate over one stretch of the data (``ScanParams.zone_bytes``)."""

    start_byte: int
    bytes: int
    seconds: float
    #: The drive's own time: the sum of its READs' latencies, without the host's time between them.
    drive_seconds: float = 0.0

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def drive_mb_s(self) -> float:
        """The rate the drive delivered the zone at, whatever the host did between READs (else ``mb_s``)."""
        return self.bytes / self.drive_seconds / MB if self.drive_seconds > 0 else self.mb_s


@dataclass
class ScanResult:
    device: str
    params: dict[str, Any]
    vendor: str = ""
    product: str = ""
    status: str = "complete"  # complete / failed / cancelled
    error: str | None = None
    end_reason: str = ""  # "end of data", "blank cartridge", "limit reached", "cancelled", "error"
    partial: bool = False
    read: PhaseResult = field(default_factory=lambda: PhaseResult("read"))
    files: list[FileLayout] = field(default_factory=list)
    zones: list[Zone] = field(default_factory=list)
    slow_zones: list[Zone] = field(default_factory=list)  # read well below the typical zone (``slow_zones``)
    typical_zone_mb_s: float | None = None  # the median full zone's rate they are compared with
    max_block_read: int = 0  # the buffer each READ asked for
    oversize_blocks: int = 0  # blocks longer than that buffer (their size is unknown)
    settings: str = ""  # what was changed to read and whether it was put back
    log_deltas: list[LogDelta] = field(default_factory=list)
    log_notes: list[str] = field(default_factory=list)
    tapealert: list[str] | None = None
    drive_ratio: float | None = None
    drive_ratio_note: str = ""
    cartridge: dict[str, Any] = field(default_factory=dict)  # MAM figures (barcode, loads, ...)
    verdict: CartridgeVerdict = CartridgeVerdict.NOT_ASSESSED
    reasons: list[str] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list, repr=False)

    @property
    def filemarks(self) -> int:
        return self.read.filemarks

    def delta(self, name: str) -> int | None:
        return next((d.delta for d in self.log_deltas if d.name == name), None)

    def to_dict(self, *, samples: bool = False) -> dict[str, Any]:
        d = {k: v for k, v in asdict(self).items()
             if k not in ("read", "files", "zones", "slow_zones", "samples", "log_deltas")}
        d["verdict"] = self.verdict.value
        d["read"] = self.read.to_dict()
        d["files"] = [{**asdict(f), "mb_s": f.mb_s} for f in self.files]
        d["zones"] = [{**asdict(z), "mb_s": z.mb_s, "drive_mb_s": z.drive_mb_s} for z in self.zones]
        d["slow_zones"] = [{**asdict(z), "mb_s": z.mb_s, "drive_mb_s": z.drive_mb_s} for z in self.slow_zones]
        d["log_deltas"] = [dict(name=x.name, before=x.before, after=x.after, delta=x.delta) for x in self.log_deltas]
        d["repositions"] = len(self.read.stalls)
        d["reposition_seconds"] = sum(s.latency for s in self.read.stalls)
        if samples:
            d["samples"] = [asdict(s) for s in self.samples]
        return d


def zones_from(samples: list[Sample], zone_bytes: int, start_t: float) -> list[Zone]:
    """The read rate per ``zone_bytes`` of data, from the per-READ samples."""
    zones: list[Zone] = []
    zone_start_t, zone_start_byte, done, in_zone, busy = start_t, 0, 0, 0, 0.0
    for s in samples:
        done += s.nbytes
        in_zone += s.nbytes
        busy += s.latency
        if in_zone >= zone_bytes:
            zones.append(Zone(zone_start_byte, in_zone, s.t - zone_start_t, busy))
            zone_start_t, zone_start_byte, in_zone, busy = s.t, done, 0, 0.0
    if in_zone:
        zones.append(Zone(zone_start_byte, in_zone, samples[-1].t - zone_start_t, busy))
    return zones


def slow_zones(zones: list[Zone], zone_bytes: int) -> tuple[list[Zone], float | None]:
    """The zones the drive read at less than ``SLOW_ZONE_SHARE`` of its median full zone, and that median.

    Judged on the drive's own time (``drive_mb_s``): a host that fell behind for a while
    makes a zone slow on the wall clock, not on the drive, and must not mark the customer's
    cartridge. Only full zones count: the last one holds the tail of the data."""
    full = [z for z in zones if z.bytes >= zone_bytes]
    if len(full) < SLOW_ZONE_MIN_ZONES:
        return [], None
    typical = statistics.median(z.drive_mb_s for z in full)
    return [z for z in full if z.drive_mb_s < typical * SLOW_ZONE_SHARE], typical


def where(zone: Zone) -> str:
    """'4.0-5.0 MB' / '12.0-13.0 GB': where a zone lies from the beginning of the data."""
    scale, unit = (1e9, "GB") if zone.bytes >= 100 * MB else (MB, "MB")
    return f"{zone.start_byte / scale:,.1f}-{(zone.start_byte + zone.bytes) / scale:,.1f} {unit}"


def judge(result: ScanResult) -> None:
    """The cartridge verdict (keep / monitor / retire / not assessed) with its reasons."""
    reasons: list[tuple[CartridgeVerdict, str]] = []
    retire, monitor = CartridgeVerdict.RETIRE, CartridgeVerdict.MONITOR
    if result.end_reason == "error" and result.error:
        reasons.append((retire, f"the read stopped with an error after {result.read.bytes / MB:,.0f} MB: "
                                f"{result.error} (copy what can be read to another cartridge first)"))
    for flag in result.tapealert or []:
        code = int(flag[:2], 16)
        if code in MEDIA_FLAGS_RETIRE:
            reasons.append((retire, f"TapeAlert {flag}"))
    uncorrected = result.delta("read errors uncorrected")
    if uncorrected:
        reasons.append((retire, f"{plural(uncorrected, 'uncorrected read error')} during the scan"))
    corrected = result.delta("read errors corrected")
    gb = result.read.bytes / 1e9
    if corrected and gb > 0 and corrected / gb > CORRECTED_PER_GB_MONITOR:
        reasons.append((monitor, f"{corrected} corrected read errors in {gb:,.1f} GB ({corrected / gb:,.1f} per GB)"))
    if result.slow_zones and result.typical_zone_mb_s:
        n, slow = len(result.slow_zones), result.slow_zones
        at = ", ".join(f"{where(z)} at {z.drive_mb_s:,.1f} MB/s" for z in slow[:6]) + (" ..." if n > 6 else "")
        reasons.append((monitor, f"{plural(n, 'slow zone')}: the drive read {at}, against "
                                 f"{result.typical_zone_mb_s:,.1f} MB/s in the cartridge's typical zone (read retries "
                                 "or a worn stretch of tape there; the drive's own time, not the host's): clean the "
                                 "drive and scan again; if it stays, copy the data to another cartridge"))
    stalls = result.read.stalls
    if len(stalls) > REPOSITIONS_MONITOR:
        reasons.append((monitor, f"the drive repositioned {len(stalls)} times while the host kept up "
                                 f"(total {sum(s.latency for s in stalls):,.1f} s): clean the drive and scan again; "
                                 "if it persists the cartridge reads poorly"))
    if reasons:
        worst = retire if any(v is retire for v, _ in reasons) else monitor
        result.verdict, result.reasons = worst, [r for _, r in reasons]
        return
    if result.end_reason in ("blank cartridge",):
        result.verdict, result.reasons = CartridgeVerdict.NOT_ASSESSED, ["the cartridge holds no data to read"]
        return
    if result.end_reason in ("cancelled",):
        result.verdict, result.reasons = CartridgeVerdict.NOT_ASSESSED, ["the scan was cancelled before the end"]
        return
    counters = corrected is not None or uncorrected is not None
    what = "everything up to end of data" if not result.partial else f"the first {result.read.bytes / MB:,.0f} MB (partial scan)"
    reasons_keep = [f"read {what} without a read error"]
    reasons_keep.append("no corrected or uncorrected read errors counted" if counters
                        else "the drive reports no read error counters: corrected errors are unknown")
    result.verdict, result.reasons = CartridgeVerdict.KEEP, reasons_keep

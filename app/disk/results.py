"""Results of the disk tests: one shape for create-data and read-data.

The white paper's rule for parallel work is applied everywhere: the rate of a run is
its total volume divided by the time of its slowest stream ("a backup application
does not finish until the last byte is written"), so a stream that lags is never
averaged away.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from app.disk.probe import RawProbe

MB = 1e6  # decimal MB/s, as the white paper's figures


@dataclass
class LatencyStats:
    """Per-file latency (open/create + write or read + close), milliseconds."""

    count: int = 0
    mean_ms: float = 0.0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0

    @classmethod
    def from_ns(cls, latencies_ns: np.ndarray) -> "LatencyStats":
        if latencies_ns.size == 0:
            return cls()
        ms = latencies_ns.astype(np.float64) / 1e6
        p50, p90, p99 = np.percentile(ms, [50, 90, 99])
        return cls(int(ms.size), float(ms.mean()), float(p50), float(p90), float(p99), float(ms.max()))


@dataclass
class StreamResult:
    """What one stream did; ``seconds`` runs from the common start to this stream's end."""

    stream: int
    files: int
    bytes: int
    seconds: float
    errors: int = 0

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def files_s(self) -> float:
        return self.files / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "mb_s": round(self.mb_s, 3), "files_s": round(self.files_s, 1)}


@dataclass
class DiskResult:
    """Fields both disk tests report. ``status``: complete, cancelled or stopped (an
    error such as a full disk ended the run early; ``error`` says which)."""

    kind: str
    target: str
    status: str
    streams: list[StreamResult]
    latency: LatencyStats
    params: dict[str, Any]
    native: bool
    error: str | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def total_files(self) -> int:
        return sum(s.files for s in self.streams)

    @property
    def total_bytes(self) -> int:
        return sum(s.bytes for s in self.streams)

    @property
    def seconds(self) -> float:
        """The slowest stream's time: the white paper's divisor."""
        return max((s.seconds for s in self.streams), default=0.0)

    @property
    def mb_s(self) -> float:
        return self.total_bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def files_s(self) -> float:
        return self.total_files / self.seconds if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the one form the CLI (--json), the history and reports share."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if key == "streams":
                out[key] = [s.to_dict() for s in value]
            elif hasattr(value, "__dataclass_fields__"):
                out[key] = asdict(value)
            elif isinstance(value, list):
                out[key] = [asdict(v) if hasattr(v, "__dataclass_fields__") else v for v in value]
            else:
                out[key] = value
        out.update(
            total_files=self.total_files,
            total_bytes=self.total_bytes,
            seconds=round(self.seconds, 6),
            mb_s=round(self.mb_s, 3),
            files_s=round(self.files_s, 1),
        )
        return out


@dataclass
class CreateDataResult(DiskResult):
    dirs_created: int = 0
    pattern: str = ""
    predicted_ratio: float | None = None
    fsync: str = "end"
    manifest: str = ""
    run_root: str = ""
    flush_seconds: float = 0.0  # fsync "end": the longest final flush of a stream (in its time)
    cleanup: str = ""  # what --cleanup removed after the run, as a sentence; "" when it was not asked


@dataclass
class TreeWalk:
    """The timed first pass over the tree (the white paper's "first tree walk")."""

    files: int = 0
    dirs: int = 0
    bytes: int = 0
    seconds: float = 0.0
    skipped_symlinks: int = 0
    skipped_other: int = 0

    @property
    def files_s(self) -> float:
        return self.files / self.seconds if self.seconds > 0 else 0.0


@dataclass
class Unreadable:
    path: str
    error: str


@dataclass
class ReadDataResult(DiskResult):
    tree_walk: TreeWalk = field(default_factory=TreeWalk)
    unreadable: list[Unreadable] = field(default_factory=list)
    unreadable_count: int = 0
    buffer_size: int = 0
    direct: bool = False
    evict: bool = True
    #: the same files read again with O_DIRECT after the run (``app.disk.probe``); None when not probed
    raw_probe: RawProbe | None = None
    #: why there is no probe figure ("" when there is one, or when it was not asked for)
    raw_probe_note: str = ""
    #: the device's raw rate as the user gave it (MB/s), None when not given
    device_mb_s: float | None = None

    @property
    def listed_at_most(self) -> int:
        """How many unreadable files the result lists by name (the parameters' ``max_listed_unreadable``)."""
        return int(self.params.get("max_listed_unreadable", 1000))

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        out["tree_walk"] = {**asdict(self.tree_walk), "files_s": round(self.tree_walk.files_s, 1)}
        out["raw_probe"] = self.raw_probe.to_dict() if self.raw_probe else None
        return out

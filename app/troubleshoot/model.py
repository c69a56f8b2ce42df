"""What goes into a troubleshooting session and what comes out, as typed dataclasses.

Everything has a JSON-safe ``to_dict()`` (and inputs a ``from_dict``) so a session is
stored in the history, shown by the GUI and rendered in a report from one form.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

# Component keys used in tables, facts and rules; labels are what technicians read.
COMPONENT_LABELS = {
    "tape": "Tape",
    "link": "Connection to the tape drive",
    "disk": "File system",
    "network": "Network",
    "application": "Backup application",
}

#: What a recorded tape run says limited it (``app.tapeperf.results.Limiter.who``) and what that makes its figure:
#: only "drive" (or a figure typed in) measures the drive; "link" measures the connection to it; the others say
#: what this host fed the drive (or too little was streamed to tell), so they can never name the drive.
TAPE_LIMITS = {"drive": "tape", "link": "link", "host": None, "emulator": None, "not steady": None}
#: Those limits in a few words, where a table row shows the figure.
LIMIT_WORDS = {"host": "the host, not the drive", "emulator": "this machine, not the (virtual) drive",
               "not steady": "a run too short to judge the drive", "link": "the connection to the drive"}


@dataclass(frozen=True)
class Figure:
    """One measured rate (decimal MB/s) and where it came from; a recorded tape run's figure also says what limited
    it (``limited_by``: "drive", "link", "host", "emulator", "not steady"; "" for a figure typed in)."""

    mb_s: float
    source: str = "entered"  # "entered", or "run 12" when taken from the history
    run_id: int | None = None
    limited_by: str = ""
    limited_why: str = ""

    @property
    def component(self) -> str | None:
        """What the figure measures as a tape figure: "tape" (the drive), "link", or None (not the drive's)."""
        return TAPE_LIMITS.get(self.limited_by, "tape") if self.limited_by else "tape"


@dataclass(frozen=True)
class Measurements:
    """The white paper's component tests (steps 1-4)."""

    tape_write: Figure | None = None
    tape_read: Figure | None = None
    disk_read_single: Figure | None = None  # the backup source, one reader
    disk_read_parallel: Figure | None = None  # several readers at once
    disk_write_single: Figure | None = None  # the restore target
    disk_write_parallel: Figure | None = None
    #: The network as ``net-test`` measured it (a recorded run): client -> server is the backup's way, server ->
    #: client the restore's. It outranks a link's nominal rate and a rate typed in (``Workload.network_mb_s``).
    network_backup: Figure | None = None
    network_restore: Figure | None = None


@dataclass(frozen=True)
class Workload:
    """What the backup application did (step 5), as the technician reports it."""

    backup_mb_s: float | None = None
    restore_mb_s: float | None = None
    streams: int | None = None
    block_size: int | None = None  # bytes
    software_compression: bool | None = None
    link: str | None = None  # None: drive attached to the host that holds the data
    network_mb_s: float | None = None  # a network rate typed in (iperf...), overrides the link's practical rate
    small_files: bool | None = None
    file_count: int | None = None
    avg_file_kb: float | None = None
    application: str | None = None  # "Data Protector", "NetWorker"... for the report
    # The operating system of the host the data is on: the white paper's advice differs by OS
    # (Table 6: on Windows millions of small files restore best in one stream). None: not given.
    os: str | None = None


@dataclass(frozen=True)
class DriveContext:
    generation: int | None = None
    half_height: bool = False
    compression_ratio: float | None = None  # of the customer's data; None: the generation's nominal ratio
    description: str | None = None  # vendor / product / serial, for the report
    serial: str | None = None


@dataclass(frozen=True)
class TroubleshootInput:
    measurements: Measurements = field(default_factory=Measurements)
    workload: Workload = field(default_factory=Workload)
    drive: DriveContext = field(default_factory=DriveContext)

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> "TroubleshootInput":
        m = data.get("measurements") or {}
        return cls(
            measurements=Measurements(**{f.name: Figure(**m[f.name]) if m.get(f.name) else None
                                         for f in fields(Measurements)}),
            workload=Workload(**{k: v for k, v in (data.get("workload") or {}).items()
                                 if k in {f.name for f in fields(Workload)}}),
            drive=DriveContext(**{k: v for k, v in (data.get("drive") or {}).items()
                                  if k in {f.name for f in fields(DriveContext)}}),
        )


@dataclass(frozen=True)
class TableRow:
    """One line of the bottleneck table: Test · Performance (MB/s) · Bottleneck?"""

    test: str
    mb_s: float | None
    component: str  # key of COMPONENT_LABELS
    bottleneck: bool
    source: str = ""

    @property
    def bottleneck_text(self) -> str:
        return f"Yes ({COMPONENT_LABELS[self.component]})" if self.bottleneck else "No"

    def to_dict(self) -> dict:
        return {**asdict(self), "bottleneck_text": self.bottleneck_text}


@dataclass(frozen=True)
class BottleneckTable:
    """The table and verdict for one direction (backup or restore)."""

    direction: str  # "backup" | "restore"
    rows: tuple[TableRow, ...]
    bottleneck: str | None  # component key, None when nothing could be decided
    verdict: str  # one sentence for the technician and the customer
    achieved_mb_s: float | None
    limit_mb_s: float | None  # the slowest component's rate
    share: float | None  # achieved / limit

    def to_dict(self) -> dict:
        out = asdict(self)
        out["rows"] = [r.to_dict() for r in self.rows]
        out["bottleneck_label"] = COMPONENT_LABELS.get(self.bottleneck or "", None)
        return out


@dataclass(frozen=True)
class Recommendation:
    id: str
    severity: str  # "high", "medium", "info"
    title: str
    advice: str
    reason: str
    source: str

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Diagnosis:
    input: TroubleshootInput
    tables: tuple[BottleneckTable, ...]
    recommendations: tuple[Recommendation, ...]
    facts: dict[str, Any]
    notes: tuple[str, ...] = ()

    @property
    def verdict(self) -> str:
        """All directions' verdicts in one line (history listing, report cover)."""
        return " ".join(t.verdict for t in self.tables) or "Not enough figures to name a bottleneck."

    def table(self, direction: str) -> BottleneckTable | None:
        return next((t for t in self.tables if t.direction == direction), None)

    def to_dict(self) -> dict:
        return {
            "input": self.input.to_dict(),
            "tables": [t.to_dict() for t in self.tables],
            "recommendations": [r.to_dict() for r in self.recommendations],
            "facts": dict(self.facts),
            "notes": list(self.notes),
            "verdict": self.verdict,
        }

"""The report as plain data: what a PDF (or any other renderer) shows, already decided.

The renderer (``ui/pdf.py``) only lays this out; every choice of *what* to say — which
figures are headline figures, how a value is printed, which runs are plotted together
— is made here, without Qt, so it is testable and the GUI can show the same model.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from app.compare.model import Comparison


@dataclass(frozen=True)
class Cover:
    title: str
    customer: str = ""
    site: str = ""
    technician: str = ""
    ticket: str = ""
    date: str = ""  # ISO date the report was made (UTC)
    tool_version: str = ""
    summary: str = ""  # the verdicts in one paragraph; page 1 prints it when no run gives a verdict of its own
    tested: str = ""  # when the runs ran: "2026-11-25 13:30 UTC" or a range
    host: str = ""  # the machine the runs ran on: only when the technician asks for it (``--host-name``), else ""
    recorded_with: tuple[str, ...] = ()  # the tapediag versions that recorded the runs, when not only this one


@dataclass(frozen=True)
class Headline:
    """One verdict on page 1, in words and colour with what to do (a run kind's ``Finding``)."""

    run_id: int
    topic: str  # "Drive health", "Tape write rate", "Backup bottleneck"
    words: str  # the verdict with its figure and unit
    tone: str  # "good", "warn", "bad" or "none" (app.runs.TONES): the colour
    detail: str = ""  # why
    action: str = ""  # what to do


@dataclass(frozen=True)
class Field:
    """A labelled, already formatted value (``value`` is what is printed)."""

    label: str
    value: str


@dataclass(frozen=True)
class DeviceSection:
    device: str  # the device string the runs used
    identity: tuple[Field, ...]  # vendor, product, revision, serial, generation...
    health: str  # one-line verdict ("Healthy", "Attention: ...") or "" when no drive-info run
    health_details: tuple[Field, ...] = ()
    alerts: tuple[str, ...] = ()  # TapeAlert flags or warnings, as sentences

    @property
    def line(self) -> str:
        """Page 1's words for the device: "virtual:lto9: HPE Ultrium 9-SCSI, serial TDV9..., firmware V9A0,
        cartridge TD0001L9" and the LTFS volume it holds (what a support case quotes; "not recorded" where no run
        recorded it)."""
        fields = {f.label: f.value for f in self.identity}
        what = " ".join(fields[k] for k in ("Vendor", "Product") if k in fields and fields[k] != "not recorded")
        parts = [what or fields.get("Drive", "")] + [f"{word} {fields[k]}" for k, word in (
            ("Serial", "serial"), ("Firmware", "firmware"), ("Cartridge barcode", "cartridge")) if k in fields]
        parts += [fields["LTFS volume"]] if "LTFS volume" in fields else []  # the cartridge holds a volume: named
        text = ", ".join(p for p in parts if p)
        return f"{self.device}: {text}" if text else self.device


@dataclass(frozen=True)
class SeriesData:
    """One line of a throughput plot: (t seconds, MB/s) points."""

    label: str
    points: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class Shaded:
    """A stretch of a plot's time axis drawn shaded with its words: a write's closing flush (``RunKind.stretches``)."""

    start: float  # seconds
    end: float
    label: str


@dataclass(frozen=True)
class Plot:
    """A throughput plot. ``reference`` is the yardstick the run's verdict judges against ("800 MB/s possible
    for 2:1 data on LTO-9"), drawn as a line; ``y_top`` is the scale's top (``app.report.plots.scale_top``):
    a reading above it is marked at the top edge, never allowed to squash the rest. ``shaded`` stretches carry
    no samples but belong to the run (a write's flush); ``notes`` are printed under the plot (why its curve and
    the verdict's figure differ)."""

    title: str
    series: tuple[SeriesData, ...]
    x_label: str = "Time (s)"
    y_label: str = "Throughput (MB/s)"
    reference: float | None = None  # MB/s
    reference_label: str = ""
    y_top: float | None = None  # MB/s; None: the highest reading
    shaded: tuple[Shaded, ...] = ()
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RunSection:
    run_id: int
    kind: str
    title: str  # "Tape performance — virtual:lto9"
    device: str
    status: str
    started_at: str
    finished_at: str
    headline: tuple[Field, ...]  # the MB/s figures and the like
    parameters: tuple[Field, ...]
    results: tuple[Field, ...]
    messages: tuple[str, ...] = ()
    plot: Plot | None = None


@dataclass(frozen=True)
class BottleneckRow:
    test: str
    mb_s: str
    bottleneck: str  # "Yes (Tape)" / "No"
    source: str
    is_bottleneck: bool
    component: str = ""  # "tape", "disk", "network", "application"
    value: float | None = None  # the rate in MB/s, for the bar chart


@dataclass(frozen=True)
class Bar:
    label: str
    value: float  # MB/s
    text: str  # the value as printed beside the bar ("359.9 MB/s")
    is_bottleneck: bool = False


@dataclass(frozen=True)
class BarChart:
    """Each component's rate against what the application achieved (the reference line):
    a bar that ends left of the line would have held the application back."""

    title: str
    bars: tuple[Bar, ...]
    reference_label: str = ""
    reference: float | None = None


@dataclass(frozen=True)
class BottleneckSection:
    run_id: int
    direction: str  # "Backup" / "Restore"
    rows: tuple[BottleneckRow, ...]
    verdict: str


@dataclass(frozen=True)
class RecommendationItem:
    severity: str
    title: str
    advice: str
    reason: str
    source: str


@dataclass(frozen=True)
class AppendixBlock:
    title: str
    rows: tuple[Field, ...]


@dataclass(frozen=True)
class Report:
    cover: Cover
    devices: tuple[DeviceSection, ...] = ()
    summary_rows: tuple[tuple[str, str, str, str], ...] = ()  # run, test, device, when
    bottlenecks: tuple[BottleneckSection, ...] = ()
    bar_charts: tuple[BarChart, ...] = ()  # one per bottleneck section
    headlines: tuple[Headline, ...] = ()  # page 1: every verdict in words, colour and action
    verdict: str = ""
    recommendations: tuple[RecommendationItem, ...] = ()
    notes: tuple[str, ...] = ()
    runs: tuple[RunSection, ...] = ()
    appendix: tuple[AppendixBlock, ...] = field(default_factory=tuple)
    #: Two runs before and after (``tapediag compare ... -o``): their comparison, on page 1 before the verdicts.
    comparison: Comparison | None = None

    def to_dict(self) -> dict:
        return asdict(self)

"""History that separates drive from media (issue 25 §4).

Every run recorded on a drive is a *visit* of a cartridge to a drive (``app.history.keys``: the
drive's serial, the cartridge's barcode and MAM serial). One visit cannot tell a worn cartridge
from a worn drive; several can: a cartridge that erred or read slowly in two different drives
points at the cartridge, a drive that erred on several different cartridges points at the drive.
``media_history`` gathers a run's earlier visits of the same cartridge and the same drive, the
trend of corrected errors per GB across the cartridge's visits, and says which part the visits
point at. The counts that decide are data (``resources/rules/drive-health.json``, "history");
a visit "erred" by the thresholds the media scan uses (``app.scan.results``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

from app.history.figures import StoredVisit, VisitFigures
from app.history.keys import RunKeys
from app.scan.thresholds import CORRECTED_PER_GB_MONITOR
from native.errors import InvalidParameter
from native.units import plural

if TYPE_CHECKING:
    from app.history import History

#: The run kinds that put a cartridge through a drive (a visit) and what each is called in a sentence.
VISIT_KINDS = {"drive-info": "drive information read", "media-scan": "scan", "assessment": "assessment",
               "tape-perf": "tape test"}


@dataclass(frozen=True)
class Visit:
    """One run of a cartridge in a drive, with what it saw of errors."""

    run_id: int
    kind: str
    started_at: str
    drive_serial: str | None
    barcode: str | None
    mam_serial: str | None
    gb: float | None  # data moved (10^9 bytes)
    corrected: int | None
    uncorrected: int | None
    slow: bool  # slow zones in a scan
    erred: bool
    #: What pointed at the tape in a scan (``app.scan.rules``: "slow zones", "repositions"); () otherwise, and for
    #: scans recorded before they were kept (their verdicts may have been the host's noise).
    signals: tuple[str, ...] = ()

    @property
    def corrected_per_gb(self) -> float | None:
        if self.corrected is None or not self.gb:
            return None
        return self.corrected / self.gb

    @property
    def cartridge(self) -> str | None:
        return self.mam_serial or self.barcode


def visit(row: StoredVisit) -> Visit:
    """A recorded run as a visit, from the figures stored with it (``app.history.figures``; a run that recorded
    none, e.g. one that ended before its result, is a visit with no figures). It erred when the drive counted an
    uncorrected error, more corrected errors per GB than the media scan's threshold, or a scan found slow zones
    or stopped on an error."""
    seen = row.figures or VisitFigures()
    per_gb = seen.corrected / seen.gb if seen.corrected is not None and seen.gb else None
    erred = (bool(seen.uncorrected) or (per_gb is not None and per_gb > CORRECTED_PER_GB_MONITOR) or seen.slow
             or seen.stopped)
    signals = seen.signals if row.status == "complete" else ()  # a scan cut short settles nothing about the tape
    keys = row.keys
    return Visit(row.run_id, row.kind, row.started_at, keys.drive_serial, keys.barcode, keys.mam_serial, seen.gb,
                 seen.corrected, seen.uncorrected, seen.slow, erred, signals)


@dataclass(frozen=True)
class Prior:
    """The visits recorded before a run: its cartridge's (in any drive) and its drive's with other cartridges,
    oldest first. What a run's own verdict may lean on (``app.scan.rules``) and what ``MediaHistory`` shows."""

    cartridge: tuple[Visit, ...] = ()
    drive: tuple[Visit, ...] = ()

    def cartridge_erred_elsewhere(self, drive_serial: str | None) -> list[str]:
        """The other drives this cartridge erred in."""
        return sorted({v.drive_serial for v in self.cartridge if v.erred and v.drive_serial
                       and v.drive_serial != drive_serial})

    def drive_erred_on_others(self) -> list[str]:
        """The other cartridges this drive erred on."""
        return sorted({c for v in self.drive if v.erred and (c := v.cartridge)})


def prior(history: "History", keys: RunKeys, *, before: int | None = None) -> Prior:
    """The visits of ``keys``' cartridge and drive recorded before run ``before`` (all, when None)."""
    earlier = [visit(row) for row in history.visit_rows(keys, VISIT_KINDS, before=before)]
    cart = keys.mam_serial or keys.barcode
    return Prior(tuple(v for v in earlier if cart and v.cartridge == cart),
                 tuple(v for v in earlier if keys.drive_serial and v.drive_serial == keys.drive_serial
                       and v.cartridge != cart))


def prior_visits(keys: RunKeys) -> Prior:
    """``prior`` from the default history, for a run about to be judged; no visits when it cannot be read
    (a verdict must not fail for want of its history)."""
    from app.history import History, HistoryError

    if keys == RunKeys():
        return Prior()
    try:
        with History.open() as hist:
            return prior(hist, keys)
    except (HistoryError, InvalidParameter):
        return Prior()


def _rules() -> dict[str, Any]:
    from app.health_rules import document

    return dict(document()["history"])


def needed(what: str) -> int:
    """How many different drives ("cartridge_erred_in_drives") or cartridges ("drive_erred_on_cartridges")
    must have erred, this run included, before the visits point at one part (the rules file)."""
    return int(_rules()[what])


@dataclass(frozen=True)
class MediaHistory:
    """A run's cartridge and drive across their visits, and what the visits point at."""

    keys: RunKeys
    current: Visit | None
    cartridge_visits: tuple[Visit, ...]  # earlier visits of this cartridge (any drive), oldest first
    drive_visits: tuple[Visit, ...]  # earlier visits to this drive (other cartridges), oldest first
    points_at: str  # "cartridge", "drive", "drive and cartridge" or "" (nothing to say)
    why: str

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["trend"] = [{"run_id": v.run_id, "corrected_per_gb": v.corrected_per_gb} for v in self.trend]
        out["lines"] = self.lines()
        return out

    @property
    def trend(self) -> tuple[Visit, ...]:
        """The cartridge's visits that counted corrected errors, this run last."""
        visits = self.cartridge_visits + ((self.current,) if self.current is not None else ())
        return tuple(v for v in visits if v.corrected_per_gb is not None)

    def lines(self) -> list[str]:
        """What a technician reads: this cartridge's visits, this drive's, the trend, what it points at."""
        out = []
        name = self.keys.barcode or self.keys.mam_serial
        if name:
            out.append(f"this cartridge ({_cartridge_name(self.keys)}): {_summary(self.cartridge_visits, 'drive')}")
        if self.keys.drive_serial:
            out.append(f"this drive ({self.keys.drive_serial}): {_summary(self.drive_visits, 'cartridge')}")
        if len(self.trend) >= 2:
            steps = " -> ".join(f"{v.corrected_per_gb:,.1f} (run {v.run_id})" for v in self.trend)
            out.append(f"corrected errors per GB on this cartridge, visit by visit: {steps}")
        if self.points_at:
            out.append(f"points at the {self.points_at}: {self.why}")
        return out


def _cartridge_name(keys: RunKeys) -> str:
    if keys.barcode and keys.mam_serial:
        return f"{keys.barcode}, MAM serial {keys.mam_serial}"
    return keys.barcode or keys.mam_serial or "?"


def _summary(visits: tuple[Visit, ...], other: str) -> str:
    """'2 earlier visits (2 scans), both clean, in drive HU01' / '3 earlier visits ..., 1 with errors (run 7)'."""
    if not visits:
        return "no earlier visit in this history"
    kinds: dict[str, int] = {}
    for v in visits:
        kinds[v.kind] = kinds.get(v.kind, 0) + 1
    what = ", ".join(plural(n, VISIT_KINDS.get(k, k)) for k, n in kinds.items())
    erred = [v for v in visits if v.erred]
    n = len(visits)
    state = (("clean" if n == 1 else "both clean" if n == 2 else "all clean") if not erred
             else f"{len(erred)} with errors (run{'s' if len(erred) > 1 else ''} {', '.join(str(v.run_id) for v in erred)})")
    where = sorted({(v.drive_serial if other == "drive" else v.barcode or v.mam_serial) or "?" for v in visits})
    label = other if len(where) == 1 else f"{other}s"
    return f"{plural(n, 'earlier visit')} ({what}), {state}, {'in' if other == 'drive' else 'with'} {label} {', '.join(where)}"


def _attribution(current: Visit | None, cartridge: tuple[Visit, ...], drive: tuple[Visit, ...]) -> tuple[str, str]:
    """Which part the visits point at: the cartridge when it erred in enough different drives, the drive
    when it erred on enough different cartridges (counts from the rules file), this run included."""
    rules = _rules()
    here = (current,) if current is not None and current.erred else ()
    media_drives = sorted({v.drive_serial for v in cartridge + here if v.erred and v.drive_serial})
    drive_carts = sorted({c for v in drive + here if v.erred and (c := v.cartridge)})
    media = len(media_drives) >= rules["cartridge_erred_in_drives"]
    worn_drive = len(drive_carts) >= rules["drive_erred_on_cartridges"]
    reasons = []
    if media:
        reasons.append(f"the cartridge erred in {len(media_drives)} different drives ({', '.join(media_drives)})")
    if worn_drive:
        reasons.append(f"the drive erred on {len(drive_carts)} different cartridges ({', '.join(drive_carts)})")
    who = "drive and cartridge" if media and worn_drive else "cartridge" if media else "drive" if worn_drive else ""
    return who, "; ".join(reasons)


def media_history(history: "History", run_id: int) -> MediaHistory:
    """Run ``run_id``'s cartridge and drive across the runs recorded before it."""
    row = history.visit_row(run_id)
    keys = row.keys
    current = visit(row) if row.kind in VISIT_KINDS else None
    before = prior(history, keys, before=run_id)
    who, why = _attribution(current, before.cartridge, before.drive)
    return MediaHistory(keys, current, before.cartridge, before.drive, who, why)


def for_run(run_id: int, history: "History | None" = None) -> MediaHistory | None:
    """``media_history`` of a run just recorded, from the default history unless one is given; None when
    the history cannot be read (the run's own result is printed all the same)."""
    from app.history import History, HistoryError

    try:
        if history is not None:
            return media_history(history, run_id)
        with History.open() as hist:
            return media_history(hist, run_id)
    except (HistoryError, InvalidParameter):
        return None


TITLE = "History of this drive and cartridge"


def text(found: MediaHistory | None) -> str:
    """The block the CLI prints after a run's result (``info``, ``scan``, ``assess``, ``tape-perf``)."""
    lines = found.lines() if found is not None else []
    return "\n".join([TITLE] + [f"  {line}" for line in lines]) + "\n" if lines else ""


def lines_from_dict(data: Any) -> list[str]:
    """The lines of a ``MediaHistory.to_dict()`` (what the GUI's worker hands back)."""
    lines = data.get("lines") if isinstance(data, dict) else None
    return [str(line) for line in lines] if isinstance(lines, list) else []

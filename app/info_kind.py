"""Drive information as a run kind (``drive-info``): every ``tapediag info`` and every ``tapediag ticket`` is
one, its results exactly ``DriveInfo.to_dict()`` (a ticket's also its raw pages).

Queries only: the drive is not claimed (``Target.QUERIES``); the engine opens it before the run is
recorded, so a device that cannot be reached leaves no run, and one that drops out while being
queried leaves a ``failed`` run with the error. The words: the health verdict and what to do
(``HEALTH``), the rows the device section does not show already, the text ``info`` prints
(``app.info_view``).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, cast

from app.alerts import HEALTH
from app.cancel import CancelToken
from app.execute import Recorded, execute
from app.history import History
from app.info import DriveInfo, gather
from app.info.stored import block_mode
from app.info_view import render_text
from app.history.figures import VisitFigures
from app.runs.kind import Command, Finding, RunContext, RunKind, Rows, Target
from app.runs.typed import from_dict
from app.runs.words import count, date, density, mb_s, volume
from app.drive import Supported, TapeDrive

if TYPE_CHECKING:  # in annotations only (app.sink)
    from app.events import EventSink


@dataclass(frozen=True)
class DriveInfoParams:
    """``ticket``: also write the support ticket (``app.ticket``) to this path: ``tapediag ticket``."""

    ticket: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"ticket": self.ticket} if self.ticket is not None else {}


# -- the words ------------------------------------------------------------------------------------
def headline(info: DriveInfo) -> str:
    serial = info.identity.serial
    return ", ".join(p for p in (info.health.verdict.value, f"serial {serial}" if serial else "") if p)


def reasons(info: DriveInfo) -> list[str]:
    """The health verdict's reasons, each judged one with its culprit (what the report and the GUI say)."""
    culprits = {f.text: f.culprit for f in info.health.findings if f.level.value != "Note"}
    return [f"{r} (culprit: {culprits[r]})" if r in culprits else r for r in info.health.reasons]


def findings(info: DriveInfo) -> list[Finding]:
    health = info.health
    tone, action = HEALTH.get(health.verdict.value, ("none", ""))
    # Each finding names its culprit, and the findings' own actions replace the generic one:
    # "clean the drive" is the wrong advice for a bad SAS cable (issue 25).
    judged = [f for f in health.findings if f.level.value != "Note"]
    said = reasons(info)
    actions = list(dict.fromkeys(f.action for f in judged if f.action))
    if actions:
        action = " ".join(actions)
    detail = "; ".join(said) if said else ("TapeAlert and the error counters are clean" if tone == "good" else "")
    return [Finding("Drive health", health.verdict.value, tone, detail, action)]


def _cartridge_rows(info: DriveInfo) -> Rows:
    cart = info.cartridge.value
    if cart is None:
        return []
    made = " ".join(p for p in (f"made {date(cart.manufacture_date)}" if cart.manufacture_date else "",
                                f"by {cart.manufacturer}" if cart.manufacturer else "") if p)
    loads = count(cart.load_count, "load") if cart.load_count is not None else ""
    rows = [("Cartridge", ", ".join(p for p in (cart.barcode or "no barcode", cart.medium_type,
                                                density(cart.density_code), made, loads) if p))]
    if cart.maximum_capacity_mib is not None:
        rows.append(("Cartridge capacity", f"{volume(cart.maximum_capacity_mib * 2**20)}, "
                                           f"{volume((cart.remaining_capacity_mib or 0) * 2**20)} free"))
    if cart.mb_written_total is not None:  # MAM 0220h/0221h count MiB
        rows.append(("Cartridge life", f"{volume(cart.mb_written_total * 2**20)} written, "
                                       f"{volume((cart.mb_read_total or 0) * 2**20)} read"))
    return rows


#: The drive's life figures (log page 14h) the report names, in this order, each with its words.
_LIFE: tuple[tuple[str, Callable[[int], str]], ...] = (
    ("lifetime_power_on_hours", lambda n: f"{n:,} power-on hours"),
    ("lifetime_volume_loads", lambda n: f"{n:,} loads"),
    ("lifetime_metres_processed", lambda n: f"{n / 1000:,.0f} km of tape"),
    ("head_hours_since_last_cleaning", lambda n: f"{n:,} head hours since cleaning"))


def _drive_rows(info: DriveInfo) -> Rows:
    rows: Rows = []
    errors = [f"{name}: {c.total_corrected or 0:,} corrected, {c.total_uncorrected or 0:,} uncorrected"
              for name, c in (("Write", info.write_errors.value), ("Read", info.read_errors.value)) if c is not None]
    if errors:
        rows.append(("Error counters", "; ".join(errors)))
    stats = info.device_statistics.value.stats() if info.device_statistics.value is not None else {}
    life = [words(value) for key, words in _LIFE if isinstance(value := stats.get(key), int)]
    if life:
        rows.append(("Drive life", ", ".join(life)))
    perf = info.performance.value
    if perf is not None and perf.native_mb_s:
        rows.append(("Drive rating", f"{mb_s(perf.native_mb_s)} native"
                     + (f", {perf.repositions_per_100mb:,} repositions per 100 MB"
                        if perf.repositions_per_100mb is not None else "")))
    temp = info.temperature.value
    if temp is not None and temp.celsius is not None:
        rows.append(("Temperature", f"{temp.celsius} °C"))
    return rows


def rows(info: DriveInfo) -> Rows:
    """What the device section does not show already: the cartridge, the counters, the drive's own figures."""
    out = _cartridge_rows(info)
    media = info.media.value
    if media is not None:
        out.append(("Loaded medium", ", ".join(p for p in (
            density(media.density_code), f"{block_mode(media.block_length)} block",
            "write-protected" if media.write_protected else "writable") if p)))
    out += _drive_rows(info)
    comp, enc = info.compression.value, info.encryption.value
    if comp is not None:
        out.append(("Compression", "enabled" if comp.dce else "disabled"))
    if enc is not None:
        out.append(("Encryption", enc.mode + (f" ({', '.join(enc.algorithms)} capable)" if enc.algorithms else "")))
    if info.cleaning_required.value is not None:
        out.append(("Cleaning required", "yes" if info.cleaning_required.value else "no"))
    return out


def load(data: dict[str, Any]) -> DriveInfo | None:
    """A stored snapshot; a ticket whose pages could not be decoded stored its raw pages only (no result)."""
    return from_dict(DriveInfo, data) if "identity" in data or "health" in data else None


# -- the engines ----------------------------------------------------------------------------------
class _Snapshot:
    """Opens the drive when built (a device that cannot be reached leaves no run), gathers when run."""

    def __init__(self, device: str) -> None:
        self.drive = TapeDrive.open(device)

    def run(self, sink: EventSink, cancel: CancelToken) -> DriveInfo:
        return gather(self.drive)

    def close(self) -> None:
        self.drive.close()


class _Ticket:
    """Captures the ticket when built (before the run is recorded), writes the zip when run; the raw pages are
    stored with the run too, so a later report can compare them."""

    def __init__(self, device: str, output: Path) -> None:
        from app import ticket

        self.output = output
        self.ticket = ticket.collect(device)

    def run(self, sink: EventSink, cancel: CancelToken) -> DriveInfo:
        from app import ticket

        ticket.write(self.ticket, self.output)
        # A ticket whose pages could not be decoded keeps its raw pages only: no result of the kind (``load``).
        return cast(DriveInfo, self.ticket.info if self.ticket.info is not None else {})

    def stored_extra(self) -> dict[str, Any]:
        return {"raw_pages": {c.name: c.data.hex() for c in self.ticket.captures if c.data is not None and not c.binary}}


def _engine(ctx: RunContext[DriveInfoParams]) -> _Snapshot | _Ticket:
    if ctx.params.ticket is not None:
        return _Ticket(ctx.device, Path(ctx.params.ticket))
    return _Snapshot(ctx.device)


def visit_figures(info: DriveInfo) -> VisitFigures:
    """What a drive-information read says about its cartridge and drive (``app.visits``): the write and read
    error counters the drive keeps for the cartridge loaded (pages 02h/03h: bytes processed, total corrected and
    uncorrected), where it reports them."""
    sides = [s.value for s in (info.write_errors, info.read_errors) if isinstance(s, Supported)]
    if not sides:
        return VisitFigures()
    moved = sum(s.total_bytes_processed or 0 for s in sides)
    return VisitFigures(moved / 1e9 or None, sum(s.total_corrected or 0 for s in sides),
                        sum(s.total_uncorrected or 0 for s in sides))


DRIVE_INFO: RunKind[DriveInfoParams, DriveInfo] = RunKind(
    "drive-info", "Drive information and health", Target.QUERIES, DriveInfoParams, DriveInfo, _engine,
    headline=headline, text=lambda info: render_text(info).rstrip("\n"), rows=rows, findings=findings,
    exit_code=lambda info: info.health.exit_code, load=load, visit=visit_figures,
    command=Command("info", "show a drive's identity, cartridge, TapeAlert flags, error counters, drive statistics "
                            "and health"))


def snapshot(device: str, *, history: History | None = None) -> tuple[DriveInfo, int]:
    """Gather and record a ``drive-info`` run (issue 6: every snapshot is history); (info, run id). The one entry
    point for the CLI and the GUI."""
    recorded: Recorded[DriveInfo] = execute(DRIVE_INFO, DriveInfoParams(), device, history=history)
    return recorded.result, recorded.run_id


def record_ticket(device: str, output: Path) -> tuple[Any, int]:
    """Capture the support ticket, write it to ``output`` and record it as a ``drive-info`` run with its raw pages:
    (``app.ticket.Ticket``, run id). A bad output path is refused before the drive is opened, and a drive that
    cannot be reached leaves no run."""
    from app.ticket import check_output

    check_output(output)
    recorded = execute(DRIVE_INFO, DriveInfoParams(ticket=str(output)), device)
    return recorded.engine.ticket, recorded.run_id


__all__ = ["DRIVE_INFO", "DriveInfoParams", "HEALTH", "findings", "headline", "reasons", "record_ticket", "rows",
           "snapshot"]

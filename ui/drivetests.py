"""The drive assessment's and the media scan's operations, for their panels.

Each operation is one call into ``app/``: the parameters through the conversion the CLI
uses (``AssessParams.from_text``, ``ScanParams.from_text``), the safety decision through
``app.tapeperf.safety.decide``, the run through ``app.runs.ondrive.record_on_drive`` (so the
history row is the CLI's, parameters dictionary and all), the words through the run
kinds of ``app.runs``. Nothing here decides anything of its own. The parsers are pure
(GUI thread); ``probe_scratch`` and the ``run_*`` functions talk to a drive (worker thread).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.assess import AssessParams
    from app.events import CancelToken, EventSink
    from app.scan import ScanParams
    from native.errors import SafetyRefusal


# -- parameters (pure: GUI thread) -----------------------------------------------------------
def assess_params(size: str, *, no_write: bool, force: bool = False) -> AssessParams:
    """The assessment's parameters as ``tapediag assess [--size SIZE] [--no-write]`` builds them."""
    from app.assess import AssessParams

    return AssessParams.from_text(size.strip() or None, no_write=no_write, force=force)


def check_assess_size(text: str) -> int | None:
    """The size field alone: empty is the default amount (4 drive buffers, at least 2 GiB)."""
    return assess_params(text, no_write=False).size


def scan_params(limit: str, zone: str) -> ScanParams:
    """The scan's parameters as ``tapediag scan [--limit SIZE|DURATION] [--zone SIZE]`` builds them."""
    from app.scan import ScanParams

    return ScanParams.from_text(limit.strip() or None, zone.strip() or None)


def check_scan_limit(text: str) -> tuple[int | None, float | None]:
    """The limit field alone: empty is the whole cartridge, else a size (20G) or a duration (10min)."""
    params = scan_params(text, "")
    return params.limit_bytes, params.limit_seconds


def check_zone(text: str) -> int:
    return scan_params("", text).zone_bytes


# -- the cartridge check before the assessment's write step (worker thread) -----------------
@dataclass(frozen=True)
class CartridgeCheck:
    """What the tape engine's own safety probe found, and its decision (never re-derived here)."""

    refusal: SafetyRefusal | None
    mam_mb_written: int | None


def probe_scratch(device: str) -> CartridgeCheck:
    """Rewind and read at BOT (no write): would the write step be refused, and why."""
    from app.claims import claimed
    from app.drive import TapeDrive
    from app.tapeperf import safety

    with TapeDrive.open(device) as drive, claimed(drive, "assess (checking the cartridge)"):
        state = safety.probe(drive, at_bot=True)
    return CartridgeCheck(safety.decide(state, force=False), state.mam_mb_written)


# -- runs (worker thread) ----------------------------------------------------------------------
@dataclass(frozen=True)
class Recorded:
    """A finished run: the engine's result, its stored dictionary, and its history id."""

    result: Any
    results: dict[str, Any]
    run_id: int


def run_assessment(device: str, params: AssessParams, *, sink: EventSink, cancel: CancelToken) -> Recorded:
    from app.assess import DriveAssessment
    from app.assess.engine import RUN_KIND
    from app.runs.ondrive import record_on_drive

    run_id, result = record_on_drive(device, RUN_KIND, params.to_dict(), lambda drive: DriveAssessment(drive, params),
                                     cancel=cancel, sink=sink)
    return Recorded(result, result.to_dict(), run_id)


def run_scan(device: str, params: ScanParams, *, sink: EventSink, cancel: CancelToken) -> Recorded:
    from app.runs.ondrive import record_on_drive
    from app.scan import MediaScan
    from app.scan.engine import RUN_KIND

    run_id, result = record_on_drive(device, RUN_KIND, params.to_dict(), lambda drive: MediaScan(drive, params),
                                     cancel=cancel, sink=sink)
    return Recorded(result, result.to_dict(), run_id)


# -- words (pure) -------------------------------------------------------------------------------
def headline(kind: str, results: dict[str, Any]) -> str:
    """The run kind's own one-line headline (``app.runs``), as the history and the PDF say it."""
    from app.runs import headline as kind_headline

    return kind_headline(kind, results)


def tone(kind: str, results: dict[str, Any]) -> str:
    """The tone of the run's verdict, its kind's first finding's (``app.runs``): the PDF's colour, the panel's."""
    from app.runs import findings

    found = findings(kind, results)
    return found[0].tone if found else "none"


def text(kind: str, results: dict[str, Any]) -> str:
    """The result as the CLI printed it (``app.runs``), for the clipboard and the ticket."""
    from app.runs import text as kind_text

    return kind_text(kind, results) or ""


def rows(kind: str, results: dict[str, Any]) -> list[tuple[str, str]]:
    """The run kind's labelled rows (``app.runs``), as the report shows them."""
    from app.runs import fields

    return fields(kind, results) or []


def assess_kind() -> str:
    from app.assess.engine import RUN_KIND

    return RUN_KIND


def scan_kind() -> str:
    from app.scan.engine import RUN_KIND

    return RUN_KIND


"""The drive assessment's and the media scan's operations, for their panels.

Each operation is one call into ``app/``: the safety decision through ``app.tapeperf.safety.decide``,
the run through ``app.execute`` (so the history row is the CLI's, parameters dictionary and all), the
words through the run kinds' renderers; the parameters come from the kinds' field tables
(``ui.form``). Nothing here decides anything of its own. ``probe_scratch`` and the ``run_*`` functions
talk to a drive (worker thread).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.assess import AssessParams
    from app.erase import EraseCheck, EraseParams
    from app.events import CancelToken, EventSink
    from app.runs.kind import RunKind
    from app.scan import ScanParams
    from native.errors import SafetyRefusal


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
    """``tapediag assess``: the run through ``app.execute``, as the CLI records it."""
    from app.assess.kind import ASSESSMENT
    from app.execute import execute

    run = execute(ASSESSMENT, params, device, sink=sink, cancel=cancel)
    return Recorded(run.result, run.result.to_dict(), run.run_id)


def run_scan(device: str, params: ScanParams, *, sink: EventSink, cancel: CancelToken) -> Recorded:
    """``tapediag scan``: the run through ``app.execute``, as the CLI records it."""
    from app.execute import execute
    from app.scan.kind import MEDIA_SCAN

    run = execute(MEDIA_SCAN, params, device, sink=sink, cancel=cancel)
    return Recorded(run.result, run.result.to_dict(), run.run_id)


def erase_check(device: str, params: EraseParams) -> EraseCheck:
    """The erase's own checks (no write; the drive claimed meanwhile): what the confirmation names and decides on."""
    from app.erase import check_cartridge

    return check_cartridge(device, params)


def run_erase(device: str, params: EraseParams, *, sink: EventSink, cancel: CancelToken) -> Recorded:
    """``tapediag erase``: the run through ``app.execute``, as the CLI records it."""
    from app.erase.kind import ERASE
    from app.execute import execute

    run = execute(ERASE, params, device, sink=sink, cancel=cancel)
    return Recorded(run.result, run.result.to_dict(), run.run_id)


# -- words (pure) -------------------------------------------------------------------------------
def tone(kind: RunKind[Any, Any], result: Any) -> str:
    """The tone of the run's verdict, its kind's first finding's (``app.runs``): the PDF's colour, the panel's."""
    found = kind.findings(result) if kind.findings is not None and result is not None else []
    return found[0].tone if found else "none"


def stored_result(kind_name: str, results: dict[str, Any]) -> Any:
    """A run's stored dictionary read into its kind's typed result (``app.runs.stored``), for what has only that."""
    from app import catalog  # noqa: F401  (installs the run kinds)
    from app.runs import registry
    from app.runs.stored import result_of

    kind = registry.get(kind_name)
    return result_of(kind, results) if kind is not None else None

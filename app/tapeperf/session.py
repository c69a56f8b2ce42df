"""A tape performance test on a named device, as both front ends run it.

The CLI (``tapediag tape-perf``) and the GUI's tape panel each used to open the drive and
wire the engine to the history themselves; they call these instead, so a run is recorded
the same way (``params.to_dict()``, the same kind and device) whichever started it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from native.errors import SafetyRefusal

from app import media
from app.drive import TapeDrive
from app.events import CancelToken, EventSink, discard
from app.execute import execute
from app.tapeperf import safety, sizing
from app.tapeperf.kind import TAPE_PERF, TAPE_PERF_MULTI
from app.tapeperf.params import TapePerfParams
from app.tapeperf.results import TapePerfResult
from app.tapeperf.sizing import SizePlan

if TYPE_CHECKING:
    from app.tapeperf.multi import MultiParams
    from app.tapeperf.multiresult import MultiTapePerfResult


@dataclass(frozen=True)
class CartridgeCheck:
    """What is on the cartridge and the engine's decision on it, before anything is written: whether it fits
    the drive (``app.media``), what the write will send and whether that fits it (``app.tapeperf.sizing``)."""

    state: safety.CartridgeState
    refusal: SafetyRefusal | None  # media, then ``safety.decide`` without force: None = the write may go ahead
    size: SizePlan | None = None
    media_notes: tuple[str, ...] = ()


def check_cartridge(device: str, params: TapePerfParams) -> CartridgeCheck:
    """The engine's own pre-write checks (no write), for a confirm step to show: the media fit, the size plan
    (as the engine will make it), the probe and the decision. The probe rewinds: the drive is claimed for
    it, so it never moves the tape under another run."""
    from app.claims import claimed

    with TapeDrive.open(device) as drive, claimed(drive, "tape-perf (checking the cartridge)"):
        fit = media.loaded_fit(drive)
        plan = sizing.plan_for(drive, params, drive.generation())
        state = safety.probe(drive, at_bot=params.start == "bot")
    refusal = media.refusal(fit, writes=params.writes, doing="the tape test") or safety.decide(state, force=False)
    return CartridgeCheck(state, refusal, plan, tuple(media.notes(fit, writes=params.writes)))


def run_on_device(device: str, params: TapePerfParams, *, sink: EventSink = discard,
                  cancel: CancelToken | None = None) -> tuple[int, TapePerfResult]:
    """Open ``device``, run the test with ``params`` recorded in the history (``app.execute``): (run id, result)."""
    run = execute(TAPE_PERF, params, device, sink=sink, cancel=cancel)
    return run.run_id, run.result


__all__ = ["CartridgeCheck", "check_cartridge", "run_on_device", "run_on_devices"]


def run_on_devices(params: "MultiParams", *, sink: EventSink = discard,
                   cancel: CancelToken | None = None) -> tuple[int, "MultiTapePerfResult"]:
    """Open every device of ``params`` and run them together, recorded in the history as one run (``app.execute``):
    (run id, result). A refusal on any drive is recorded as refused, with nothing written anywhere. Every drive is
    claimed for the run (``app.claims``); two names for one drive are refused."""
    from native.iscsi_url import display_device

    device = ", ".join(display_device(d) for d in params.devices)
    run = execute(TAPE_PERF_MULTI, params, device, sink=sink, cancel=cancel)
    return run.run_id, run.result

"""Running a run of any kind and recording it: the one way a run happens, for the CLI, the GUI and the tests.

    recorded = execute(MEDIA_SCAN, ScanParams.from_values({"limit": "10G"}), "virtual:lto9", sink=sink, cancel=cancel)
    recorded.run_id, recorded.result

Why one function: a run the GUI records must be the run the CLI records (the same kind, the same
parameters dictionary, the same status, results and identities), so a history row, a report or a
ticket never depends on which front end started it; and what every run on a device needs is done
once, here, by what the kind runs on (``RunKind.target``):

* the parameters are checked before anything is opened (``params.validate()``);
* a drive or a library is opened and claimed for the run (``app.claims``: a second test on it, from
  this process or another, is refused before anything is recorded or sent), and its commands are
  watched (``watch_commands(cancel, sink)``: a drive that stops answering is named, and a cancel is
  not held by a command it never answers);
* the drive's and the cartridge's identities are read and stored with the results under
  ``app.identity.IDENTITIES`` (every report names them; the history is keyed by them);
* the kind's engine is built (``RunKind.engine``: bad input refused there leaves no run), then run
  inside ``app.history.run_recorded``, which records it once with the result's own status;
* the results keep the version of the kind's shape (``app.runs.stored.VERSION_KEY``);
* what the run says about the cartridge it moved through the drive (``RunKind.visit``) is stored with it, from
  its typed result, as the history's index of visits (``app.history.figures``, read by ``app.visits``).

The signal policy (``app.stop``) stays the front end's: the CLI passes the token ``cancelling()`` gives it,
the GUI its job's.
"""
from __future__ import annotations

import contextlib
from dataclasses import asdict, dataclass, is_dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Iterator, Sequence, TypeVar

from app import identity
from app.claims import claimed, claimed_all
from app.drive import TapeDrive
from app.cancel import CancelToken
from app.sink import discard
from app.history import History, run_recorded
from app.runs import registry
from app.runs.kind import RunContext, RunKind, Target
from app.runs.stored import VERSION_KEY

if TYPE_CHECKING:  # in annotations only (app.sink)
    from app.events import EventSink

P = TypeVar("P")
R = TypeVar("R")

#: What a kind's results keep beside the result itself, read after the run (the identities, an engine's own).
Extra = Callable[[], dict[str, Any]]


@dataclass(frozen=True)
class Recorded(Generic[R]):
    """A finished run: its history id, the engine's result, and the engine that ran (what it kept besides)."""

    run_id: int
    result: R
    engine: Any = None


def params_dict(params: Any) -> dict[str, Any]:
    """The parameters as the history records them: their ``to_dict()`` (or their fields)."""
    to_dict = getattr(params, "to_dict", None)
    if callable(to_dict):
        return dict(to_dict())
    return asdict(params) if is_dataclass(params) and not isinstance(params, type) else {}


def open_drives(devices: Sequence[str]) -> list[TapeDrive]:
    """Open every device, or none: a device that cannot be opened closes the ones already open."""
    opened: list[TapeDrive] = []
    try:
        for device in devices:
            opened.append(TapeDrive.open(device))
    except BaseException:
        for drive in opened:
            drive.close()
        raise
    return opened


def _command(kind: RunKind[Any, Any]) -> str:
    """What a refused second run names the first by (``app.claims``): the command that runs the kind."""
    return kind.claim or (kind.command.name if kind.command is not None else kind.name)


@contextlib.contextmanager
def _one_drive(kind: RunKind[Any, Any], ctx: RunContext[Any]) -> Iterator[Extra]:
    with TapeDrive.open(ctx.device) as drive, claimed(drive, _command(kind)):
        drive.watch_commands(ctx.cancel, ctx.sink)
        ctx.drive = drive
        who = identity.with_cartridge(identity.of_drive(drive), drive)  # before the run: a failed run is a visit too
        yield lambda: {identity.IDENTITIES: [who.to_dict()]}


@contextlib.contextmanager
def _several_drives(kind: RunKind[Any, Any], ctx: RunContext[Any]) -> Iterator[Extra]:
    drives = open_drives(ctx.params.devices)
    try:
        with claimed_all(drives, _command(kind)):
            for drive in drives:
                drive.watch_commands(ctx.cancel, ctx.sink)
            ctx.drives = drives
            before = [identity.of_drive(d) for d in drives]
            yield lambda: {identity.IDENTITIES: [identity.with_cartridge(b, d).to_dict() for b, d in zip(before, drives)]}
    finally:
        for drive in drives:
            drive.close()


@contextlib.contextmanager
def _library(kind: RunKind[Any, Any], ctx: RunContext[Any]) -> Iterator[Extra]:
    from app.library import Changer

    with Changer.open(ctx.device) as changer, claimed(changer, _command(kind)):
        changer.watch_commands(ctx.cancel, ctx.sink)  # a robot that stops answering is named; a cancel is not held
        ctx.changer = changer
        yield dict


@contextlib.contextmanager
def _nothing(kind: RunKind[Any, Any], ctx: RunContext[Any]) -> Iterator[Extra]:
    yield dict


_OPEN = {Target.DRIVE: _one_drive, Target.DRIVES: _several_drives, Target.LIBRARY: _library,
         Target.QUERIES: _nothing, Target.DIRECTORY: _nothing, Target.NOTHING: _nothing}


def _close(engine: object) -> None:
    close = getattr(engine, "close", None)
    if callable(close):
        close()


def execute(kind: RunKind[P, R], params: P, device: str, *, sink: EventSink = discard,
            cancel: CancelToken | None = None, history: History | None = None) -> Recorded[R]:
    """Run ``kind`` with ``params`` on ``device`` (a device string, a directory, or "" for nothing) and record it
    once (module docstring); the engine's result and the run's id."""
    registry.register(kind)  # a kind that runs is a known kind (the catalog's are registered already)
    validate = getattr(params, "validate", None)
    if callable(validate):
        validate()
    ctx = RunContext(params, device, sink, cancel or CancelToken())
    with _OPEN[kind.target](kind, ctx) as identities:
        engine = kind.engine(ctx)
        try:
            def extra() -> dict[str, Any]:
                own = getattr(engine, "stored_extra", None)
                return {**identities(), **(own() if callable(own) else {}), VERSION_KEY: kind.version}

            run_id, result = run_recorded(kind.name, device, params_dict(params),
                                          lambda s: engine.run(s, ctx.cancel), sink=sink, history=history,
                                          extra=extra, visit=kind.visit)
        finally:
            _close(engine)
    return Recorded(run_id, result, engine)


__all__ = ["Recorded", "execute", "open_drives", "params_dict"]

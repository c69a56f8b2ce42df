"""Taking a component figure (MB/s), what limited it and the drive it was on from a run stored in the history.

Every run is read through the one loader (``app.runs.stored.load``) into its kind's typed result, and the
result is asked, never its stored dictionary: a tape-perf run for its phase's rate and what limited it
(``TapePerfResult.figure``), a disk run for its rate, streams and files (``DiskResult``), a net-test run for
each direction's rate (``NetTestResult.phase``), a watch for the job's rate (``WatchResult``), and each for the
drive it says it ran on (``drive_from_run``). A field renamed in a result is then an attribute error in a test
(and in mypy), not a figure that silently vanishes. A run the loader cannot read is said in one line naming it
(``read_run``): the technician chose it, so it is bad input, never skipped. A phase whose result carries no
rate is computed from the stored samples: bytes of the phase over its duration.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from app.history import History, Run
from app.identity import TAPE_DRIVE
from app.runs.stored import Loaded, load
from native.errors import DamagedResult, InvalidParameter
from native.units import percent

from .model import DriveContext, Figure, TroubleshootInput
from .parse import parse_generation

if TYPE_CHECKING:
    from app.assess.engine import AssessResult
    from app.disk.results import DiskResult, ReadDataResult
    from app.info.model import DriveInfo
    from app.nettest.result import NetTestResult
    from app.scan.results import ScanResult
    from app.tapeperf.results import TapePerfResult
    from app.watch.result import WatchResult

# Which run kind and phase each troubleshooting step reads.
STEP_SOURCES = {
    "tape_write": ("tape-perf", ("write",)),
    "tape_read": ("tape-perf", ("read",)),
    "disk_read": ("read-data", ("read-data", "read")),
    "disk_write": ("create-data", ("create", "write")),
    "network_backup": ("net-test", ("backup",)),  # client -> server: the backup's way
    "network_restore": ("net-test", ("restore",)),
}
#: The run kind whose runs measure the backup application itself: a watch of the customer's own job (``app.watch``).
WATCH_KIND = "backup-watch"
#: The kind whose runs are on several drives at once: none of them is the one drive a session is about.
MULTI_KIND = "tape-perf-multi"


def read_run(run: Run) -> Loaded[Any]:
    """``run`` read through the one loader into its kind's typed result. What cannot be read is said in one line
    naming the run (the loader's "run 12 (tape-perf) has results this tapediag cannot read: ...", or "run 12 could
    not be read: ..."), as bad input (exit 2): the technician chose the run."""
    from app import catalog  # noqa: F401  (installs the kinds the loader reads by; only once a run is read)

    if run.damaged:
        raise InvalidParameter(f"run {run.id} could not be read: {run.damaged}")
    try:
        loaded = load(run)
    except DamagedResult as err:
        raise InvalidParameter(err.message, hint=err.hint) from None  # the loader names the run
    if loaded.result is None:
        raise InvalidParameter(f"run {run.id} could not be read: it stored no {run.kind} result")
    return loaded


def _complete(run: Run, kind: str, what: str, how: str = "") -> None:
    """Refuse a run of another kind, or one that did not complete (its figures are not comparable)."""
    if run.kind != kind:
        raise InvalidParameter(f"run {run.id} is a {run.kind} run; the {what} comes from a {kind} run{how}")
    if run.status != "complete":
        raise InvalidParameter(f"run {run.id} did not complete ({run.status}); its figures are not comparable")


def rate_from_samples(run: Run, phases: tuple[str, ...]) -> float | None:
    """Bytes of the phase / (last I/O end - first I/O start), all streams together."""
    for phase in phases:
        picked = [s for s in run.samples if s.phase == phase]
        if picked:
            start = min(s.t - s.latency for s in picked)
            end = max(s.t for s in picked)
            if end > start:
                return sum(s.nbytes for s in picked) / (end - start) / 1e6
    return None


def _result_figure(loaded: Loaded[Any], phases: tuple[str, ...]) -> tuple[float | None, str, str]:
    """(MB/s, limited by, why) of the first of ``phases`` the typed result measured; (None, "", "") when none."""
    kind = loaded.run.kind
    for phase in phases:
        if kind == "tape-perf":
            found = cast("TapePerfResult", loaded.result).figure(phase)
            if found is not None:
                return found[0], found[1].who, found[1].why
        elif kind == "net-test":
            direction = cast("NetTestResult", loaded.result).phase(phase)
            if direction is not None and direction.mb_s > 0:
                return direction.mb_s, "", ""
    if kind in ("read-data", "create-data"):
        rate = cast("DiskResult", loaded.result).mb_s
        return (rate if rate > 0 else None), "", ""
    return None, "", ""


def figure_from_run(history: History, run_id: int, step: str) -> Figure:
    """The MB/s of ``step`` (a ``STEP_SOURCES`` key: "tape_write", "disk_read", "network_backup" ...) in run
    ``run_id``, with what the run said limited it (a tape run's ``limited_by``)."""
    kind, phases = STEP_SOURCES[step]
    run = history.get_run(run_id)
    _complete(run, kind, f"{step.replace('_', ' ')} figure")
    rate, who, why = _result_figure(read_run(run), phases)
    rate = rate or rate_from_samples(run, phases)
    if rate is None:
        raise InvalidParameter(f"run {run_id} has no {'/'.join(phases)} rate in its results or samples")
    return Figure(mb_s=round(rate, 2), source=f"run {run_id}", run_id=run_id, limited_by=who, limited_why=why)


def network_figures(history: History, run_id: int) -> dict[str, Figure]:
    """The directions a net-test run measured, as ``Measurements``' ``network_backup``/``network_restore``."""
    run = history.get_run(run_id, samples=False)
    _complete(run, "net-test", "network figure")
    result = cast("NetTestResult", read_run(run).result)
    measured = {f"network_{p.phase}" for p in result.phases if p.phase in ("backup", "restore")}
    if not measured:
        raise InvalidParameter(f"run {run_id} measured no direction")
    return {step: figure_from_run(history, run_id, step) for step in sorted(measured)}


@dataclass(frozen=True)
class Watched:
    """The application's achieved rate as a recorded watch of the job measured it, with the drive's waiting share."""

    mb_s: float
    source: str  # "run 12: the drive waited for data 63% of the time"
    run_id: int
    waiting_share: float
    compression_ratio: float | None  # the drive's own, over the watch (Data Compression page), None if not read


def watched_figure(history: History, run_id: int, direction: str) -> Watched:
    """The ``direction`` ("backup" or "restore") rate of the job watched in run ``run_id`` (a ``backup-watch`` run):
    what the application achieved, measured by the kernel's own counters instead of typed in from its log."""
    run = history.get_run(run_id, samples=False)
    _complete(run, WATCH_KIND, f"{direction}'s achieved rate", " (a watch of the job: tapediag watch)")
    watched = cast("WatchResult", read_run(run).result)
    if watched.direction != direction or watched.mb_s <= 0:
        saw = f"a {watched.direction}" if watched.direction else "no I/O"
        raise InvalidParameter(f"run {run_id} watched {saw}, not a {direction}: it gives no {direction} rate")
    waited = "data" if direction == "backup" else "the host to take data"
    source = f"run {run_id}: the drive waited for {waited} {percent(watched.tape.waiting_share)} of the time"
    return Watched(round(watched.mb_s, 2), source, run_id, watched.tape.waiting_share,
                   watched.drive.ratio if watched.drive.queried else None)


def streams_of(loaded: Loaded[Any]) -> int:
    """How many parallel streams a disk run (read-data, create-data) measured: one is the single-stream figure."""
    return len(cast("DiskResult", loaded.result).streams)


def file_stats(loaded: Loaded[Any]) -> tuple[int, float] | None:
    """(files, average KB per file) a read-data run read, when it read any: the customer's own file sizes."""
    result = cast("ReadDataResult", loaded.result)
    return (result.total_files, result.total_bytes / result.total_files / 1024) if result.total_files > 0 else None


@dataclass(frozen=True)
class _Said:
    """What a run's typed result says of the one drive it ran on."""

    words: tuple[str, ...] = ()  # vendor, product
    serial: str | None = None
    generation: int | None = None
    half_height: bool = False


def _said(loaded: Loaded[Any]) -> _Said:
    """The drive as the kind's typed result names it; nothing for a kind that names none. By the run's kind, whose
    result type the loader guarantees (a result of another shape is an error here, not a drive left unnamed)."""
    kind, result = loaded.run.kind, loaded.result
    if kind == "troubleshoot":  # a session's drive is in its input (its parameters), read by its kind's own reader
        given = TroubleshootInput.from_dict(loaded.run.params).drive
        return _Said((given.description or "",), given.serial, given.generation, given.half_height)
    if result is None:
        return _Said()
    if kind == "drive-info":
        ident = cast("DriveInfo", result).identity
        return _Said((ident.vendor, ident.product), ident.serial, cast("DriveInfo", result).generation)
    if kind == "tape-perf":
        tape = cast("TapePerfResult", result)
        return _Said((tape.vendor, tape.product), None, tape.generation)
    if kind == WATCH_KIND:
        drive = cast("WatchResult", result).drive
        return _Said((drive.vendor, drive.product), drive.serial, drive.generation, drive.form == "half height")
    if kind in ("assessment", "media-scan"):
        named = cast("AssessResult | ScanResult", result)
        return _Said((named.vendor, named.product), named.serial)
    return _Said()


def drive_from_run(loaded: Loaded[Any]) -> DriveContext | None:
    """Drive generation, serial and description from a stored run (read by ``read_run`` or ``load``): the drive
    identity the run recorded (``app.identity``), then what its kind's result says of the drive; the generation
    from the product name (or the device string, "virtual:lto9") when no result says it.

    None for a run on several drives at once (``tape-perf-multi``): it has no one drive, and the first
    generation or serial found in it would be credited to all of them."""
    drives = [i for i in loaded.identities or () if i.role == TAPE_DRIVE]
    if loaded.run.kind == MULTI_KIND or len(drives) > 1:
        return None
    said = _said(loaded)
    recorded = drives[0] if drives else None
    words = (recorded.vendor or "", recorded.product or "") if recorded and recorded.product else said.words
    description = " ".join(w.strip() for w in words if w and w.strip()) or None
    serial = (recorded.serial if recorded else None) or (said.serial.strip() if said.serial else None) or None
    generation, half = said.generation, said.half_height
    if generation is None:
        m = re.search(r"(?:LTO|ULTRIUM)[\s_-]*(?:HH|TD|FH)?[\s_-]*\d{1,2}", f"{description or ''} {loaded.run.device}",
                      re.IGNORECASE)
        if m:
            generation, half = parse_generation(m.group(0))
    if generation is None and description is None and serial is None:
        return None
    return DriveContext(generation=generation, half_height=half, description=description, serial=serial)


def _newest(out: dict[str, int], run: Run) -> None:
    """File ``run`` (complete, read by the loader) under the figures it gives that no newer run gave."""
    loaded = read_run(run)
    if run.kind == "tape-perf":
        result = cast("TapePerfResult", loaded.result)
        for phase in ("write", "read"):
            if result.phase(phase) is not None:
                out.setdefault(f"tape_{phase}", run.id)
    elif run.kind == "net-test":
        out.setdefault("network_run", run.id)
    elif run.kind in ("read-data", "create-data"):
        side = "disk_read" if run.kind == "read-data" else "disk_write"
        out.setdefault(f"{side}_parallel" if streams_of(loaded) > 1 else side, run.id)
    elif run.kind == WATCH_KIND:
        direction = cast("WatchResult", loaded.result).direction
        if direction in ("backup", "restore"):
            out.setdefault(direction, run.id)  # the application's figure, watched


#: The figures of the troubleshooting form each kind of run can fill (``latest_figures``).
_FILLS = {"tape-perf": ("tape_write", "tape_read"), "net-test": ("network_run",),
          "read-data": ("disk_read", "disk_read_parallel"), "create-data": ("disk_write", "disk_write_parallel"),
          WATCH_KIND: ("backup", "restore")}


def latest_figures(history: "History") -> dict[str, int]:
    """The newest complete run for each figure of the troubleshooting form: field -> run id (``network_run``: the
    newest net-test; the application's "backup" or "restore" from the newest watch of such a job).

    A disk run is filed by the streams it measured, exactly as a session files it (``streams_of``): one stream is
    the single-stream figure, more the parallel one. Each run is read by the loader only while it could still fill
    a field, and one that cannot be read then is said (``read_run``), not passed over for an older one.
    """
    out: dict[str, int] = {}
    for run in history.list_runs():  # newest first
        fills = _FILLS.get(run.kind, ())
        if run.status == "complete" and not all(f in out for f in fills):
            _newest(out, run)
    return out

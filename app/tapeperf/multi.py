"""The tape performance test on several drives at once: one engine per drive, one process.

    result = MultiDriveTest(drives, MultiParams(...)).run(sink, cancel)

Order of work, so that nothing is written anywhere before everything is known to be right:

1. every drive is asked INQUIRY: a non-tape is refused (``NotATapeDrive``), and two names for
   one drive (the same unit serial number) are refused;
2. every drive is prepared (parameters against READ BLOCK LIMITS and the path's transfer limit)
   and, for a write, its cartridge is checked (``app.tapeperf.safety``: write-protect, WORM,
   data at BOT unless forced). One refusal raises, naming the drive: nothing has been written
   to any drive;
3. each drive alone, one after the other, for a short run (``alone``): its own rate;
4. all drives together, one thread each: the transports release the GIL for each command
   (``native/src/_iscsi_cmd.c`` around ``iscsi_scsi_command_sync``; libsgutils2 through
   ``ctypes.CDLL``), so the drives' commands overlap. A gate before each phase lets every
   drive position its tape first, so the phases start together;
5. the aggregate of each phase against the sum of the single-drive rates
   (``app.tapeperf.multiresult``).

Each drive's settings are put back by its own engine, as in a one-drive test.
"""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, replace
from typing import Callable, ClassVar, Sequence

from app.drive import TapeDrive
from app.events import (CancelToken, Event, EventSink, Message, PhaseFinished, PhaseStarted, Progress, Sample,
                        SampleBatch, Yardstick, discard)
from app.patterns import DEFAULT_POOL_BYTES
from app.runs.fields import Field
from app.tapeperf.engine import PUBLISH_INTERVAL, TapePerfTest
from app.tapeperf.multiresult import PHASES, DriveRun, MultiTapePerfResult, aggregate, curves
from app.tapeperf.params import FIELDS, TapePerfParams
from app.tapeperf.results import TapePerfResult
from native.errors import Cancelled, InvalidParameter, TapediagError
from native.iscsi_url import display_device
from native.units import parse_amount, plural

#: Each drive alone runs for the test's size, but no longer than this (seconds) unless told.
ALONE_SECONDS = 20.0
#: The most drives one run drives (threads, buffers and a legible plot).
MAX_DRIVES = 16


def _alone(text: str) -> tuple[int | None, float | None] | None:
    """``--alone``: bytes or a duration ("64M", "20s"); "0" skips the runs alone (None)."""
    if text.strip() in ("0", "none", "no"):
        return None
    return parse_amount(text.strip(), "--alone")


#: How long each drive runs alone first: the CLI's ``--alone`` and the tape panel's field, declared once.
ALONE = Field("alone", "Each drive alone, &up to:", "several devices: how long each drive runs alone first, bytes or a "
              "duration (default: the amount of data, at most 20s); 0 skips it (then no shared-path verdict)",
              metavar="AMOUNT", parse=_alone, placeholder="the amount of data, at most 20s",
              stored=("alone_size", "alone_duration"), unit=("bytes", "s"))


@dataclass(frozen=True)
class MultiParams:
    """The one-drive test's parameters for every drive, and how long each runs alone first.

    ``alone_size``/``alone_duration`` bound each drive's run alone (both None: no run alone,
    and no shared-path verdict)."""

    devices: tuple[str, ...]
    test: TapePerfParams
    alone_size: int | None = None
    alone_duration: float | None = ALONE_SECONDS

    #: The one test's fields, the devices, and how long each drive runs alone (labels of the stored parameters).
    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("devices", "Drives", "the drives, each alone then all together", option=None, gui=False),
        *FIELDS, ALONE)

    @classmethod
    def from_text(cls, devices: Sequence[str], test: TapePerfParams, alone: str | None) -> "MultiParams":
        """``alone``: bytes or a duration ("64M", "20s"), "0" to skip, None for the default
        (the test's size, at most 20 s)."""
        if alone is None:
            return cls(tuple(devices), test, test.size, min(test.duration or ALONE_SECONDS, ALONE_SECONDS))
        if not alone.strip():
            raise InvalidParameter("--alone is empty: give a size, a duration or 0, or leave the option out")
        amount = _alone(alone)
        return cls(tuple(devices), test, *(amount or (None, None)))

    @property
    def measures_alone(self) -> bool:
        return self.alone_size is not None or self.alone_duration is not None

    def alone_params(self) -> TapePerfParams:
        return replace(self.test, size=self.alone_size, duration=self.alone_duration)

    def validate(self) -> None:
        """Refuse what can be refused without the drives: too few or repeated names, bad sizes."""
        if len(self.devices) < 2:
            raise InvalidParameter("several drives at once needs at least two devices")
        if len(self.devices) > MAX_DRIVES:
            raise InvalidParameter(f"{len(self.devices)} devices: at most {MAX_DRIVES} drives at once")
        seen: set[str] = set()
        for device in self.devices:
            key = device.strip()
            if key in seen:
                raise InvalidParameter(f"{display_device(key)} is named twice: name each drive once")
            seen.add(key)
        self.test.validate(None)
        if self.measures_alone:
            problems = self.alone_params().problems(None)
            if problems:
                raise InvalidParameter(f"--alone: {problems[0]}")

    def to_dict(self) -> dict:
        return {**self.test.to_dict(), "devices": [display_device(d) for d in self.devices],
                "alone_size": self.alone_size, "alone_duration": self.alone_duration}


class PhaseGate:
    """Every drive waits here before a phase until each other drive has reached it too, or has
    left (finished, failed or been cancelled), so the phases start together."""

    def __init__(self, parties: int) -> None:
        self._cond = threading.Condition()
        self._arrived: dict[str, set[int]] = {}
        self._left: set[int] = set()
        self._parties = parties

    def arrive(self, who: int, phase: str) -> None:
        with self._cond:
            self._arrived.setdefault(phase, set()).add(who)
            self._cond.notify_all()
            self._cond.wait_for(lambda: len(self._arrived[phase] | self._left) >= self._parties)

    def leave(self, who: int) -> None:
        with self._cond:
            self._left.add(who)
            self._cond.notify_all()


class _Fanin:
    """Several drives' events into one sink, from their threads: samples tagged with the drive
    (``stream``) and the stage, messages prefixed with the device, progress summed over the drives."""

    def __init__(self, sink: EventSink, devices: Sequence[str]) -> None:
        self.sink, self.devices = sink, list(devices)
        self.lock = threading.Lock()
        self.progress: dict[int, Progress] = {}
        self.last = 0.0

    def for_drive(self, index: int, alone: bool) -> EventSink:
        device = self.devices[index]

        def sink(event: Event) -> None:
            if isinstance(event, SampleBatch):
                suffix = " alone" if alone else ""
                if event.columns is not None:  # the engines' arrays, retagged whole: nothing per I/O here
                    event = SampleBatch(columns=event.columns.retagged(event.columns.phase + suffix, index))
                else:
                    event = SampleBatch(tuple(Sample(s.t, s.nbytes, s.latency, s.phase + suffix, index)
                                              for s in event.samples))
            elif isinstance(event, Message):
                event = Message(event.level, f"{device}: {event.text}")
            elif isinstance(event, (PhaseStarted, PhaseFinished)):
                event = replace(event, phase=f"{device} {event.phase}" + (" alone" if alone else ""))
            elif isinstance(event, Progress):
                self._progress(index, event, alone)
                return
            elif isinstance(event, Yardstick):  # one drive's yardstick is not the aggregate's
                return
            with self.lock:
                self.sink(event)
        return sink

    def _progress(self, index: int, event: Progress, alone: bool) -> None:
        with self.lock:
            self.progress[index] = event
            now = time.monotonic()
            if now - self.last < PUBLISH_INTERVAL:
                return
            self.last = now
            if alone:
                self.sink(replace(event, phase=f"{event.phase}, {self.devices[index]} alone"))
                return
            ps = list(self.progress.values())
            totals = [p.total_bytes for p in ps]
            etas = [p.eta_s for p in ps if p.eta_s is not None]
            self.sink(Progress(f"{event.phase}, {plural(len(ps), 'drive')} together", sum(p.done_bytes for p in ps),
                               None if None in totals else sum(t or 0 for t in totals), max(p.elapsed for p in ps),
                               sum(p.rate_mb_s for p in ps), max(etas) if etas else None))

    def reset(self) -> None:
        with self.lock:
            self.progress.clear()


def _cpu_ticks() -> tuple[int, int] | None:
    """(busy, total) CPU ticks of the whole machine from /proc/stat (Linux), None elsewhere."""
    try:
        with open("/proc/stat") as fh:
            fields = [int(x) for x in fh.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _busy_between(before: tuple[int, int] | None, after: tuple[int, int] | None) -> float | None:
    if before is None or after is None or after[1] <= before[1]:
        return None
    return (after[0] - before[0]) / (after[1] - before[1])


def _on_drive(device: str, err: TapediagError, n: int) -> TapediagError:
    """The same error, naming the drive and saying that nothing was written anywhere."""
    named = type(err).__new__(type(err))  # not copy.copy: it would call __init__ without the keyword-only fields
    named.__dict__.update(err.__dict__)
    where = "" if device in err.message else f"{device}: "  # "X is a disk, not a tape drive" names it already
    named.message = f"{where}{err.message}; nothing was written to any of the {n} drives"
    named.args = (named.message,)
    return named


class MultiDriveTest:
    """One run of the tape performance test on several open drives."""

    def __init__(self, drives: Sequence[TapeDrive], params: MultiParams, *,
                 clock: Callable[[], float] = time.perf_counter, pool_bytes: int = DEFAULT_POOL_BYTES) -> None:
        self.drives = list(drives)
        self.params = params
        self.clock = clock
        self.pool_bytes = pool_bytes

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> MultiTapePerfResult:
        cancel = cancel or CancelToken()
        p, drives = self.params, self.drives
        p.validate()
        devices = [d.device for d in drives]
        fanin = _Fanin(sink, devices)
        self._identify()
        epoch = self.clock()
        together = [TapePerfTest(d, p.test, clock=self.clock, pool_bytes=self.pool_bytes, epoch=epoch)
                    for d in drives]
        prepared: list[TapePerfResult] = []
        for i, engine in enumerate(together):  # every check on every drive before any write anywhere
            if cancel.cancelled:
                raise Cancelled(f"cancelled while the drives were checked; nothing was written to any of the "
                                f"{len(drives)} drives")
            try:
                result = engine.prepare(fanin.for_drive(i, False))
                engine.check_cartridge(result, fanin.for_drive(i, False))
            except TapediagError as err:
                raise _on_drive(devices[i], err, len(drives)) from err
            prepared.append(result)
        out = MultiTapePerfResult(devices=devices, params=p.to_dict(), cpus=os.cpu_count())
        alone: list[TapePerfResult | None] = [None] * len(drives)
        if p.measures_alone:
            for i, drive in enumerate(drives):
                if cancel.cancelled:
                    break
                alone[i] = self._alone(i, drive, epoch, fanin, cancel)
        fanin.reset()
        if cancel.cancelled:  # stopped while the drives ran alone: nothing more is sent, not even a filemark
            out.drives = [DriveRun(devices[i], prepared[i], alone[i]) for i in range(len(drives))]
            out.status = "cancelled"
            return out
        cpu0, wall0, ticks0 = time.process_time(), time.perf_counter(), _cpu_ticks()
        finished = self._together(together, prepared, fanin, cancel)
        wall = time.perf_counter() - wall0
        if out.cpus and wall > 0:
            out.cpu_share = (time.process_time() - cpu0) / wall / out.cpus
        out.host_busy = _busy_between(ticks0, _cpu_ticks())
        out.drives = [DriveRun(devices[i], finished[i], alone[i]) for i in range(len(drives))]
        ran = {ph.phase for d in out.drives for ph in d.together.phases}
        out.phases = [aggregate(ph, out.drives, host_busy=out.host_busy) for ph in PHASES if ph in ran]
        out.curves = curves(out.drives)
        runs = [r for d in out.drives for r in (d.alone, d.together) if r is not None]
        out.messages = list(dict.fromkeys(f"{r.device}: {m}" for r in runs for m in r.messages))
        bad = next((r for r in runs if r.status == "failed"), None)
        if bad is not None:
            out.status, out.error = "failed", f"{bad.device}: {bad.error}"
        elif cancel.cancelled or any(r.status == "cancelled" for r in runs):
            out.status = "cancelled"
        return out

    def _identify(self) -> None:
        """INQUIRY first on every drive (a non-tape is refused before anything else is sent), then
        two names for one drive (the unit serial number) are refused."""
        n = len(self.drives)
        serials: dict[str, str] = {}
        for drive in self.drives:
            try:
                drive.require_tape()
            except TapediagError as err:
                raise _on_drive(drive.device, err, n) from err
            try:
                serial = drive.serial_number().strip()
            except TapediagError:
                continue  # no serial page: only the names can tell the drives apart
            if serial and serial in serials:
                raise InvalidParameter(f"{serials[serial]} and {drive.device} are the same drive (serial {serial}): "
                                       f"name each drive once; nothing was written to any of the {n} drives")
            serials[serial] = drive.device

    def _alone(self, i: int, drive: TapeDrive, epoch: float, fanin: _Fanin, cancel: CancelToken) -> TapePerfResult:
        """Drive ``i`` on its own, as a one-drive test; its cartridge was checked with the others'."""
        engine = TapePerfTest(drive, self.params.alone_params(), clock=self.clock, pool_bytes=self.pool_bytes,
                              epoch=epoch)
        result = engine.prepare()  # said once already, when every drive was prepared
        return engine.execute(result, fanin.for_drive(i, True), cancel)

    def _together(self, engines: list[TapePerfTest], prepared: list[TapePerfResult], fanin: _Fanin,
                  cancel: CancelToken) -> list[TapePerfResult]:
        """Every drive in its own thread, the phases started together; a drive that fails stops alone."""
        gate = PhaseGate(len(engines))
        errors: list[BaseException | None] = [None] * len(engines)

        def work(i: int) -> None:
            engine = engines[i]
            engine.before_phase = lambda phase: gate.arrive(i, phase)
            try:
                engine.execute(prepared[i], fanin.for_drive(i, False), cancel)
            except BaseException as err:  # kept and judged below, after every thread has ended
                errors[i] = err
            finally:
                gate.leave(i)

        threads = [threading.Thread(target=work, args=(i,), name=f"tape-perf {e.drive.device}", daemon=True)
                   for i, e in enumerate(engines)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i, err in enumerate(errors):
            if err is None:
                continue
            if not isinstance(err, TapediagError):
                raise err
            prepared[i].status, prepared[i].error = "failed", str(err)
        return prepared


__all__ = ["ALONE", "MultiDriveTest", "MultiParams", "PhaseGate", "ALONE_SECONDS"]

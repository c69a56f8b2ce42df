"""The tape performance test: one object for the CLI, the GUI and pytest.

    result = TapePerfTest(drive, params).run(sink, cancel)

Order of work, so that nothing is written before everything is known to be right:
parameters checked against READ BLOCK LIMITS -> pattern calibration -> safety probe (write
tests) -> block mode and compression set -> log pages read -> write phase -> read-back
phase -> log pages read again (deltas) and TapeAlert once.

A cancel is looked for between every two of those steps (issue 27: a Ctrl-C during the pattern
calibration, a fraction of a second of C code, was seen only once the write loop had begun its
first burst): cancelled before the first WRITE, the run writes nothing, not even a filemark,
and puts the block mode and compression back if it had set them. A command the drive does not
answer is given up after a cancel by the drive's watch (``app.commandwatch``); the run then
ends cancelled, with the one line the transport gave on what the drive may be doing.

While streaming, the only commands sent are the WRITEs/READs (and the filemarks asked
for): no LOG SENSE or READ POSITION polling, which disturbs a real drive. Every sample
is host-side: bytes and monotonic start and end time per I/O, kept in flat arrays and
published in batches at 10 Hz or more.

The commands between two publishes go out as one burst (``TapeDrive.write_burst``/
``read_burst``, ``Transport.repeat``): over iSCSI the whole burst is one C loop with the
GIL released, so the engine streams at the pace of a bare C loop on libiscsi (issue 19)
and several drives' engines stream at once. Each WRITE carries unique data from the
pattern generator (one C pass per I/O). With a second buffer the iSCSI loop fills the
next I/O while the current WRITE is in flight, in the same thread: the fill then costs
no wall time. (Filling on a worker thread was tried and measured slower against tgtd on
a 2-core box: the worker needs a core the target wants, and the kernel's socket copy
then reads the buffer from the other core's cache.)
"""
from __future__ import annotations

import time
from array import array
from dataclasses import replace
from typing import Callable, Protocol

from app import heap, media
from app.drive import Burst, ReadOnlyRefusal, ReadOutcome, TapeDrive, WriteOutcome, supported
from app.events import (CancelToken, EventSink, Message, PhaseFinished, PhaseStarted, Progress, RatedRates, Sample,
                        SampleBatch, Yardstick, discard)
from app.patterns import DEFAULT_POOL_BYTES, BlockGenerator
from native.scsi.cdb import SpaceCode
from app.tapeperf import safety, settings, sizing
from app.tapeperf.logs import DriveLogs
from app.tapeperf.params import TapePerfParams
from app.tapeperf.rated import BUFFER_MIB, rated
from app.tapeperf.results import MB, MiB, PhaseResult, SampleLog, TapePerfResult, summarize
from native import sldc
from native.errors import (Cancelled, CommandTimeout, ConnectionLost, DataProtect, DeviceError, InvalidParameter,
                           SafetyRefusal, TapediagError)

PUBLISH_INTERVAL = 0.1  # seconds: samples reach the sink at 10 Hz or more
#: I/Os per burst at most (``TapeDrive.write_burst``/``read_burst``); the publish interval
#: usually ends a burst first. Bursts are what keep the engine at the pace of a bare C loop:
#: the commands between two publishes run without Python between them (issue 19).
BURST_MAX = 4096


class BurstTimes:
    """The clock readings of one burst's I/Os: start and end, preallocated once per phase."""

    def __init__(self, size: int = BURST_MAX) -> None:
        self.starts = array("d", bytes(8 * size))
        self.ends = array("d", bytes(8 * size))


def _storage_since(drive: TapeDrive, before: tuple[int, float] | None) -> tuple[float | None, float | None]:
    """(MB/s, seconds) of an emulated drive's cartridge-file I/O during a phase ((None, None): real hardware)."""
    after = drive.transport.emulator_storage
    if before is None or after is None or after[1] <= before[1]:
        return None, None
    seconds = after[1] - before[1]
    return (after[0] - before[0]) / seconds / 1e6, seconds


def _lag_since(drive: TapeDrive, before: float | None) -> float | None:
    """How far an emulated drive fell behind its model since ``before`` (None: real hardware).

    ``before`` is read when the streaming window opens (after the phase's first I/O, which
    ``summarize`` leaves out of it), so the figure is the window's own: the window's wall time is
    the model's time plus this, never less than it (``native/virtual/lag.py``)."""
    after = drive.transport.emulator_lag
    return None if before is None or after is None else max(0.0, after - before)


def lag_probe(drive: TapeDrive) -> Callable[[], float | None] | None:
    """An emulated drive's lag, read after each burst into the phase's samples (None: real hardware)."""
    transport = drive.transport
    return (lambda: transport.emulator_lag) if transport.emulator_lag is not None else None


class HasSamples(Protocol):
    samples: list[Sample]


class SamplePublisher:
    """Turns the phase's sample arrays into SampleBatch/Progress events at a bounded rate (the tape
    test's and the media scan's); ``finish`` appends the phase's samples to ``result.samples``.

    The batches carry copies of the arrays (``SampleColumns``): no object per I/O is made on the
    engine's thread while it streams, and the result's ``Sample`` list is built once, after the
    phase's last I/O (issue 19: building them per publish cost ~12k instructions an I/O, plus
    the garbage collector walking them)."""

    def __init__(self, sink: EventSink, log: SampleLog, result: HasSamples, total: int | None,
                 deadline: float | None, start: float, t0: float, clock: Callable[[], float]) -> None:
        self.sink, self.log, self.result = sink, log, result
        self.total, self.deadline, self.start, self.t0, self.clock = total, deadline, start, t0, clock
        self.sent = 0
        self.last = clock()

    def __call__(self, done: int, now: float) -> None:
        self.last = now
        if len(self.log) > self.sent:
            batch = self.log.columns(self.sent)
            self.sent = len(self.log)
            self.sink(SampleBatch(columns=batch))
        elapsed = now - self.t0 - self.start
        rate = done / elapsed / MB if elapsed > 0 else 0.0
        eta = None
        if self.total is not None and rate > 0:
            eta = (self.total - done) / (rate * MB)
        if self.deadline is not None:
            left = max(0.0, self.deadline - now)
            eta = left if eta is None else min(eta, left)
        self.sink(Progress(self.log.phase, done, self.total, elapsed, rate, eta))

    def due(self, deadline: float | None) -> float:
        """When the next publish is due, or the phase's deadline if sooner: where a burst stops."""
        due = self.last + PUBLISH_INTERVAL
        return due if deadline is None else min(due, deadline)

    def finish(self, done: int, now: float) -> None:
        """The last batch and progress, then the phase's samples into the result."""
        self(done, now)
        self.result.samples.extend(self.log.samples())


class _Stream:
    """One phase's running state, what the write and the read loops share: its result, samples, publisher,
    limits and the emulator's counters when it began; bytes and blocks moved so far."""

    def __init__(self, ph: PhaseResult, log: SampleLog, total: int | None, deadline: float | None, start: float,
                 lag0: float | None, store0: tuple[int, float] | None, publish: SamplePublisher) -> None:
        self.ph, self.log, self.total, self.deadline, self.start = ph, log, total, deadline, start
        self.lag0, self.store0, self.publish = lag0, store0, publish
        self.opened = False  # the streaming window opens at the end of the first I/O: the lag is read there
        self.done = self.block = 0

    def stop(self, cancel: CancelToken, clock: Callable[[], float], *, sized: bool = True) -> str:
        """Why the phase stops before its next burst ("" to go on): its size, a cancel, its duration."""
        if sized and self.total is not None and self.done >= self.total:
            return "size reached"
        if cancel.cancelled:
            return "cancelled"
        if self.deadline is not None and clock() >= self.deadline:
            return "duration reached"
        return ""

    def open_window(self, drive: TapeDrive) -> None:
        if not self.opened and len(self.log):
            self.opened, self.lag0 = True, drive.transport.emulator_lag

    def publish_due(self, now: float) -> None:
        if now - self.publish.last >= PUBLISH_INTERVAL:
            self.publish(self.done, now)


class _Marks:
    """The write's filemarks: bytes since the last one, whether the last thing written was one, their seconds."""

    def __init__(self) -> None:
        self.since = 0
        self.last = False
        self.seconds = 0.0


class _Short:
    """A read's short block is said once."""

    def __init__(self) -> None:
        self.noted = False


class TapePerfTest:
    """One run of the tape performance test on one drive.

    ``clock`` is the monotonic clock samples are taken from; ``pool_bytes`` the
    pattern pool size (tests use smaller pools to save memory).
    """

    def __init__(self, drive: TapeDrive, params: TapePerfParams, *, clock: Callable[[], float] = time.perf_counter,
                 pool_bytes: int = DEFAULT_POOL_BYTES, epoch: float | None = None,
                 before_phase: Callable[[str], None] | None = None) -> None:
        self.drive = drive
        self.params = params
        self.clock = clock
        self.pool_bytes = pool_bytes
        self.logs = DriveLogs(drive)
        self._connection_lost = False
        self._gen: BlockGenerator | None = None
        # Several drives at once (app.tapeperf.multi): one time base for every drive's samples,
        # and a gate each phase waits at once the tape is positioned, so the drives stream together.
        self.epoch = epoch
        self.before_phase = before_phase

    # -- the run -----------------------------------------------------------------------

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> TapePerfResult:
        """Run the test. Bad parameters and safety refusals raise before anything is
        written; failures once streaming end the run with ``status='failed'`` and the
        partial results; cancelling ends it with ``status='cancelled'``."""
        cancel = cancel or CancelToken()
        result = self.prepare(sink)
        for step in (self.generator, lambda r: self.check_cartridge(r, sink)):
            if cancel.cancelled:
                return self._cancelled_before_writing(result, sink)
            step(result)
        return self.execute(result, sink, cancel)

    def generator(self, result: TapePerfResult) -> BlockGenerator | None:
        """The pattern's blocks, built once, before the cartridge is even looked at (for N:1 calibrated
        against the SLDC model: CPU work, a fraction of a second, seconds on a busy host, which a cancel
        must not wait for), and only when the run writes or verifies them: a read without verify states the
        pattern's ratio instead (issue 32.4: it spent 18 % of its CPU calibrating data it never wrote)."""
        p = self.params
        if not (p.writes or p.verify):
            result.predicted_ratio = p.pattern.stated_ratio(result.history)
            return None
        if self._gen is None:
            self._gen = p.pattern.generator(p.block_size, result.history, p.seed, self.pool_bytes)
        result.predicted_ratio = self._gen.predicted_ratio
        return self._gen

    def _cancelled_before_writing(self, result: TapePerfResult, sink: EventSink) -> TapePerfResult:
        result.status = "cancelled"
        self._note(result, sink, "info", "cancelled before anything was written")
        return result

    def prepare(self, sink: EventSink = discard) -> TapePerfResult:
        """Everything known before the cartridge is looked at: parameters against the drive and the
        path, the drive's identity and rates. Sends no command that changes anything."""
        p, drive = self.params, self.drive
        p.validate(None)
        if drive.read_only:  # before any command: the test writes test data and sets the block mode
            raise ReadOnlyRefusal(drive.device, "tape-perf was not started (it sets the block mode"
                                                + (" and writes test data)" if p.writes else ")"))
        result = TapePerfResult(device=drive.device, params=p.to_dict())
        inq = drive.inquiry()
        result.vendor, result.product = inq.vendor, inq.product
        drive.wait_ready(timeout=300.0)  # consumes the UNIT ATTENTION a fresh load leaves behind
        limits = supported(drive.read_block_limits)
        p.validate(limits.value if limits else None)  # refuse what the drive cannot do before saying anything
        _check_path_limit(drive, p)  # and what the OS/HBA would refuse mid-run (issue 13.2)
        try:
            result.generation = drive.generation()
        except DeviceError:
            result.generation = None
        if p.history:
            result.history = p.history
        elif result.generation:
            result.history = sldc.history_for_generation(result.generation)
        else:
            result.history = sldc.HISTORY_LTO6_PLUS
            self._note(result, sink, "info", "generation unknown: patterns calibrated for a 16 KiB SLDC history")
        result.rated_native_mb_s, result.rated_compressed_mb_s = rated(result.generation)
        sink(RatedRates(result.generation, result.rated_native_mb_s, result.rated_compressed_mb_s))
        self._plan_size(result, sink)
        return result

    def _plan_size(self, result: TapePerfResult, sink: EventSink) -> None:
        """The size the write sends (``app.tapeperf.sizing``): the default that can judge the drive, capped by
        what the cartridge holds; said in one line when it was chosen or capped here."""
        plan = sizing.plan_for(self.drive, self.params, result.generation)
        result.size_plan = plan
        if plan.size is not None and plan.size != self.params.size:
            self.params = replace(self.params, size=plan.size)
        if plan.auto or plan.capped:
            self._note(result, sink, "info", f"size {plan.why}")

    def check_cartridge(self, result: TapePerfResult, sink: EventSink = discard) -> None:
        """Before anything is read or written: the cartridge against the drive (``app.media``: an incompatible
        one refused, a read-only one refused for a write), then the safety probe and decision before a write
        test (``app.tapeperf.safety``); raises ``SafetyRefusal``."""
        p = self.params
        fit = media.check_loaded(self.drive, writes=p.writes, doing="the tape test")
        for note in media.notes(fit, writes=p.writes):
            self._note(result, sink, "warning", note)
        if p.writes:
            state = safety.check_before_write(self.drive, at_bot=p.start == "bot", force=p.force)
            if state.holds_data:
                self._note(result, sink, "warning", f"overwriting by request: {state.found or state.probe_error}")

    def execute(self, result: TapePerfResult, sink: EventSink = discard, cancel: CancelToken | None = None) -> TapePerfResult:
        """The test itself on a prepared (and, for a write, checked) drive; the drive's settings put back after."""
        cancel = cancel or CancelToken()
        p, drive = self.params, self.drive
        if cancel.cancelled:  # nothing changed yet
            return self._cancelled_before_writing(result, sink)
        saved = settings.save(drive)
        try:
            drive.set_block_size(p.block_size if p.fixed else 0)
            self._set_compression(result, sink)
            if result.possible is not None:  # the data's ratio and the compression known: the verdict's yardstick
                sink(Yardstick(result.possible.mb_s, result.possible.label))
            self._run_phases(result, sink, cancel)
        except Cancelled as err:  # a command given up after the cancel (``app.commandwatch``), before the write
            self._fail(result, sink, str(err), err)
        finally:
            result.settings = (settings.restore(drive, saved) if not self._connection_lost else
                               f"the connection was lost: the drive's settings could not be put back "
                               f"(before the test: {saved.describe()})")
        return result

    def _run_phases(self, result: TapePerfResult, sink: EventSink, cancel: CancelToken) -> None:
        p, drive = self.params, self.drive
        gen = self.generator(result)
        SampleLog.prepare()
        if cancel.cancelled:
            self._cancelled_before_writing(result, sink)
            return
        before = self.logs.snapshot(result)
        result.buffer_bytes, result.buffer_source = self.logs.buffer_bytes(), "the drive's log page 0x0C"
        if result.buffer_bytes is None and BUFFER_MIB.get(result.generation or 0):
            result.buffer_bytes = BUFFER_MIB[result.generation or 0] * MiB
            result.buffer_source = f"LTO-{result.generation}'s published buffer"

        start_block: int | None = 0
        if p.start == "eod" and p.writes:
            drive.space(1, SpaceCode.END_OF_DATA)
            start_block = self._position()
        else:
            drive.rewind()
        if cancel.cancelled:  # positioned, nothing written: the logs need no second reading either
            self._cancelled_before_writing(result, sink)
            return

        buf = bytearray(p.io_size)
        t0 = self.clock() if self.epoch is None else self.epoch
        write_phase: PhaseResult | None = None
        try:
            if p.writes:
                self._gate("write")
                assert gen is not None  # built for every run that writes
                with heap.frozen():  # no full collection of the host's heap inside the timed span
                    write_phase = self._write(gen, buf, result, sink, cancel, t0)
            if p.reads and result.status == "complete":
                if p.start == "eod" and p.writes:
                    assert write_phase is not None
                    self._back_to(start_block, write_phase)
                else:
                    drive.rewind()
                self._gate("read")
                with heap.frozen():
                    self._read(gen, buf, result, sink, cancel, t0, write_phase)
        except DeviceError as err:  # positioning between phases failed
            self._fail(result, sink, f"positioning for the read-back failed: {err}", err)
        finally:
            if not self._connection_lost:
                self.logs.finish(result, before)
                for flag in result.tapealert:
                    self._note(result, sink, "warning", f"TapeAlert {flag}")

    # -- phases ------------------------------------------------------------------------

    def _begin(self, name: str, total: int | None, duration: float | None, result: TapePerfResult, sink: EventSink,
               t0: float) -> "_Stream":
        """A phase's start: its result and sample log in the run's result, its deadline, the emulator's
        counters as they stand, ``PhaseStarted``."""
        drive, clock = self.drive, self.clock
        ph, log = PhaseResult(name), SampleLog(name, lag_probe=lag_probe(drive))
        result.phases.append(ph)
        start = clock() - t0
        deadline = t0 + start + duration if duration is not None else None
        lag0, store0 = drive.transport.emulator_lag, drive.transport.emulator_storage
        sink(PhaseStarted(name, total))
        return _Stream(ph, log, total, deadline, start, lag0, store0,
                       SamplePublisher(sink, log, result, total, deadline, start, t0, clock))

    def _end(self, s: "_Stream", reason: str, result: TapePerfResult, sink: EventSink, t0: float, *,
             flush_seconds: float = 0.0, filemark_seconds: float = 0.0) -> PhaseResult:
        """A phase's end: the last samples published, its figures summarized, ``PhaseFinished``."""
        drive, clock, ph = self.drive, self.clock, s.ph
        if reason == "cancelled":
            result.status = "cancelled"
        end = clock() - t0
        s.publish.finish(s.done, clock())
        ph.bytes, ph.ios, ph.blocks, ph.end_reason = s.done, len(s.log), s.block, reason
        summarize(ph, s.log, s.start, end, flush_seconds=flush_seconds, filemark_seconds=filemark_seconds,
                  buffer_bytes=result.buffer_bytes)
        ph.emulator_lag_seconds = _lag_since(drive, s.lag0)
        ph.emulator_storage_mb_s, ph.emulator_storage_seconds = _storage_since(drive, s.store0)
        sink(PhaseFinished(ph.phase, ph.to_dict()))
        return ph

    def _write(self, gen: BlockGenerator, buf: bytearray, result: TapePerfResult, sink: EventSink,
               cancel: CancelToken, t0: float) -> PhaseResult:
        """The write phase: bursts of WRITEs of unique data, a filemark every ``filemarks_every`` bytes if asked,
        until the size, the duration, the early warning, an error or a cancel; then the closing filemark."""
        p, drive, clock = self.params, self.drive, self.clock
        total = (p.size // p.io_size) * p.io_size if p.size is not None else None
        s = self._begin("write", total, p.duration, result, sink, t0)
        io = p.io_size
        per_io = io // p.block_size if p.fixed else 1
        times = BurstTimes()
        spare = bytearray(io)  # the transport may fill it while a WRITE from ``buf`` is in flight
        marks = _Marks()
        while not (reason := s.stop(cancel, clock)):
            count = BURST_MAX if not p.host_rate_limit and s.opened else 1  # a host rate limit paces every WRITE
            if total is not None:
                count = min(count, -(-(total - s.done) // io))
            if p.filemarks_every:
                count = min(count, -(-(p.filemarks_every - marks.since) // io))
            burst = drive.write_burst(buf, block_size=p.block_size if p.fixed else None, count=count,
                                      until=s.publish.due(s.deadline), starts=times.starts, ends=times.ends,
                                      fill=gen.filler, first=s.block, step=per_io, spare=spare, clock=clock)
            reason = (self._written(burst, s, marks, times, result, sink, t0)
                      or self._filemark_due(s, marks, result, sink))
            if reason:
                break
            s.publish_due(clock())
            if p.host_rate_limit:
                delay = t0 + s.start + s.done / p.host_rate_limit - clock()
                if delay > 0 and cancel.wait(delay):
                    reason = "cancelled"
                    break
        reason, flush = self._close_file(s, marks, reason, result, sink)
        return self._end(s, reason, result, sink, t0, flush_seconds=flush, filemark_seconds=marks.seconds)

    def _written(self, burst: Burst[WriteOutcome], s: "_Stream", marks: "_Marks", times: BurstTimes,
                 result: TapePerfResult, sink: EventSink, t0: float) -> str:
        """Count a write burst's clean WRITEs and what ended it: an error ("error", or a refusal before the
        first byte), the early warning ("capacity reached"), or nothing ("")."""
        p, io, n = self.params, self.params.io_size, burst.clean
        per_io = io // p.block_size if p.fixed else 1
        s.log.add_burst(times.starts, times.ends, n, io, t0)
        s.open_window(self.drive)
        s.done += n * io
        s.block += n * per_io
        marks.since += n * io
        if n:
            marks.last = False
        if burst.error is not None:
            err = burst.error
            if s.done == 0 and isinstance(err, DataProtect):
                raise SafetyRefusal(f"the drive refused to write: {err.message}", reason="write-protected",
                                    overridable=False) from err
            return self._fail(result, sink, f"write failed after {s.done} bytes: {err}", err, s.ph)
        out = burst.tail
        if out is None:
            return ""
        unit = p.block_size if p.fixed else 1  # what the sense residual counts
        moved = io - out.residual * unit if out.residual > 0 else io
        s.log.add(times.ends[n] - t0, times.ends[n] - times.starts[n], moved)
        s.done += moved
        s.block += per_io if moved == io else moved // unit if p.fixed else 1
        marks.since += moved
        marks.last = False
        if not out.eom_warning:
            return ""
        self._note(result, sink, "info", f"early warning: end of medium near after {s.done} bytes (capacity reached)")
        return "capacity reached"

    def _filemark_due(self, s: "_Stream", marks: "_Marks", result: TapePerfResult, sink: EventSink) -> str:
        """A filemark every ``filemarks_every`` bytes (``--filemarks``): its time is counted apart."""
        every = self.params.filemarks_every
        if not every or marks.since < every:
            return ""
        try:
            f0 = self.clock()
            self.drive.write_filemarks(1)
            marks.seconds += self.clock() - f0
        except DeviceError as err:
            return self._fail(result, sink, f"WRITE FILEMARKS failed after {s.done} bytes: {err}", err, s.ph)
        s.ph.filemarks += 1
        marks.since, marks.last = 0, True
        return ""

    def _close_file(self, s: "_Stream", marks: "_Marks", reason: str, result: TapePerfResult,
                    sink: EventSink) -> tuple[str, float]:
        """The closing filemark flushes the drive's buffer: its time belongs to the write. A cancelled write
        closes with it too, so the tape ends with a complete file; one cancelled before its first WRITE
        writes nothing, not even this. Returns the phase's end reason and the flush's seconds."""
        if not s.done or reason == "error" or marks.last or self._connection_lost:
            return reason, 0.0
        try:
            f0 = self.clock()
            self.drive.write_filemarks(1)
            flush = self.clock() - f0
        except DeviceError as err:
            return self._fail(result, sink, f"the closing WRITE FILEMARKS failed: {err}", err, s.ph), 0.0
        s.ph.filemarks += 1
        return reason, flush

    def _read(self, gen: BlockGenerator | None, buf: bytearray, result: TapePerfResult, sink: EventSink,
              cancel: CancelToken, t0: float, written: PhaseResult | None) -> PhaseResult:
        """The read phase: what the write phase wrote (to its filemarks), or a size or duration from BOT,
        in bursts of READs into one buffer, each I/O compared with the pattern when verifying."""
        p, drive, clock = self.params, self.drive, self.clock
        if written is not None:
            s = self._begin("read", written.bytes, None, result, sink, t0)
        else:
            s = self._begin("read", (p.size // p.io_size) * p.io_size if p.size is not None else None, p.duration,
                            result, sink, t0)
        io = p.io_size
        # One view, passed to every READ: the drive and the transport answer a GOOD read into the
        # same view with one shared outcome, so the loop allocates nothing per command (issue 19).
        view = memoryview(buf)
        per_io = io // p.block_size if p.fixed else 1
        times = BurstTimes()
        verify = gen if p.verify else None  # the blocks to compare with (built only for a verifying run)
        short = _Short()
        while not (reason := s.stop(cancel, clock, sized=written is None)):
            count = 1 if verify is not None or not s.opened else BURST_MAX  # verifying looks at every I/O's data first
            if written is None and s.total is not None:
                count = min(count, -(-(s.total - s.done) // io))
            burst = drive.read_burst(view, block_size=p.block_size if p.fixed else None, count=count,
                                     until=s.publish.due(s.deadline), starts=times.starts, ends=times.ends, clock=clock)
            n = burst.clean
            if n:
                s.log.add_burst(times.starts, times.ends, n, io, t0)
                s.open_window(drive)
                if verify is not None:
                    self._verify(verify, view, s.block, per_io, s.ph, p.fixed)
                s.done += n * io
                s.block += n * per_io
            if burst.error is not None:
                reason = self._fail(result, sink, f"read failed after {s.done} bytes: {burst.error}", burst.error, s.ph)
                break
            if burst.tail is not None:
                reason = self._read_tail(burst.tail, n, s, times, verify, view, short, written, result, sink, t0)
                if reason:
                    break
            s.publish_due(clock())
        if written is not None and reason not in ("cancelled", "error") and s.done != written.bytes:
            self._note(result, sink, "warning", f"read back {s.done} bytes of the {written.bytes} written ({reason})")
        return self._end(s, reason, result, sink, t0)

    def _read_tail(self, out: ReadOutcome, n: int, s: "_Stream", times: BurstTimes, verify: BlockGenerator | None,
                   view: memoryview, short: "_Short", written: PhaseResult | None, result: TapePerfResult,
                   sink: EventSink, t0: float) -> str:
        """What ended a read burst (SSC outcomes, not errors): a short or longer block (counted, said once, a
        verify error when verifying), a filemark (the end of the written file, or of the tape's first),
        end of data, end of medium. Returns why the phase ends, or ""."""
        p = self.params
        got, bs = out.nbytes, p.block_size
        if got:
            s.log.add(times.ends[n] - t0, times.ends[n] - times.starts[n], got)
            nblocks = (p.io_size // bs if p.fixed else 1) if got == p.io_size else got // bs if p.fixed else 1
            if verify is not None:
                self._verify(verify, view[:got], s.block, nblocks, s.ph, p.fixed)
            if not p.fixed and got != bs and not short.noted:
                short.noted = True
                self._note(result, sink, "warning", f"block {s.block} on tape is {bs - out.residual} bytes, not {bs}")
                if verify is not None:
                    s.ph.verify_errors += 1
            s.done += got
            s.block += nblocks
        if out.filemark:
            s.ph.filemarks += 1
            expected = written.filemarks if written is not None else None
            if (expected is None and not p.filemarks_every) or (expected is not None and s.ph.filemarks >= expected):
                return "filemark"
        if out.eod:
            return "end of data"
        return "end of medium" if out.eom else ""

    @staticmethod
    def _verify(gen: BlockGenerator, data: memoryview, first: int, nblocks: int, ph: PhaseResult, fixed: bool) -> None:
        """Compare an I/O's blocks with the regenerated ones (allocation-free on success)."""
        if gen.mismatch(data, first) < 0:
            ph.verified_blocks += nblocks
            return
        bs = gen.block_size
        for k in range(nblocks):
            part = data[k * bs:(k + 1) * bs] if fixed else data
            bad = gen.mismatch(part, first + k)
            if bad < 0:
                ph.verified_blocks += 1
            else:
                ph.verify_errors += 1
                if ph.first_verify_error is None:
                    ph.first_verify_error = f"block {first + k} differs from the data written at byte {bad}"

    # -- around the phases ---------------------------------------------------------------

    def _gate(self, phase: str) -> None:
        if self.before_phase is not None:
            self.before_phase(phase)

    def _position(self) -> int | None:
        """The logical block number here, or None when the drive cannot say.

        Some targets (tgt) answer READ POSITION with all zeros: block 0 is believed
        only with the BOP flag, as a real drive at BOT sets it.
        """
        pos = supported(self.drive.read_position)
        if not pos or pos.value is None or pos.value.bpu:
            return None
        if pos.value.first_block == 0 and not pos.value.bop:
            return None
        return pos.value.first_block

    def _back_to(self, start_block: int | None, written: PhaseResult) -> None:
        """Position at the first block the write phase wrote (after an append at EOD).

        LOCATE where the drive has it; otherwise space back over the filemarks written
        plus the one that ended the previous file, and forward over that one.
        """
        drive = self.drive
        if start_block == 0:
            drive.rewind()
            return
        if start_block is not None and supported(drive.locate, start_block):
            return
        back = drive.space(-(written.filemarks + 1), SpaceCode.FILEMARKS)
        if not (back.bop or back.residual):
            drive.space(1, SpaceCode.FILEMARKS)

    def _note(self, result: TapePerfResult, sink: EventSink, level: str, text: str) -> None:
        result.messages.append(text)
        sink(Message(level, text))

    def _fail(self, result: TapePerfResult, sink: EventSink, text: str, err: TapediagError,
              ph: PhaseResult | None = None) -> str:
        """Record a mid-test failure: the run stops cleanly with the decoded cause. A command given up
        after a cancel (``Cancelled``), or any failure once the run is cancelled, leaves the run
        cancelled, with the failure said once (what the drive may be doing)."""
        if isinstance(err, (ConnectionLost, CommandTimeout)):  # nothing more may be sent on that path
            self._connection_lost = True
        if ph is not None:
            ph.error = str(err)
        if isinstance(err, Cancelled) or result.status == "cancelled":
            result.status = "cancelled"
            self._note(result, sink, "warning", str(err))
            return "cancelled"
        result.status = "failed"
        result.error = text
        self._note(result, sink, "error", text)
        return "error"

    def _set_compression(self, result: TapePerfResult, sink: EventSink) -> None:
        want = self.params.compression
        if want == "leave":
            try:
                page = self.drive.compression()
            except DeviceError:
                page = None
            result.compression = "unknown" if page is None else ("on" if page.dce else "off")
            return
        change = self.drive.set_compression(want == "on")
        if change:
            result.compression = want
        else:
            state = {True: "on", False: "off", None: "unknown"}[change.enabled]
            result.compression = state
            self._note(result, sink, "warning", f"compression left {state}: {change.reason}")


__all__ = ["TapePerfTest", "PUBLISH_INTERVAL", "BURST_MAX", "BurstTimes"]


def _check_path_limit(drive: TapeDrive, p: TapePerfParams) -> None:
    """Refuse an I/O size larger than the path's maximum transfer before anything is written: the OS or
    the HBA would fail the first WRITE (EINVAL/EIO), mid-run and easily mistaken for a dead drive. The
    hint names the largest I/O size that fits (a whole number of blocks in fixed mode)."""
    limit = drive.transfer_limit()
    if limit is None or p.io_size <= limit.max_bytes:
        return
    unit = p.block_size if p.mode == "fixed" else 1
    fits = limit.max_bytes // unit * unit
    largest = f"{fits // 1024} KiB" if fits % 1024 == 0 else f"{fits:,} bytes"
    if not fits:
        hint = f"the block size alone ({p.block_size:,} bytes) is larger than this path can carry"
    else:
        hint = f"use --io-size {largest} or less" if p.mode == "fixed" else f"use a block size of {largest} or less"
    raise InvalidParameter(f"the I/O size ({p.io_size:,} bytes) is larger than the largest transfer this path accepts "
                           f"({limit.max_bytes:,} bytes; {limit.source}); nothing was written", hint=hint)

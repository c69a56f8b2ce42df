"""Device work off the GUI thread: one single-thread worker per device.

Why one per device: a tape drive executes one command stream; two panels issuing
commands to the same drive at once would interleave a REWIND into a running write.
Every job for a device string therefore queues on that device's own thread, while
different devices (and the disk tests, keyed by their directory) run side by side.

The engine's ``sink`` runs on the worker thread. It never touches a widget: events
go into the job's thread-safe ``events`` deque, which the GUI drains on a QTimer
(see ``ui.runview``). Completion and failure come back as signals queued to the
GUI thread, so callbacks always run there (the Anki ``taskman`` idiom).
"""
from __future__ import annotations

import atexit
import collections
import itertools
import logging
import queue
import sys
import traceback
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from PySide6.QtCore import QObject, QThread, Signal, Slot

from app.events import CancelToken, Event

log = logging.getLogger(__name__)

_ids = itertools.count(1)
SWITCH_INTERVAL_S = 0.00005


T = TypeVar("T")


@dataclass(eq=False)
class Job(Generic[T]):
    """One unit of work for one device. ``fn(job)`` runs on the device's thread and returns the
    ``T`` that ``on_done`` receives on the GUI thread (a callback's own return value is ignored)."""

    device: str
    title: str
    fn: Callable[["Job[T]"], T]
    on_done: Callable[[T], object] | None = None
    on_error: Callable[[BaseException], object] | None = None
    cancel: CancelToken = field(default_factory=CancelToken)
    events: collections.deque[Event] = field(default_factory=collections.deque)
    id: int = field(default_factory=lambda: next(_ids))
    finished: bool = False
    #: A test run on the selected drive: while it runs the device pane keeps that drive
    #: selected (issue 11 §5: a click elsewhere must not re-label a running test).
    holds_selection: bool = False

    def sink(self, event: Event) -> None:
        """The engine's event sink: called on the worker thread, so only queue."""
        self.events.append(event)

    def drain(self) -> list[Event]:
        """Everything queued so far (GUI thread). deque.popleft is thread-safe."""
        out = []
        while True:
            try:
                out.append(self.events.popleft())
            except IndexError:
                return out


class DeviceThread(QThread):
    """One device's worker: runs queued calls one after the other, in order.

    A QThread rather than a Python thread: Qt gives it an event dispatcher, which the
    Qt objects some jobs create need (the PDF report lays out a QTextDocument, whose
    layout starts timers). On a plain Python thread every such timer printed
    "QBasicTimer::start: current thread's event dispatcher has already been destroyed".
    """

    def __init__(self, name: str) -> None:
        super().__init__()
        self.setObjectName(name)
        self._calls: queue.SimpleQueue[tuple[Callable[..., None], tuple[Any, ...]] | None] = queue.SimpleQueue()
        _threads.add(self)

    def submit(self, fn: Callable[..., None], *args: Any) -> None:
        self._calls.put((fn, args))
        if not self.isRunning():
            self.start()

    def run(self) -> None:
        while True:
            call = self._calls.get()
            if call is None:
                return
            fn, args = call
            fn(*args)

    def shutdown(self) -> None:
        """Drop the calls not started yet, let the running one end, wait for the thread."""
        while True:
            try:
                self._calls.get_nowait()
            except queue.Empty:
                break
        self._calls.put(None)
        if self.isRunning():
            self.wait()


_threads: "weakref.WeakSet[DeviceThread]" = weakref.WeakSet()


_pools: "weakref.WeakSet[DeviceWorkers]" = weakref.WeakSet()


@atexit.register
def _stop_threads() -> None:
    """A QThread destroyed while it runs aborts the process: cancel the jobs and stop the
    threads a window left running (one that was closed has done so already)."""
    for pool in list(_pools):
        pool.cancel_all()
    for thread in list(_threads):
        thread.shutdown()


class DeviceWorkers(QObject):
    """The per-device executors of one window. ``shutdown`` cancels and waits.

    Lives on the GUI thread: ``_done``/``_failed`` are emitted by worker threads and
    delivered (queued) to this object's slots, so job callbacks run on the GUI thread.
    """

    busy_changed = Signal(str, bool)
    _done = Signal(object, object)
    _failed = Signal(object, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        # A worker's hot loop (the tape engine) holds the GIL between I/Os; with the
        # default 5 ms switch interval the GUI thread waits that long for every one of
        # the many GIL hand-overs a repaint needs. SWITCH_INTERVAL_S (50 µs) keeps the window fluid.
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
        self._executors: dict[str, DeviceThread] = {}
        self._active: dict[int, Job[Any]] = {}
        self._closed = False
        _pools.add(self)
        self._done.connect(self._on_done)
        self._failed.connect(self._on_failed)

    def submit(self, job: Job[T]) -> Job[T]:
        """Queue ``job`` on its device's thread (created on first use)."""
        if self._closed:
            raise RuntimeError("workers are shut down")
        executor = self._executors.get(job.device)
        if executor is None:
            executor = DeviceThread(f"tapediag-{job.device}")
            self._executors[job.device] = executor
        self._active[job.id] = job
        self.busy_changed.emit(job.device, True)
        executor.submit(self._run, job)
        return job

    def _run(self, job: Job[Any]) -> None:
        """Worker thread: run, then hand the outcome to the GUI thread."""
        try:
            result = job.fn(job)
        except Exception as err:  # every failure must reach a dialog, never only the console
            if not _is_expected(err):
                log.error("unexpected error in %s:\n%s", job.title, "".join(traceback.format_exception(err)))
            self._failed.emit(job, err)
            return
        self._done.emit(job, result)

    @Slot(object, object)
    def _on_done(self, job: Job[Any], result: Any) -> None:
        self._settle(job)
        if job.on_done:
            job.on_done(result)

    @Slot(object, object)
    def _on_failed(self, job: Job[Any], err: Exception) -> None:
        self._settle(job)
        if job.on_error:
            job.on_error(err)

    def _settle(self, job: Job[Any]) -> None:
        job.finished = True
        self._active.pop(job.id, None)
        self.busy_changed.emit(job.device, self.is_busy(job.device))

    def is_busy(self, device: str) -> bool:
        return any(j.device == device for j in self._active.values())

    def active_jobs(self) -> list[Job[Any]]:
        return list(self._active.values())

    def selection_holder(self) -> Job[Any] | None:
        """The running test that holds the device selection, if any (the oldest)."""
        return next((j for j in self._active.values() if j.holds_selection), None)

    def cancel_all(self) -> None:
        for job in list(self._active.values()):
            job.cancel.cancel()

    def shutdown(self) -> None:
        """Cancel every running job and wait for the threads (window close)."""
        self._closed = True
        self.cancel_all()
        for executor in self._executors.values():
            executor.shutdown()
        self._executors.clear()


def _is_expected(err: BaseException) -> bool:
    from native.errors import TapediagError

    return isinstance(err, TapediagError)


def describe_error(err: BaseException) -> str:
    """The one line a technician sees: the decoded cause, or the type for a bug."""
    from native.errors import TapediagError

    if isinstance(err, TapediagError):
        return str(err)
    return f"Internal error ({type(err).__name__}): {err}"

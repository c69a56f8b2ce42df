"""Recording a test run into the history as it happens.

Usage in a CLI command or a GUI worker::

    with record("tape-perf", device, params) as rec:
        result = TapePerfTest(params, drive).run(rec.sink(print_event), cancel)
        rec.results = result.to_dict()
    print(rec.run_id)

The run is committed as ``incomplete`` on entry. Samples from ``SampleBatch`` events
are buffered and committed every ``flush_samples`` samples or ``flush_seconds``, so a
crash loses at most one flush interval of samples and never the run itself. On a
clean exit the run becomes ``complete`` (with ``rec.results``); ``Cancelled`` or
KeyboardInterrupt make it ``cancelled``; a ``SafetyRefusal`` makes it ``refused`` (the
technician should see that a write was refused, and why); ``InvalidParameter`` removes
the run (bad input is refused before anything is measured: a typo is not a run); any
other exception makes it ``failed`` with the error's one-line message. The exception
is then re-raised unchanged. A history that cannot record (damaged, read-only, busy)
refuses the run before it starts (``HistoryError``, "the run was not started").
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator

from app.sink import discard
from native.errors import Cancelled, InvalidParameter, SafetyRefusal, TapediagError
from native.iscsi_url import display_device

from .figures import VisitFigures
from .keys import RunKeys, keys_from_results
from .store import History, HistoryError

if TYPE_CHECKING:  # the events' classes load with the first event a run emits (``_sink``); info emits none
    from app.events import Event, EventSink, Sample, SampleColumns


class Recorder:
    """The handle ``record()`` yields: a sink wrapper, the run id and the results slot."""

    def __init__(self, history: History, run_id: int, *, flush_samples: int = 20000, flush_seconds: float = 1.0) -> None:
        self.history = history
        self.run_id = run_id
        self.results: dict | None = None
        #: How the run ends when the ``with`` block exits normally; an engine that
        #: reports its own failure or cancellation (with partial results) sets these.
        self.status = "complete"
        self.error: str | None = None
        #: What the run says about the cartridge it moved through its drive (``app.history.figures``), when its kind
        #: says it; stored with the keys as the run finishes.
        self.visit: VisitFigures | None = None
        self._buffer: list[Sample] = []
        self._columns: list[SampleColumns] = []  # engines' arrays, stored as rows without a Sample each
        self._pending = 0
        self._lock = threading.Lock()
        self._flush_samples = flush_samples
        self._flush_seconds = flush_seconds
        self._last_flush = time.monotonic()

    def sink(self, inner: EventSink = discard) -> EventSink:
        """An event sink that stores samples, then passes every event on to ``inner``."""

        def _sink(event: Event) -> None:
            # Imported here, not at the top: whatever made the event loaded them (a lookup in sys.modules),
            # and a run that emits none (``info``) does without building the events' classes (issue 32 §3).
            from app.events import Checkpoint, SampleBatch

            if isinstance(event, SampleBatch):
                if event.columns is not None:
                    self.add_columns(event.columns)
                else:
                    self.add(event.samples)
            elif isinstance(event, Checkpoint):
                self.history.save_progress(self.run_id, event.results)
            inner(event)

        return _sink

    def add(self, samples: tuple[Sample, ...] | list[Sample]) -> None:
        with self._lock:
            self._buffer.extend(samples)
            self._pending += len(samples)
        self._flush_if_due()

    def add_columns(self, columns: SampleColumns) -> None:
        with self._lock:
            self._columns.append(columns)
            self._pending += len(columns)
        self._flush_if_due()

    def _flush_if_due(self) -> None:
        with self._lock:
            due = self._pending >= self._flush_samples or time.monotonic() - self._last_flush >= self._flush_seconds
        if due:
            self.flush()

    def flush(self) -> None:
        with self._lock:
            pending, self._buffer = self._buffer, []
            columns, self._columns = self._columns, []
            self._pending = 0
            self._last_flush = time.monotonic()
        self.history.add_samples(self.run_id, pending, columns)


@contextmanager
def record(kind: str, device: str, params: dict | None = None, *, history: History | None = None,
           flush_samples: int = 20000, flush_seconds: float = 1.0) -> Iterator[Recorder]:
    """Record one run; see the module docstring. Opens the default history if none given."""
    device = display_device(device)  # a CHAP secret is never recorded
    own = history is None
    try:
        hist = History.open() if history is None else history
    except HistoryError as err:
        raise _not_started(err) from err
    try:
        try:
            run_id = hist.start_run(kind, device, params or {})
        except HistoryError as err:
            raise _not_started(err) from err
        rec = Recorder(hist, run_id, flush_samples=flush_samples, flush_seconds=flush_seconds)
        try:
            yield rec
        except (Cancelled, KeyboardInterrupt) as err:
            _finish(rec, "cancelled", _stored(err) or "cancelled by the user")
            raise
        except InvalidParameter:
            hist.delete_run(run_id)
            raise
        except SafetyRefusal as err:
            _finish(rec, "refused", _stored(err))
            raise
        except BaseException as err:
            _finish(rec, "failed", _stored(err) or type(err).__name__)
            raise
        _finish(rec, rec.status, rec.error)
    finally:
        if own:
            hist.close()


def _stored(err: BaseException) -> str:
    """What the history keeps of an error: its sentence, not the command line's hint. The hint was said when the run
    ended ("use --force to overwrite it"); stored, it would reach the PDF and the GUI, where there is no option to
    give (issue 31), and it can name a path on this machine."""
    return err.message if isinstance(err, TapediagError) else str(err)


def _finish(rec: Recorder, status: str, error: str | None) -> None:
    """Flush, store how the run ended and which drive and cartridge it was on (a failed run is a visit too:
    a MEDIUM ERROR that stopped a scan is exactly what tells a bad cartridge from a bad drive)."""
    rec.flush()
    rec.history.finish_run(rec.run_id, status, rec.results, error=error)
    keys = keys_from_results(rec.results)  # the identities the run recorded (``app.identity``), else its own fields
    if keys != RunKeys():
        rec.history.set_keys(rec.run_id, keys)
    if rec.visit is not None:
        rec.history.set_visit(rec.run_id, rec.visit)


def _not_started(err: HistoryError) -> HistoryError:
    """A run that cannot be recorded is not run: a technician relies on finding every
    test in the history (and its run id in the output), so measuring without recording
    would be a silent loss. The refusal comes before the engine touches the device."""
    return HistoryError(f"{err.message}; the run was not started, as it could not be recorded", hint=err.hint)


#: An engine result's own ``status`` -> the history's. A disk run "stopped" early (a
#: full disk) failed, with its partial results kept.
#: A watch that saw nothing run on its drive ("nothing") finished what it was asked: complete, its verdict says so.
_RESULT_STATUS = {"complete": "complete", "cancelled": "cancelled", "failed": "failed", "stopped": "failed",
                  "nothing": "complete"}


def result_status(result: Any) -> str:
    """How a run with this result ends in the history: its ``status`` in the history's words (the GUI's results page
    says the same)."""
    return _RESULT_STATUS.get(getattr(result, "status", "complete"), "failed")


def run_recorded(kind: str, device: str, params: dict | None, run_callable: Callable[[EventSink], Any], *,
                 sink: EventSink = discard, history: History | None = None,
                 extra: Callable[[], dict[str, Any]] | None = None,
                 visit: Callable[[Any], VisitFigures] | None = None) -> tuple[int, Any]:
    """Call ``run_callable(sink)`` inside ``record()`` and store its result.

    The result's ``to_dict()`` (or the dict it returns) becomes the run's results; a
    result whose ``status`` says it failed, stopped or was cancelled (engines return
    partial results rather than raise) finishes the run with that status and its
    ``error``. Returns ``(run_id, result)``. For engines shaped
    ``Test(...).run(sink, cancel)``: ``run_recorded("tape-perf", dev, params, lambda s: test.run(s, cancel))``.
    ``extra()``, called after the run, adds keys to the stored results (the devices' identities,
    ``app.identity``). ``visit(result)`` says what the run tells of the cartridge it moved (``RunKind.visit``),
    stored beside the keys.
    """
    with record(kind, device, params, history=history) as rec:
        result = run_callable(rec.sink(sink))
        to_dict = getattr(result, "to_dict", None)
        rec.results = to_dict() if callable(to_dict) else (result if isinstance(result, dict) else None)
        if extra is not None and rec.results is not None:
            rec.results = {**rec.results, **extra()}
        rec.status = result_status(result)
        if visit is not None and rec.results is not None:
            rec.visit = visit(result)
        rec.error = getattr(result, "error", None) or None
    return rec.run_id, result

"""Parallel streams for the disk tests: one thread per stream, samples at 10 Hz.

Each stream thread calls ``native.diskio`` in batches of a few milliseconds (the GIL
is released inside), reports each batch here, and checks ``stop`` between batches.
The caller's thread meanwhile publishes ``SampleBatch`` and ``Progress`` events every
100 ms and turns a cancel request into ``stop``, so cancelling takes effect within
one batch and the sink is only ever called from the engine's own thread.
"""
from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from app import heap
from app.events import CancelToken, EventSink, Progress, Sample, SampleBatch
from app.disk.results import MB, StreamResult

PUBLISH_INTERVAL = 0.1  # seconds: 10 Hz live samples
BATCH_SECONDS = 0.02  # aim of each native call: short enough to stop quickly


@dataclass
class Stream:
    """One stream's counters; updated only by its own thread."""

    index: int
    t0_ns: int
    phase: str
    _samples: collections.deque = field(repr=False, default_factory=collections.deque)
    stop: threading.Event = field(default_factory=threading.Event)
    cancel: CancelToken = field(default_factory=CancelToken)
    files: int = 0
    bytes: int = 0
    errors: int = 0
    end_ns: int = 0
    flush_ns: int = 0  # create with fsync "end": the final flush, inside the stream's time
    latencies: list[np.ndarray] = field(default_factory=list, repr=False)

    @property
    def halted(self) -> bool:
        """Checked between batches: another stream failed, or the user cancelled."""
        return self.stop.is_set() or self.cancel.cancelled

    def add_batch(self, records: np.ndarray, *, count_files: bool = True) -> None:
        """Account one native batch (rows: errno, bytes, t_end_ns, latency_ns)."""
        if records.size == 0:
            return
        ok = records[records[:, 0] == 0]
        nbytes = int(records[:, 1].sum())
        self.bytes += nbytes
        if count_files:
            self.files += int(ok.shape[0])
            self.latencies.append(ok[:, 3].copy())
        self.errors += int(records.shape[0] - ok.shape[0])
        t_end = int(records[-1, 2])
        self.end_ns = max(self.end_ns, t_end)
        mean_lat = float(records[:, 3].mean()) / 1e9
        self._samples.append(Sample((t_end - self.t0_ns) / 1e9, nbytes, mean_lat, self.phase, self.index))

    def add_bytes(self, nbytes: int, t_end_ns: int, latency_ns: int) -> None:
        """Account a slice of a large file (the file itself is counted by ``add_file``)."""
        self.bytes += nbytes
        self.end_ns = max(self.end_ns, t_end_ns)
        self._samples.append(Sample((t_end_ns - self.t0_ns) / 1e9, nbytes, latency_ns / 1e9, self.phase, self.index))

    def add_file(self, latency_ns: int) -> None:
        self.files += 1
        self.latencies.append(np.array([latency_ns], dtype=np.int64))

    def finish(self) -> None:
        self.end_ns = max(self.end_ns, time.perf_counter_ns())

    def result(self) -> StreamResult:
        seconds = max(self.end_ns - self.t0_ns, 0) / 1e9
        return StreamResult(self.index, self.files, self.bytes, seconds, self.errors)

    def all_latencies(self) -> np.ndarray:
        return np.concatenate(self.latencies) if self.latencies else np.zeros(0, dtype=np.int64)


class StreamRunner:
    """Runs ``work(stream)`` for each stream in its own thread and publishes meanwhile."""

    def __init__(self, phase: str, nstreams: int, sink: EventSink, cancel: CancelToken,
                 total_bytes: int | None, tick: Callable[[], object] | None = None, tick_every: float = 1.0) -> None:
        self.phase = phase
        self.nstreams = nstreams
        self.sink = sink
        self.cancel = cancel
        self.total_bytes = total_bytes
        self.tick = tick
        self.tick_every = tick_every
        self.stop = threading.Event()
        self.errors: list[BaseException] = []
        self.streams: list[Stream] = []
        self.cancelled = False

    def run(self, work: Callable[[Stream], None]) -> list[Stream]:
        # The host's heap (the GUI's, a benchmark's parsed fio output) is frozen for the run:
        # otherwise a full collection of it can land inside the timed span (tens of ms against
        # runs of 0.1-1 s of small files), holding the GIL (``app.heap``).
        with heap.frozen():
            return self._run(work)

    def _run(self, work: Callable[[Stream], None]) -> list[Stream]:
        t0 = time.perf_counter_ns()
        self.streams = [Stream(i + 1, t0, self.phase, stop=self.stop, cancel=self.cancel) for i in range(self.nstreams)]
        threads = [threading.Thread(target=self._body, args=(work, s), name=f"{self.phase}-{s.index}", daemon=True)
                   for s in self.streams]
        for t in threads:
            t.start()
        last_tick = time.monotonic()
        while any(t.is_alive() for t in threads):
            threads[0].join(PUBLISH_INTERVAL) if threads[0].is_alive() else time.sleep(PUBLISH_INTERVAL)
            if self.cancel.cancelled and not self.stop.is_set():
                self.cancelled = True
                self.stop.set()
            self._publish(t0)
            if self.tick and time.monotonic() - last_tick >= self.tick_every:
                self.tick()
                last_tick = time.monotonic()
        for t in threads:
            t.join()
        self._publish(t0)
        if self.cancel.cancelled:
            self.cancelled = True
        return self.streams

    def _body(self, work: Callable[[Stream], None], stream: Stream) -> None:
        try:
            work(stream)
        except BaseException as err:  # reported by the engine; the other streams stop
            self.errors.append(err)
            self.stop.set()
        finally:
            stream.finish()

    def _publish(self, t0_ns: int) -> None:
        samples: list[Sample] = []
        for s in self.streams:
            while s._samples:
                samples.append(s._samples.popleft())
        if samples:
            samples.sort(key=lambda x: x.t)
            self.sink(SampleBatch(tuple(samples)))
        elapsed = (time.perf_counter_ns() - t0_ns) / 1e9
        done = sum(s.bytes for s in self.streams)
        rate = done / elapsed / MB if elapsed > 0 else 0.0
        eta = None
        if self.total_bytes and done > 0 and elapsed > 0:
            eta = max(self.total_bytes - done, 0) / (done / elapsed)
        self.sink(Progress(self.phase, done, self.total_bytes, elapsed, rate, eta))

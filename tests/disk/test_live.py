"""Live samples: the GUI's curve and the CLI's progress line need a steady 10 Hz feed,
from the first second of a run to its end, for small files and for large ones."""
from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pytest

from app.disk import CreateDataParams, CreateDataTest, ReadDataParams, ReadDataTest
from app.disk.runner import PUBLISH_INTERVAL
from app.events import CancelToken, Progress, SampleBatch
from tests.helpers.wine import under_wine

# The cadence measured here would be Wine's scheduling on a loaded build machine, not
# Windows': these run on Linux and on real Windows, not under Wine.
pytestmark = pytest.mark.skipif(under_wine(), reason="publication cadence under Wine is the emulator's, not Windows'")

#: A run is cancelled once this many sample batches have arrived (progress, not a wall-clock span:
#: a loaded machine may take seconds to start a run; a 0.8 s timer once found "0 batches in 0.84 s").
BATCHES = 8
#: Publication is every 0.1 s. A gap may be this long on top of the machine's share of it, measured in
#: the same run by the anchors below: how late a 0.1 s sleep woke in this process (the CPU, the GIL, a
#: collection) and, for a stream's own samples, how long one small synced write took on the same disk.
MAX_PUBLISH_GAP = 0.35
#: Only so that a run that never publishes still ends (it is then failed for that).
BACKSTOP_SECONDS = 60.0


class _Anchors:
    """Two threads beside the run. One sleeps ``PUBLISH_INTERVAL`` over and over: how much later than
    asked it woke is what this process's scheduling did to any thread that sleeps and wakes, as the
    publishing loop does. The other writes 4 KiB and fsyncs it every 50 ms in the run's directory:
    the longest that took is how long the (shared) disk held one I/O of the run meanwhile."""

    def __init__(self, directory: Path) -> None:
        self.lateness = 0.0
        self.disk = 0.0
        self._path = directory / "anchor.tmp"
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=f, name="live-anchor", daemon=True) for f in (self._cpu, self._io)]

    def _cpu(self) -> None:
        while not self._stop.is_set():
            t = time.monotonic()
            time.sleep(PUBLISH_INTERVAL)
            self.lateness = max(self.lateness, time.monotonic() - t - PUBLISH_INTERVAL)

    def _io(self) -> None:
        block = b"\0" * 4096
        with open(self._path, "wb", buffering=0) as f:
            while not self._stop.wait(0.05):
                t = time.monotonic()
                f.seek(0)
                f.write(block)
                os.fsync(f.fileno())
                self.disk = max(self.disk, time.monotonic() - t)

    def __enter__(self) -> "_Anchors":
        self._path.parent.mkdir(parents=True, exist_ok=True)
        for t in self._threads:
            t.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join()
        self._path.unlink(missing_ok=True)


@dataclass
class _Feed:
    """What the run published: each SampleBatch and Progress with its arrival time (monotonic)."""

    events: list[tuple[float, SampleBatch | Progress]] = field(default_factory=list)
    batches: int = 0
    lateness: float = 0.0
    disk: float = 0.0

    @property
    def samples(self) -> list:
        return [s for _, e in self.events if isinstance(e, SampleBatch) for s in e.samples]


def _timed(run, anchor_dir: Path) -> _Feed:
    """Run ``run(sink, cancel)`` until BATCHES sample batches have arrived (or it ends by itself)."""
    feed = _Feed()
    cancel = CancelToken()

    def sink(event) -> None:
        if isinstance(event, (SampleBatch, Progress)):
            feed.events.append((time.monotonic(), event))
        if isinstance(event, SampleBatch):
            feed.batches += 1
            if feed.batches >= BATCHES:
                cancel.cancel()

    backstop = threading.Timer(BACKSTOP_SECONDS, cancel.cancel)
    backstop.start()
    try:
        with _Anchors(anchor_dir) as anchors:
            run(sink, cancel)
    finally:
        backstop.cancel()
    feed.lateness, feed.disk = anchors.lateness, anchors.disk
    return feed


def _assert_steady(feed: _Feed) -> None:
    """Published every PUBLISH_INTERVAL, each sample in the first publication after it was made, and
    each stream's samples never further apart than that plus what the disk took for one I/O."""
    samples = feed.samples
    assert samples, "no sample batch at all"
    phase = samples[0].phase
    bound = MAX_PUBLISH_GAP + feed.lateness
    why = f"(a sleep woke {feed.lateness:.3f} s late, a synced 4 KiB write took {feed.disk:.3f} s)"
    # the streaming phase's publications: a SampleBatch then a Progress at every tick (Progress alone when
    # no sample was made since): the publishing loop's own cadence
    published = [(t, e) for t, e in feed.events if isinstance(e, SampleBatch) or e.phase == phase]
    ticks = [t for t, e in published if isinstance(e, Progress)]
    assert len(ticks) >= 2, f"published {len(ticks)} time(s) in all"
    gaps = np.diff(ticks)
    assert gaps.max() <= bound, f"a {gaps.max():.3f} s gap between publications {why}"
    if feed.batches < BATCHES:  # a run that ended by itself (a small tree read at once) owes one a gap
        streamed = max(s.t for s in samples)
        assert feed.batches >= max(1, int(streamed / bound)), f"only {feed.batches} sample batches in {streamed:.2f} s"
    # each sample goes out with the next publication: no older than one gap when its Progress says so
    pending: list = []
    for _, e in published:
        if isinstance(e, SampleBatch):
            pending = list(e.samples)
        elif pending:
            stale = e.elapsed - min(s.t for s in pending)
            assert stale <= bound, f"a sample published {stale:.3f} s after it was made {why}"
            pending = []
    for stream in {s.stream for s in samples}:
        t = sorted(s.t for s in samples if s.stream == stream)
        quiet = max(t[0], float(np.diff(t).max()) if len(t) > 1 else 0.0)
        assert quiet <= bound + feed.disk, f"stream {stream} went quiet for {quiet:.3f} s {why}"


def test_create_small_files_publishes_steadily(disk_path: Path) -> None:
    # fsync per file keeps the run going until it has published BATCHES times, on any disk
    params = CreateDataParams(str(disk_path / "t"), depth=2, breadth=4, files_per_dir=2000, fsync="file", streams=2)
    feed = _timed(lambda sink, cancel: CreateDataTest(params).run(sink, cancel), disk_path / "anchor")
    _assert_steady(feed)
    assert {s.stream for s in feed.samples} == {1, 2}


def test_create_large_files_publishes_inside_a_file(disk_path: Path) -> None:
    params = CreateDataParams(str(disk_path / "t"), depth=1, breadth=1, files_per_dir=64, min_size=64 << 20,
                              max_size=64 << 20, fsync="file", pattern="random")
    feed = _timed(lambda sink, cancel: CreateDataTest(params).run(sink, cancel), disk_path / "anchor")
    _assert_steady(feed)
    # samples from inside each file: more of them than files written
    written = max(e.done_bytes for _, e in feed.events if isinstance(e, Progress) and e.phase == "create")
    assert len(feed.samples) > written // (64 << 20)


def test_read_publishes_steadily(disk_path: Path) -> None:
    CreateDataTest(CreateDataParams(str(disk_path / "t"), depth=2, breadth=4, files_per_dir=400)).run()
    params = ReadDataParams(str(disk_path / "t"), streams=2, buffer_size=4096, direct=True)
    # 4 KiB reads, each from the device (O_DIRECT): enough to last BATCHES publications (about 1.7 s on
    # this machine's disk; evicted but cached reads were over after 6); the walk's own time is not checked
    feed = _timed(lambda sink, cancel: ReadDataTest(params).run(sink, cancel), disk_path / "anchor")
    _assert_steady(feed)
    assert {s.stream for s in feed.samples} <= {1, 2}

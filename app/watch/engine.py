"""``Watch(params).run(sink, cancel) -> WatchResult``: a passive watch of another program's backup.

Nothing here touches the job: every figure during the watch is a file read (the kernel's
tape statistics, /proc/diskstats, /proc/net/dev, the backup process's /proc entries); the
drive itself is asked at the start and at the end only (``DriveQuery``), through its sg
node, with queries alone, and not at all with ``query_drive=off``.

Each sample (every ``interval`` seconds) becomes one ``Interval`` (``app.watch.busy``) and is
published as it comes: a ``SampleBatch`` per direction (one sample per interval: its bytes,
with the interval's length as its latency, so a plot spreads the bytes over it), a
``DriveBusy`` (the busy share of the interval) and a ``Progress``. The watch ends after
``for_`` seconds, or ``until_idle`` seconds after the drive's last I/O, or on cancel (checked
while waiting between samples, so Ctrl-C ends it within one interval).
"""
from __future__ import annotations

import time
from array import array
from datetime import datetime
from typing import Callable

from app.events import (CancelToken, DriveBusy, EventSink, Message, PhaseFinished, PhaseStarted, Progress,
                        SampleBatch, SampleColumns, discard)
from app.watch.busy import BusyAccount, Interval, JobWindow, interval
from app.watch.drivequery import DriveQuery, QueriesOnly
from app.watch.host import HostSide
from app.watch.node import SystemPaths, TapeNode, resolve
from app.watch.params import WatchParams
from app.watch.result import MB, WatchResult
from app.watch.series import SeriesBins
from app.watch.stats import StatsReader, TapeStats, delta
from app.watch.summary import finish
from native.errors import DeviceNotFound, TapediagError

PHASE = "watch"


class _Observer:
    """The drive and the host, sample by sample, for one watch."""

    def __init__(self, node: TapeNode, params: WatchParams, paths: SystemPaths, host: HostSide, first: TapeStats) -> None:
        self.reader = StatsReader(node.stats_dir)
        self.host = host
        self.t0 = first.t
        self.prev: TapeStats | None = first
        self.account = BusyAccount()
        self.window = JobWindow()
        self.bins = SeriesBins()
        self.notes: list[str] = []
        self.samples = 1
        self.last_in_flight = first.in_flight
        # Under way: a command outstanding at the first reading, or a process already holding the drive open.
        self.under_way = first.in_flight > 0 or any(p.role.startswith("holds") for p in self.host.procs.values())

    def sample(self, now: float) -> Interval | None:
        """Read the counters at ``now``; the interval since the last reading, None across a gap."""
        stats = self.reader.read(now)
        t = now - self.t0
        if stats is None:
            if self.prev is not None:
                self.notes.append(f"the drive's statistics vanished at {t:.1f} s (the drive was detached?)")
            self.prev = None
            return None
        self.samples += 1
        if self.prev is None:  # back after a gap: a new baseline, nothing attributed across it
            self.notes.append(f"the drive's statistics were back at {t:.1f} s; the time between is not counted")
            self.prev = stats
            return None
        d = delta(self.prev, stats)
        if d.restarted:
            self.notes.append(f"the drive's counters went back at {t:.1f} s (the drive attached again, or the st "
                              "module reloaded): counted from zero after it")
        iv = interval(t, d, self.account.attribute(d, self.prev.in_flight, stats.in_flight), stats.in_flight)
        first_active = iv.active and self.window.start is None
        self.window.add(iv)
        self.bins.add(iv)
        self.host.sample(t, iv.active, first_active)
        self.prev, self.last_in_flight = stats, stats.in_flight
        return iv


def _own_cpu() -> float | None:
    """This process's CPU seconds so far (None where the OS does not say)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows, where watch is refused before it starts
        return None
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _columns(t: float, nbytes: int, seconds: float, phase: str) -> SampleColumns:
    return SampleColumns(array("d", [t]), array("q", [nbytes]), array("d", [seconds]), phase)


class Watch:
    """A passive watch of the backup another program runs on ``params.device``."""

    def __init__(self, params: WatchParams, *, paths: SystemPaths | None = None,
                 clock: Callable[[], float] = time.monotonic, wait: Callable[[CancelToken, float], bool] | None = None,
                 opener: Callable[[str], QueriesOnly] | None = None) -> None:
        self.params = params
        self.paths = paths or SystemPaths()
        self.clock = clock
        self.wait = wait or (lambda cancel, seconds: cancel.wait(seconds))
        self.opener = opener

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> WatchResult:
        cancel = cancel or CancelToken()
        p = self.params
        p.validate()
        node = resolve(p.device, self.paths)
        result = WatchResult(device=p.device, node=node.name, stats_dir=str(node.stats_dir),
                             scsi_address=node.scsi_address, params=p.to_dict(),
                             started_at=datetime.now().isoformat(timespec="seconds"))
        query = DriveQuery(node.sg if p.query_drive == "on" else None, clock=self.clock,
                           **({"opener": self.opener} if self.opener else {}))
        if p.query_drive == "on":
            query.begin()
        else:
            query.figures.why_not = "query drive off: the kernel's figures only"
        host = HostSide(node, p, self.paths)
        host.begin(self.clock())  # the first look through /proc, before the first reading: it can take a while
        first = StatsReader(node.stats_dir).read(self.clock())
        if first is None:
            raise DeviceNotFound(f"{p.device}: its statistics vanished before the watch began", device=p.device)
        host.rebase()
        obs = _Observer(node, p, self.paths, host, first)
        cpu0 = _own_cpu()
        sink(PhaseStarted(PHASE))
        self._announce(sink, node, obs, query.figures.why_not)
        try:
            result.ended_by = self._loop(obs, sink, cancel)
        except TapediagError as err:
            result.status, result.error, result.ended_by = "stopped", str(err), "error"
        except OSError as err:
            result.status, result.error, result.ended_by = "stopped", f"{err.strerror or err}", "error"
        result.watched_s = self.clock() - obs.t0
        cpu1 = _own_cpu()
        if cpu0 is not None and cpu1 is not None and result.watched_s > 0:
            result.own_cpu_share = (cpu1 - cpu0) / result.watched_s
        result.drive = query.end()
        finish(result, obs.window.close(obs.account.leftover()), obs.window, obs.host, obs.notes, obs.bins,
               obs.samples, obs.under_way, obs.last_in_flight)
        sink(PhaseFinished(PHASE, {"verdict": result.verdict.line, "busy_share": result.tape.busy_share}))
        return result

    def _announce(self, sink: EventSink, node: TapeNode, obs: _Observer, why_not: str) -> None:
        host = obs.host
        holders = [f"{p.name} (PID {p.pid})" for p in host.procs.values() if p.role.startswith("holds")]
        if holders:
            sink(Message("info", f"watching {node.device}: held open by {', '.join(holders)}"))
        elif obs.last_in_flight or self.params.pid:
            sink(Message("info", f"watching {node.device}"))
        elif host.unseen:
            sink(Message("info", f"watching {node.device}: no command outstanding now (who holds it open is out of sight "
                                 "of this user: run as root to see it)"))
        else:
            sink(Message("info", f"watching {node.device}: nothing is running on {node.device} now"))
        if host.sg_holders:
            sink(Message("warning", f"{', '.join(host.sg_holders)} holds {node.sg} open: what it sends there is not in "
                                    "the kernel's tape statistics"))
        if why_not:
            sink(Message("info", f"the drive itself was not asked: {why_not}"))

    def _loop(self, obs: _Observer, sink: EventSink, cancel: CancelToken) -> str:
        """Sample until the watch's end; returns what ended it."""
        p = self.params
        while True:
            if self.wait(cancel, p.interval):
                return "cancelled"
            now = self.clock()
            iv = obs.sample(now)
            if iv is not None:
                self._publish(sink, iv, obs)
            t = now - obs.t0
            if p.for_ and t >= p.for_ - 1e-6:
                return "time"
            if p.until_idle:
                last = obs.window.end
                idle_since = last if last is not None else (None if p.for_ else 0.0)
                if idle_since is not None and obs.last_in_flight == 0 and t - idle_since >= p.until_idle - 1e-6:
                    return "idle"

    def _publish(self, sink: EventSink, iv: Interval, obs: _Observer) -> None:
        sink(SampleBatch(columns=_columns(iv.t, iv.write_bytes, iv.seconds, "write")))
        if iv.read_bytes or obs.window.totals.read_bytes:
            sink(SampleBatch(columns=_columns(iv.t, iv.read_bytes, iv.seconds, "read")))
        sink(DriveBusy(iv.t, iv.seconds, iv.busy_share))
        totals = obs.window.totals
        done = totals.write_bytes + totals.read_bytes
        rate = done / totals.seconds / MB if totals.seconds > 0 else 0.0
        eta = max(self.params.for_ - iv.t, 0.0) if self.params.for_ else None
        sink(Progress(PHASE, done, None, iv.t, rate, eta))

"""The host side of the job, sampled with the drive: its processes, block devices and interfaces.

Which process: the one given (``--pid``), else whoever holds the drive's st node open, found by
scanning /proc every few seconds (``HOLDER_SCAN_S``), and the processes feeding it through pipes.
Which block devices: those given (``--source``), else those behind the processes' open files
and working directories, looked up every ``DEVICE_SCAN_S`` (a tar opens file after file).
Which interfaces: those given, else all but loopback (the drive's own iSCSI traffic may run
over loopback, and it is not the data arriving).

Counters are kept at two moments only: the sample before the job's first I/O and the sample
of its latest I/O, so the figures cover the job's span and memory stays flat however long
the watch.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field

from app.watch import procs
from app.watch.hoststats import DiskCounters, NetCounters, link_mb_s, read_diskstats, read_netdev
from app.watch.node import SystemPaths, TapeNode
from app.watch.params import WatchParams
from app.watch.result import MB, NetFigures, ProcessFigures, SourceDevice

HOLDER_SCAN_S = 2.0  # how often /proc is scanned for who holds the drive, while it does I/O and no holder is known
RESCAN_S = 30.0  # and while one is (the next job may be another process), or most of /proc is out of sight
DEVICE_SCAN_S = 1.0  # how often the processes' open files are looked at


@dataclass
class _Moment:
    t: float
    disks: dict[str, DiskCounters]
    net: dict[str, NetCounters]


@dataclass
class _Proc:
    pid: int
    name: str
    role: str
    cmdline: str
    first: procs.ProcCounters | None = None
    last: procs.ProcCounters | None = None


@dataclass
class HostSide:
    node: TapeNode
    params: WatchParams
    paths: SystemPaths = field(default_factory=SystemPaths)
    procs: dict[int, _Proc] = field(default_factory=dict)
    devices: dict[str, str] = field(default_factory=dict)  # kernel name -> how it was found
    notes: list[str] = field(default_factory=list)
    unseen: int = 0
    sg_holders: list[str] = field(default_factory=list)
    _prev: _Moment | None = None
    _start: _Moment | None = None
    _end: _Moment | None = None
    _next_holder_scan: float = 0.0
    _next_device_scan: float = 0.0
    _without_device: set[int] = field(default_factory=set)

    def begin(self, now: float) -> None:
        """The first look: the named devices and process, and who holds the drive open (``now``: the clock)."""
        for name in self.params.sources:
            self.devices[name] = "given (--source)"
        if self.params.pid:
            self._add_proc(self.params.pid, "given (--pid)")
        self._scan(0.0)
        self._scan_devices(0.0)

    def rebase(self) -> None:
        """The drive's first reading has just been taken: the counters now are the baseline (time 0)."""
        self._prev = self._moment(0.0)
        missing = [n for n in self.params.sources if n not in self._prev.disks]
        if missing:
            self.notes.append(f"no block device {', '.join(missing)} in /proc/diskstats: no figures for it")

    def _moment(self, t: float) -> _Moment:
        return _Moment(t, read_diskstats(self.paths.proc / "diskstats"), read_netdev(self.paths.proc / "net" / "dev"))

    def _add_proc(self, pid: int, role: str) -> None:
        if pid in self.procs:
            return
        name, cmdline = procs.process_name(pid, self.paths.proc)
        if name:
            self.procs[pid] = _Proc(pid, name, role, cmdline)

    def _scan(self, t: float, active: bool = True) -> None:
        """Who holds the drive open (and who feeds them), when it is time to look again: a scan reads every
        process's open files, so it waits for the drive to do something (an idle drive's holder can wait
        for the end of the watch)."""
        if self.params.pid or t < self._next_holder_scan or not active:
            return
        holder_alive = any(p.role.startswith("holds") and (self.paths.proc / str(p.pid)).exists()
                           for p in self.procs.values())
        found = procs.holders(self.node.tape_rdevs, self.paths.proc)
        self.unseen = max(self.unseen, found.unseen)
        # Look again soon while no one holds the drive, unless most of /proc is out of sight (not root): then
        # every look costs a scan of every process and finds nothing new.
        soon = not holder_alive and not found.pids and not found.unseen
        self._next_holder_scan = t + (HOLDER_SCAN_S if soon else RESCAN_S)
        for pid in found.pids:
            self._add_proc(pid, f"holds {self.node.device} open")
            for feeder in procs.feeders(pid, self.paths.proc):
                self._add_proc(feeder, "feeds it through a pipe")
        if self.node.sg_rdev is not None:
            for pid in procs.holders(frozenset({self.node.sg_rdev}), self.paths.proc).pids:
                name, _ = procs.process_name(pid, self.paths.proc)
                entry = f"{name} (PID {pid})"
                if entry not in self.sg_holders:
                    self.sg_holders.append(entry)

    def _scan_devices(self, t: float) -> None:
        if self.params.sources or t < self._next_device_scan:
            return
        self._next_device_scan = t + DEVICE_SCAN_S
        for p in list(self.procs.values()):
            for number, how in procs.devices_of(p.pid, self.paths.proc).items():
                name = procs.block_name(number, self.paths.sys)
                if name is None:
                    if how == "file":
                        self._without_device.add(p.pid)
                elif name not in self.devices:
                    self.devices[name] = (f"{p.name}'s working directory (PID {p.pid})" if how == "cwd"
                                          else f"open in {p.name} (PID {p.pid})")

    def sample(self, t: float, active: bool, first_active: bool) -> None:
        """One sample, taken with the drive's; ``active``: the drive did I/O in the interval ending now."""
        self._scan(t, active)
        self._scan_devices(t)
        now = self._moment(t)
        if first_active:
            self._start = self._prev
        for p in self.procs.values():
            counters = procs.read_counters(p.pid, t, self.paths.proc)
            if counters is None:
                continue
            if p.first is None and (first_active or self._start is not None):
                p.first = counters
            if active:
                p.last = counters
        if active:
            self._end = now
        self._prev = now

    def figures(self) -> tuple[list[ProcessFigures], list[SourceDevice], list[NetFigures]]:
        """The job's processes, devices and interfaces over its span (empty without one). Looks once more
        for who holds the drive when no one was found, so an idle drive held open is named."""
        if not self.procs:
            self._next_holder_scan = 0.0
            self._scan(0.0)
        return self._process_figures(), self._device_figures(), self._net_figures()

    def _span(self) -> float:
        if self._start is None or self._end is None:
            return 0.0
        return self._end.t - self._start.t

    def _process_figures(self) -> list[ProcessFigures]:
        out = []
        for p in self.procs.values():
            fig = ProcessFigures(p.pid, p.name, p.role, p.cmdline)
            if p.first is not None and p.last is not None and p.last.t > p.first.t:
                span = p.last.t - p.first.t
                fig.seconds = span
                if p.first.cpu_s is not None and p.last.cpu_s is not None:
                    fig.cpu_share = (p.last.cpu_s - p.first.cpu_s) / span
                if p.first.rchar is not None and p.last.rchar is not None:
                    fig.read_mb_s = (p.last.rchar - p.first.rchar) / span / MB
                if p.first.read_bytes is not None and p.last.read_bytes is not None:
                    fig.disk_read_mb_s = (p.last.read_bytes - p.first.read_bytes) / span / MB
            out.append(fig)
        return out

    def _device_figures(self) -> list[SourceDevice]:
        span = self._span()
        out = []
        for name, found_by in self.devices.items():
            dev = SourceDevice(name, found_by)
            a = self._start.disks.get(name) if self._start else None
            b = self._end.disks.get(name) if self._end else None
            if a is not None and b is not None and span > 0:
                dev.busy_share = min(max(b.busy_ms - a.busy_ms, 0) / 1000 / span, 1.0)
                dev.read_mb_s = max(b.read_bytes - a.read_bytes, 0) / span / MB
                dev.write_mb_s = max(b.write_bytes - a.write_bytes, 0) / span / MB
            out.append(dev)
        return out

    def _net_figures(self) -> list[NetFigures]:
        span = self._span()
        if span <= 0 or self._start is None or self._end is None:
            return []
        names = self.params.interfaces or tuple(n for n in self._end.net if n != "lo")
        out = []
        for name in names:
            a, b = self._start.net.get(name), self._end.net.get(name)
            if a is None or b is None:
                continue
            out.append(NetFigures(name, max(b.rx_bytes - a.rx_bytes, 0) / span / MB,
                                  max(b.tx_bytes - a.tx_bytes, 0) / span / MB, link_mb_s(name, self.paths.sys)))
        return out

    def closing_notes(self) -> list[str]:
        """What the host side could not see, in words."""
        notes = list(self.notes)
        if self.unseen and not self.params.pid and os.geteuid() != 0:
            notes.append(f"{self.unseen} processes of other users could not be looked at: run watch as root, or give "
                         "--pid, to see who holds the drive and what it reads")
        if self.sg_holders:
            notes.append(f"{', '.join(self.sg_holders)} holds {self.node.sg} open: commands sent through the SCSI generic "
                         "node are not in the kernel's tape statistics, so watch sees none of that program's I/O")
        for pid in sorted(self._without_device):
            p = self.procs.get(pid)
            if p is not None:
                notes.append(f"{p.name} (PID {pid}) reads files on a file system without a block device (tmpfs, NFS, "
                             "overlay ...): no disk figures for them")
        return notes

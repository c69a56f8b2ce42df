"""A fake sysfs and /proc holding one st drive, and a job that moves its counters as a kernel would.

For the watch's unit tests (``tests/test_watch_*.py``): the layout is the kernel's (class entries
that are links to the SCSI device, ``dev`` files, the ten statistics files, ``/proc/diskstats``,
``/proc/net/dev``); the real kernel's own tree is exercised by ``tests/kernel/test_watch_kernel.py``.
``FakeKernel.advance(seconds)`` moves the job on by simulated time, so a watch driven by a fake
clock sees exactly what the job did, whatever the machine's load.
"""
from __future__ import annotations

import math
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from app.watch.node import SystemPaths
from app.watch.stats import COUNTERS

SCSI = "devices/platform/host2/target2:0:0/2:0:0:1"


def build_tree(root: Path, *, sg: bool = True, stats: bool = True) -> SystemPaths:
    """sys/ and proc/ under ``root`` with st0/nst0 (9:0, 9:128) and, if ``sg``, sg1 (21:1) beside them."""
    sys_root, proc = root / "sys", root / "proc"
    device = sys_root / SCSI
    device.mkdir(parents=True)
    for name, number in (("st0", "9:0"), ("nst0", "9:128")):
        entry = device / "scsi_tape" / name
        entry.mkdir(parents=True)
        (entry / "dev").write_text(number + "\n")
        (entry / "device").symlink_to(device)
        if stats:
            (entry / "stats").mkdir()
        (sys_root / "class" / "scsi_tape").mkdir(parents=True, exist_ok=True)
        (sys_root / "class" / "scsi_tape" / name).symlink_to(entry)
    if sg:
        entry = device / "scsi_generic" / "sg1"
        entry.mkdir(parents=True)
        (entry / "dev").write_text("21:1\n")
        (entry / "device").symlink_to(device)
        (sys_root / "class" / "scsi_generic").mkdir(parents=True)
        (sys_root / "class" / "scsi_generic" / "sg1").symlink_to(entry)
    (proc / "net").mkdir(parents=True)
    return SystemPaths(sys=sys_root, proc=proc, dev=root / "dev")


@dataclass
class Job:
    """A steady job: ``record`` bytes per command at ``mb_s``, the drive busy ``busy`` of each command's cycle,
    from ``start`` to ``end`` seconds (simulated). ``disk_busy``: the source disk's busy share meanwhile."""

    mb_s: float
    busy: float
    record: int = 256 * 1024
    start: float = 0.0
    end: float = math.inf
    direction: str = "write"
    disk_busy: float = 0.0

    @property
    def cycle(self) -> float:
        return self.record / (self.mb_s * 1e6)

    def counters(self, t: float) -> tuple[int, int, int]:
        """(commands completed, their busy ns, in flight) at simulated time ``t``."""
        if t <= self.start:
            return 0, 0, 0
        span = min(t, self.end) - self.start
        done = int(span // self.cycle)
        into = span - done * self.cycle
        busy_ns = done * round(self.busy * self.cycle * 1e9)
        # a command under way has started but is not counted until it completes
        in_flight = 1 if t < self.end and into < self.busy * self.cycle else 0
        return done, busy_ns, in_flight


@dataclass
class FakeKernel:
    """Writes the statistics files of nst0 (and st0) as the job moves on; the clock is ``now``."""

    paths: SystemPaths
    jobs: list[Job] = field(default_factory=list)
    now: float = 100.0  # simulated monotonic time
    base: dict[str, int] = field(default_factory=lambda: {n: 0 for n in COUNTERS})
    t0: float = 100.0
    disk_busy_ms: float = 0.0
    disk_read: int = 0
    detached: bool = False

    def stats_dirs(self) -> list[Path]:
        return [self.paths.sys / SCSI / "scsi_tape" / n / "stats" for n in ("st0", "nst0")]

    def values(self) -> dict[str, int]:
        v = dict(self.base)
        for job in self.jobs:
            done, busy_ns, in_flight = job.counters(self.now - self.t0)
            kind = "write" if job.direction == "write" else "read"
            v[f"{kind}_cnt"] += done
            v[f"{kind}_byte_cnt"] += done * job.record
            v[f"{kind}_ns"] += busy_ns
            v["io_ns"] += busy_ns
            v["in_flight"] += in_flight
        return v

    def publish(self) -> None:
        if self.detached:
            return
        values = self.values()
        for d in self.stats_dirs():
            d.mkdir(exist_ok=True)
            for name, value in values.items():
                (d / name).write_text(f"{value}\n")
        busy = self.disk_busy_ms
        (self.paths.proc / "diskstats").write_text(
            f"   8      16 sdb 100 0 {self.disk_read // 512} 10 0 0 0 0 0 {int(busy)} {int(busy)} 0 0 0 0\n"
            f"   8       0 sda 5 0 40 1 0 0 0 0 0 1 1 0 0 0 0\n")
        (self.paths.proc / "net" / "dev").write_text(
            "Inter-|   Receive                            |  Transmit\n"
            " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets\n"
            "    lo: 1000 10 0 0 0 0 0 0 1000 10 0 0 0 0 0 0\n"
            "  eth0: 5000 50 0 0 0 0 0 0 7000 70 0 0 0 0 0 0\n")

    def advance(self, seconds: float) -> None:
        """Simulated time passes; the source disk is busy while a job runs, as its ``disk_busy`` says."""
        steps, start = 10, self.now
        for i in range(steps):
            t = start + seconds * i / steps - self.t0
            for job in self.jobs:
                if job.start <= t < job.end:
                    self.disk_busy_ms += job.disk_busy * seconds / steps * 1000
                    self.disk_read += int(job.mb_s * 1e6 * seconds / steps)
        self.now = round(start + seconds, 9)  # no drift: 50 samples of 0.2 s are 10 s
        self.publish()

    def restart(self) -> None:
        """The drive attached again: the counters start over from zero (the jobs' work so far is forgotten)."""
        done = self.values()
        self.base = {n: -(done[n] - self.base[n]) if n != "in_flight" else 0 for n in COUNTERS}
        self.publish()

    def detach(self) -> None:
        self.detached = True
        for d in self.stats_dirs():
            shutil.rmtree(d)

    def attach(self) -> None:
        self.detached = False
        self.publish()


def watch_on(kernel: FakeKernel, opener: Callable[[str], Any] | None = None,
             cancel_at: float | None = None) -> Callable[..., Any]:
    """What ``app.watch.kind`` builds its engine with (``Watch``), reading ``kernel`` instead of the machine: the
    fake tree, the kernel's simulated clock, and a wait that moves the job on by the interval (so a run through
    ``app.execute``, the CLI or the GUI sees exactly what the job did, whatever the machine's load). ``opener``:
    how the drive's sg node is opened (a virtual drive behind ``QueriesOnly``); None with ``--query-drive off``.
    ``cancel_at``: the run's own token is cancelled (as Ctrl-C or SIGTERM cancels the CLI's) once the job has moved
    on that many seconds."""
    from app.watch.engine import Watch

    def wait(token: Any, seconds: float) -> bool:
        if not token.cancelled:
            kernel.advance(seconds)
        if cancel_at is not None and kernel.now - kernel.t0 >= cancel_at:
            token.cancel()
        return bool(token.cancelled)

    def build(params: Any) -> Watch:
        return Watch(params, paths=kernel.paths, clock=lambda: kernel.now, wait=wait, opener=opener)

    return build


def watched_kernel(tmp_path: Path, monkeypatch: Any) -> FakeKernel:
    """A fake kernel tree under ``tmp_path`` that ``tapediag watch`` reads in place of the machine's (``watch_on``),
    its drive queried before and after through ``QueriesOnly`` on a virtual LTO-9: the set-up of every test that
    runs the watch through the CLI or the GUI."""
    from app.watch.drivequery import QueriesOnly
    from native import open_transport

    kernel = FakeKernel(build_tree(tmp_path / "root"))
    kernel.publish()
    drive = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"
    monkeypatch.setattr("app.watch.kind.Watch", watch_on(kernel, opener=lambda sg: QueriesOnly(open_transport(drive))))
    return kernel

"""How much of a span of wall-clock time was this machine's load, not the code under test.

The suite runs on a 2-core machine shared with other suites: a thread that was ready to run
can wait hundreds of milliseconds for a CPU. Linux counts that wait per thread
(``/proc/<pid>/task/<tid>/schedstat``: nanoseconds on a CPU, nanoseconds runnable but waiting
for one), so a test that bounds a gap can take out the part the kernel says was the machine's,
measured in the same span, instead of a bound loose enough for the worst load ever seen.

A gap on the thread that measures it is the machine's where
- that thread was runnable but waited for a CPU (``own_wait``), or
- it was blocked (the GIL, a lock) while the process's other Python threads, one of which holds
  the GIL, waited for a CPU (``others_wait``, at most the blocked time).
The rest (``app``) is the code's own: its thread running, or blocked while the thread it waits
for ran. A thread that hogs the GIL or a callback that runs long still counts in full.

Elsewhere than Linux there is no such count and the whole gap is the app's.
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path


def _schedstat(tid: int | str) -> tuple[int, int] | None:
    """(ns on a CPU, ns waiting for one) of thread ``tid`` of this process, None where unknown."""
    try:
        on_cpu, waiting = Path(f"/proc/self/task/{tid}/schedstat").read_text().split()[:2]
    except (OSError, ValueError):
        return None
    return int(on_cpu), int(waiting)


def _others_wait(me: int) -> dict[int, int]:
    """ns waited for a CPU so far by each other Python thread of this process (the GIL's holders)."""
    out = {}
    for t in threading.enumerate():
        tid = t.native_id
        if tid is not None and tid != me:
            stat = _schedstat(tid)
            if stat is not None:
                out[tid] = stat[1]
    return out


@dataclass(frozen=True)
class Gap:
    """One span between two ticks of the thread that measures (seconds)."""

    wall: float
    own_cpu: float
    own_wait: float
    others_wait: float

    @property
    def machine(self) -> float:
        """The part of the gap that was the machine's load (see the module docstring)."""
        blocked = max(self.wall - self.own_cpu - self.own_wait, 0.0)
        return min(self.wall, self.own_wait + min(blocked, self.others_wait))

    @property
    def app(self) -> float:
        """The part of the gap that was the code's own."""
        return self.wall - self.machine


class GapMeter:
    """Call ``tick()`` from one thread (a GUI timer's slot, a polling loop): the gaps between ticks,
    each with the machine's share of it."""

    def __init__(self) -> None:
        self.gaps: list[Gap] = []
        self._me = threading.get_native_id()
        self._last: tuple[float, tuple[int, int] | None, dict[int, int]] | None = None

    def _now(self) -> tuple[float, tuple[int, int] | None, dict[int, int]]:
        return time.perf_counter(), _schedstat(self._me), _others_wait(self._me)

    def restart(self) -> None:
        """The next tick starts a gap (none is counted across a pause)."""
        self._last = None

    def tick(self, counting: bool = True) -> None:
        now = self._now()
        if self._last is not None and counting:
            (t0, own0, others0), (t1, own1, others1) = self._last, now
            cpu = wait = 0.0
            if own0 is not None and own1 is not None:
                cpu, wait = (own1[0] - own0[0]) / 1e9, (own1[1] - own0[1]) / 1e9
            others = sum(others1[tid] - w for tid, w in others0.items() if tid in others1) / 1e9
            self.gaps.append(Gap(t1 - t0, cpu, wait, others))
        self._last = now


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def describe(gaps: list[Gap]) -> str:
    """'812 ticks, max gap 147.0 ms (machine 130.2 ms), p99 24.1 ms; app: max 21.3 ms, p99 12.0 ms'."""
    if not gaps:
        return "no ticks"
    worst = max(gaps, key=lambda g: g.wall)
    apps = [g.app for g in gaps]
    return (f"{len(gaps)} ticks, max gap {worst.wall * 1000:.1f} ms (machine {worst.machine * 1000:.1f} ms), "
            f"p99 {percentile([g.wall for g in gaps], 0.99) * 1000:.1f} ms; the app's own: "
            f"max {max(apps) * 1000:.1f} ms, p99 {percentile(apps, 0.99) * 1000:.1f} ms")



def waited() -> float:
    """Seconds the calling thread has so far spent runnable but waiting for a CPU (0.0 where Linux's
    count is missing): the difference over a span is how long this machine held the thread up in it."""
    stat = _schedstat(threading.get_native_id())
    return stat[1] / 1e9 if stat is not None else 0.0

"""The drive's busy time per sampling interval, from ``io_ns`` and ``in_flight``.

``io_ns`` grows by a command's whole duration when the command completes (``app.watch.stats``),
so a plain difference per interval puts a long command's time into the interval it ended in,
and an interval spent entirely inside one command shows as idle. ``BusyAccount`` corrects
both, within what the counters can tell:

* an interval with no command completed and ``in_flight`` set at both ends was spent inside
  one command: it counts as busy throughout, and that time is held as credit, taken off the
  command's duration when it completes (so it is not counted twice);
* time beyond an interval's length (a command that began before the interval, after the
  previous sample had seen another complete) is carried into the next interval;
* what is still carried when the watch ends is added to the total, never past the watch's
  length.

The busy share over a span is then exact to within one command's duration at each end of the
span: at the start, a command in flight may have begun before it; at the end, a command in
flight has not been added yet unless the credit covered it.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.watch.stats import StatsDelta

NS = 1e9


@dataclass(frozen=True)
class Interval:
    """One sampling interval of the drive: what moved and how long the drive was busy in it."""

    t: float  # end of the interval, seconds since the watch started
    seconds: float
    write_bytes: int
    read_bytes: int
    busy_s: float  # time attributed to this interval in which the drive had an st command outstanding
    write_s: float  # the kernel's write_ns growth in it (completed WRITEs' own time)
    read_s: float
    other_s: float  # io_ns growth less write and read time: positioning, filemarks, rewinds
    commands: int
    in_flight: int  # at the interval's end
    write_cmds: int = 0
    read_cmds: int = 0
    restarted: bool = False  # the counters went back (the drive attached again): counted from zero

    @property
    def active(self) -> bool:
        """The drive did something in this interval: a command completed, or one is outstanding."""
        return self.commands > 0 or self.in_flight > 0

    @property
    def busy_share(self) -> float:
        return self.busy_s / self.seconds if self.seconds > 0 else 0.0


class BusyAccount:
    """Attributes the drive's busy time to sampling intervals (see the module's docstring)."""

    def __init__(self) -> None:
        self.credit = 0.0  # time already counted for the command still outstanding
        self.carry = 0.0  # completed commands' time not yet placed in an interval

    def attribute(self, d: StatsDelta, in_flight_before: int, in_flight_after: int) -> float:
        """Busy seconds to count in an interval with deltas ``d``."""
        span = max(d.seconds, 0.0)
        if d.commands == 0 and in_flight_before > 0 and in_flight_after > 0:
            self.credit += span
            return span
        completed = max(d.io_ns / NS - self.credit, 0.0)
        self.credit = 0.0
        pending = completed + self.carry
        placed = min(pending, span)
        self.carry = pending - placed
        return placed

    def leftover(self) -> float:
        """Busy time not yet placed when the watch ends."""
        return self.carry


def interval(t: float, d: StatsDelta, busy_s: float, in_flight: int) -> Interval:
    """An ``Interval`` from a stats delta and the busy time attributed to it."""
    write_s, read_s = d.write_ns / NS, d.read_ns / NS
    return Interval(t=t, seconds=d.seconds, write_bytes=d.write_bytes, read_bytes=d.read_bytes, busy_s=busy_s,
                    write_s=write_s, read_s=read_s, other_s=max(d.io_ns / NS - write_s - read_s, 0.0),
                    commands=d.commands, in_flight=in_flight, write_cmds=d.write_cmds, read_cmds=d.read_cmds,
                    restarted=d.restarted)


@dataclass
class Totals:
    """Sums over a span of intervals."""

    seconds: float = 0.0
    write_bytes: int = 0
    read_bytes: int = 0
    busy_s: float = 0.0
    write_s: float = 0.0
    read_s: float = 0.0
    other_s: float = 0.0
    commands: int = 0
    write_cmds: int = 0
    read_cmds: int = 0
    restarts: int = 0

    def add(self, iv: Interval) -> None:
        self.seconds += iv.seconds
        self.write_bytes += iv.write_bytes
        self.read_bytes += iv.read_bytes
        self.busy_s += iv.busy_s
        self.write_s += iv.write_s
        self.read_s += iv.read_s
        self.other_s += iv.other_s
        self.commands += iv.commands
        self.write_cmds += iv.write_cmds
        self.read_cmds += iv.read_cmds
        self.restarts += int(iv.restarted)

    @property
    def busy_share(self) -> float:
        return min(self.busy_s / self.seconds, 1.0) if self.seconds > 0 else 0.0


    def merge(self, other: "Totals") -> None:
        for name in ("seconds", "write_bytes", "read_bytes", "busy_s", "write_s", "read_s", "other_s", "commands",
                     "write_cmds", "read_cmds", "restarts"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


class JobWindow:
    """The job as the drive saw it: from the first interval with I/O to the last, in O(1) memory.

    Idle intervals before the first I/O are the time before the job started and are left out;
    idle intervals after an active one are held apart and joined in only when I/O follows them
    (a pause in the job), so the time after the job ended is left out too.
    """

    def __init__(self) -> None:
        self.totals = Totals()
        self._idle = Totals()
        self.start: float | None = None  # seconds since the watch started
        self.end: float | None = None

    def add(self, iv: Interval) -> None:
        if iv.active:
            if self.start is None:
                self.start = iv.t - iv.seconds
            self.totals.merge(self._idle)
            self._idle = Totals()
            self.totals.add(iv)
            self.end = iv.t
        elif self.start is not None:
            self._idle.add(iv)

    def close(self, leftover: float) -> Totals:
        """The job's totals, with busy time still carried at the end added (never past its length)."""
        self.totals.busy_s = min(self.totals.busy_s + leftover, self.totals.seconds)
        return self.totals

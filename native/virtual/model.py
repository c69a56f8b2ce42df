"""How long a real LTO drive takes: interface, buffer, speed matching, back-hitches.

Pure arithmetic on simulated time (seconds as floats): no clock, no sleeping, so unit
tests can check steady-state rates in microseconds and the drive (``pacer.py``) maps
the answers onto the wall clock.

One quantity describes both directions, ``level``: the tape's pending work in
compressed bytes. Writing, it is the data in the buffer waiting for tape; reading, it
is the free space in the buffer the tape may read ahead into. So in both directions

* the tape, while streaming at speed ``v``, lowers ``level`` at ``v``; when it reaches
  0 the tape stops (write: buffer ran dry; read: buffer full);
* a host command of ``c`` compressed bytes raises ``level`` by ``c`` and must first
  wait while ``level + c`` exceeds the buffer (write: no room; read: data not there);
* a stopped tape restarts when the host's rate can keep it streaming and the buffer
  holds the low-water mark (below), or when ``level`` reaches ``restart`` x buffer
  (or a host command is waiting), after a ``backhitch`` (repositioning and getting
  back up to speed). Since the default restart point is a full buffer, a host that
  feeds below the lowest speed step waits about ``backhitch`` seconds per cycle:
  shoe-shining.

Speed matching, as a drive does it, from the host's rate: the drive measures the
compressed bytes the host brings (over the last ``RATE_WINDOW`` seconds) and runs at
the highest step the host can feed, or the step just above it once the buffer holds
more than a low-water mark (``CUSHION`` seconds of tape), and the top step beyond twice
that mark (a host back from a pause outruns its measured rate): the buffer then hovers
near the mark and the tape never stops for a steady host. A host faster than the top step
gets the top step from its first commands, as on a real drive (a drive that waited
for its 1 GiB buffer to fill before reaching full speed would lose seconds of every
run). On top of that the buffer is divided into as many bands as there are speed
steps, the fuller, the faster: a host whose rate changes still moves the tape up as
the buffer fills. A faster host fills the buffer and is throttled to the top step
times its compression ratio; the link caps everything at the interface rate.

After an explicit positioning (rewind, locate) the tape starts without a back-hitch:
it is already sitting at the right place. It starts as soon as the host's rate can
keep it streaming and the buffer holds the low-water mark (or the restart threshold
is reached): a host that brings less than the lowest step (all-zero data, 80:1)
would otherwise run the tape dry at once and pay a back-hitch for its first stop.
"""
from __future__ import annotations

import math
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field

IDLE, RAMP, STREAM = "idle", "ramp", "stream"
_EPS = 1e-9
#: Seconds of host commands the drive's speed matching measures the host's rate over.
RATE_WINDOW = 0.1
#: Seconds of tape the buffer holds at the matched speed before the tape takes the step just
#: faster than the host (the low-water mark; at most half the buffer): the cushion that keeps a
#: matched tape streaming through the host's hiccups, small enough that the closing flush of a
#: short run stays short.
CUSHION = 0.1


@dataclass(frozen=True)
class ModelParams:
    """The timing model's inputs for one drive: its speed steps, buffer, host link and repositioning."""

    steps: tuple[float, ...]  # tape speeds, compressed bytes/s, ascending
    buffer: float  # bytes
    interface: float  # bytes/s on the host link
    backhitch: float = 2.0  # s
    restart: float = 1.0  # fraction of the buffer

    def __post_init__(self) -> None:
        if not self.steps or any(s <= 0 for s in self.steps) or list(self.steps) != sorted(self.steps):
            raise ValueError("speed steps must be positive and ascending")
        if self.buffer <= 0 or self.interface <= 0 or not 0 < self.restart <= 1 or self.backhitch < 0:
            raise ValueError("bad model parameters")


@dataclass
class ModelStats:
    """Counters the log pages report (repositions, time streaming) and tests check."""

    stops: int = 0  # tape stopped because the host could not keep up (or a flush)
    backhitches: int = 0  # restarts that needed a reposition
    streaming_time: float = 0.0
    tape_bytes: float = 0.0  # compressed bytes moved by the tape
    host_bytes: int = 0
    speeds: dict[float, float] = field(default_factory=dict)  # step -> seconds at it


class TapeModel:
    """The timing state machine of one drive. Times are seconds on any monotonic scale."""

    def __init__(self, params: ModelParams) -> None:
        self.p = params
        self.stats = ModelStats()
        self.direction: str | None = None
        self.mode = IDLE
        self.level = 0.0
        self.t = 0.0
        self.ready_at = 0.0
        self.positioned = True  # next start needs no back-hitch
        self._hold: float | None = None  # speed held while writing out the buffer (flush)
        # Speed matching: (arrival time, compressed bytes before it) of recent host commands,
        # and the (slower, faster) steps around the host's rate; None when below the lowest step.
        self._arrivals: deque[tuple[float, float]] = deque()
        self._fed = 0.0
        self._match: tuple[float, float] | None = None

    # ------------------------------------------------------------------ helpers
    def _band(self) -> int:
        n = len(self.p.steps)
        return max(0, min(n - 1, math.ceil(self.level * n / self.p.buffer - _EPS) - 1))

    def _pace(self) -> tuple[float, float]:
        """(speed, level down to which it holds) of a streaming tape, from its band and the host's rate."""
        band = self._band()
        v, floor = self.p.steps[band], band * self.p.buffer / len(self.p.steps)
        if self._match is not None:
            slow, fast = self._match
            low = self._low_water()
            # Past twice the cushion the host has outrun the tape (it came back from a pause
            # faster than the rate measured): the top step brings the buffer back down.
            for above, step in ((2 * low, self.p.steps[-1]), (low, fast)):
                if self.level > above * (1 + _EPS) and step > v:
                    return step, max(floor, above)
            if slow > v:
                return slow, floor
        return v, floor

    def _low_water(self) -> float:
        slow = self._match[0] if self._match is not None else self.p.steps[0]
        return min(self.p.buffer / 2, CUSHION * slow)

    @property
    def speed(self) -> float:
        """Current tape speed (compressed bytes/s); 0 when the tape is not streaming."""
        return self._pace()[0] if self.mode == STREAM else 0.0

    def _measure_host(self, t: float) -> None:
        """Note a host command arriving at ``t`` and re-match the speed to the host's rate."""
        arrivals = self._arrivals
        arrivals.append((t, self._fed))
        while len(arrivals) > 2 and t - arrivals[1][0] >= RATE_WINDOW:
            arrivals.popleft()
        first, fed = arrivals[0]
        if t - first <= _EPS:
            return
        rate = (self._fed - fed) / (t - first)
        steps = self.p.steps
        i = bisect_right(steps, rate * (1 + _EPS))
        self._match = None if i == 0 else (steps[i - 1], steps[min(i, len(steps) - 1)])

    def _start(self) -> None:
        """Begin moving the tape: at once after a positioning, else after a back-hitch."""
        if self.positioned:
            self.mode, self.positioned = STREAM, False
        else:
            self.mode, self.ready_at = RAMP, self.t + self.p.backhitch
            self.stats.backhitches += 1

    def advance(self, to: float) -> None:
        """Let the tape run from ``self.t`` up to ``to`` with no host command arriving."""
        while self.t < to:
            if self.mode == IDLE:
                self.t = to
            elif self.mode == RAMP:
                if self.ready_at > to:
                    self.t = to
                else:
                    self.t, self.mode = self.ready_at, STREAM
            else:
                if self.level <= _EPS:
                    self.level, self.mode = 0.0, IDLE
                    self.stats.stops += 1
                    continue
                v, floor = (self._hold, 0.0) if self._hold is not None else self._pace()
                dt = min(to - self.t, (self.level - floor) / v)
                self.level -= v * dt
                self.t += dt
                self.stats.streaming_time += dt
                self.stats.tape_bytes += v * dt
                self.stats.speeds[v] = self.stats.speeds.get(v, 0.0) + dt
                if self.level - floor <= _EPS * self.p.buffer:
                    self.level = floor

    def _set_direction(self, direction: str) -> None:
        if self.direction != direction:
            self.direction = direction
            self.mode = IDLE
            # Writing starts with an empty buffer (no pending work); reading with an
            # empty buffer, i.e. all of it free for read-ahead.
            self.level = 0.0 if direction == "write" else float(self.p.buffer)
            self._arrivals.clear()
            self._fed, self._match = 0.0, None

    # ------------------------------------------------------------------ host side
    def transfer(self, t: float, nbytes: int, compressed: float, direction: str) -> float:
        """One host READ or WRITE arriving at ``t``; returns when it completes."""
        self.advance(max(t, self.t))
        self._set_direction(direction)
        self._measure_host(max(t, self.t))
        self._fed += compressed
        need = min(compressed, self.p.buffer)
        while self.level + need > self.p.buffer * (1 + _EPS) and self.level > _EPS:
            if self.mode == IDLE:
                self._start()
            if self.mode == RAMP:
                self.advance(self.ready_at)
            else:
                self.advance(self.t + max((self.level + need - self.p.buffer) / self._pace()[0], 1e-9))
        self.level += compressed
        # A stopped tape restarts as soon as the host's rate can keep it streaming (a
        # host that paused and came back) and the buffer holds its low-water mark (a
        # start on the first megabytes would run dry at the host's first hiccup), or
        # else at the restart threshold (by default a full buffer), so it streams as
        # long as possible once it moves: a tape that starts on a trickle of data would
        # only run dry and back-hitch again. After a positioning (rewind, locate) the
        # start costs no back-hitch (``_start``).
        if self.mode == IDLE and ((self._match is not None and self.level >= self._low_water())
                                  or self.level >= self.p.restart * self.p.buffer * (1 - _EPS)):
            self._start()
        self.stats.host_bytes += nbytes
        self.advance(self.t + nbytes / self.p.interface)
        return self.t

    def flush(self, t: float) -> float:
        """Write out the buffer (filemark, rewind, sync); returns when the tape is done.

        The drive keeps the speed it was matched to while it empties the buffer: the
        host has stopped sending, so stepping down as the buffer drains (what the
        bands do in streaming) would make every flush look slower than a drive is. A
        tape that was not moving (a host below the lowest step, e.g. all-zero data)
        has nothing to match: it writes the buffer out at its top step.
        """
        self.advance(max(t, self.t))
        if self.direction == "write" and self.level > _EPS:
            self._hold = self._pace()[0] if self.mode == STREAM else self.p.steps[-1]
            try:
                while self.level > _EPS:
                    if self.mode == IDLE:
                        self._start()
                    if self.mode == RAMP:
                        self.advance(self.ready_at)
                    else:
                        self.advance(self.t + max(self.level / self._hold, 1e-9))
            finally:
                self._hold = None
            self.advance(self.t + 1e-9)  # let the tape register its stop
        return self.t

    def reposition(self, t: float) -> float:
        """A rewind/locate/space: flush writes, drop read-ahead, tape left positioned."""
        t = self.flush(t)
        self.direction, self.mode, self.level, self.positioned = None, IDLE, 0.0, True
        return t

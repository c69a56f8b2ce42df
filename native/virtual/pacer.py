"""Maps the model's simulated completion times onto the wall clock: a deadline clock.

The model's clock is the wall clock (shifted by ``offset``, below): the tape in the model
keeps moving in the background whatever this process is doing, and a command's
completion time is a deadline. The emulator's own work for a command (the SLDC
estimate, the cartridge write) happens before the deadline and is hidden under it:
``finish`` sleeps only for what is left, never for the drive's time on top of the
host's. Work beyond the deadline is the host being late, as a slow real host would
be: the next command arrives later on the model's clock and the model's buffer
drained meanwhile (with a full buffer, at no cost to the rate).

The host measures wall-clock time, so a command must not complete before the time a
real drive would need, and the host's own time between commands must add to the
drive's, as it does with hardware (a WRITE cannot be sent before the previous one
completed). Sleeping for every 4 KiB block would cost more than the block, so:

* the model clock runs at wall speed plus an ``offset``: the time the model is ahead
  of the wall clock when the last command returned. A command arrives at
  ``wall + offset``, i.e. the previous completion plus the host's gap;
* a command returns at once while the model is at most ``slack`` ahead; beyond that it
  sleeps until the wall clock has caught up;
* the emulator's own delays (sleep overshoot, a cartridge write stuck behind the
  page cache, the process descheduled) leave the wall clock ahead of the model. They
  are not the host's fault, so they are not added to the model's time (which would
  drain the modelled buffer and make the tape back-hitch); the next commands sleep
  less to pay them back. Only up to ``max_lag`` is paid back, so a long hiccup cannot
  turn into a long unpaced burst; the rest is lost, as if the host had been slow.
  ``lost`` adds it up: the time this machine fed the model as host time. What that cost the
  run is the lag (``lag.py``): the model may have absorbed it in its buffer, or lost more.

Over any window longer than a few ``slack`` the host sees the model's time.

Paying back never outruns the host link (``through_link``): a command's data crosses the link at its
rate, after the data of the commands before it, from when the host sent it; a command never returns
more than ``slack`` before that. The emulator's own lateness (a sleep that overshot, its work past a
completion) is paid back there up to ``slack`` only: a real link does not run faster to make up for a
late host, so a longer stall of this machine during a transfer at the link's rate stays in the run, as
the lag (``lag.py``) that names this machine, not the drive. Without that a delay paid back over a short window
read as more than the link can carry: a scan zone of an LTO-9 at 2,101 MB/s on a 1,200 MB/s link
(issue 31).
"""
from __future__ import annotations

import time
from typing import Callable


class Pacer:
    def __init__(self, *, realtime: bool = True, slack: float = 0.004, max_lag: float = 0.25,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        self.realtime = realtime
        self.slack = slack
        self.max_lag = max_lag
        self._clock, self._sleep = clock, sleep
        self._origin = clock()
        self._done = 0.0
        self._offset = 0.0
        #: Seconds the emulator fell behind its model beyond what it could pay back (see above).
        self.lost = 0.0
        #: Seconds spent sleeping for deadlines (what the host's work left of the drive's time).
        self.slept = 0.0
        self._link = 0.0  # wall time by which the data so far has crossed the host link (``through_link``)
        self._late = 0.0  # how late the last command returned after its data crossed the link (at most ``slack``)

    def _wall(self) -> float:
        return self._clock() - self._origin

    def wall(self) -> float:
        """Seconds on the wall clock since the pacer started (what the lag is measured on, ``lag.py``)."""
        return self._clock() - self._origin

    def wall_at(self, model_time: float) -> float:
        """Where ``model_time`` falls on the wall clock (``wall()``) for the command in progress."""
        return model_time - self._offset if self.realtime else self.wall()

    def now(self) -> float:
        """Arrival time of a command on the model's time scale."""
        if not self.realtime:
            return self._done
        return max(self._wall() + self._offset, self._done)

    def through_link(self, sent: float, nbytes: int, rate: float) -> None:
        """The command the host sent at wall time ``sent`` moves ``nbytes`` over a link of ``rate`` bytes/s: it
        cannot return before they crossed it, after the data of the commands before it. The host's own gap
        before it counts; the last command's lateness (up to ``slack``) does not."""
        if self.realtime and nbytes > 0:
            self._link = max(self._link, sent - self._late) + nbytes / rate

    def finish(self, done: float, *, settle: bool = False, host: float = 0.0) -> None:
        """The command completes at model time ``done``: sleep if the model is far ahead.

        ``settle`` (a rewind, locate, space): what the emulator still owes is not paid
        back after it but counted in ``lost``, so the next phase (the read after a
        write) is paced on its own and its rate is not lifted by the previous one's debt.
        ``host``: seconds of the host's own work that ran past the completion (the next
        buffer's fill, ``VirtualDrive.repeat``): the host's time, as if after the command,
        so the model sees it and it is not paid back.
        """
        self._done = max(done, self._done)
        if not self.realtime:
            return
        wall = self._wall()
        due = max(self._done, self._link)  # the model's completion, never before the bytes crossed the link
        if due - wall > self.slack:
            self._sleep(due - wall)
            self.slept += due - wall
            wall = self._wall()
        ahead = self._done - wall + host
        owed = 0.0 if settle else self.max_lag
        if ahead < -owed:
            self.lost += -owed - ahead
        self._offset = max(ahead, -owed)
        self._late = min(max(0.0, wall - self._link), self.slack)

"""Maps the model's simulated completion times onto the wall clock.

The host measures wall-clock time, so a command must not return before the time a
real drive would need. Sleeping for every 4 KiB block would cost more than the block,
so the pacer keeps a debt: a command may return up to ``slack`` early, and the next
command is treated as arriving no earlier than the previous one completed; once the
debt exceeds ``slack`` it sleeps it off. Over any window longer than a few ``slack``
the host sees the model's rate; oversleeping shows up as a late host, exactly as if
the host itself had been slow.
"""
from __future__ import annotations

import time


class Pacer:
    def __init__(self, *, realtime: bool = True, slack: float = 0.004) -> None:
        self.realtime = realtime
        self.slack = slack
        self._origin = time.monotonic()
        self._done = 0.0

    def now(self) -> float:
        """Arrival time of a command on the model's time scale."""
        if not self.realtime:
            return self._done
        return max(time.monotonic() - self._origin, self._done)

    def finish(self, done: float) -> None:
        """The command completes at model time ``done``: sleep off the debt if it is large."""
        self._done = max(done, self._done)
        if self.realtime:
            debt = self._done - (time.monotonic() - self._origin)
            if debt > self.slack:
                # Wake a little early: sleep overshoots (more so on a loaded machine),
                # and what is left of the debt is carried into the next command.
                time.sleep(debt - self.slack / 2)

"""How far this machine has put the virtual drive behind its own model: the lag a run reports.

The paced model (``VirtualDrive.model``) sees a command arrive when the pacer says, which
includes the emulator's own lateness beyond what the pacer may pay back (``Pacer.lost``) as
if the host had been slow: the modelled drive then answers as a drive answers a slow host
(its buffer absorbs the delay, or its speed matching steps down and the run takes longer
still). So ``lost`` is not what the emulator cost the run: the buffer may hide all of it
(a run at the model's rate with seconds "lost"), or a lower step may cost more than it.
Reported as a share of the streaming time it once read "101 %" (issue 32.3).

The twin is the same model fed with the host's own time only: each command arrives at the
twin's previous completion plus the host's gap on the wall clock (from the return of the
previous command to the call of this one), and it takes the twin's time. So at each
command's return ``wall - twin`` is exactly how far behind the drive it models this
machine has put the run, and over any window the wall time is the twin's time plus the
difference of the lag: the lag of a window is never more than the window. It falls again
when the pacer pays back a delay (the emulator caught up), so a window's lag can be
negative by what it paid back.
"""
from __future__ import annotations

from native.virtual.model import ModelParams, TapeModel


class IdealTwin:
    """The drive's model run on the host's gaps alone (see the module docstring)."""

    def __init__(self, params: ModelParams) -> None:
        self.model = TapeModel(params)
        self.t = 0.0  # the twin's clock: where the current command has got to
        self.arrived = 0.0  # when the current command arrived, on the twin's clock
        self._returned = 0.0  # the pacer's wall clock when the last command returned
        #: Seconds the run is behind the twin at the last command's return (wall - twin).
        self.lag = 0.0

    def arrive(self, wall: float) -> None:
        """A command is called at ``wall``: it reaches the twin after the host's own gap."""
        self.t += max(0.0, wall - self._returned)
        self.arrived = self.t

    def transfer(self, nbytes: int, compressed: float, direction: str) -> None:
        self.t = self.model.transfer(self.t, nbytes, compressed, direction)

    def flush(self) -> None:
        self.t = self.model.flush(self.t)

    def reposition(self) -> None:
        self.t = self.model.reposition(self.t)

    def hold(self, seconds: float) -> None:
        """A command that takes the drive a fixed time (a self-test)."""
        self.t += seconds

    def overlap(self, seconds: float) -> None:
        """The host worked ``seconds`` while the command was in flight (its next buffer's fill,
        ``VirtualDrive.repeat``): the command ends for the host no sooner than that after it arrived."""
        self.t = max(self.t, self.arrived + seconds)

    def cut(self, timeout: float) -> None:
        """The command timed out: the host stopped waiting ``timeout`` after it arrived."""
        self.t = min(self.t, self.arrived + timeout)

    def returned(self, wall: float) -> None:
        """The command returned to the host at ``wall``."""
        self._returned = wall
        self.lag = wall - self.t

"""What happens while a command is outstanding: the user is told when the drive stops answering, and
a command the drive does not answer is given up soon after a cancel.

Why (issue 27): a drive or iSCSI target that stops answering (a hung drive, a frozen target, a pulled
cable) held a run silently until the command's timeout, 15 minutes for a WRITE, and a Ctrl-C meanwhile
was held just as long. The transport now asks a watch about every command that is still outstanding
after a moment (``native.transport.Watch``: iSCSI in its own wait loop, an OS pass-through through
``native.waiting``), and this is the watch:

* once a command has taken longer than a healthy drive ever needs for it (``app.timeouts.notice_after``,
  far below its timeout), a ``Message`` says the drive is not answering and what the technician can do,
  once per command, while tapediag keeps waiting;
* after a cancel, a command that was already outstanding when it came is given up ``ABORT_GRACE``
  seconds later if it has not ended by then (a healthy drive ends a WRITE in milliseconds; the burst
  stops at the cancel anyway). Commands the run sends *after* the cancel, to put back what it changed
  (a robot's move home, the block mode, a rewind), get their normal time: a second cancel gives them up
  too. READ and WRITE are the exception: a run never sends them to put something back, so one sent
  after a cancel (the engine had not looked yet) is not wanted and goes the same way.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # the events load when a drive is watched, not when the command line installs the default
    from app.cancel import CancelToken
    from app.events import EventSink

#: Seconds a command outstanding at a cancel may still take before it is given up: a healthy drive
#: ends any READ or WRITE well within it (a back-hitch is 2-3 s on LTO, and the command that triggers
#: one has usually ended before), a stuck one never does, and it leaves the abort (``native`` waits
#: 2 s for the target's answer) and the put-back well inside the 10 s a cancel may take.
ABORT_GRACE = 2.0

#: READ and WRITE (6)/(10)/(16): never part of putting something back (see the module's docstring).
DATA_TRANSFER = frozenset({0x08, 0x0A, 0x28, 0x2A, 0x88, 0x8A})


def default_notice_after(opcode: int) -> float:
    """``app.timeouts.notice_after``, imported when a command is first watched: the command line installs
    the default watch before every command (``app.stop``), and most (``devices``, ``--help``) never send
    a command long enough to ask it, while the timeouts' table loads every CDB layout (issue 32 §3)."""
    from app.timeouts import notice_after

    return notice_after(opcode)


class CommandWatch:
    """``native.transport.Watch`` for one drive: ``watch(opcode, seconds) -> give it up?``.

    ``cancel`` is the run's token (None: nothing to give up for); ``sink`` receives the notice (None: nobody);
    ``notice_after(opcode)`` and ``timeout_of(opcode)`` are the drive's figures (``app.timeouts``)."""

    def __init__(self, cancel: CancelToken | None, sink: EventSink | None = None, *, device: str = "",
                 notice_after: Callable[[int], float] = default_notice_after,
                 timeout_of: Callable[[int], float] | None = None, grace: float = ABORT_GRACE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.cancel, self.sink, self.device = cancel, sink, device
        self.notice_after, self.timeout_of, self.grace, self.clock = notice_after, timeout_of, grace, clock
        self._last_waited = 0.0
        self._noticed = False

    def __call__(self, opcode: int, waited: float) -> bool:
        if waited < self._last_waited:  # a new command: its own notice
            self._noticed = False
        self._last_waited = waited
        if not self._noticed and waited >= self.notice_after(opcode):
            self._noticed = True
            if self.sink is not None:
                from app.events import Message  # loaded with the run that watches; not for ``set_default``

                self.sink(Message("warning", self.notice(opcode, waited)))
        return self.give_up(opcode, waited)

    def give_up(self, opcode: int, waited: float) -> bool:
        """True once a cancel wants this command and the drive has had ``grace`` seconds to end it."""
        requested = self.cancel.requested_at if self.cancel is not None else None
        if requested is None:
            return False
        now = self.clock()
        sent = now - waited
        if requested < sent and opcode not in DATA_TRANSFER:  # sent after the cancel, to put something back
            return False
        return now - max(requested, sent) >= self.grace

    def notice(self, opcode: int, waited: float) -> str:
        """The one line: which command, for how long, what is still being done, what to do."""
        from native.scsi.cdb import opcode_name  # only for a notice (see ``default_notice_after``)

        name = opcode_name(opcode)
        limit = self.timeout_of(opcode) if self.timeout_of is not None else None
        until = f" (its timeout is {_duration(limit)})" if limit else ""
        where = f"{self.device}: " if self.device else ""
        return (f"{where}the drive has not answered {name} for {_duration(waited)}, far longer than a working drive "
                f"takes: the drive may be hung, or the path to it (cable, network, iSCSI target) may be down. "
                f"tapediag is still waiting{until}; cancel the run (Ctrl-C, or Cancel) to stop waiting, and "
                "check the drive, its cabling or target")


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 7200:
        return f"{seconds // 60} min"
    return f"{seconds // 3600} h"


#: The watch a drive or changer opened outside a run gets (``set_default``): the CLI's process token and
#: a stderr printer, so ``info`` on a stuck target says so too; None in the GUI, whose runs bring their own.
_default: tuple[CancelToken | None, EventSink] | None = None


def set_default(cancel: CancelToken | None, sink: EventSink) -> None:
    """What every drive and changer opened from now on is watched with until a run attaches its own."""
    global _default
    _default = (cancel, sink)


def clear_default() -> None:
    """Drives opened from now on are not watched until a run attaches its watch."""
    global _default
    _default = None


def default_watch(device: str, notice_after: Callable[[int], float] = default_notice_after,
                  timeout_of: Callable[[int], float] | None = None) -> CommandWatch | None:
    if _default is None:
        return None
    cancel, sink = _default
    return CommandWatch(cancel, sink, device=device, notice_after=notice_after, timeout_of=timeout_of)


__all__ = ["ABORT_GRACE", "CommandWatch", "DATA_TRANSFER", "clear_default", "default_watch", "set_default"]

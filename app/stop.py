"""The command line's one signal policy: SIGINT (Ctrl-C), SIGTERM and SIGHUP all mean "cancel".

Why one policy, installed first thing by ``app.cli.main`` (issue 27): each command used to install
its own SIGINT handler once it reached its run, so a Ctrl-C in the first fraction of a second
either raised in the middle of an import (a traceback) or, when the shell had started tapediag
with SIGINT ignored (a background job of a script), was ignored, and the test then wrote the
tape; SIGTERM and SIGHUP (a closed terminal, ``timeout``, a service stop) killed the process with
the drive in variable-block mode or cartridges in drives.

* A signal cancels the process's ``CancelToken``. Inside a run (``cancelling()``), that is all it
  does: the engine sees the token between I/Os and stops, a command the drive does not answer is
  given up (``app.commandwatch``), what the run changed is put back, and the run is recorded
  "cancelled" (exit 130).
* Outside a run (parsing the command line, ``info``, ``ticket``, opening a device), the handler
  raises ``KeyboardInterrupt`` where the program is, as Python's own handler does; ``main`` says
  "tapediag: cancelled" and exits 130. Nothing has been changed there.
* SIGHUP inherited as ignored (``nohup tapediag ...``) stays ignored: the run is meant to outlive
  the terminal. SIGINT inherited as ignored is handled all the same: whoever sends it to tapediag
  explicitly means it, and a script's background job inherits it ignored.

The GUI cancels through the same token type (its Cancel button) and installs nothing here.
"""
from __future__ import annotations

import signal
import sys
import threading
from contextlib import contextmanager
from types import FrameType
from typing import TYPE_CHECKING, Iterator

from app.cancel import CancelToken

if TYPE_CHECKING:  # the events' dataclasses load with a run, not on every start (issue 32 §3)
    from app.events import Event

#: The signals that cancel, by name (those this platform has: Windows has SIGINT and SIGTERM only).
CANCEL_SIGNALS = tuple(name for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Policy:
    """The installed policy: the token, how many runs are in progress, the handlers it replaced."""

    def __init__(self) -> None:
        self.token = CancelToken()
        self.runs = 0
        self.received: list[str] = []
        self.previous: dict[int, object] = {}

    def on_signal(self, signum: int, _frame: FrameType | None) -> None:
        self.received.append(signal.Signals(signum).name)
        self.token.cancel()
        if self.runs == 0:
            raise KeyboardInterrupt


_policy: _Policy | None = None


@contextmanager
def installed() -> Iterator[CancelToken]:
    """The policy for the duration of one command (``main``); nested (``library-run`` runs ``main``
    again for its test) it is the outer one's. Outside the main thread nothing is installed (Python
    runs handlers there only) and a token of its own is yielded."""
    global _policy
    if _policy is not None:
        yield _policy.token
        return
    if threading.current_thread() is not threading.main_thread():
        yield CancelToken()
        return
    if _interrupted_in_a_finaliser():  # a Ctrl-C before the policy, swallowed by a finaliser: the cancel it was
        raise KeyboardInterrupt
    policy = _Policy()
    for name in CANCEL_SIGNALS:
        number = getattr(signal, name)
        current = signal.getsignal(number)
        if name == "SIGHUP" and current == signal.SIG_IGN:  # nohup: keep running when the terminal goes
            continue
        policy.previous[number] = current
        signal.signal(number, policy.on_signal)
    _policy = policy
    from app.commandwatch import clear_default, set_default

    set_default(policy.token, print_notice)
    try:
        yield policy.token
    finally:
        _policy = None
        clear_default()
        for number, handler in policy.previous.items():
            signal.signal(number, handler)  # type: ignore[arg-type]


def _interrupted_in_a_finaliser() -> bool:
    """A cancelling signal whose ``KeyboardInterrupt`` a finaliser swallowed (``app.INTERRUPTS_IN_FINALISERS``)."""
    import app

    return bool(app.INTERRUPTS_IN_FINALISERS)


def token() -> CancelToken:
    """The process's token while the policy is installed; a fresh one otherwise."""
    return _policy.token if _policy is not None else CancelToken()


def received() -> tuple[str, ...]:
    """The cancelling signals received so far, by name ("SIGTERM", ...)."""
    return tuple(_policy.received) if _policy is not None else ()


@contextmanager
def cancelling() -> Iterator[CancelToken]:
    """A run in progress: a signal only cancels the yielded token, so the run can stop at a safe point
    and put back what it changed. Entered after a signal already came, it raises ``KeyboardInterrupt``
    at once (nothing was started)."""
    if _policy is None:
        yield CancelToken()
        return
    if _policy.token.cancelled or _interrupted_in_a_finaliser():
        raise KeyboardInterrupt
    _policy.runs += 1
    try:
        yield _policy.token
    finally:
        _policy.runs -= 1


def print_notice(event: Event) -> None:
    """Where a drive watched outside a run tells the technician it is not answering: stderr."""
    from app.events import Message

    if isinstance(event, Message):
        print(f"tapediag: {event.level}: {event.text}", file=sys.stderr, flush=True)


__all__ = ["CANCEL_SIGNALS", "cancelling", "installed", "print_notice", "received", "token"]

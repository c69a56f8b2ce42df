"""How a run is told to stop: the ``CancelToken`` every front end cancels through.

Its own module, re-exported by ``app.events``: the command line's signal policy (``app.stop``) makes
one on every start, before it knows the command, and needs none of the events' dataclasses for it
(``tapediag devices`` never runs anything; issue 32 §3).
"""
from __future__ import annotations

import threading
import time


class CancelToken:
    """Set from any thread; engines check it between I/Os and stop within one I/O.

    Every front end cancels through one: the CLI's signals (``app.stop``), the GUI's Cancel
    button. Each request is timed (``requested_at``): a command still outstanding when one
    came is given up soon after if the drive does not answer it (``app.commandwatch``),
    while the commands a run sends afterwards to put things back get their normal time."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._requested_at: float | None = None

    def cancel(self) -> None:
        """Ask the run to stop (again: a command outstanding since the last request is given up too)."""
        self._requested_at = time.monotonic()
        self._event.set()

    @property
    def requested_at(self) -> float | None:
        """``time.monotonic()`` of the latest request, None before the first."""
        return self._requested_at

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; True if cancelled meanwhile."""
        return self._event.wait(seconds)

"""Where a run's events go: the ``EventSink`` type, and ``discard`` for a caller that watches nothing.

Its own module, re-exported by ``app.events``: the drive object, the run kinds' contract, ``execute`` and the
history's recorder take a sink for every run, and need none of the events' eleven dataclasses for that, which
``tapediag info`` (whose run emits no event) would otherwise build at every start (issue 32 §3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from app.events import Event

EventSink = Callable[["Event"], None]


def discard(_event: Event) -> None:
    """A sink for callers that do not watch progress."""

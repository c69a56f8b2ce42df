"""``discard``: the sink for a caller that watches none of a run's events.

Its own module, re-exported by ``app.events``: the drive object, the run kinds' contract, ``execute`` and the
history's recorder take it as their default sink, and need none of the events' eleven dataclasses for that,
which ``tapediag info`` (whose run emits no event) would otherwise build at every start (issue 32 §3). Those
modules name ``app.events.EventSink`` in annotations only.
"""
from __future__ import annotations


def discard(_event: object) -> None:
    """A sink for callers that do not watch progress."""

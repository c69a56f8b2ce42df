"""A test run on a drive and recorded in the history: how the CLI and the GUI both run one.

Why one function: a run the GUI records must be the run the CLI records (the same kind,
the same parameters dictionary, the same status and results), so a history row, a report
or a ticket never depends on which front end started it.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

from app.events import CancelToken, EventSink, discard


#: The command that records a kind, as a refused second run names the first (``app.claims``).
_COMMAND = {"assessment": "assess", "media-scan": "scan"}


class DriveTest(Protocol):
    def run(self, sink: EventSink, cancel: CancelToken) -> Any: ...


def record_on_drive(device: str, kind: str, params: dict[str, Any], make_test: Callable[[Any], DriveTest], *,
                    cancel: CancelToken, sink: EventSink = discard) -> tuple[int, Any]:
    """Open ``device``, run ``make_test(drive)`` recorded as ``kind`` with ``params``; (run id, result).

    The drive is claimed for the run (``app.claims``): a second test on it, from this process or
    another, is refused before anything is recorded or sent."""
    from app.claims import claimed
    from app.drive import TapeDrive
    from app.history import run_recorded
    from app.visits import identify

    with TapeDrive.open(device) as drive, claimed(drive, _COMMAND.get(kind, kind)):
        test = make_test(drive)
        keys = identify(drive)  # which drive and cartridge: read before the test, both passive queries
        return run_recorded(kind, device, params, lambda s: test.run(s, cancel), sink=sink, keys=keys)

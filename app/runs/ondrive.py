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
    another, is refused before anything is recorded or sent. The drive's and the cartridge's identity
    (INQUIRY, serial, cartridge memory) is read before the test and stored with the results under
    ``app.identity.IDENTITIES``: every report names them, and the history is keyed by them. The run's
    ``cancel`` and ``sink`` watch the drive's commands (``TapeDrive.watch_commands``): a drive that stops
    answering is named, and a cancel is not held by a command it never answers."""
    from app.claims import claimed
    from app import identity
    from app.drive import TapeDrive
    from app.history import run_recorded

    with TapeDrive.open(device) as drive, claimed(drive, _COMMAND.get(kind, kind)):
        drive.watch_commands(cancel, sink)
        test = make_test(drive)
        who = identity.with_cartridge(identity.of_drive(drive), drive)
        return run_recorded(kind, device, params, lambda s: test.run(s, cancel), sink=sink,
                            extra=lambda: {identity.IDENTITIES: [who.to_dict()]})

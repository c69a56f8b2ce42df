"""A test run on a drive and recorded in the history: how the CLI and the GUI both run one.

Why one function: a run the GUI records must be the run the CLI records (the same kind,
the same parameters dictionary, the same status and results), so a history row, a report
or a ticket never depends on which front end started it.
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

from app.events import CancelToken, EventSink, discard


class DriveTest(Protocol):
    def run(self, sink: EventSink, cancel: CancelToken) -> Any: ...


def record_on_drive(device: str, kind: str, params: dict[str, Any], make_test: Callable[[Any], DriveTest], *,
                    cancel: CancelToken, sink: EventSink = discard) -> tuple[int, Any]:
    """Open ``device``, run ``make_test(drive)`` recorded as ``kind`` with ``params``; (run id, result).

    The drive's identity (INQUIRY, serial) is read before the test and the cartridge's (barcode, medium
    serial) after it, and stored with the results under ``app.identity.IDENTITIES``: every report names
    the drive and the cartridge a run used."""
    from app import identity
    from app.drive import TapeDrive
    from app.history import run_recorded

    with TapeDrive.open(device) as drive:
        test = make_test(drive)
        before = identity.of_drive(drive)
        return run_recorded(kind, device, params, lambda s: test.run(s, cancel), sink=sink,
                            extra=lambda: {identity.IDENTITIES: [identity.with_cartridge(before, drive).to_dict()]})

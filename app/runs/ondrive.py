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
    The run's ``cancel`` and ``sink`` watch the drive's commands (``TapeDrive.watch_commands``): a drive
    that stops answering is named, and a cancel is not held by a command it never answers."""
    from app.drive import TapeDrive
    from app.history import run_recorded

    with TapeDrive.open(device) as drive:
        drive.watch_commands(cancel, sink)
        test = make_test(drive)
        return run_recorded(kind, device, params, lambda s: test.run(s, cancel), sink=sink)

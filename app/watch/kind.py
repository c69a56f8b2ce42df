"""The watch as a run kind (``backup-watch``): ``tapediag watch DEVICE``, the GUI's "Watch a backup" panel, and
its record in the history, its ``show`` and its PDF (issue 28).

Why ``Target.QUERIES`` and not ``Target.DRIVE``: a watch observes a backup another program runs, and must not
be able to disturb it. ``Target.DRIVE`` would open the named node and send INQUIRY, a cartridge probe and the
command watch's queries *during* the job: the st driver allows one open of a drive at a time (the backup's own
open would fail, or ours would), and closing a rewinding node (/dev/st0) rewinds the tape under the backup. It
would also claim the drive (``app.claims``) for as long as the watch runs, which says "tapediag tests this drive"
when tapediag only reads the kernel's counters. So nothing is opened or claimed for the run: the engine reads
files (``app.watch.stats``, /proc) and asks the drive only before and after the watch, through its sg node and
``QueriesOnly`` (INQUIRY, REPORT SUPPORTED OPERATION CODES, LOG SENSE, nothing else). What it learnt of the drive
then is stored as the run's identity (``app.identity``), so the history keys the watch by the drive's serial as
it keys a test.

What cannot be watched (Windows, ``iscsi://``, ``virtual:``, a node the st driver does not drive) is refused when
the engine is built, before the run is recorded: one line, exit 2.
"""
from __future__ import annotations

from typing import Any

from app import identity
from app.events import CancelToken, EventSink
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, Command, RunContext, RunKind, Target
from app.watch import text
from app.watch.engine import Watch
from app.watch.params import WatchParams
from app.watch.result import WatchResult
from native.iscsi_url import display_device

#: The result's status -> the documented exit status (``app/watch/__init__.py``): a watch that saw nothing ran on
#: the drive ends 1, as does one stopped by an error; cancelled 130.
EXIT_CODES = {"complete": EXIT_OK, "nothing": EXIT_FAILED, "stopped": EXIT_FAILED, "cancelled": EXIT_CANCELLED}


def exit_code(result: WatchResult) -> int:
    return EXIT_CODES.get(result.status, EXIT_FAILED)


class _Engine:
    """The watch, and what it learnt of the drive stored beside its result as the run's identity."""

    def __init__(self, watch: Watch) -> None:
        self.watch = watch
        self.result: WatchResult | None = None

    def run(self, sink: EventSink, cancel: CancelToken) -> WatchResult:
        self.result = self.watch.run(sink, cancel)
        return self.result

    def stored_extra(self) -> dict[str, Any]:
        drive = self.result.drive if self.result is not None else None
        if drive is None or not drive.queried:
            return {}
        who = identity.DeviceIdentity(display_device(self.watch.params.device), identity.TAPE_DRIVE,
                                      vendor=drive.vendor or None, product=drive.product or None,
                                      serial=drive.serial or None, firmware=drive.revision or None)
        return {identity.IDENTITIES: [who.to_dict()]}


def _engine(ctx: RunContext[WatchParams]) -> _Engine:
    watch = Watch(ctx.params)
    watch.resolve()  # what cannot be watched is refused here, before the run is recorded
    return _Engine(watch)


WATCH: RunKind[WatchParams, WatchResult] = RunKind(
    "backup-watch", "Backup watch", Target.QUERIES, WatchParams, WatchResult, _engine,
    headline=text.headline, text=text.render, rows=text.rows, findings=text.findings, series=text.curves,
    exit_code=exit_code,
    command=Command("watch", "watch a backup another program runs on a tape drive, read-only: the share of time the "
                             "drive waited for data and the bottleneck it implies"))

__all__ = ["EXIT_CODES", "WATCH", "exit_code"]

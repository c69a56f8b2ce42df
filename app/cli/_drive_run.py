"""Running a recorded test on a drive from the CLI: a cancel (Ctrl-C, SIGTERM, SIGHUP: ``app.stop``)
stops it and puts the drive back, the run in the history, the result printed as text or JSON with
its run id, warnings (a drive not answering) on stderr as they come. Shared by ``scan`` and ``assess``."""
from __future__ import annotations

import json
import sys
from typing import Any, Callable

from app import visits
from app.events import Event, Message
from app.runs.ondrive import DriveTest, record_on_drive
from app.stop import cancelling


def run_on_drive(device: str, kind: str, params: dict[str, Any], make_test: Callable[[Any], DriveTest], *,
                 as_json: bool, text: Callable[[Any], list[str]]) -> Any:
    """Open ``device``, run ``make_test(drive).run`` recorded as ``kind``, print it; return the result."""
    with cancelling() as cancel:
        run_id, result = record_on_drive(device, kind, params, make_test, cancel=cancel, sink=warnings_to_stderr)
    history = visits.for_run(run_id)  # this drive and cartridge in earlier runs (issue 25 §4)
    if as_json:
        extra = {"history": history.to_dict()} if history is not None else {}
        print(json.dumps({"run_id": run_id, **result.to_dict(), **extra}, indent=2, default=str))
    else:
        print("\n".join(text(result)))
        block = visits.text(history)
        if block:
            print("\n" + block, end="")
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    return result


def warnings_to_stderr(event: Event) -> None:
    """A run's warnings and errors as they happen (the result comes after): one line each."""
    if isinstance(event, Message) and event.level in ("warning", "error"):
        print(f"tapediag: {event.level}: {event.text}", file=sys.stderr, flush=True)

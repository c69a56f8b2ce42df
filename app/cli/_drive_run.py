"""Running a recorded test on a drive from the CLI: a cancel (Ctrl-C, SIGTERM, SIGHUP: ``app.stop``)
stops it and puts the drive back, the run recorded once (``app.execute``), the result printed as its kind
words it or as JSON with its run id, warnings (a drive not answering) on stderr as they come, then the
drive's and the cartridge's earlier visits. Shared by ``scan`` and ``assess``."""
from __future__ import annotations

import json
import sys
from typing import Any

from app import visits
from app.events import Event, Message
from app.execute import execute
from app.runs.kind import RunKind
from app.stop import cancelling


def run_on_drive(kind: RunKind[Any, Any], device: str, params: Any, *, as_json: bool) -> Any:
    """Run ``kind`` on ``device`` with ``params``, recorded, and print it; return the result."""
    with cancelling() as cancel:
        run = execute(kind, params, device, cancel=cancel, sink=warnings_to_stderr)
    history = visits.for_run(run.run_id)  # this drive and cartridge in earlier runs (issue 25 §4)
    if as_json:
        extra = {"history": history.to_dict()} if history is not None else {}
        print(json.dumps({"run_id": run.run_id, **run.result.to_dict(), **extra}, indent=2, default=str))
    else:
        print(kind.text(run.result) if kind.text is not None else kind.headline(run.result))
        block = visits.text(history)
        if block:
            print("\n" + block, end="")
        print(f"\nRecorded as run {run.run_id} ('tapediag report {run.run_id} -o report.pdf').")
    return run.result


def warnings_to_stderr(event: Event) -> None:
    """A run's warnings and errors as they happen (the result comes after): one line each."""
    if isinstance(event, Message) and event.level in ("warning", "error"):
        print(f"tapediag: {event.level}: {event.text}", file=sys.stderr, flush=True)

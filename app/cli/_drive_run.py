"""Running a recorded test on a drive from the CLI: Ctrl-C as a cancel, the run in the history,
the result printed as text or JSON with its run id. Shared by ``scan`` and ``assess``."""
from __future__ import annotations

import json
import signal
from typing import Any, Callable

from app import visits
from app.events import CancelToken
from app.runs.ondrive import DriveTest, record_on_drive


def run_on_drive(device: str, kind: str, params: dict[str, Any], make_test: Callable[[Any], DriveTest], *,
                 as_json: bool, text: Callable[[Any], list[str]]) -> Any:
    """Open ``device``, run ``make_test(drive).run`` recorded as ``kind``, print it; return the result."""
    cancel = CancelToken()
    previous = signal.signal(signal.SIGINT, lambda *_: cancel.cancel())
    try:
        run_id, result = record_on_drive(device, kind, params, make_test, cancel=cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
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

"""Export one run: its samples as CSV (for spreadsheets) or the whole run as JSON."""
from __future__ import annotations

import csv
import json
from typing import TextIO

from .store import History, Run

CSV_COLUMNS = ("t_s", "nbytes", "latency_s", "phase", "stream")


def write_csv(history: History, run_id: int, out: TextIO) -> int:
    """Write the run's samples, one I/O per row; returns the number of rows."""
    history.get_run(run_id, samples=False)  # unknown id: one clear error, not an empty file
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    n = 0
    for s in history.iter_samples(run_id):
        writer.writerow((repr(s.t), s.nbytes, repr(s.latency), s.phase, s.stream))
        n += 1
    return n


def write_json(run: Run, out: TextIO) -> None:
    json.dump(run.to_dict(), out, indent=2, sort_keys=True)
    out.write("\n")

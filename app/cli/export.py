"""`tapediag export RUN_ID --csv|--json [-o FILE]`: a run's samples (CSV) or the whole run (JSON).

A file is written like a report (``app.output``): into a hidden temporary file beside it,
synced, then renamed over it, so a full disk never leaves half an export nor costs an older
file at that path. Only a regular file (or a new name) is replaced: a device, a pipe or a
symbolic link is refused in one line; without ``-o`` the export goes to standard output,
which is how it reaches a pipe.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from app.cli.commands import HELP
from app.history import History, Run
from app.history.export import write_csv, write_json
from app.output import Replacement
from native.errors import TapediagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help=HELP["export"],
        description="Write a recorded run for another tool: --csv gives one row per I/O sample (time, bytes, "
                    "latency), --json the run's parameters, results and samples.")
    parser.add_argument("run_id", type=int, metavar="RUN_ID")
    fmt = parser.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--csv", action="store_true", help="one row per I/O sample")
    fmt.add_argument("--json", action="store_true", help="parameters, results and samples")
    parser.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    parser.set_defaults(func=run)


def _write(hist: History, args: argparse.Namespace, got: Run, out: TextIO) -> str:
    if args.csv:
        return f"{write_csv(hist, args.run_id, out)} samples"
    write_json(got, out)
    return "run"


def run(args: argparse.Namespace) -> int:
    with History.open() as hist:
        got = hist.get_run(args.run_id, samples=args.json)  # checks the id before creating a file
        if not args.output:
            _write(hist, args, got, sys.stdout)
            return 0
        with Replacement(args.output, "the export") as target:
            try:
                what = _write(hist, args, got, target.text())
            except OSError as err:
                raise TapediagError(f"cannot write {args.output}: {err.strerror or err}; nothing was replaced") \
                    from err
    print(f"Exported {what} of run {args.run_id} to {args.output}", file=sys.stderr)
    return 0

"""`tapediag export RUN_ID --csv|--json [-o FILE]`: a run's samples (CSV) or the whole run (JSON)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from app.history import History
from app.history.export import write_csv, write_json
from native.errors import InvalidParameter, TapediagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="export a past run as CSV (samples) or JSON")
    parser.add_argument("run_id", type=int, metavar="RUN_ID")
    fmt = parser.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--csv", action="store_true", help="one row per I/O sample")
    fmt.add_argument("--json", action="store_true", help="parameters, results and samples")
    parser.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    with History.open() as hist:
        got = hist.get_run(args.run_id, samples=args.json)  # checks the id before creating a file
        try:
            out = open(args.output, "w", newline="", encoding="utf-8") if args.output else sys.stdout
        except OSError as err:  # the user's path: bad input, nothing was written
            raise InvalidParameter(f"cannot write {args.output}: {err.strerror or err}") from err
        done = False
        try:
            if args.csv:
                n = write_csv(hist, args.run_id, out)
                what = f"{n} samples"
            else:
                write_json(got, out)
                what = "run"
            done = True
        except OSError as err:
            raise TapediagError(f"cannot write {args.output or 'the output'}: {err.strerror or err}") from err
        finally:
            if args.output:
                out.close()
                if not done:  # no half-written export left behind
                    args.output.unlink(missing_ok=True)
    if args.output:
        print(f"Exported {what} of run {args.run_id} to {args.output}", file=sys.stderr)
    return 0

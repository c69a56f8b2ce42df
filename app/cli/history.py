"""`tapediag history`: list the stored runs (or print where the database lives)."""
from __future__ import annotations

import argparse
import json
import sys

from app.cli.commands import HELP
from app.catalog import KINDS
from app.history import History, default_path
from app.history.store import MAX_ID, printable
from native.errors import InvalidParameter
from native.units import plural
from app.history.summary import listed


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "history", help=HELP["history"],
        description="List the recorded runs, newest first: id, date, kind, device or directory, status and "
                    "headline. 'tapediag show RUN_ID' prints one again, 'tapediag report RUN_ID...' makes a PDF.")
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.add_argument("--path", action="store_true", help="print the history database's path and exit")
    parser.add_argument("--kind", choices=[k.name for k in KINDS], help="only runs of this kind")
    parser.add_argument("--device", help="only runs on this device")
    parser.add_argument("--limit", type=_limit, default=None, help="at most this many (newest first)")
    parser.set_defaults(func=run)


def _limit(text: str) -> int:
    """A positive count SQLite can hold (``--limit`` with 20 digits is a usage error, not a traceback)."""
    try:
        value = int(text)
    except ValueError:
        raise InvalidParameter(f"--limit: invalid int value: {text!r}") from None
    if not 0 < value <= MAX_ID:
        raise InvalidParameter(f"--limit: {text} is out of range (1 to {MAX_ID})")
    return value


def run(args: argparse.Namespace) -> int:
    if args.path:
        print(default_path())
        return 0
    with History.open() as hist:
        runs = hist.list_runs(kind=args.kind, device=args.device, limit=args.limit)
    lines = {r.id: listed(r) for r in runs}
    damaged = [r for r in runs if lines[r.id][1]]
    if damaged:  # the others are listed; the bad ones are named, once, where a script does not parse
        print(f"tapediag: note: {plural(len(damaged), 'run')} ({', '.join(str(r.id) for r in damaged)}) "
              f"{'has' if len(damaged) == 1 else 'have'} a damaged record in the history: listed without "
              "results; 'show' cannot read it", file=sys.stderr)
    if args.json:
        print(json.dumps([r.to_dict(samples=False) for r in runs], indent=2, sort_keys=True))
        return 0
    if not runs:
        print("No runs recorded yet.")
        return 0
    rows = [(str(r.id), r.started_at.replace("T", " ").replace("+00:00", "Z"), r.kind, printable(r.device), r.status,
             printable(lines[r.id][0])) for r in runs]
    header = ("ID", "STARTED (UTC)", "KIND", "DEVICE", "STATUS", "RESULT")
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    for row in (header, *rows):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip())
    return 0

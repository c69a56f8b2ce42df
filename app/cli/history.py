"""`tapediag history`: list the stored runs (or print where the database lives)."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

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
    rows = [(str(r.id), r.started_at.replace("T", " ")[:16], r.kind, printable(r.device), r.status,
             printable(lines[r.id][0])) for r in runs]
    for line in table(("ID", "STARTED (UTC)", "KIND", "DEVICE", "STATUS", "RESULT"), rows):
        print(line)
    return 0


#: The list fits a terminal this wide; each run's whole result is in 'tapediag show' (issue 31: tape-perf and
#: troubleshooting rows were 300+ characters).
WIDTH = 100
MIN_DEVICE, MIN_RESULT = 16, 24


def table(header: tuple[str, ...], rows: Sequence[tuple[str, ...]], width: int = WIDTH) -> list[str]:
    """The rows as lines of at most ``width`` characters: the device (second to last but one) and the result
    (last) share what the other columns leave, the result first; each is shortened with an ellipsis."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
    room = width - sum(widths[:3]) - widths[4] - 2 * (len(header) - 1)
    result = min(widths[5], max(MIN_RESULT, room - min(widths[3], MIN_DEVICE)))
    device = min(widths[3], max(MIN_DEVICE, room - result))
    widths[3], widths[5] = device, max(result, len(header[5]))
    shown = [row[:3] + (_middle(row[3], device),) + row[4:5] + (_end(row[5], widths[5]),) for row in rows]
    return ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in (header, *shown)]


def _middle(text: str, width: int) -> str:
    """``text`` in ``width`` characters, its middle left out: a device string's start and its end both say which."""
    if len(text) <= width:
        return text
    head = (width - 1) * 3 // 5
    return text[:head] + "…" + text[len(text) - (width - 1 - head):]


def _end(text: str, width: int) -> str:
    """``text`` in ``width`` characters, cut at a word and ended with an ellipsis."""
    if len(text) <= width:
        return text
    cut = text[:width - 1]
    space = cut.rfind(" ")
    if text[width - 1].isalnum() and space > width // 2:  # mid-word: back to the word's start
        cut = cut[:space]
    return cut.rstrip(" ,;:—") + "…"

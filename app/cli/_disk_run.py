"""What create-data and read-data share on the command line: live progress on
stderr, a cancel (Ctrl-C, SIGTERM, SIGHUP: ``app.stop``) as a clean stop, the history record, the exit status."""
from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any, Callable

from app.cli.commands import HELP
from app.disk.text import render
from app.events import Event, EventSink, Message, Progress
from app.execute import execute
from app.runs.fields import Field, add_options
from app.runs.kind import RunKind
from app.stop import cancelling
from native.units import SIZES_HELP, duration_text, rate_text, size_text


def progress_printer(quiet: bool) -> EventSink:
    """Prints a progress line about once a second, and warnings, to stderr."""
    last = [0.0]

    def sink(event: Event) -> None:
        if isinstance(event, Message) and event.level in ("warning", "error"):
            print(f"tapediag: {event.level}: {event.text}", file=sys.stderr)
        elif isinstance(event, Progress) and not quiet:
            now = time.monotonic()
            if now - last[0] >= 1.0:
                last[0] = now
                done = size_text(event.done_bytes)
                rate = f", {rate_text(event.rate_mb_s)}" if event.rate_mb_s else ""
                print(f"  {event.phase}: {done}{rate}, {duration_text(event.elapsed)}", file=sys.stderr)

    return sink


def register_disk_command(subparsers: argparse._SubParsersAction, name: str, description: str, dir_help: str,
                          fields: tuple[Field, ...], run: Callable[[argparse.Namespace], int]) -> None:
    """``tapediag NAME DIR [options] [--json]``: the directory, the options from the kind's field table (declared
    once, with the GUI's form: ``app.disk.params``), the JSON switch."""
    parser = subparsers.add_parser(name, help=HELP[name], description=f"{description} {SIZES_HELP}")
    parser.add_argument("dir", help=dir_help)
    add_options(parser, fields)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run_disk_test(args: argparse.Namespace, kind: RunKind[Any, Any], params: Any) -> int:
    """Run the kind with a cancel as a clean stop, recorded in the history (``app.execute``: the parameters'
    ``to_dict()``, as the GUI records them), print the result, exit with the kind's status."""
    with cancelling() as cancel:
        run = execute(kind, params, str(args.dir), sink=progress_printer(args.json), cancel=cancel)
    if args.json:
        out = run.result.to_dict()
        out["history_run_id"] = run.run_id
        print(json.dumps(out, indent=2))
    else:
        print(render(run.result))
    return kind.exit_code(run.result)

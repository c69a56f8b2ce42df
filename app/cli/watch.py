"""``tapediag watch DEVICE [--for 10m] [--until-idle 60s] [--pid PID] ... [--json]``: watch the customer's own backup.

Read-only and passive (``app.watch``): during the job tapediag reads the kernel's tape statistics and /proc, and
asks the drive nothing; before and after, queries only through its sg node. The run goes through ``app.execute``
(``app.watch.kind.WATCH``), so it is recorded once and ``history``, ``show`` and ``report`` word it. While it
runs: the watch's messages at once, and every few seconds a line with the rate and the drive's busy share (not
with ``--json``). Exit status: 0 judged, 1 nothing ran on the drive or the watch stopped on an error, 2 bad input or
a drive the kernel keeps no statistics for (Windows, iscsi://, virtual:), 130 cancelled.
"""
from __future__ import annotations

import argparse
import json
import sys

from app.cli.commands import HELP
from app.events import DriveBusy, Event, Message, Progress
from app.runs.fields import add_options, values
from app.watch.params import WatchParams
from native.units import duration_text, percent, rate_text, size_text

#: Seconds between the live lines on stderr.
EVERY_S = 5.0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "watch", help=HELP["watch"],
        description="Watch a backup another program runs on a tape drive, for a given time (--for) or until the job "
                    "ends (--until-idle), and name its bottleneck: the share of the job's time the drive waited for "
                    "data, the verdict with its evidence (the busiest disk the job read, the backup process's CPU, the "
                    "network), and whether the job fed the drive above its slowest speed step. Read-only: during the "
                    "job only the Linux kernel's tape statistics (/sys/class/scsi_tape/nstN/stats) and /proc are read; "
                    "the drive is asked (INQUIRY, LOG SENSE) only before and after, through its sg node. Recorded in "
                    "the history like any test.",
        epilog="exit status: 0 the job was watched and judged, 1 nothing ran on the drive or the watch stopped on an "
               "error, 2 bad input or a drive the kernel keeps no statistics for (Windows, iscsi://, virtual:), "
               "130 cancelled")
    device, *options = WatchParams.FIELDS
    parser.add_argument("device", metavar="DEVICE", help=device.help)
    add_options(parser, options)  # --for, --until-idle, --pid ...: declared once, with the GUI's form
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


class Console:
    """The run's messages at once, and every ``EVERY_S`` a line with the rate and the drive's busy share since the
    last line (none with ``quiet``: JSON on stdout then stands alone)."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.busy_s = self.seconds = 0.0
        self.next_line = EVERY_S

    def __call__(self, event: Event) -> None:
        if isinstance(event, Message):
            print(f"{event.level}: {event.text}", file=sys.stderr, flush=True)
        elif isinstance(event, DriveBusy):
            self.busy_s += event.busy_share * event.seconds
            self.seconds += event.seconds
        elif isinstance(event, Progress) and not self.quiet and event.elapsed >= self.next_line:
            self.next_line = event.elapsed + EVERY_S
            busy = self.busy_s / self.seconds if self.seconds else 0.0
            print(f"  {duration_text(event.elapsed)}: {size_text(event.done_bytes)} moved, {rate_text(event.rate_mb_s)} "
                  f"over the job so far; the drive busy {percent(busy)} in the last {duration_text(self.seconds)}",
                  file=sys.stderr, flush=True)
            self.busy_s = self.seconds = 0.0


def run(args: argparse.Namespace) -> int:
    from app.execute import execute
    from app.stop import cancelling
    from app.watch.kind import WATCH, exit_code

    params = WatchParams.from_values({**values(args, WatchParams.FIELDS), "device": args.device})
    with cancelling() as cancel:
        recorded = execute(WATCH, params, args.device, sink=Console(args.json), cancel=cancel)
    result = recorded.result
    if args.json:
        print(json.dumps({"run_id": recorded.run_id, **result.to_dict()}, indent=2), flush=True)
    else:
        print(WATCH.text(result) if WATCH.text is not None else WATCH.headline(result))
        print(f"\nRecorded as run {recorded.run_id} ('tapediag report {recorded.run_id} -o report.pdf').", flush=True)
    if result.status == "cancelled":
        print("tapediag: cancelled", file=sys.stderr)
    elif result.status == "stopped":
        print(f"tapediag: error: {result.error}", file=sys.stderr)
    elif result.status == "nothing":
        print(f"tapediag: {result.verdict.line}", file=sys.stderr)
    return exit_code(result)


__all__ = ["Console", "register", "run"]

"""``tapediag erase DEVICE --short|--long [--force] [--barcode BARCODE] [--json]``: erase a cartridge (``app.erase``).

The run goes through ``app.execute`` (recorded once, the drive claimed, its commands watched); the refusals are the
data overwrite's (``app.tapeperf.safety``): a cartridge holding data (an LTFS volume named) only with ``--force``,
never a write-protected or WORM one, nothing in a ``--read-only`` session. A long erase says before it starts how
long it takes and that it cannot be stopped once started, then prints its progress as the drive reports it.
"""
from __future__ import annotations

import argparse
import json
import sys

from app.cli.commands import HELP
from app.erase import EraseParams
from app.erase.kind import ERASE, exit_code
from app.events import Event, Message, Progress
from app.runs.fields import add_options, values
from native.units import duration_text, percent


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "erase",
        help=HELP["erase"],
        description="Erase the loaded cartridge. --short writes end of data at the start of the tape (each "
                    "partition's): seconds; the old data can no longer be read, and stays on the tape until "
                    "overwritten. --long overwrites the whole tape: hours on a full-length cartridge, said before it "
                    "starts, and once the drive has started it, it cannot be stopped (Ctrl-C then stops tapediag "
                    "waiting; the drive erases on to the end). The cartridge is looked at first, as before a data "
                    "overwrite: one holding data (an LTFS volume is named) is erased only with --force; a "
                    "write-protected or WORM cartridge never; nothing in a --read-only session.",
        epilog="exit status: 0 erased, 1 the device failed, 2 bad input (or a long erase on a drive without ERASE: "
               "nothing written), 3 refused (nothing written), 130 cancelled",
    )
    parser.add_argument("device", metavar="DEVICE",
                        help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    add_options(parser, EraseParams.FIELDS)  # --short, --long, --force, --barcode, --poll: declared once
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


class ProgressLines:
    """The run's warnings as they come, and a long erase's progress, one line per whole percent, on stderr."""

    def __init__(self) -> None:
        self.shown = -1

    def __call__(self, event: Event) -> None:
        if isinstance(event, Message) and event.level in ("warning", "error"):
            print(f"tapediag: {event.level}: {event.text}", file=sys.stderr, flush=True)
        elif isinstance(event, Progress) and event.total_bytes:
            done = event.done_bytes / event.total_bytes
            if int(done * 100) > self.shown:
                self.shown = int(done * 100)
                left = f", about {duration_text(event.eta_s)} left" if event.eta_s is not None else ""
                print(f"erasing: {percent(done)}{left}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from app.execute import execute
    from app.stop import cancelling

    params = EraseParams.from_values(values(args, EraseParams.FIELDS))
    with cancelling() as cancel:
        recorded = execute(ERASE, params, args.device, sink=ProgressLines(), cancel=cancel)
    result = recorded.result
    if args.json:
        print(json.dumps({"run_id": recorded.run_id, **result.to_dict()}, indent=2, default=str))
    else:
        print(ERASE.text(result) if ERASE.text is not None else ERASE.headline(result))
        print(f"\nRecorded as run {recorded.run_id} ('tapediag report {recorded.run_id} -o report.pdf').")
    return exit_code(result)

"""``tapediag assess DEVICE [--no-write] [--size SIZE] [--force] [--json]``: the drive assessment.

The answer support desks speak in: PASS, PASS WITH WARNINGS, FAIL or NOT ASSESSED, each
step with its outcome and reason (``app.assess``), and the next action.
"""
from __future__ import annotations

import argparse

from app.cli._drive_run import run_on_drive
from app.cli.commands import HELP
from app.assess import EXIT_CODES, AssessParams
from app.assess.kind import ASSESSMENT, exit_code
from app.runs.fields import add_options, values

EPILOG = ("exit status: " + ", ".join(f"{code} {v.value}" for v, code in EXIT_CODES.items())
          + "; 1 the device failed, 2 bad input or not a tape drive, 3 refused, 130 cancelled")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "assess",
        help=HELP["assess"],
        description="Captures the drive's pages first (as 'ticket' does), then checks readiness, TapeAlert and the "
                    "error counters, runs the drive's self-test and writes, reads back and verifies incompressible "
                    "data on a SCRATCH cartridge (a cartridge holding data is refused unless --force; write-protected "
                    "and WORM always), then judges the counters, back-hitches and speed.",
        epilog=EPILOG,
    )
    parser.add_argument("device", metavar="DEVICE",
                        help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    add_options(parser, AssessParams.FIELDS)  # --no-write, --size, --force: declared once, with the GUI's form
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = AssessParams.from_values(values(args, AssessParams.FIELDS))
    return exit_code(run_on_drive(ASSESSMENT, args.device, params, as_json=args.json))

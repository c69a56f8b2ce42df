"""``tapediag scan DEVICE [--limit SIZE|DURATION] [--json]``: a read-only media scan (``app.scan``).

Reads the customer's cartridge from BOT to end of data without writing: the layout the
backup application wrote, the read rate per zone and per file, where the drive paused
while the host kept up (repositioning on reads: the proof that a slow restore is the
drive or the cartridge), error counters and TapeAlert, and a cartridge verdict.
Exit status: 0 keep, 10 monitor, 11 retire, 12 not assessed, 13 check again (seen once); a drive finding
(a TapeAlert flag, a worn head) raises it to 10 or 11; 1 failure, 3 refused, 130 cancelled.
"""
from __future__ import annotations

import argparse
import sys

from app.cli._drive_run import run_on_drive
from app.cli.commands import HELP
from app.scan import ScanParams
from app.runs.fields import add_options, values
from app.scan.kind import MEDIA_SCAN, exit_code


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scan",
        help=HELP["scan"],
        description="Read-only: nothing is written, and a drive left in fixed-block mode is put back as found "
                    "(in a --read-only session the scan refuses instead of switching). Shows the files and block "
                    "sizes on the cartridge, the read rate per zone and per file, where the drive paused while the "
                    "host kept up (repositioning), error counter deltas, TapeAlert and a cartridge verdict.",
        epilog="exit status: 0 keep, 10 monitor, 11 retire, 12 not assessed (blank, or the read did not reach the end "
               "of the data), 13 check again (a slow stretch seen in one scan only); a drive finding (a TapeAlert flag, "
               "a worn head) raises it to 10 (watch) or 11 (act); 1 the device failed, 2 bad input, 3 refused, "
               "130 cancelled",
    )
    parser.add_argument("device", metavar="DEVICE",
                        help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    add_options(parser, ScanParams.FIELDS)  # --limit, --zone: declared once, with the GUI's form
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = ScanParams.from_values(values(args, ScanParams.FIELDS))
    result = run_on_drive(MEDIA_SCAN, args.device, params, as_json=args.json)
    if result.status == "failed" and result.end_reason == "lost":
        print(f"tapediag: error: {result.error}", file=sys.stderr)
    return exit_code(result)

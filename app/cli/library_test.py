"""``tapediag library-test DEVICE [--moves N] [--slots ...] [--drives ...] [--json]``: the library exerciser.

Bad input (a name that is no element, an empty slot or a full drive named, a device that
is not a changer) is refused before a run is recorded; a read-only session is refused
before the robot is asked. The run is in the history like every test (``show``, the PDF).
"""
from __future__ import annotations

import argparse
import json

from app.cli.commands import HELP
from app.libtest.params import LibraryTestParams
from app.runs.fields import add_options, values

EPILOG = ("exit status: 0 PASS, 11 FAIL (a robotics error, or a cartridge not back home), 12 NOT ASSESSED "
          "(nothing to move, no empty drive, cancelled); 1 the library could not be read, 2 bad input or not a "
          "changer, 3 refused in a read-only session, 130 cancelled")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "library-test", help=HELP["library-test"],
        description="Moves cartridges between their home slots and empty drives, times every move, stops at the "
                    "first robotics error and puts every cartridge back (checked by a final inventory). Cleaning "
                    "(CLN...) and unlabelled cartridges are never moved, loaded drives never used. Elements are "
                    "named as in 'tapediag library': slot:N (from 1), drive:N (from 0) or an element address.",
        epilog=EPILOG,
    )
    parser.add_argument("device", metavar="DEVICE", help="/dev/sgN (a changer), iscsi://host/iqn/lun or virtual:library")
    add_options(parser, LibraryTestParams.FIELDS)  # declared once, with the library panel's fields
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.cli._drive_run import warnings_to_stderr
    from app.execute import execute
    from app.libtest.kind import LIBRARY_TEST
    from app.stop import cancelling

    params = LibraryTestParams.from_values(values(args, LibraryTestParams.FIELDS))
    with cancelling() as cancel:
        run = execute(LIBRARY_TEST, params, args.device, sink=warnings_to_stderr, cancel=cancel)
    if args.json:
        print(json.dumps({"run_id": run.run_id, **run.result.to_dict()}, indent=2, default=str))
    else:
        print(LIBRARY_TEST.text(run.result) if LIBRARY_TEST.text is not None else LIBRARY_TEST.headline(run.result))
        print(f"\nRecorded as run {run.run_id} ('tapediag report {run.run_id} -o report.pdf').")
    return LIBRARY_TEST.exit_code(run.result)

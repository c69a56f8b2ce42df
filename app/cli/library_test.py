"""``tapediag library-test DEVICE [--moves N] [--slots ...] [--drives ...] [--json]``: the library exerciser.

Bad input (a name that is no element, an empty slot or a full drive named, a device that
is not a changer) is refused before a run is recorded; a read-only session is refused
before the robot is asked. The run is in the history like every test (``show``, the PDF).
"""
from __future__ import annotations

import argparse
import json

from app.cli.commands import HELP

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
    parser.add_argument("--moves", metavar="N", default="10", help="moves to exercise (default 10; up to 10,000)")
    parser.add_argument("--slots", metavar="LIST", help="slots whose cartridges to use, e.g. slot:1,slot:2 "
                                                         "(default: every slot)")
    parser.add_argument("--drives", metavar="LIST", help="drives to use, e.g. drive:0 (default: every empty drive)")
    parser.add_argument("--no-unload", action="store_true",
                        help="do not unload a drive (LOAD UNLOAD through the tape drive its serial names) before "
                             "moving a cartridge out of it; leave that to the library")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.claims import claimed
    from app.cli._drive_run import warnings_to_stderr
    from app.history import run_recorded
    from app.libtest import LibraryTest, LibraryTestParams
    from app.libtest.results import summary_lines
    from app.library import Changer
    from app.stop import cancelling

    params = LibraryTestParams.from_text(args.moves, args.slots, args.drives, unload=not args.no_unload)
    with Changer.open(args.device) as changer, claimed(changer, "library-test"):
        test = LibraryTest(changer, params)
        test.prepare()
        with cancelling() as cancel:
            changer.watch_commands(cancel, warnings_to_stderr)
            run_id, result = run_recorded("library-test", args.device, params.to_dict(),
                                          lambda sink: test.run(sink, cancel), sink=warnings_to_stderr)
    if args.json:
        print(json.dumps({"run_id": run_id, **result.to_dict()}, indent=2, default=str))
    else:
        print("\n".join(summary_lines(result)))
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    return 130 if result.status == "cancelled" else result.exit_code

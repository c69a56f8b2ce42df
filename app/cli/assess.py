"""``tapediag assess DEVICE [--no-write] [--size SIZE] [--force] [--json]``: the drive assessment.

The answer support desks speak in: PASS, PASS WITH WARNINGS, FAIL or NOT ASSESSED, each
step with its outcome and reason (``app.assess``), and the next action.
"""
from __future__ import annotations

import argparse

from app.cli._drive_run import run_on_drive
from app.cli.commands import HELP
from app.assess import EXIT_CODES, AssessParams, AssessResult, DriveAssessment, Outcome
from app.assess.engine import RUN_KIND
from app.assess.rules import words

EPILOG = ("exit status: " + ", ".join(f"{code} {v.value}" for v, code in EXIT_CODES.items())
          + "; 1 the device failed, 2 bad input or not a tape drive, 3 refused, 130 cancelled")
MARK = {Outcome.PASS: "PASS", Outcome.WARN: "WARN", Outcome.FAIL: "FAIL", Outcome.NOT_ASSESSED: "----",
        Outcome.NOT_RUN: "skip", Outcome.HOST: "HOST"}


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
    parser.add_argument("--no-write", action="store_true", help="skip the write/read step (a partial assessment)")
    parser.add_argument("--size", metavar="SIZE", help="data to write and read back (default: 4 drive buffers, >= 2G)")
    parser.add_argument("--force", action="store_true",
                        help="write even if the cartridge holds data (it is destroyed); never lifts write-protect/WORM")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = AssessParams.from_text(args.size, no_write=args.no_write, force=args.force)
    result = run_on_drive(args.device, RUN_KIND, params.to_dict(), lambda drive: DriveAssessment(drive, params),
                          as_json=args.json, text=summary_lines)
    return 130 if result.status == "cancelled" else result.exit_code


def summary_lines(result: AssessResult) -> list[str]:
    head = f"{result.device}: {result.vendor} {result.product} firmware {result.firmware}"
    if result.serial:
        head += f", serial {result.serial}"
    verdict = words(result.verdict.value, partial=result.partial, status=result.status)
    lines = [head, f"assessment: {verdict}"]
    lines += [f"  [{MARK[s.outcome]}] {s.name}: {s.reason}" for s in result.steps]
    lines.append(f"next: {result.next_action}")
    return lines

"""``tapediag info DEVICE [--json]``: identity, modes, cartridge, TapeAlert, errors, health.

Decoding and the verdict live in ``app.info``; this module only renders: aligned,
grouped text for a technician, or ``DriveInfo.to_dict()`` as JSON for machines.
Exit status says the verdict so scripts can act on it (``app.info.EXIT_CODES``):
0 Healthy, 10 Attention, 11 Failing, 12 Not assessed, 2 not a tape drive (identity
only, nothing but INQUIRY sent); 1 is kept for "the device could not be queried".

Every snapshot is recorded in the history as a ``drive-info`` run whose results are
exactly ``DriveInfo.to_dict()`` (``app.info_kind.snapshot``, shared with the GUI).
"""
from __future__ import annotations

import argparse
import json
import sys

from app.cli.commands import HELP
from app.info import EXIT_CODES, Verdict
from app.info_kind import snapshot
from app import visits
from app.info_view import render_text

EPILOG = f"""exit status (also in --json: "health": {{"verdict": ..., "exit_code": ...}}):
  {EXIT_CODES[Verdict.HEALTHY]:<4}Healthy: TapeAlert and/or the error counters were read and are clean
  {EXIT_CODES[Verdict.ATTENTION]:<4}Attention: warnings, cleaning requested or required, uncorrected or hard errors,
      a MEDIUM ERROR, above the drive's own reference temperature, SAS link or non-medium errors
  {EXIT_CODES[Verdict.FAILING]:<4}Failing: a critical TapeAlert flag or a HARDWARE ERROR on any query
      (each finding names its evidence, threshold and culprit: drive, cartridge, path or host;
      the rules: resources/rules/drive-health.json)
  {EXIT_CODES[Verdict.NOT_ASSESSED]:<4}Not assessed: the drive reported neither TapeAlert nor error counters
  {EXIT_CODES[Verdict.NOT_A_TAPE]:<4}not a tape drive (identity shown, no tape command sent), or bad input
  1   the device could not be reached or queried"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "info",
        help=HELP["info"],
        description="Read-only: queries the drive and the loaded cartridge; nothing is written or moved. Besides "
                    "identity, modes, cartridge memory, TapeAlert and error counters it shows the drive's own log "
                    "pages where the drive has them (temperature, device status, lifetime statistics, SAS link "
                    "counters, kept errors) and its encryption status.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("device", metavar="DEVICE", help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    info, run_id = snapshot(args.device)
    code = info.health.exit_code
    history = visits.for_run(run_id)  # this drive and cartridge in earlier runs (issue 25 §4)
    if args.json:
        extra = {"history": history.to_dict()} if history is not None else {}
        print(json.dumps({"run_id": run_id, **info.to_dict(), **extra}, indent=2))
    else:
        print(render_text(info), end="")
        block = visits.text(history)
        if block:
            print("\n" + block, end="")
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    if info.health.verdict is Verdict.NOT_A_TAPE:
        print(f"tapediag: error: {info.health.reasons[0]}", file=sys.stderr)
    return code

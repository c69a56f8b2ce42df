"""``tapediag ticket DEVICE -o FILE.zip``: the support ticket (``app.ticket``), read-only.

Capture first, before anyone cleans, updates or writes: the zip holds every page the
drive answers, raw (sg3_utils ``--inhex`` format) with the command that decodes each
file, and a summary to read first. It is also recorded in the history as a ``drive-info`` run with the raw pages, so
a later report can compare them.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.commands import HELP


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ticket",
        help=HELP["ticket"],
        description="Read-only: nothing is written to the drive, the tape is not moved, nothing is cleared. "
                    "Captures identity, VPD pages, every supported log page (TapeAlert from page 12h where the drive "
                    "has it, so its flags are not cleared), mode pages (current, changeable, default and saved "
                    "values), cartridge memory, density support, encryption status with key descriptors, the "
                    "drive's error history and every buffer it lists, an IBM LTO drive's dump, the host's facts "
                    "and tapediag's recorded runs of this drive (by serial). SUMMARY.txt, the zip's first file, "
                    "says what was not collected and why, and gives for each file the exact command that decodes "
                    "it (e.g. sg_logs --pdt=1 --inhex=log/page_0ch.hex). Run it before cleaning, updating or testing.",
    )
    parser.add_argument("device", metavar="DEVICE",
                        help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    parser.add_argument("-o", "--output", metavar="FILE.zip", type=Path, required=True, help="the zip to write")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.info_kind import record_ticket

    ticket, run_id = record_ticket(args.device, args.output)  # a bad path is refused before the drive is opened
    print(f"Support ticket written to {ticket.path}: {ticket.captured} pages of {len(ticket.captures)} queries, "
          f"read-only (recorded as run {run_id}).")
    return 0

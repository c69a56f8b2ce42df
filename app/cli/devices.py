"""`tapediag devices`: list the drives tapediag can reach; remember iSCSI targets."""
from __future__ import annotations

import argparse
import json
import textwrap

import sys

from app.cli.commands import HELP
from app.discovery import DeviceEntry, discover, unavailable_transports
from app.targets import add_target, remove_target
from native.iscsi import display_device
from native.virtual.options import options_help


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "devices", help=HELP["devices"],
        # Pre-wrapped: the raw formatter keeps the options table of the epilog as laid out.
        description=textwrap.fill("List the tape drives tapediag can reach. iSCSI targets cannot be discovered: "
                                  "add them once with --add-iscsi and they are listed (and probed) from then on.", 79),
        epilog=options_help(), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("--add-iscsi", metavar="URL",
                        help="remember iscsi://[user@]host[:port]/target-iqn/lun; a CHAP secret is asked for "
                        "(or read from TAPEDIAG_CHAP_SECRET / --chap-secret-file) and kept only in the targets file")
    parser.add_argument("--forget", metavar="URL", help="forget a remembered iSCSI target")
    parser.add_argument("--no-probe", action="store_true", help="do not open or log in to anything")
    parser.set_defaults(func=run)


def _status(entry: DeviceEntry) -> str:
    if entry.reachable is None:
        return "-" if entry.kind == "virtual" else "not probed"
    if entry.reachable and entry.is_tape is False:
        return f"NOT A TAPE DRIVE: {entry.note}; tape commands are refused"
    if entry.reachable:
        return "ok" + (f" ({entry.note})" if entry.note else "")
    return f"unreachable: {entry.note}" if entry.note else "unreachable"


def format_table(entries: list[DeviceEntry]) -> str:
    rows = [("DEVICE", "KIND", "DESCRIPTION", "STATUS")]
    for e in entries:
        desc = e.description + (f"; also {e.alternative}" if e.alternative else "")
        rows.append((e.device, e.kind, desc, _status(e)))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return "\n".join(
        f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}".rstrip() for r in rows
    )


def run(args: argparse.Namespace) -> int:
    if args.add_iscsi is not None:
        entry = add_target(args.add_iscsi)
        if not args.json:
            print(f"remembered {entry.display}")
    if args.forget is not None:
        remove_target(args.forget)
        if not args.json:
            print(f"forgot {display_device(args.forget.strip())}")
    entries = discover(probe=not args.no_probe)
    if args.json:
        print(json.dumps([e.to_dict() for e in entries], indent=2))
    else:
        print(format_table(entries))
    for note in unavailable_transports():  # on stderr, so --json output stays a list
        print(f"unavailable: {note}", file=sys.stderr)
    return 0

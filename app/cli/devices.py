"""`tapediag devices`: list the drives and libraries tapediag can reach; remember iSCSI targets.

Libraries (medium changers) follow the drives, each with its drive elements and the tape
drive each one is, matched by serial number (``app.library_discovery``)."""
from __future__ import annotations

import argparse
import sys

from app.cli.commands import HELP
from app.discovery import DeviceEntry, discover, unavailable_transports
from app.library_discovery import LibraryEntry, discover_libraries
from app.targets import add_target, remove_target
from native.iscsi_url import display_device

#: Wrapped at 79 columns by hand, not by ``textwrap`` on every run (issue 32 §3): the raw formatter keeps it, and
#: the options table of the epilog, as laid out.
DESCRIPTION = ("List the tape drives and tape libraries (medium changers) tapediag can reach,\n"
               "and which drive of a library is which tape drive (by the drive's serial\n"
               "number). iSCSI targets cannot be discovered: add them once with --add-iscsi and\n"
               "they are listed (and probed) from then on.")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "devices", help=HELP["devices"],
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.epilog_from = _options_help  # built when the help is shown (app.cli._Parser)
    parser.add_argument("--json", action="store_true", help="print the list as JSON")
    parser.add_argument("--add-iscsi", metavar="URL",
                        help="remember iscsi://[user@]host[:port]/target-iqn/lun; a CHAP secret is asked for "
                        "(or read from TAPEDIAG_CHAP_SECRET / --chap-secret-file) and kept only in the targets file")
    parser.add_argument("--forget", metavar="URL", help="forget a remembered iSCSI target")
    parser.add_argument("--no-probe", action="store_true", help="do not open or log in to anything")
    parser.set_defaults(func=run)


def _options_help() -> str:
    """The epilog: the virtual drive's options table. It loads every generation's specs, which listing the
    devices does not need (issue 32 §3)."""
    from native.virtual.options import options_help

    return options_help()


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


def format_libraries(libraries: list[LibraryEntry]) -> str:
    rows = [("LIBRARY", "KIND", "DESCRIPTION", "STATUS")]
    for lib in libraries:
        status = "-" if lib.reachable is None and lib.kind == "virtual" else (
            "not probed" if lib.reachable is None else
            ("ok" + (f" ({lib.note})" if lib.note else "")) if lib.reachable else f"unreachable: {lib.note}")
        rows.append((lib.device, lib.kind, lib.description, status))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    owners: list[LibraryEntry | None] = [None, *libraries]  # the header row has no library
    lines = []
    for row, owner in zip(rows, owners):
        lines.append(f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:<{widths[2]}}  {row[3]}".rstrip())
        for d in owner.drives if owner else ():
            which = (f"{d.device} (serial {d.serial})" if d.device else
                     f"no listed drive has this identifier ({d.identifier})" if d.identifier else
                     "the library reports no identifier")
            lines.append(f"  {d.element} (address {d.address}): {which}")
    return "\n".join(lines)


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
    libraries = discover_libraries(entries, probe=not args.no_probe)
    changers = {lib.device for lib in libraries}
    entries = [e for e in entries if e.device not in changers]  # a remembered changer LUN is listed as a library
    if args.json:
        import json  # only for --json: its import compiles six regular expressions (issue 32 §3)

        print(json.dumps([e.to_dict() for e in entries] + [lib.to_dict() for lib in libraries], indent=2))
    else:
        print(format_table(entries))
        print()
        print(format_libraries(libraries))
    for note in unavailable_transports():  # on stderr, so --json output stays a list
        print(f"unavailable: {note}", file=sys.stderr)
    return 0

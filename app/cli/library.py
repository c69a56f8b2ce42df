"""``tapediag library DEVICE [--init] [--move SRC DST] [--json]``: a library's robot (``app.library``).

Without ``--move``: the inventory (every element, full or empty, barcodes, cleaning
cartridges, exceptions, the drives' identifiers). With it: one checked move, then the
inventory again, so the technician sees where everything is now. A move out of a drive
checks and unloads the drive first (``app.library.Changer.move``); ``--no-unload`` and
``--allow-removal`` are the operator's explicit word, never defaults. A move to or from
the mail slot (``ie:N``) holds the library's removal prevented while the robot is there.
``--init`` sends INITIALIZE ELEMENT STATUS first (a barcode scan; never sent otherwise).
The rows are ``app.library_view``'s, which the GUI's library panel shows too.
"""
from __future__ import annotations

import argparse
import contextlib
import json

from app.cli import EXIT_CANCELLED
from app.cli.commands import HELP


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "library", help=HELP["library"],
        description="Reads the library's element status (READ ELEMENT STATUS with barcodes and the drives' "
                    "identifiers). --move SRC DST moves one cartridge: elements are named slot:N (from 1, as on "
                    "the library's panel), drive:N, ie:N (from 0; the mail slot) or by element address; a move "
                    "from an empty element or into a full one is refused before the robot is asked. A move out of "
                    "a drive first finds the tape drive whose serial the drive element names, refuses if it is busy "
                    "and unloads it. A move to or from the mail slot locks it for the move (PREVENT MEDIUM "
                    "REMOVAL) and unlocks it after (ALLOW), only when tapediag locked it. --read-only refuses "
                    "moves and --init.",
        epilog="exit status: 0 done, 1 the library or its robot failed (the line says what), 2 bad input or not a "
               "changer (nothing moved), 3 refused (a busy drive, removal prevented, a read-only session)",
    )
    parser.add_argument("device", metavar="DEVICE", help="/dev/sgN (a changer), iscsi://host/iqn/lun or virtual:library")
    parser.add_argument("--init", action="store_true",
                        help="send INITIALIZE ELEMENT STATUS first: the library scans every element again "
                             "(minutes on a big library); then the inventory")
    parser.add_argument("--move", nargs=2, metavar=("SRC", "DST"), help="move a cartridge, e.g. slot:3 drive:0 "
                                                                        "or slot:3 ie:0")
    parser.add_argument("--no-unload", action="store_true",
                        help="moving out of a drive: do not check and unload the drive (you have unloaded it); "
                             "needed when no listed tape drive matches the drive element")
    parser.add_argument("--allow-removal", action="store_true",
                        help="moving out of a drive: send ALLOW MEDIUM REMOVAL to the drive first. It lifts a "
                             "PREVENT sent through the same initiator port (a backup application on this host, "
                             "stopped), never another host's or iSCSI session's (SPC-4)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.claims import claimed
    from app.library import Changer
    from app.library_view import element_rows, moved_lines
    from app.stop import cancelling
    from native.scsi.smc import ElementType

    with Changer.open(args.device) as changer:
        # A move or a scan changes the library: claimed (app.claims); the inventory alone is a query.
        with claimed(changer, "library --move" if args.move else "library --init") if (args.move or args.init) \
                else contextlib.nullcontext():
            if args.init:
                changer.initialize_element_status()
            moved, cancelled = None, False
            if args.move:
                # A cancel never cuts a move in half (an unloaded drive, a mail slot left locked): the move
                # ends, the inventory shows where everything is, and the exit status says it was cancelled.
                with cancelling() as cancel:
                    moved = changer.move(*args.move, unload=not args.no_unload, allow_removal=args.allow_removal)
                    cancelled = cancel.cancelled
        inventory = changer.inventory()
    from app.library_discovery import drive_devices

    # The tape drive behind each drive element, when its identifier names one: what to test it through.
    matched = drive_devices(inventory)
    devices = {inventory.name(e): matched.get(e.address) for e in inventory.of(ElementType.DATA_TRANSFER)}
    if args.json:
        extra: dict[str, object] = {"initialized": bool(args.init)}
        if moved is not None:
            extra["moved"] = moved.to_dict(inventory)
        print(json.dumps({**inventory.to_dict(), "drive_devices": devices, **extra}, indent=2))
        return EXIT_CANCELLED if cancelled else 0
    if args.init:
        print("INITIALIZE ELEMENT STATUS done: the library checked every element")
    if moved is not None:
        print("\n".join(moved_lines(moved, inventory)))
    print(f"{inventory.device}: {inventory.vendor} {inventory.product}".rstrip())
    for row in element_rows(inventory, devices):
        print(f"  {row.name:<9} {row.address:>5}  {row.contents:<18} {row.notes}".rstrip())
    for name, device in devices.items():
        print(f"  {name} is {device}" if device else f"  {name}: no listed tape drive matches its identifier")
    return EXIT_CANCELLED if cancelled else 0

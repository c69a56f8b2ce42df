"""``tapediag library DEVICE [--move SRC DST] [--json]``: a library's robot (``app.library``).

Without ``--move``: the inventory (every element, full or empty, barcodes, cleaning
cartridges, exceptions, the drives' identifiers). With it: one checked move, then the
inventory again, so the technician sees where everything is now. A move out of a drive
checks and unloads the drive first (``app.library.Changer.move``); ``--no-unload`` and
``--allow-removal`` are the operator's explicit word, never defaults.
"""
from __future__ import annotations

import argparse
import json

from app.cli.commands import HELP


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "library", help=HELP["library"],
        description="Reads the library's element status (READ ELEMENT STATUS with barcodes and the drives' "
                    "identifiers). --move SRC DST moves one cartridge: elements are named slot:N (from 1, as on "
                    "the library's panel), drive:N, ie:N (from 0) or by element address; a move from an empty "
                    "element or into a full one is refused before the robot is asked. A move out of a drive first "
                    "finds the tape drive whose serial the drive element names, refuses if it is busy and unloads "
                    "it. --read-only refuses moves.",
    )
    parser.add_argument("device", metavar="DEVICE", help="/dev/sgN (a changer), iscsi://host/iqn/lun or virtual:library")
    parser.add_argument("--move", nargs=2, metavar=("SRC", "DST"), help="move a cartridge, e.g. slot:3 drive:0")
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
    from app.library import Changer
    from native.scsi.smc import ElementType

    with Changer.open(args.device) as changer:
        moved = changer.move(*args.move, unload=not args.no_unload, allow_removal=args.allow_removal) \
            if args.move else None
        inventory = changer.inventory()
    from app.library_discovery import drive_devices

    # The tape drive behind each drive element, when its identifier names one: what to test it through.
    matched = drive_devices(inventory)
    devices = {inventory.name(e): matched.get(e.address) for e in inventory.of(ElementType.DATA_TRANSFER)}
    if args.json:
        print(json.dumps({**inventory.to_dict(), "drive_devices": devices}, indent=2))
        return 0
    if moved is not None:
        src, dst, release = moved
        if release is not None:
            print(f"{release.device}: " + ", ".join(filter(None, [
                "ALLOW MEDIUM REMOVAL sent" if release.allowed else "",
                "unloaded" if release.unloaded else "no tape threaded, nothing to unload"])))
        print(f"moved {src.barcode or 'the cartridge'} from address {src.address} to {dst.address}")
    print(f"{inventory.device}: {inventory.vendor} {inventory.product}".rstrip())
    for element in inventory.elements:
        state = element.barcode or ("full, no barcode" if element.full else "empty")
        extra = [f"from {element.source}" if element.source is not None and element.full else "",
                 "cleaning cartridge" if element.cleaning else "",
                 f"drive {element.identifier}" if element.identifier else "",
                 f"exception {element.exception[0]:02X}/{element.exception[1]:02X}" if element.exception else ""]
        notes = ", ".join(e for e in extra if e)
        print(f"  {inventory.name(element):<9} {element.address:>5}  {state:<18} {notes}".rstrip())
    for name, device in devices.items():
        print(f"  {name} is {device}" if device else f"  {name}: no listed tape drive matches its identifier")
    return 0

"""A library's inventory in words: the one set of rows ``tapediag library`` prints and the GUI's map shows.

Why here and not in each front end: what an element holds, how a cleaning cartridge, an
exception or a drive's tape device is said, and which elements a move may start from or
go to are decided once; the CLI prints these rows, the GUI puts them in its table.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.library import Inventory, Moved
from native.scsi.asc import asc_text
from native.scsi.smc import ElementType
from native.units import plural

#: Group titles in the order a library's map is shown: the picker, the drives, the mail slots, the slots.
GROUPS = ((ElementType.TRANSPORT, "Robot"), (ElementType.DATA_TRANSFER, "Drives"),
          (ElementType.IMPORT_EXPORT, "Mail slots"), (ElementType.STORAGE, "Slots"))


@dataclass(frozen=True)
class ElementRow:
    name: str  # "slot:3", "drive:0", "ie:0", "robot:0"
    type: ElementType
    address: int
    full: bool
    contents: str  # the barcode, "full, no barcode" or "empty"
    notes: str  # where it came from ("from slot:4"), cleaning cartridge, the drive's identifier, the exception
    cleaning: bool
    exception: str  # "" or "04/15: Mechanical positioning error"
    drive_device: str | None  # a drive element's tape drive, matched by serial (None: no listed drive matches)


def element_rows(inv: Inventory, devices: dict[str, str | None]) -> list[ElementRow]:
    """Every element in the library's order; ``devices`` maps drive element names to their tape drive."""
    rows = []
    names = {e.address: inv.name(e) for e in inv.elements}
    for e in inv.elements:
        exception = f"{e.exception[0]:02X}/{e.exception[1]:02X}: {asc_text(*e.exception)}" if e.exception else ""
        came = names.get(e.source, f"address {e.source}") if e.source is not None else ""
        notes = [f"from {came}" if came and e.full else "",
                 "cleaning cartridge" if e.cleaning else "",
                 f"drive {e.identifier}" if e.identifier else "",
                 f"exception {exception}" if exception else ""]
        rows.append(ElementRow(inv.name(e), e.type, e.address, e.full,
                               e.barcode or ("full, no barcode" if e.full else "empty"),
                               ", ".join(n for n in notes if n), e.cleaning, exception,
                               devices.get(inv.name(e)) if e.type is ElementType.DATA_TRANSFER else None))
    return rows


def summary(inv: Inventory) -> str:
    """'TAPEDIAG VIRTUAL LIBRARY: 2 drives, 12 slots (11 full), 1 mail slot'."""
    slots = inv.of(ElementType.STORAGE)
    parts = [plural(len(inv.of(ElementType.DATA_TRANSFER)), "drive"),
             plural(len(slots), "slot") + f" ({sum(1 for s in slots if s.full)} full)"]
    if inv.of(ElementType.IMPORT_EXPORT):
        parts.append(plural(len(inv.of(ElementType.IMPORT_EXPORT)), "mail slot"))
    return f"{inv.vendor} {inv.product}".strip() + ": " + ", ".join(parts)


def move_sources(inv: Inventory) -> list[str]:
    """Elements a move may start from: every full one but the robot's picker (``check_move`` decides again)."""
    return [inv.name(e) for e in inv.elements if e.full and e.type is not ElementType.TRANSPORT]


def move_destinations(inv: Inventory) -> list[str]:
    return [inv.name(e) for e in inv.elements if not e.full and e.type is not ElementType.TRANSPORT]


def moved_lines(moved: Moved, inv: Inventory) -> list[str]:
    """What a move did, as the CLI prints it and the GUI shows it."""
    lines = []
    release = moved.release
    if release is not None:
        lines.append(f"{release.device}: " + ", ".join(filter(None, [
            "ALLOW MEDIUM REMOVAL sent" if release.allowed else "",
            "unloaded" if release.unloaded else "no tape threaded, nothing to unload"])))
    if moved.mail_slot_locked is False:
        lines.append("the library does not support PREVENT MEDIUM REMOVAL: its mail slot was not locked during "
                     "the move")
    elif moved.mail_slot_locked:
        lines.append("mail slot locked during the move (PREVENT MEDIUM REMOVAL), then released (ALLOW)")
    lines.append(f"moved {moved.source.barcode or 'the cartridge'} from {inv.name(moved.source)} (address "
                 f"{moved.source.address}) to {inv.name(moved.destination)} (address {moved.destination.address})")
    return lines + [f"note: {note}" for note in moved.notes]


__all__ = ["GROUPS", "ElementRow", "element_rows", "move_destinations", "move_sources", "moved_lines", "summary"]

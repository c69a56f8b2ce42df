"""Test a library's drive end to end: a scratch cartridge by barcode into a drive, a test there, back home.

The steps are a backup application's: the cartridge leaves its home slot for an empty
drive (``Changer.move``, checked against a fresh inventory), the test runs through the
tape drive the drive element's identifier names (``app.library_discovery.drive_devices``:
a drive that names no listed tape drive is refused, since the test could not reach it),
then the cartridge goes back (``Changer.move`` out of a drive: the drive checked idle and
unloaded first) and a final inventory compares every element with the first one.

The test itself is not here: the caller runs it on the device (the CLI runs the same
``tape-perf`` or ``assess`` the technician would, so the tape safety rules,
``app.tapeperf.safety.decide``, judge this cartridge as any other). Every failure says
in its one line where the cartridge is then, read from the library, not assumed.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.library import Changer, Inventory
from native.errors import DeviceError, InvalidParameter, TapediagError
from native.scsi.smc import MOVE_MEDIUM, Element, ElementType


class LibraryRunError(DeviceError):
    """A step of the cycle failed; the message ends with where the cartridge is (exit 1)."""


@dataclass(frozen=True)
class Loaded:
    """A cartridge the cycle put into a drive, and how to reach it there."""

    barcode: str
    slot: str  # its home slot, e.g. "slot:3"
    drive: str  # e.g. "drive:0"
    device: str  # the tape drive to test it through


def _slot_of(inv: Inventory, barcode: str) -> Element:
    wanted = barcode.strip().upper()
    if not wanted:
        raise InvalidParameter("--barcode is empty")
    found = [e for e in inv.elements if e.full and e.barcode.strip().upper() == wanted]
    if not found:
        raise InvalidParameter(f"no cartridge with barcode {barcode} in this library")
    if len(found) > 1:
        raise InvalidParameter(f"barcode {barcode} is on {len(found)} cartridges "
                               f"({', '.join(inv.name(e) for e in found)}): which one is meant cannot be told")
    element = found[0]
    if element.cleaning:
        raise InvalidParameter(f"{barcode} in {inv.name(element)} is a cleaning cartridge")
    if element.type is not ElementType.STORAGE:
        raise InvalidParameter(f"{barcode} is in {inv.name(element)}, not in a slot: only a cartridge in its "
                               "slot is loaded (one in a drive may be in use)")
    return element


def where(changer: Changer, barcode: str) -> str:
    """Where the library now shows ``barcode``, for the one line of a failure."""
    try:
        inv = changer.inventory()
    except TapediagError as err:
        return f"the library could not be read to say where {barcode} is ({err})"
    found = [inv.name(e) for e in inv.elements if e.full and e.barcode.strip() == barcode]
    return f"{barcode} is in {found[0]}" if len(found) == 1 else f"the library shows {barcode} in no element"


def load(changer: Changer, barcode: str, drive: str | None = None, *, writes: bool = False) -> tuple[Loaded, Inventory]:
    """Move the cartridge ``barcode`` from its slot into ``drive`` (or the first empty drive whose tape drive
    is named); the inventory before the move is returned for the final comparison. Bad input raises
    ``InvalidParameter`` before anything moves; a cartridge that does not fit the drive (``app.media``; with
    ``writes``, the test that follows writes, one the drive can only read too) ``MediaRefusal``."""
    changer.require_writable(MOVE_MEDIUM)
    from app.library_discovery import drive_devices

    inv = changer.inventory()
    slot = _slot_of(inv, barcode)
    devices = drive_devices(inv)
    if drive is not None:
        target = inv.find(drive)
        if target.type is not ElementType.DATA_TRANSFER:
            raise InvalidParameter(f"--drive: {drive} is a {target.type.word}, not a drive")
        if target.full:
            raise InvalidParameter(f"{inv.name(target)} already holds {target.barcode or 'a cartridge'} "
                                   "(a loaded drive may be in use)")
        if target.address not in devices:
            raise InvalidParameter(f"{inv.name(target)}: no listed tape drive matches its identifier "
                                   f"{target.identifier.strip()!r}, so the test could not reach it",
                                   hint="add the drive ('tapediag devices --add-iscsi URL')")
    else:
        empty = [e for e in inv.of(ElementType.DATA_TRANSFER) if not e.full and e.address in devices]
        if not empty:
            raise InvalidParameter("no empty drive whose tape drive is known (tapediag library shows which "
                                   "drive element is which drive)")
        target = empty[0]
    loaded = Loaded(slot.barcode.strip(), inv.name(slot), inv.name(target), devices[target.address])
    try:
        changer.move(loaded.slot, loaded.drive, writes=writes)
    except InvalidParameter:
        raise
    except DeviceError as err:
        raise LibraryRunError(f"loading {loaded.barcode} into {loaded.drive} failed: {err}; "
                              f"{where(changer, loaded.barcode)}", device=changer.device) from None
    return loaded, inv


def put_back(changer: Changer, loaded: Loaded) -> None:
    """The cartridge from its drive back to its home slot (the drive checked idle and unloaded first)."""
    try:
        changer.move(loaded.drive, loaded.slot)
    except TapediagError as err:
        raise LibraryRunError(f"returning {loaded.barcode} from {loaded.drive} to {loaded.slot} failed: {err}; "
                              f"{where(changer, loaded.barcode)}", device=changer.device) from None


def misplaced(before: Inventory, after: Inventory) -> list[str]:
    """Every element whose content differs between the two inventories, as "slot:3: TD0002L9 -> empty"."""
    now = {e.address: e for e in after.elements}
    out = []
    for element in before.elements:
        later = now.get(element.address)
        was = element.barcode.strip() if element.full else ""
        is_ = later.barcode.strip() if later is not None and later.full else ""
        if (later is None or later.full != element.full or was != is_) and element.type is not ElementType.TRANSPORT:
            out.append(f"{before.name(element)}: {was or 'empty'} -> {is_ or 'empty'}")
    return out


__all__ = ["LibraryRunError", "Loaded", "load", "misplaced", "put_back", "where"]

"""Which tape drive each drive element of a library is: matched by serial number, never guessed.

READ ELEMENT STATUS with DVCID gives each drive element's device identifier, INQUIRY VPD 80h each
listed tape drive's serial number; an identifier names a drive when it is that serial or ends
with it as a separate word (the T10 vendor-ID form, vendor + product + serial, that most
libraries and tgt use). A drive element whose identifier names no listed drive, or more than
one, stays unmatched. A tape drive another program has open is named busy (``DriveMatch``), so
no advice can suggest moving a cartridge out of it on the guess that it is idle.

Below ``app.library`` (whose moves out of a drive unload it through the drive matched here) and
``app.library_discovery`` (which lists libraries with their drives): it reads an inventory
through the little it needs of one (``Inventory``), so neither imports the other back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Protocol

from app.discovery import DeviceEntry
from native.errors import DeviceBusy, TapediagError

if TYPE_CHECKING:  # imported where an inventory is read: ``devices`` lists libraries without one (issue 32 §3)
    from native.scsi.smc import ElementType


class Inventory(Protocol):
    """What the matching reads of a library's inventory (``app.library.Inventory`` is one)."""

    @property
    def device(self) -> str: ...

    def of(self, kind: ElementType) -> Iterable[Any]: ...

    def name(self, element: Any) -> str: ...


@dataclass(frozen=True)
class LibraryDrive:
    """One drive element of a library and the tape drive it is, when its identifier says so."""

    element: str  # "drive:0"
    address: int
    identifier: str  # as READ ELEMENT STATUS reported it ("" when the library gives none)
    device: str | None = None  # the matched tape drive's device string
    serial: str | None = None
    busy: bool = False  # the matched tape drive is open in another program (a backup application, at work)


def match_drive(identifier: str, serials: dict[str, str]) -> str | None:
    """The device whose serial the identifier names (exactly, or as its last word); None if none or several."""
    ident = identifier.strip()
    if not ident:
        return None
    exact = [device for device, serial in serials.items() if serial and ident == serial]
    if exact:
        return exact[0] if len(exact) == 1 else None
    last = ident.split()[-1]
    named = [device for device, serial in serials.items() if serial and last == serial]
    return named[0] if len(named) == 1 else None


def drive_serial(device: str) -> str | None:
    """A tape drive's serial number (INQUIRY VPD 80h), or None when it cannot be read."""
    return _serial_or_busy(device)[0]


def _serial_or_busy(device: str) -> tuple[str | None, bool]:
    """(serial, busy): the serial from INQUIRY VPD 80h; busy when another program has the drive open."""
    from app.targets import open_device
    from native.scsi.cdb import inquiry
    from native.scsi.inquiry import UnitSerialNumber

    try:
        transport = open_device(device)
        try:
            result = transport.execute(inquiry(255, evpd=True, page=0x80), data_in=255, timeout=10)
        finally:
            transport.close()
        return (UnitSerialNumber.parse(bytes(result.data)).serial if result.good else None), False
    except DeviceBusy:
        return None, True
    except TapediagError:
        return None, False


@dataclass(frozen=True)
class DriveMatch:
    """A library's drive elements matched to the listed tape drives (``match_drives``)."""

    drives: tuple[LibraryDrive, ...]
    #: Listed tape drives in use by another program whose serial could not be read: any unmatched
    #: drive element may be one of them.
    unidentified: tuple[str, ...] = ()


def match_drives(inv: Inventory, tape_drives: list[DeviceEntry]) -> tuple[LibraryDrive, ...]:
    """The library's drive elements, each with the listed tape drive whose serial its identifier names."""
    return matched(inv, tape_drives).drives


def matched(inv: Inventory, tape_drives: list[DeviceEntry]) -> DriveMatch:
    """``match_drives`` with the busy drives it could not identify."""
    serials: dict[str, str] = {}
    busy: set[str] = set()
    unidentified: list[str] = []
    for tape in tape_drives:  # the listed virtual drives are never probed (reachable None): never opened here
        if not tape.is_tape or not (tape.reachable or tape.busy):
            continue
        # The serial known without opening the drive (the kernel's copy in sysfs, the virtual library's own
        # drives) is enough; else the drive is asked (VPD 80h), unless it is busy.
        serial, in_use = (tape.serial, tape.busy) if tape.serial else \
            _serial_or_busy(tape.device) if tape.reachable else (None, True)
        if in_use:
            busy.add(tape.device)
        if serial:
            serials[tape.device] = serial
        elif in_use:
            unidentified.append(tape.device)
    from native.scsi.smc import ElementType

    drives = []
    for element in inv.of(ElementType.DATA_TRANSFER):
        device = match_drive(element.identifier, serials)
        drives.append(LibraryDrive(inv.name(element), element.address, element.identifier, device,
                                   serials.get(device) if device else None, busy=device in busy))
    return DriveMatch(tuple(drives), tuple(unidentified))


def drive_matches(inv: Inventory, addresses: set[int] | None = None) -> DriveMatch:
    """The library's drive elements matched among every listed drive (``app.discovery.discover``) and the
    library's own; ``addresses``: only those elements."""
    from app.discovery import discover

    found = matched(inv, discover() + library_own_drives(inv.device))
    return DriveMatch(tuple(d for d in found.drives if addresses is None or d.address in addresses), found.unidentified)


def drive_devices(inv: Inventory, addresses: set[int] | None = None) -> dict[int, str]:
    """Drive element address -> the tape drive to unload it through, for the elements ``match_drives``
    can name among every listed drive (``app.discovery.discover``); the others are absent, never guessed.

    The one place a move out of a drive (``app.library.Changer.move``, the exerciser) finds its drive."""
    return {d.address: d.device for d in drive_matches(inv, addresses).drives if d.device}


def library_own_drives(device: str) -> list[DeviceEntry]:
    """The tape drives a library itself names: the virtual library's virtual LTO drives (a real library's
    drives are on the bus or the network, found by discovery)."""
    from native import device_kind

    try:
        if device_kind(device) != "library":
            return []
        from native.virtual.library import VirtualLibrary
        from native.virtual.library import drive_serial as own_serial

        lib = VirtualLibrary(device)
    except TapediagError:
        return []
    # Their serials are the library's to say: matched without opening a drive (an empty one's placeholder
    # cartridge would be a file written by a mere listing).
    return [DeviceEntry(lib.drive_device(i), "virtual", f"drive {i} of the virtual library",
                        vendor="HPE", product=f"Ultrium {lib.opts.lto}", reachable=True, is_tape=True,
                        serial=own_serial(i))
            for i in range(lib.opts.drives)]



__all__ = ["DriveMatch", "Inventory", "LibraryDrive", "drive_devices", "drive_matches", "drive_serial",
           "library_own_drives", "match_drive", "match_drives", "matched"]

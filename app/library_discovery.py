"""Which tape libraries (medium changers) can tapediag reach, and which drive is which.

Sources: Linux changers from sysfs (``/sys/class/scsi_changer/chN`` when the ``ch``
driver is bound, and any ``/sys/class/scsi_generic/sgN`` whose SCSI device has
peripheral type 8 when it is not), each offered as its ``/dev/sgN`` (changer commands go
through SG_IO there); remembered iSCSI targets whose INQUIRY says changer; and the virtual
library. A probed changer's drive elements are matched to the listed tape drives: READ
ELEMENT STATUS with DVCID gives each drive element's device identifier, INQUIRY VPD 80h
each drive's serial number, and an identifier names a drive when it is that serial or
ends with it as a separate word (the T10 vendor-ID form, vendor + product + serial, that
most libraries and tgt use). A drive element whose identifier names no listed drive, or
more than one, stays unmatched: the list never guesses which drive is which.

A tape drive another program has open (the st driver refuses a second open, EBUSY; a
virtual drive's cartridge is locked) is probably the backup application's, at work. It is
not skipped: its serial is the kernel's copy (``DeviceEntry.serial``, sysfs ``vpd_pg80``, read
without opening the drive) when the kernel offers it, and the drive is matched and marked busy; when its serial cannot be read at all
it is named as a busy drive that may be any unmatched element (``DriveMatch.unidentified``),
so no advice can suggest moving a cartridge out of it on the guess that it is idle.

Probing sends INQUIRY and READ ELEMENT STATUS only: nothing moves.
"""
from __future__ import annotations

import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.discovery import DeviceEntry, _read_attr
from native.errors import DeviceBusy, TapediagError

if TYPE_CHECKING:
    from app.library import Inventory

PERIPHERAL_CHANGER = 8
_SG = re.compile(r"^sg(\d+)$")
_CH = re.compile(r"^ch(\d+)$")


@dataclass(frozen=True)
class LibraryDrive:
    """One drive element of a library and the tape drive it is, when its identifier says so."""

    element: str  # "drive:0"
    address: int
    identifier: str  # as READ ELEMENT STATUS reported it ("" when the library gives none)
    device: str | None = None  # the matched tape drive's device string
    serial: str | None = None
    busy: bool = False  # the matched tape drive is open in another program (a backup application, at work)


@dataclass(frozen=True)
class LibraryEntry:
    device: str
    kind: str  # "passthrough", "iscsi", "virtual"
    description: str
    vendor: str | None = None
    product: str | None = None
    reachable: bool | None = None  # None: not probed
    note: str = ""
    drives: tuple[LibraryDrive, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """As a ``DeviceEntry`` (``is_tape`` false) plus ``is_changer`` and its drives, so one JSON list holds both."""
        d = asdict(self)
        d.update(is_tape=False, is_changer=True, device_type=PERIPHERAL_CHANGER, revision=None, alternative=None,
                 busy=False, serial=None)
        return d


def linux_changers(sysfs_root: Path = Path("/sys"), dev_root: Path = Path("/dev")) -> list[LibraryEntry]:
    """Changers the kernel knows, each as its sg node."""
    found: dict[str, Path] = {}  # sg name -> SCSI device directory
    ch_dir = Path(sysfs_root) / "class" / "scsi_changer"
    try:
        ch_names = sorted((n for n in os.listdir(ch_dir) if _CH.match(n)), key=lambda n: int(n[2:]))
    except OSError:
        ch_names = []
    for name in ch_names:
        scsi_dev = (ch_dir / name / "device").resolve()
        try:
            generics = sorted(os.listdir(scsi_dev / "scsi_generic"))
        except OSError:
            continue
        if generics:
            found.setdefault(generics[0], scsi_dev)
    sg_dir = Path(sysfs_root) / "class" / "scsi_generic"
    try:
        sg_names = sorted((n for n in os.listdir(sg_dir) if _SG.match(n)), key=lambda n: int(n[2:]))
    except OSError:
        sg_names = []
    for name in sg_names:
        scsi_dev = (sg_dir / name / "device").resolve()
        if _read_attr(scsi_dev, "type") == str(PERIPHERAL_CHANGER):
            found.setdefault(name, scsi_dev)
    entries = []
    for name, scsi_dev in sorted(found.items(), key=lambda item: int(item[0][2:])):
        vendor, product = _read_attr(scsi_dev, "vendor"), _read_attr(scsi_dev, "model")
        label = " ".join(filter(None, (vendor, product))) or "medium changer"
        entries.append(LibraryEntry(str(Path(dev_root) / name), "passthrough", f"{label} (SCSI {scsi_dev.name})",
                                    vendor=vendor, product=product))
    return entries


def virtual_library() -> LibraryEntry:
    return LibraryEntry("virtual:library", "virtual",
                        "virtual tape library, 2 drives and 12 slots (simulated, for training and demos)",
                        vendor="TAPEDIAG", product="VIRTUAL LIBRARY")


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


def match_drives(inv: "Inventory", tape_drives: list[DeviceEntry]) -> tuple[LibraryDrive, ...]:
    """The library's drive elements, each with the listed tape drive whose serial its identifier names."""
    return matched(inv, tape_drives).drives


def matched(inv: "Inventory", tape_drives: list[DeviceEntry]) -> DriveMatch:
    """``match_drives`` with the busy drives it could not identify."""
    from native.scsi.smc import ElementType

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
    drives = []
    for element in inv.of(ElementType.DATA_TRANSFER):
        device = match_drive(element.identifier, serials)
        drives.append(LibraryDrive(inv.name(element), element.address, element.identifier, device,
                                   serials.get(device) if device else None, busy=device in busy))
    return DriveMatch(tuple(drives), tuple(unidentified))


def drive_matches(inv: "Inventory", addresses: set[int] | None = None) -> DriveMatch:
    """The library's drive elements matched among every listed drive (``app.discovery.discover``) and the
    library's own; ``addresses``: only those elements."""
    from app.discovery import discover

    found = matched(inv, discover() + library_own_drives(inv.device))
    return DriveMatch(tuple(d for d in found.drives if addresses is None or d.address in addresses), found.unidentified)


def drive_devices(inv: "Inventory", addresses: set[int] | None = None) -> dict[int, str]:
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


def probe_library(entry: LibraryEntry, tape_drives: list[DeviceEntry]) -> LibraryEntry:
    """Read the library's identity and drive elements and match them to ``tape_drives`` by serial."""
    from dataclasses import replace

    from app.library import Changer
    from native.scsi.smc import ElementType

    try:
        with Changer.open(entry.device) as changer:
            inv = changer.inventory()
    except TapediagError as err:
        return replace(entry, reachable=False, note=str(err))
    drives = match_drives(inv, tape_drives)
    slots = inv.of(ElementType.STORAGE)
    full = sum(1 for s in slots if s.full)
    return replace(entry, vendor=inv.vendor, product=inv.product, reachable=True, drives=drives,
                   note=f"{len(drives)} drive(s), {len(slots)} slot(s), {full} full")


def discover_libraries(tape_drives: list[DeviceEntry], *, sysfs_root: Path = Path("/sys"),
                       dev_root: Path = Path("/dev"), probe: bool = True) -> list[LibraryEntry]:
    """Every changer tapediag can offer: local, remembered iSCSI LUNs that are changers, the virtual library.

    ``tape_drives`` is ``app.discovery.discover()``'s list: its iSCSI entries say which
    remembered LUNs are changers (their INQUIRY), its tape drives are what drive elements
    are matched to.
    """
    import sys

    entries = linux_changers(sysfs_root, dev_root) if sys.platform.startswith("linux") else []
    entries += [LibraryEntry(e.device, "iscsi", f"{e.vendor or ''} {e.product or ''} over iSCSI (medium changer)".strip(),
                             vendor=e.vendor, product=e.product)
                for e in tape_drives if e.kind == "iscsi" and e.device_type == PERIPHERAL_CHANGER]
    if probe:  # the virtual library is never opened by a listing (opening it makes its state file)
        entries = [probe_library(e, tape_drives) for e in entries]
    return entries + [virtual_library()]


__all__ = ["DriveMatch", "LibraryDrive", "LibraryEntry", "discover_libraries", "drive_devices", "drive_matches",
           "library_own_drives", "linux_changers", "match_drive", "match_drives", "matched", "probe_library"]

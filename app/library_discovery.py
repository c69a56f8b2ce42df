"""Which tape libraries (medium changers) can tapediag reach, and which drive is which.

The drive matching itself is ``app.library_drives`` (re-exported here), below ``app.library``.

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
from typing import Any

from app.discovery import DeviceEntry, _read_attr
from app.library_drives import (DriveMatch, LibraryDrive, drive_devices, drive_matches, drive_serial,
                                library_own_drives, match_drive, match_drives, matched)
from native.errors import TapediagError

PERIPHERAL_CHANGER = 8
_SG = re.compile(r"^sg(\d+)$")
_CH = re.compile(r"^ch(\d+)$")


@dataclass(frozen=True)
class LibraryEntry:
    """One tape library ``devices`` lists: how to reach it, what it is and which tape drive each drive element is."""

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
           "drive_serial", "library_own_drives", "linux_changers", "match_drive", "match_drives", "matched",
           "probe_library"]

"""Who was tested: each device's vendor, product, serial and firmware, and the cartridge's barcode, kept with
every run that touches a device, so that every report can name them (issue 25 §6).

A support case quotes the drive's serial and firmware and the cartridge's barcode; a
tape-perf run used to record only "HPE Ultrium 8-SCSI". Now every run of a kind that
touches a drive (tape-perf, tape-perf-multi, scan, assess, library-test) stores, in its
results under the one key ``IDENTITIES`` ("identities"), a list of ``DeviceIdentity.to_dict()``:

    {"device": "virtual:lto9", "role": "tape drive", "vendor": "HPE", "product": "Ultrium 9-SCSI",
     "serial": "TDV9012345", "firmware": "V9A0", "barcode": "TD0001L9", "cartridge_serial": "TDC...L9"}

``None`` for what the device did not say, or what was not read (a run that failed before
its end has no barcode); a run recorded before issue 25 has no list at all. The report
says "not recorded" for either (``app.report.devices``). Only read-only queries are
sent: INQUIRY, its serial page (80h) and READ ATTRIBUTE (the cartridge memory's barcode
0806h, medium serial 0401h and the LTFS volume it names, ``native.scsi.ltfs.from_mam``), before
the run on one drive (a run that fails is a visit too: ``app.history.keys`` keys the history by
them) and after it where a run moves cartridges itself.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from native.errors import TapediagError
from native.iscsi_url import display_device

if TYPE_CHECKING:
    from app.device import ScsiDevice
    from app.drive import TapeDrive
    from app.library import Changer

#: The results key every run that touches a device keeps its identities under.
IDENTITIES = "identities"
TAPE_DRIVE, LIBRARY = "tape drive", "library"
#: A library's drive an exerciser run moved cartridges through: no one cartridge is its (the library's
#: identity lists the cartridges moved).
LIBRARY_DRIVE = "library drive"


@dataclass(frozen=True)
class DeviceIdentity:
    """One device as a support case names it; ``None``: not said by the device, or not read."""

    device: str
    role: str  # TAPE_DRIVE, LIBRARY or LIBRARY_DRIVE
    vendor: str | None = None
    product: str | None = None
    serial: str | None = None
    firmware: str | None = None
    barcode: str | None = None  # the cartridge in the drive (MAM 0806h); a library: the cartridges it moved
    cartridge_serial: str | None = None  # the cartridge memory's medium serial (MAM 0401h)
    #: The LTFS volume the cartridge memory names (``native.scsi.ltfs.LtfsVolume.describe``), read with the barcode,
    #: and its UUID (what tells one volume from another when two readings word it differently).
    ltfs: str | None = None
    ltfs_uuid: str | None = None

    def to_dict(self) -> dict[str, str | None]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DeviceIdentity":
        """Tolerant of what a later version may add; a field that is not text is taken as not recorded."""
        known = {f.name for f in fields(cls)}
        values = {k: (v.strip() or None if isinstance(v, str) else None) for k, v in data.items() if k in known}
        return cls(**{"device": "", "role": TAPE_DRIVE, **{k: v for k, v in values.items() if v is not None}})


def _text(value: object) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def of_device(device: "ScsiDevice", role: str) -> DeviceIdentity:
    """A drive's or a library's identity from INQUIRY and VPD 80h (no cartridge needed); what fails stays
    ``None``: it is not recorded, and the run itself says what is wrong with the device."""
    ident = DeviceIdentity(display_device(device.device), role)
    try:
        inq = device.inquiry()
        ident = replace(ident, vendor=_text(inq.vendor), product=_text(inq.product), firmware=_text(inq.revision))
        ident = replace(ident, serial=_text(device.serial_number()))
    except TapediagError:
        pass
    return ident


def of_drive(drive: "TapeDrive") -> DeviceIdentity:
    """A tape drive's identity (``of_device``)."""
    return of_device(drive, TAPE_DRIVE)


def with_cartridge(ident: DeviceIdentity, drive: "TapeDrive") -> DeviceIdentity:
    """The identity with the loaded cartridge's barcode and medium serial (READ ATTRIBUTE). A pending UNIT
    ATTENTION (a load, a reset) is taken by the first try; what cannot be read (no cartridge, no cartridge
    memory, the connection gone) is not recorded: identifying a run must never stop it."""
    from native.errors import UnitAttention
    from native.scsi.ltfs import from_mam

    for _ in range(2):
        try:
            mam = drive.read_attributes()
        except UnitAttention:
            continue
        except TapediagError:
            return ident
        volume = from_mam(mam)
        return replace(ident, barcode=_text(mam.barcode), cartridge_serial=_text(mam.serial),
                       ltfs=volume.describe() if volume is not None else None,
                       ltfs_uuid=(volume.volume_uuid or None) if volume is not None else None)
    return ident


def of_changer(changer: "Changer") -> DeviceIdentity:
    """A library's identity (``of_device``): the robot's, not its drives'."""
    return of_device(changer, LIBRARY)


def of_drive_device(device: str) -> DeviceIdentity:
    """A tape drive's identity by device string (opened for INQUIRY only), e.g. a library's drive."""
    from app.drive import TapeDrive

    try:
        with TapeDrive.open(device) as drive:
            return of_drive(drive)
    except TapediagError:
        return DeviceIdentity(display_device(device), TAPE_DRIVE)


def recorded(results: dict[str, Any] | None) -> list[DeviceIdentity] | None:
    """The identities a run recorded; ``None`` for a run recorded before they were (issue 25)."""
    items = (results or {}).get(IDENTITIES)
    if not isinstance(items, list):
        return None
    return [DeviceIdentity.from_dict(i) for i in items if isinstance(i, dict)]


__all__ = ["DeviceIdentity", "IDENTITIES", "LIBRARY", "LIBRARY_DRIVE", "TAPE_DRIVE", "of_changer", "of_drive", "of_drive_device",
           "recorded", "with_cartridge"]

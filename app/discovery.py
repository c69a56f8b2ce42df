"""Which drives can tapediag reach? The list behind ``tapediag devices`` and the GUI.

Sources, in the order listed:

* Linux tape drives from sysfs: every ``/sys/class/scsi_tape/nstN`` whose
  ``device`` link leads to the SCSI device directory holding ``vendor``, ``model``,
  ``rev`` and the ``scsi_generic/sgM`` node beside it. We offer ``/dev/nstN`` (SG_IO
  works on it and closing it never rewinds) and report ``/dev/sgM`` as an
  alternative. The sysfs root is a parameter so tests use a fake tree.
* Windows: ``\\\\.\\Tape0`` .. ``\\\\.\\TapeN`` probed with CreateFile.
* Remembered iSCSI targets (``app.targets``), probed with a login + INQUIRY.
* The virtual drives ``virtual:lto5`` .. ``virtual:lto10``, always, never opened.

Probing never writes, never moves the tape, and never needs a cartridge.
"""
from __future__ import annotations

import errno
import os
import re
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from native.errors import TapediagError

VIRTUAL_GENERATIONS = (5, 6, 7, 8, 9, 10)
ISCSI_PROBE_TIMEOUT = 3  # seconds for connect + login of a remembered target

_NST = re.compile(r"^nst(\d+)$")
BUSY_NOTE = "in use by another program"


@dataclass(frozen=True)
class DeviceEntry:
    """One drive as listed; ``reachable`` is None when it was not probed."""

    device: str  # the string to pass to --device / open_transport
    kind: str  # "passthrough", "iscsi", "virtual" (as native.device_kind says)
    description: str
    vendor: str | None = None
    product: str | None = None
    revision: str | None = None
    alternative: str | None = None  # e.g. the /dev/sgM beside /dev/nstN
    reachable: bool | None = None
    note: str = ""  # why it is not reachable, in one line
    # INQUIRY peripheral type 01h? None when not probed. False: tapediag refuses every
    # tape command to it (app.drive's gate); the list says so rather than offering it as a drive.
    is_tape: bool | None = None
    device_type: int | None = None  # INQUIRY peripheral type when probed (8: a medium changer, see app.library_discovery)
    busy: bool = False  # another program has it open (EBUSY): probably the backup application, at work
    serial: str | None = None  # the unit serial number the kernel read (sysfs vpd_pg80), without opening the drive

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# -- Linux ---------------------------------------------------------------------------


def _read_attr(directory: Path, name: str) -> str | None:
    try:
        return (directory / name).read_text(errors="replace").strip() or None
    except OSError:
        return None


def _sysfs_serial(scsi_dev: Path) -> str | None:
    """The unit serial number the kernel read when it found the device (``vpd_pg80``): a drive's
    identity even while another program has it open (the library matches its drives by it)."""
    from native.scsi.inquiry import UnitSerialNumber

    try:
        return UnitSerialNumber.parse((scsi_dev / "vpd_pg80").read_bytes()).serial.strip() or None
    except (OSError, TapediagError):
        return None


def _probe_node(node: Path) -> tuple[bool, str]:
    """Can we open it and does it answer INQUIRY (O_NONBLOCK: no cartridge needed, no tape motion)?

    Opening alone is not enough: the st driver opens for a user in the 'tape' group and
    then refuses every SCSI command without CAP_SYS_RAWIO.
    """
    try:
        fd = os.open(node, os.O_RDWR | os.O_NONBLOCK)
    except OSError as err:
        if err.errno == errno.EROFS:  # st: a write-protected cartridge is loaded
            return True, "the cartridge is write-protected"
        if err.errno in (errno.EACCES, errno.EPERM):
            return False, "permission denied: run as root or join the 'tape' group"
        if err.errno == errno.EBUSY:
            return False, BUSY_NOTE
        if err.errno == errno.ENOENT:
            return False, f"{node} is missing (udev has not created it)"
        return False, err.strerror or str(err)
    os.close(fd)
    from native.scsi.cdb import inquiry
    from native.sgpt import PassThroughTransport

    try:
        transport = PassThroughTransport(str(node))
        try:
            transport.execute(inquiry(96), data_in=96, timeout=10)
        finally:
            transport.close()
    except TapediagError as err:
        return False, str(err)
    return True, ""


def linux_tape_drives(sysfs_root: Path = Path("/sys"), dev_root: Path = Path("/dev"),
                      *, probe: bool = True) -> list[DeviceEntry]:
    """Tape drives the st driver knows, with the sg node beside each."""
    class_dir = Path(sysfs_root) / "class" / "scsi_tape"
    try:
        names = [name for name in os.listdir(class_dir) if _NST.match(name)]
    except OSError:
        return []
    entries = []
    for name in sorted(names, key=lambda n: int(_NST.match(n).group(1))):  # type: ignore[union-attr]
        scsi_dev = (class_dir / name / "device").resolve()
        vendor = _read_attr(scsi_dev, "vendor")
        product = _read_attr(scsi_dev, "model")
        revision = _read_attr(scsi_dev, "rev")
        try:
            generics = sorted(os.listdir(scsi_dev / "scsi_generic"))
        except OSError:
            generics = []
        node = Path(dev_root) / name
        sg = str(Path(dev_root) / generics[0]) if generics else None
        device, alternative = str(node), sg
        from native.sgpt import has_cap_sys_rawio  # local: `devices` must start fast (issue 13.4)

        if sg is not None and not has_cap_sys_rawio():
            # st passes SG_IO through only with CAP_SYS_RAWIO; the sg node works for its group.
            device, alternative = sg, str(node)
        reachable, note = _probe_node(Path(device)) if probe else (None, "")
        label = " ".join(filter(None, (vendor, product))) or "tape drive"
        entries.append(DeviceEntry(
            device=device, kind="passthrough",
            description=f"{label} (SCSI {scsi_dev.name})",
            vendor=vendor, product=product, revision=revision, is_tape=True,  # st binds only to type 01h
            alternative=alternative,
            reachable=reachable, note=note, busy=note == BUSY_NOTE, serial=_sysfs_serial(scsi_dev),
        ))
    return entries


# -- Windows -------------------------------------------------------------------------


def windows_tape_drives(max_index: int = 16) -> list[DeviceEntry]:  # pragma: no cover - Windows only
    """``\\\\.\\TapeN`` that exist; stops at the first index the OS does not know."""
    if sys.platform != "win32":
        return []
    import ctypes
    from ctypes import wintypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
    kernel32.CreateFileW.restype = wintypes.HANDLE
    kernel32.CreateFileW.argtypes = [wintypes.LPCWSTR, wintypes.DWORD, wintypes.DWORD, ctypes.c_void_p,
                                     wintypes.DWORD, wintypes.DWORD, wintypes.HANDLE]
    kernel32.CloseHandle.argtypes = [wintypes.HANDLE]
    generic_rw, share_rw, open_existing = 0xC0000000, 0x3, 3
    invalid = wintypes.HANDLE(-1).value
    entries = []
    for index in range(max_index):
        name = f"\\\\.\\Tape{index}"
        handle = kernel32.CreateFileW(name, generic_rw, share_rw, None, open_existing, 0, None)
        if handle == invalid:
            err = ctypes.get_last_error()
            if err in (2, 3):  # file / path not found: no more drives
                break
            note = "access denied: run as Administrator" if err == 5 else f"Windows error {err}"
            entries.append(DeviceEntry(name, "passthrough", f"Tape{index}", reachable=False, note=note))
            continue
        kernel32.CloseHandle(handle)
        entries.append(DeviceEntry(name, "passthrough", f"Tape{index}", reachable=True))
    return entries


# -- iSCSI and virtual -----------------------------------------------------------------


def _probe_iscsi(url: str) -> DeviceEntry:
    from native.scsi.cdb import inquiry
    from native.scsi.inquiry import Inquiry
    from native.iscsi import IscsiTransport, display_device

    shown = display_device(url)  # the entry is listed and passed on without the CHAP secret
    base = DeviceEntry(shown, "iscsi", "remembered iSCSI target")
    try:
        with IscsiTransport(url, login_timeout=ISCSI_PROBE_TIMEOUT) as transport:
            result = transport.execute(inquiry(96), data_in=96, timeout=ISCSI_PROBE_TIMEOUT)
        if not result.good:
            return replace(base, reachable=True, note="the target answered but INQUIRY failed")
        info = Inquiry.parse(bytes(result.data))
    except TapediagError as err:
        return replace(base, reachable=False, note=err.message)
    return DeviceEntry(
        shown, "iscsi", f"{info.vendor} {info.product} over iSCSI ({info.device_type_name})",
        vendor=info.vendor, product=info.product, revision=info.revision, reachable=True, is_tape=info.is_tape,
        device_type=info.device_type,
        note="" if info.is_tape else f"not a tape drive ({info.device_type_name}, peripheral type {info.device_type})",
    )


def remembered_iscsi(*, probe: bool = True) -> list[DeviceEntry]:
    from app.targets import list_targets

    targets = list_targets()
    if not probe:
        return [DeviceEntry(t.display, "iscsi", "remembered iSCSI target") for t in targets]
    urls = [t.url for t in targets]
    return [_probe_iscsi(url) for url in urls]


def virtual_drives() -> list[DeviceEntry]:
    return [
        DeviceEntry(f"virtual:lto{gen}", "virtual", f"virtual LTO-{gen} drive (simulated, for training and demos)",
                    vendor="tapediag", product=f"VIRTUAL LTO-{gen}", is_tape=True)
        for gen in VIRTUAL_GENERATIONS
    ]


def unavailable_transports() -> list[str]:
    """One line per transport whose library is missing here, with what to do on this
    platform (``native._iscsi_lib.missing``: apt-get on Linux, the Microsoft iSCSI
    Initiator on Windows).

    The bundles take libsgutils2 and libiscsi from the machine they run on, so the
    device list must say which ways to a drive are closed before the user wonders why
    none is listed; the virtual drives need neither.
    """
    from native import _iscsi_lib, sgpt

    notes = []
    for load in (sgpt.load, _iscsi_lib.load):
        try:
            load()
        except TapediagError as err:
            notes.append(str(err))
    return notes


def discover(*, sysfs_root: Path = Path("/sys"), dev_root: Path = Path("/dev"), probe: bool = True) -> list[DeviceEntry]:
    """Every drive tapediag can offer, local first, virtual last."""
    entries: list[DeviceEntry] = []
    if sys.platform.startswith("linux"):
        entries += linux_tape_drives(sysfs_root, dev_root, probe=probe)
    elif sys.platform == "win32":  # pragma: no cover
        entries += windows_tape_drives()
    entries += remembered_iscsi(probe=probe)
    entries += virtual_drives()
    return entries

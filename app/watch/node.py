"""Which drive a device string names, as the kernel's sysfs shows it.

``resolve("/dev/nst0")`` finds the drive's statistics directory, its SCSI address, the SCSI
generic node beside it (the kernel links them: ``/sys/class/scsi_tape/nst0/device/scsi_generic``)
and the device numbers of every st node of the drive (st0, nst0, st0l, nst0a ...), so that a
process holding any of them open is found. It only reads sysfs and stats the node: nothing is
opened, so a rewinding node (/dev/st0) is never closed by tapediag (closing it would rewind).

Anything the kernel keeps no tape statistics for is refused here in one line
(``WatchUnavailable``, exit 2): Windows, ``iscsi://`` (libiscsi talks to the target from user
space, past the kernel), ``virtual:`` drives, a node that is no st drive, a kernel without the
statistics (they came with Linux 4.2).
"""
from __future__ import annotations

import os
import re
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from native.errors import WatchUnavailable

#: The st driver's character major (Linux ``include/uapi/linux/major.h``: SCSI_TAPE_MAJOR).
ST_MAJOR = 9
_ST_NAME = re.compile(r"^n?st\d+[lma]?$")
_SG_NAME = re.compile(r"^sg\d+$")


@dataclass(frozen=True)
class SystemPaths:
    """Where the kernel's views are mounted (tests point these at a fake tree)."""

    sys: Path = Path("/sys")
    proc: Path = Path("/proc")
    dev: Path = Path("/dev")


@dataclass(frozen=True)
class TapeNode:
    """One st drive as the kernel shows it."""

    device: str  # as the user named it: "/dev/nst0"
    name: str  # the sysfs node the statistics are read from: "nst0"
    stats_dir: Path
    scsi_address: str  # "2:0:0:1" (host:channel:target:lun), "" when sysfs does not say
    sg: str | None  # "/dev/sg1": the same drive's SCSI generic node (for the log pages), None when absent
    tape_rdevs: frozenset[int] = field(default_factory=frozenset)  # every st/nst node of this drive
    sg_rdev: int | None = None


def _unavailable_for(device: str) -> str | None:
    """Why ``device`` cannot be watched before sysfs is even looked at, or None."""
    if sys.platform == "win32" or device.startswith("\\\\.\\") or re.match(r"^Tape\d+$", device, re.IGNORECASE):
        return ("watch reads the Linux kernel's per-drive tape statistics; Windows keeps none that tapediag can "
                "read: watch the job from a Linux media server")
    if device.startswith("iscsi://"):
        return (f"{device} is reached through libiscsi from user space, where the kernel counts nothing: watch the "
                "job on the machine whose kernel drives the tape (its /dev/nstN)")
    if device.startswith("virtual:"):
        return (f"{device} is tapediag's virtual drive: the kernel keeps no statistics for it "
                "(run tape-perf on it to see its figures)")
    return None


def _dev_number(path: Path) -> int | None:
    """The ``dev`` attribute of a sysfs class entry ("9:128") as a device number."""
    try:
        major, minor = path.read_text().strip().split(":")
        return os.makedev(int(major), int(minor))
    except (OSError, ValueError):
        return None


def _class_entry_for(device: str, paths: SystemPaths) -> Path | None:
    """The /sys/class/scsi_tape (or scsi_generic) entry of ``device``: by the node's device number when
    it exists (symbolic links such as /dev/tape/by-id/... included), else by its name."""
    tape_class, sg_class = paths.sys / "class" / "scsi_tape", paths.sys / "class" / "scsi_generic"
    try:
        st = os.stat(device)
    except OSError:
        st = None
    if st is not None and stat.S_ISCHR(st.st_mode):
        for cls in (tape_class, sg_class):
            for entry in sorted(cls.glob("*")) if cls.is_dir() else ():
                if _dev_number(entry / "dev") == st.st_rdev:
                    return entry
        return None
    name = os.path.basename(device.rstrip("/"))
    for cls, pattern in ((tape_class, _ST_NAME), (sg_class, _SG_NAME)):
        if pattern.match(name) and (cls / name).exists():
            return cls / name
    return None


def _st_entry_of_sg(sg_entry: Path) -> Path | None:
    """The nstN class entry of the drive behind an sg node, if it is an st drive."""
    tapes = sg_entry / "device" / "scsi_tape"
    names = sorted(p.name for p in tapes.glob("nst*")) if tapes.is_dir() else []
    plain = [n for n in names if re.match(r"^nst\d+$", n)]
    if not plain:
        return None
    return sg_entry.parents[1] / "scsi_tape" / plain[0]


def _siblings(entry: Path) -> frozenset[int]:
    """Device numbers of every st node of the drive behind ``entry``."""
    target = (entry / "device").resolve()
    numbers = set()
    for other in entry.parent.glob("*"):
        if (other / "device").resolve() == target:
            number = _dev_number(other / "dev")
            if number is not None:
                numbers.add(number)
    return frozenset(numbers)


def _sg_of(entry: Path) -> tuple[str | None, int | None]:
    generic = entry / "device" / "scsi_generic"
    names = sorted(p.name for p in generic.glob("sg*")) if generic.is_dir() else []
    if not names:
        return None, None
    return f"/dev/{names[0]}", _dev_number(generic / names[0] / "dev")


def resolve(device: str, paths: SystemPaths | None = None) -> TapeNode:
    """The st drive ``device`` names; ``WatchUnavailable`` when the kernel keeps no statistics for it."""
    paths = paths or SystemPaths()
    why = _unavailable_for(device)
    if why:
        raise WatchUnavailable(why)
    entry = _class_entry_for(device, paths)
    if entry is not None and entry.parent.name == "scsi_generic":
        entry = _st_entry_of_sg(entry)
        if entry is None:
            raise WatchUnavailable(f"{device} is no tape drive driven by the kernel's st driver: watch reads the "
                                   "st driver's statistics", hint="name the drive's /dev/nstN")
    if entry is None:
        if not (paths.sys / "class" / "scsi_tape").is_dir():
            raise WatchUnavailable(f"{device}: this system has no SCSI tape drives driven by the kernel's st driver "
                                   "(no /sys/class/scsi_tape)", hint="load the st module, or name the drive's /dev/nstN")
        raise WatchUnavailable(f"{device} is no st tape drive this kernel knows", hint="name the drive's /dev/nstN")
    stats_dir = entry / "stats"
    if not (stats_dir / "io_ns").exists():
        raise WatchUnavailable(f"this kernel keeps no tape statistics for {device} (no {stats_dir}; they came "
                               "with Linux 4.2)")
    sg, sg_rdev = _sg_of(entry)
    address = (entry / "device").resolve().name if (entry / "device").exists() else ""
    return TapeNode(device=device, name=entry.name, stats_dir=stats_dir, scsi_address=address, sg=sg,
                    tape_rdevs=_siblings(entry), sg_rdev=sg_rdev)

"""The source side of a backup as the kernel counts it: block devices and network interfaces.

``/proc/diskstats`` (the kernel's ``Documentation/admin-guide/iostats.rst``): per device, the
sectors read and written (512 bytes each, whatever the device's sector size) and the time the
device had I/O in flight (field 10, "time spent doing I/Os", ms): its busy share is that
time's growth over the interval, as ``iostat``'s %util. ``/proc/net/dev``: bytes received and
sent per interface. Both are file reads.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

SECTOR = 512


@dataclass(frozen=True)
class DiskCounters:
    read_bytes: int
    write_bytes: int
    busy_ms: int


@dataclass(frozen=True)
class NetCounters:
    rx_bytes: int
    tx_bytes: int


def read_diskstats(path: Path = Path("/proc/diskstats")) -> dict[str, DiskCounters]:
    """Every block device's counters by kernel name."""
    out: dict[str, DiskCounters] = {}
    try:
        text = path.read_text()
    except OSError:
        return out
    for line in text.splitlines():
        f = line.split()
        if len(f) < 13:
            continue
        try:
            out[f[2]] = DiskCounters(int(f[5]) * SECTOR, int(f[9]) * SECTOR, int(f[12]))
        except ValueError:
            continue
    return out


def read_netdev(path: Path = Path("/proc/net/dev")) -> dict[str, NetCounters]:
    """Every interface's byte counters by name."""
    out: dict[str, NetCounters] = {}
    try:
        lines = path.read_text().splitlines()[2:]
    except OSError:
        return out
    for line in lines:
        name, _, rest = line.partition(":")
        f = rest.split()
        if len(f) >= 9:
            try:
                out[name.strip()] = NetCounters(int(f[0]), int(f[8]))
            except ValueError:
                continue
    return out


def link_mb_s(interface: str, sys_root: Path = Path("/sys")) -> float | None:
    """The interface's negotiated speed in MB/s (decimal), None when the kernel does not say (virtual links)."""
    try:
        mbit = int((sys_root / "class" / "net" / interface / "speed").read_text().strip())
    except (OSError, ValueError):
        return None
    return mbit / 8 if mbit > 0 else None

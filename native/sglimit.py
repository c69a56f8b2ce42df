"""The largest single transfer a Linux SCSI node (``/dev/sgN``, ``/dev/nstN``) takes: the node's own queue.

Why not the SCSI host's sysfs figures: the kernel builds the device's request queue from them but
caps them on the way (``__scsi_init_queue`` in ``drivers/scsi/scsi_lib.c``: at most ``SG_MAX_SEGMENTS``
segments, whatever the host's ``sg_tablesize``), and a pass-through command is refused (EINVAL,
nothing sent) when its buffer needs more segments than the queue has. Seen on Debian's 6.1 kernel
with ``iscsi_tcp`` (``tests/kernel``): the host says ``sg_tablesize`` 4096 (16 MiB of pages) while the
queue takes 2048 segments; ``/dev/sg1`` carried 8 MiB and refused 8 MiB + 4 KiB, ``/dev/nst0`` carried
8 MiB - 4 KiB and refused 8 MiB from a Python buffer (issue 27 §4).

The rule, one place (``node_limit``):

* segments: the sg node's own answer to ``SG_GET_SG_TABLESIZE`` (the queue's ``max_segments``); an st
  node asks the sg node of the same device (st has no such ioctl); without one, the host's
  ``sg_tablesize`` capped at ``SG_MAX_SEGMENTS``;
* one page per segment: the least a segment carries (a host may allow more per segment, e.g.
  physically contiguous pages, but nothing guarantees them; ``iscsi_tcp`` never merges: its
  ``dma_boundary`` is a page);
* on an st node one page less: st's SG_IO maps the caller's buffer itself, and a buffer that does not
  start on a page boundary spans one page more than its length (the sg driver copies through its own
  page-aligned buffer, so the sg node keeps every page);
* capped by the queue's ``max_hw_sectors`` where sysfs shows it (a block device's
  ``queue/max_hw_sectors_kb``, a host or device ``max_sectors`` attribute some drivers add; the
  kernel 6.1 SCSI host has none).
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path

from native.transport import TransferLimit
from native.units import block_text

#: ``SG_GET_SG_TABLESIZE`` (``include/scsi/sg.h``): the queue's ``max_segments`` as the sg driver sees it.
SG_GET_SG_TABLESIZE = 0x227F
#: ``SG_MAX_SEGMENTS`` (``include/linux/scatterlist.h``, architectures that chain scatterlists): the
#: kernel's cap on a SCSI queue's segments, whatever the host's ``sg_tablesize``.
SG_MAX_SEGMENTS = 2048


@dataclass(frozen=True)
class Segments:
    """How many segments a request on the node may have, and where that figure comes from."""

    count: int
    source: str


def page_size() -> int:
    return os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def sg_tablesize(fd: int) -> int | None:
    """The sg driver's ``SG_GET_SG_TABLESIZE`` on an open sg node; None if the node does not answer it."""
    import fcntl  # POSIX only: this module is asked on Linux alone

    try:
        answer = fcntl.ioctl(fd, SG_GET_SG_TABLESIZE, struct.pack("i", 0))
    except OSError:
        return None
    value = struct.unpack("i", answer)[0]
    return value if value > 0 else None


def _sg_node_of(sys_device: Path, dev_root: str) -> str | None:
    try:
        names = sorted(p.name for p in (sys_device / "scsi_generic").iterdir())
    except OSError:
        return None
    return os.path.join(dev_root, names[0]) if names else None


def _asked_sg_node(node: str) -> int | None:
    """``SG_GET_SG_TABLESIZE`` of another node (the sg node beside an st node): opened without I/O
    (O_NONBLOCK, read-only; no command is sent), asked, closed. None if it cannot be opened."""
    try:
        fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return sg_tablesize(fd)
    finally:
        os.close(fd)


def _read_int(path: Path) -> int | None:
    try:
        value = int(path.read_text().strip())
    except (OSError, ValueError):
        return None
    return value if value > 0 else None


def _scsi_host(sys_device: Path) -> Path | None:
    try:
        real = sys_device.resolve()
    except OSError:
        return None
    return next((p for p in real.parents if p.name.startswith("host") and p.name[4:].isdigit()), None)


def segments(fd: int, sys_device: Path, *, st_node: bool, dev_root: str = "/dev") -> Segments | None:
    """The queue's segment count: the node's own answer, else its sg sibling's, else the host's capped."""
    if not st_node:
        own = sg_tablesize(fd)
        if own is not None:
            return Segments(own, f"{own} segments (SG_GET_SG_TABLESIZE)")
    sibling = _sg_node_of(sys_device, dev_root)
    if sibling is not None:
        asked = _asked_sg_node(sibling)
        if asked is not None:
            return Segments(asked, f"{asked} segments (SG_GET_SG_TABLESIZE of {sibling}, the same device)")
    host = _scsi_host(sys_device)
    table = _read_int(host / "scsi_host" / host.name / "sg_tablesize") if host is not None else None
    if host is None or table is None:
        return None
    capped = min(table, SG_MAX_SEGMENTS)
    return Segments(capped, f"{capped} segments (SCSI host {host.name}: sg_tablesize {table}, "
                            f"the kernel's queue takes at most {SG_MAX_SEGMENTS})")


def max_hw_bytes(sys_device: Path) -> tuple[int, str] | None:
    """The queue's ``max_hw_sectors`` in bytes where sysfs shows it, with the attribute's name."""
    for queue in sorted(sys_device.glob("block/*/queue")):
        kib = _read_int(queue / "max_hw_sectors_kb")
        if kib is not None:
            return kib * 1024, f"{queue.parent.name} max_hw_sectors_kb {kib}"
    host = _scsi_host(sys_device)
    candidates = [(sys_device / "max_sectors", "max_sectors")]
    if host is not None:
        candidates.append((host / "scsi_host" / host.name / "max_sectors", f"SCSI host {host.name} max_sectors"))
    for path, name in candidates:
        sectors = _read_int(path)
        if sectors is not None:
            return sectors * 512, f"{name} {sectors}"
    return None


def node_limit(fd: int, sys_device: Path, *, st_node: bool, node: str, dev_root: str = "/dev") -> TransferLimit | None:
    """The largest transfer ``node`` (open as ``fd``; ``sys_device`` its ``/sys/dev/char/M:m/device``)
    carries, by the module's rule, with the figures it came from; None when the queue's segments are unknown."""
    found = segments(fd, sys_device, st_node=st_node, dev_root=dev_root)
    if found is None:
        return None
    page = page_size()
    pages = found.count - 1 if st_node else found.count
    limit = pages * page
    parts = [f"{found.source} of one {block_text(page)} page"]
    if st_node:
        parts.append("less one page (st maps the caller's buffer, which may start mid-page)")
    hw = max_hw_bytes(sys_device)
    if hw is not None:
        parts.append(hw[1])
        limit = min(limit, hw[0])
    return TransferLimit(limit, f"{node}: " + ", ".join(parts)) if limit > 0 else None

"""Partitions, FORMAT MEDIUM and the host's cartridge-memory attributes of the virtual drive.

Why: an LTFS cartridge has two partitions and LTFS keeps its own attributes in the cartridge memory;
to test how tapediag recognises and reads one, the virtual drive partitions and keeps attributes as
an LTO-5 and later drive does (SSC-5; the drive vendors' SCSI references):

* MODE SENSE page 11h (medium partition) reports the partitions of the loaded cartridge; MODE SELECT
  page 11h asks for a partitioning (IDP: sizes given, PSUM 3 in units of 10^(PARTITION UNITS) bytes,
  a size of FFFFh = the rest; SDP: equal sizes), which FORMAT MEDIUM (04h) applies at the start of
  partition 0 (a FORMAT MEDIUM elsewhere is 05/2C/00, command sequence error). Formatting drops
  every partition's data, as on a real drive. FORMAT MEDIUM with no partitioning asked for makes one
  partition. At most two partitions: LTO-5 and LTO-6 drives have no more, and LTFS uses two.
* LOCATE with CP moves to another partition; READ POSITION names the current one; REWIND and LOAD
  go to partition 0.
* WRITE ATTRIBUTE (8Dh) stores host attributes (0800h-0BFFh and the vendor-specific 1400h-17FFh)
  for the partition it names; READ ATTRIBUTE of a partition returns partition 0's with that
  partition's own on top (LTFS's Volume Coherency Information is per partition). Device and medium
  attributes are the drive's: writing one is 05/26/00.

Storage: partition 0 is the cartridge file itself; partition N is a cartridge file of its own beside
it (``<cartridge>.pN``), made by FORMAT MEDIUM and removed by a FORMAT MEDIUM to one partition, so the
record format of ``cartridge.py`` does not change. Each partition file counts its own bytes; the
cartridge memory adds them up. The partition sizes are kept in partition 0's header
(``extra["partitions"]``).
"""
from __future__ import annotations

import struct
from dataclasses import replace
from pathlib import Path

from native.scsi import cdb as C
from native.transport import Buffer
from native.virtual import pages
from native.virtual.base import DriveBase
from native.virtual.cartridge import Cartridge
from native.virtual.sense import ILLEGAL_REQUEST, Check, invalid_field, invalid_parameter, worm_overwrite, write_protected

MAX_PARTITIONS = 2
#: Host attributes (SPC-4 7.4.2: 0800h-0BFFh standard host type, 1400h-17FFh vendor-specific host type).
HOST_ATTRIBUTES = ((0x0800, 0x0BFF), (0x1400, 0x17FF))
#: The MAM space for host attributes, bytes (an LTO cartridge memory is 4-16 KiB; LTFS uses under 1 KiB).
HOST_ATTRIBUTE_SPACE = 4096
FORMAT_MEDIUM = 0x04
WRITE_ATTRIBUTE = 0x8D


def partition_path(cartridge: Path, number: int) -> Path:
    return cartridge.with_name(f"{cartridge.name}.p{number}")


def _is_host_attribute(ident: int) -> bool:
    return any(low <= ident <= high for low, high in HOST_ATTRIBUTES)


class PartitionCommands(DriveBase):
    """Partition state on top of ``DriveBase``: ``parts`` (one cartridge per partition, ``cart`` the current)."""

    parts: list[Cartridge]
    partition: int

    # ------------------------------------------------------------------ state
    def _open_partitions(self) -> None:
        """Open the partition files the cartridge's header lists (called once the cartridge is open)."""
        self.parts, self.partition = [self.cart], 0
        for number, size in enumerate(self.cart.meta.extra.get("partitions", [])[1:], start=1):
            self.parts.append(self._partition_file(number, size))
        self._partition_mode()

    def _partition_file(self, number: int, size: int) -> Cartridge:
        meta = self.parts[0].meta
        part = Cartridge.open(partition_path(self.parts[0].path, number), generation=meta.generation, capacity=size,
                              worm=meta.worm, serial=meta.serial, barcode=meta.barcode)
        part.meta.write_protect = meta.write_protect
        return part

    def _partition_mode(self) -> None:
        """What MODE SENSE page 11h reports: the loaded cartridge's partition sizes."""
        self.mode.partition_sizes = tuple(p.meta.capacity for p in self.parts)

    def _select_partition(self, number: int) -> None:
        if not 0 <= number < len(self.parts):
            raise invalid_field()
        self.partition, self.cart = number, self.parts[number]

    def _close_partitions(self) -> None:
        for part in getattr(self, "parts", [self.cart]):
            part.close()

    # ------------------------------------------------------------------ MODE SELECT page 11h
    def _requested_partitions(self, page: bytes) -> tuple[int, ...]:
        """The partition sizes (bytes) a MODE SELECT page 11h asks for; applied by FORMAT MEDIUM."""
        if len(page) < 6:
            raise invalid_parameter()
        additional, flags, unit = page[1], page[2], page[4] & 0x0F
        if additional + 1 > MAX_PARTITIONS:
            raise invalid_parameter()
        total = self.parts[0].meta.extra.get("medium_capacity", self.parts[0].meta.capacity)
        if additional == 0:
            return (total,)
        if flags & 0x40:  # SDP: equal partitions
            return (total // 2, total - total // 2)
        if not flags & 0x20 or (flags >> 3) & 0x03 != 3 or len(page) < 8:
            raise invalid_parameter()  # only IDP with PSUM 3 (sizes in 10^unit bytes) is modelled
        first = struct.unpack_from(">H", page, 6)[0]
        size = total // 2 if first == 0xFFFF else first * 10 ** unit
        if not 1 << 20 <= size < total:
            raise invalid_parameter()
        return (size, total - size)

    # ------------------------------------------------------------------ FORMAT MEDIUM
    def _format_medium(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        if self.partition != 0 or self.pos != 0:
            raise Check(ILLEGAL_REQUEST, 0x2C, 0x00)  # command sequence error: not at BOP of partition 0
        if C.FormatMedium.parse(cdb).format > 2:
            raise invalid_field()
        meta = self.parts[0].meta
        if meta.write_protect:
            raise write_protected()
        if meta.worm:
            raise worm_overwrite()
        total = meta.extra.get("medium_capacity", meta.capacity)
        sizes = self.mode.partition_request or (total,)
        for part in self.parts[1:]:
            part.truncate(0)
            part.close()
            part.path.unlink()
        self.parts = [self.parts[0]]
        self.parts[0].truncate(0)
        meta.extra["medium_capacity"] = total
        meta.capacity = sizes[0]
        if len(sizes) > 1:
            meta.extra["partitions"] = list(sizes)
            self.parts.append(self._partition_file(1, sizes[1]))
        else:
            meta.extra.pop("partitions", None)
        self.parts[0].save_meta()
        self.mode = replace(self.mode, partition_request=None)
        self._partition_mode()
        self._reposition(0)
        self._t_done += 10.0  # a real drive takes tens of seconds to partition a cartridge
        return 0

    # ------------------------------------------------------------------ attributes
    def _host_attributes(self, number: int) -> dict[int, bytes]:
        """Partition ``number``'s host attributes (partition 0's, with the partition's own over them)."""
        found: dict[int, bytes] = {}
        for part in {0: self.parts[0], number: self.parts[number]}.values():
            for ident, (fmt, value) in part.meta.extra.get("attributes", {}).items():
                found[int(ident, 16)] = pages.attribute(int(ident, 16), bytes.fromhex(value), fmt, read_only=False)
        return found

    def _write_attribute(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        command = C.WriteAttribute.parse(cdb)
        number, length = command.partition, command.parameter_list_length
        if not 0 <= number < len(self.parts):
            raise invalid_field()
        data = bytes(out or b"")[:length]
        if len(data) < min(length, 4):
            raise invalid_parameter()
        stored = dict(self.parts[number].meta.extra.get("attributes", {}))
        pos, end = 4, min(len(data), 4 + struct.unpack_from(">I", data, 0)[0]) if len(data) >= 4 else 0
        while pos + 5 <= end:
            ident, fmt, size = struct.unpack_from(">HBH", data, pos)
            value = data[pos + 5 : pos + 5 + size]
            if len(value) < size or not _is_host_attribute(ident):
                raise invalid_parameter()
            if size:
                stored[f"{ident:04X}"] = [fmt & 0x03, value.hex()]
            else:
                stored.pop(f"{ident:04X}", None)  # a zero length clears the attribute (SPC-4)
            pos += 5 + size
        if sum(5 + len(v) // 2 for _, v in stored.values()) > HOST_ATTRIBUTE_SPACE:
            raise Check(ILLEGAL_REQUEST, 0x55, 0x06)  # auxiliary memory out of space
        self.parts[number].meta.extra["attributes"] = stored
        self.parts[number].save_meta()
        return 0

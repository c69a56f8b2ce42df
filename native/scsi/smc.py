"""SCSI Media Changer commands (SMC-3): READ ELEMENT STATUS, MOVE MEDIUM, the element map.

Layouts per SMC-3 (T10/1730-D): READ ELEMENT STATUS 6.9 (the element status data header,
one element status page per element type, descriptors with the primary volume tag and,
with DVCID, the data transfer element's device identifier), MOVE MEDIUM 6.6, and the
Element Address Assignment mode page 1Dh (7.3.4).
"""
from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from native.errors import ParseError
from native.scsi.cdb import INITIALIZE_ELEMENT_STATUS, MOVE_MEDIUM, READ_ELEMENT_STATUS  # noqa: F401 - named here too
from native.scsi.layout import ALLOC, Cdb, at

PAGE_ELEMENT_ADDRESS = 0x1D


class ElementType(enum.IntEnum):
    TRANSPORT = 1  # the robot's picker
    STORAGE = 2  # a slot
    IMPORT_EXPORT = 3  # the mail slot
    DATA_TRANSFER = 4  # a tape drive

    @property
    def word(self) -> str:
        return {1: "robot", 2: "slot", 3: "ie", 4: "drive"}[self.value]


@dataclass(frozen=True)
class ReadElementStatus(Cdb):
    """READ ELEMENT STATUS (SMC-3 6.9): the elements of one type (0: all) from ``start``, with volume tags
    (VOLTAG) and the drives' device identifiers (DVCID)."""

    OPCODE, LENGTH = READ_ELEMENT_STATUS, 12
    voltag: bool = at(1, 0x10)
    element_type: int = at(1, 0x0F, what="element type")
    start: int = at(2, 0xFFFF, what="starting element address")
    count: int = at(4, 0xFFFF, what="number of elements")
    dvcid: bool = at(6, 0x01)
    allocation_length: int = at(7, 0xFFFFFF, what=ALLOC)


@dataclass(frozen=True)
class MoveMedium(Cdb):
    """MOVE MEDIUM (SMC-3 6.6): the robot (``transport``) takes the cartridge in ``source`` to ``destination``."""

    OPCODE, LENGTH = MOVE_MEDIUM, 12
    transport: int = at(2, 0xFFFF, what="transport element address")
    source: int = at(4, 0xFFFF, what="source address")
    destination: int = at(6, 0xFFFF, what="destination address")
    invert: bool = at(10, 0x01)


@dataclass(frozen=True)
class InitializeElementStatus(Cdb):
    """INITIALIZE ELEMENT STATUS (SMC-3): the library checks every element again (a barcode scan)."""

    OPCODE, LENGTH = INITIALIZE_ELEMENT_STATUS, 6


def read_element_status(*, element_type: int = 0, start: int = 0, count: int = 0xFFFF, voltag: bool = True,
                        dvcid: bool = True, alloc: int = 0xFFFF) -> bytes:
    return ReadElementStatus(voltag=voltag, element_type=element_type, start=start, count=count, dvcid=dvcid,
                             allocation_length=alloc).build()


def move_medium(transport: int, source: int, destination: int) -> bytes:
    return MoveMedium(transport=transport, source=source, destination=destination).build()


def initialize_element_status() -> bytes:
    return InitializeElementStatus().build()


@dataclass(frozen=True)
class Element:
    type: ElementType
    address: int
    full: bool
    barcode: str = ""
    exception: tuple[int, int] | None = None  # (ASC, ASCQ) when the element reports one
    source: int | None = None  # where the cartridge in it came from (SValid)
    identifier: str = ""  # a drive's device identifier (DVCID): its serial number

    @property
    def cleaning(self) -> bool:
        return self.barcode.upper().startswith("CLN")


@dataclass(frozen=True)
class ElementMap:
    """Element Address Assignment page: first address and count of each element type."""

    transport: tuple[int, int]
    storage: tuple[int, int]
    import_export: tuple[int, int]
    data_transfer: tuple[int, int]

    @classmethod
    def parse_page(cls, page: bytes) -> "ElementMap":
        if len(page) < 18 or page[0] & 0x3F != PAGE_ELEMENT_ADDRESS:
            raise ParseError("not an Element Address Assignment page (1Dh)")
        v = struct.unpack_from(">8H", page, 2)
        return cls((v[0], v[1]), (v[2], v[3]), (v[4], v[5]), (v[6], v[7]))

    def of(self, kind: ElementType) -> tuple[int, int]:
        """(first address, count) of one element type."""
        return {ElementType.TRANSPORT: self.transport, ElementType.STORAGE: self.storage,
                ElementType.IMPORT_EXPORT: self.import_export, ElementType.DATA_TRANSFER: self.data_transfer}[kind]


def parse_element_status(data: bytes) -> tuple[Element, ...]:
    """Every element descriptor of a READ ELEMENT STATUS answer, in the order reported.

    A last descriptor cut short is still read when its 12-byte base is there (the volume
    tag and identifier only as far as they arrived): tgt (1.0.85) counts the page header
    out of its byte count and so sends every answer 8 bytes short, cutting the last
    element's identifier; the element's address, full flag and barcode are intact.
    """
    if len(data) < 8:
        raise ParseError("READ ELEMENT STATUS data shorter than its 8-byte header")
    available = int.from_bytes(data[5:8], "big")
    end = min(len(data), 8 + available)
    pos, out = 8, []
    while pos + 8 <= end:
        etype, flags = data[pos], data[pos + 1]
        desc_len = struct.unpack_from(">H", data, pos + 2)[0]
        page_bytes = int.from_bytes(data[pos + 5:pos + 8], "big")
        pos += 8
        if desc_len < 12 or etype & 0x0F not in (1, 2, 3, 4):
            raise ParseError(f"element status page of type {etype & 0x0F} with {desc_len}-byte descriptors")
        page_end = min(end, pos + page_bytes)
        pvoltag, avoltag = bool(flags & 0x80), bool(flags & 0x40)
        while pos + 12 <= page_end:
            out.append(_descriptor(ElementType(etype & 0x0F), data[pos:min(pos + desc_len, page_end)], pvoltag, avoltag))
            pos += desc_len
        pos = max(pos, page_end)
    return tuple(out)


def _descriptor(etype: ElementType, d: bytes, pvoltag: bool, avoltag: bool) -> Element:
    address = struct.unpack_from(">H", d, 0)[0]
    full, exception = bool(d[2] & 0x01), bool(d[2] & 0x04)
    source = struct.unpack_from(">H", d, 10)[0] if d[9] & 0x80 else None
    at = 12
    barcode = ""
    if pvoltag and len(d) >= at + 32 and full:  # an empty element has no label to read (tgt leaves a stale one)
        barcode = d[at:at + 32].decode("ascii", "replace").strip(" \0")
    if pvoltag:
        at += 36
    if avoltag:
        at += 36
    identifier = ""
    if etype is ElementType.DATA_TRANSFER and len(d) > at + 4:
        length = d[at + 3]
        identifier = d[at + 4:at + 4 + length].decode("ascii", "replace").strip(" \0")
    return Element(etype, address, full, barcode, (d[4], d[5]) if exception else None, source, identifier)


__all__ = ["Element", "ElementMap", "ElementType", "InitializeElementStatus", "MoveMedium", "ReadElementStatus",
           "initialize_element_status", "move_medium", "parse_element_status", "read_element_status"]

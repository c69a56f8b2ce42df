"""READ ATTRIBUTE data: Medium Auxiliary Memory (MAM, the cartridge memory chip).

SPC-4 7.4: each attribute is an identifier, a READ ONLY bit, a format (binary,
ASCII, text) and a value. ``Mam`` holds all attributes a drive returned and names
the ones a technician reads: capacities, load count, lifetime MB written/read,
manufacturer, serial, density, manufacture date, barcode.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from native.scsi._bytes import ascii_field, bit, need, uint
from native.errors import ParseError


class AttrFormat(enum.IntEnum):
    BINARY = 0
    ASCII = 1
    TEXT = 2
    RESERVED = 3


# id -> (name, unit). Units make the CLI/GUI rendering explicit (MiB per SPC).
ATTRIBUTE_NAMES: dict[int, tuple[str, str]] = {
    0x0000: ("Remaining capacity in partition", "MiB"),
    0x0001: ("Maximum capacity in partition", "MiB"),
    0x0002: ("TapeAlert flags", ""),
    0x0003: ("Load count", ""),
    0x0004: ("MAM space remaining", "bytes"),
    0x0005: ("Assigning organization", ""),
    0x0006: ("Formatted density code", ""),
    0x0007: ("Initialization count", ""),
    0x0008: ("Volume identifier", ""),
    0x0009: ("Volume change reference", ""),
    0x020A: ("Device vendor/serial at last load", ""),
    0x020B: ("Device vendor/serial at load-1", ""),
    0x020C: ("Device vendor/serial at load-2", ""),
    0x020D: ("Device vendor/serial at load-3", ""),
    0x0220: ("Total MiB written in medium life", "MiB"),
    0x0221: ("Total MiB read in medium life", "MiB"),
    0x0222: ("Total MiB written in current/last load", "MiB"),
    0x0223: ("Total MiB read in current/last load", "MiB"),
    0x0224: ("Logical position of first encrypted block", ""),
    0x0225: ("Logical position of first unencrypted block after first encrypted", ""),
    0x0340: ("Medium usage history", ""),
    0x0341: ("Partition usage history", ""),
    0x0400: ("Medium manufacturer", ""),
    0x0401: ("Medium serial number", ""),
    0x0402: ("Medium length", "m"),
    0x0403: ("Medium width", "0.1 mm"),
    0x0404: ("Assigning organization", ""),
    0x0405: ("Medium density code", ""),
    0x0406: ("Medium manufacture date", ""),
    0x0407: ("MAM capacity", "bytes"),
    0x0408: ("Medium type", ""),
    0x0409: ("Medium type information", ""),
    0x040A: ("Numeric medium serial number", ""),
    0x0800: ("Application vendor", ""),
    0x0801: ("Application name", ""),
    0x0802: ("Application version", ""),
    0x0803: ("User medium text label", ""),
    0x0804: ("Date and time last written", ""),
    0x0805: ("Text localization identifier", ""),
    0x0806: ("Barcode", ""),
    0x0807: ("Owning host textual name", ""),
    0x0808: ("Media pool", ""),
    0x0809: ("Partition user text label", ""),
    0x080A: ("Load/unload at partition", ""),
    0x080B: ("Application format version", ""),
    0x080C: ("Volume coherency information", ""),
    0x0820: ("Medium globally unique identifier", ""),
    0x0821: ("Media pool globally unique identifier", ""),
}

MEDIUM_TYPES = {0x00: "data", 0x01: "cleaning", 0x80: "WORM"}


@dataclass(frozen=True)
class Attribute:
    """One cartridge-memory attribute as READ ATTRIBUTE returned it: its identifier, format and raw bytes."""

    id: int
    read_only: bool
    format: AttrFormat
    raw: bytes

    @property
    def name(self) -> str:
        entry = ATTRIBUTE_NAMES.get(self.id)
        return entry[0] if entry else f"Attribute 0x{self.id:04X}"

    @property
    def unit(self) -> str:
        entry = ATTRIBUTE_NAMES.get(self.id)
        return entry[1] if entry else ""

    @property
    def value(self) -> int | str | bytes:
        """int for binary attributes up to 8 bytes, str for ASCII/text, else raw bytes."""
        if self.format == AttrFormat.BINARY:
            return int.from_bytes(self.raw, "big") if 0 < len(self.raw) <= 8 else self.raw
        if self.format == AttrFormat.ASCII:
            return ascii_field(self.raw, 0, len(self.raw))
        if self.format == AttrFormat.TEXT:
            return self.raw.rstrip(b"\x00").decode("utf-8", "replace").strip()
        return self.raw

    def build(self) -> bytes:
        return self.id.to_bytes(2, "big") + bytes([(0x80 if self.read_only else 0) | int(self.format)]) + len(self.raw).to_bytes(2, "big") + self.raw


def binary(attr_id: int, value: int, size: int, *, read_only: bool = True) -> Attribute:
    return Attribute(attr_id, read_only, AttrFormat.BINARY, value.to_bytes(size, "big"))


def ascii_attr(attr_id: int, value: str, size: int, *, read_only: bool = True) -> Attribute:
    return Attribute(attr_id, read_only, AttrFormat.ASCII, value.encode("ascii")[:size].ljust(size, b" "))


@dataclass(frozen=True)
class Mam:
    """All attributes of one READ ATTRIBUTE (ATTRIBUTE VALUES) response."""

    attributes: tuple[Attribute, ...]

    def get(self, attr_id: int) -> Attribute | None:
        for a in self.attributes:
            if a.id == attr_id:
                return a
        return None

    def value(self, attr_id: int) -> int | str | bytes | None:
        a = self.get(attr_id)
        return a.value if a is not None else None

    def _int(self, attr_id: int) -> int | None:
        v = self.value(attr_id)
        return v if isinstance(v, int) else None

    def _str(self, attr_id: int) -> str | None:
        v = self.value(attr_id)
        return v if isinstance(v, str) else None

    remaining_capacity_mib = property(lambda self: self._int(0x0000))
    maximum_capacity_mib = property(lambda self: self._int(0x0001))
    load_count = property(lambda self: self._int(0x0003))
    mb_written_total = property(lambda self: self._int(0x0220))
    mb_read_total = property(lambda self: self._int(0x0221))
    mb_written_last_load = property(lambda self: self._int(0x0222))
    mb_read_last_load = property(lambda self: self._int(0x0223))
    manufacturer = property(lambda self: self._str(0x0400))
    serial = property(lambda self: self._str(0x0401))
    density_code = property(lambda self: self._int(0x0405))
    manufacture_date = property(lambda self: self._str(0x0406))
    barcode = property(lambda self: self._str(0x0806))

    @property
    def medium_type(self) -> str | None:
        v = self._int(0x0408)
        return None if v is None else MEDIUM_TYPES.get(v, f"type 0x{v:02X}")

    @classmethod
    def parse(cls, data: bytes) -> "Mam":
        data = bytes(data)
        need(data, 4, "READ ATTRIBUTE data")
        end = min(len(data), 4 + uint(data, 0, 4))
        out: list[Attribute] = []
        pos = 4
        while pos < end:
            if end - pos < 5:
                raise ParseError(f"READ ATTRIBUTE: {end - pos} trailing bytes are not an attribute header")
            length = uint(data, pos + 3, 2)
            raw = data[pos + 5 : pos + 5 + length]
            if len(raw) < length or pos + 5 + length > end:
                raise ParseError(f"READ ATTRIBUTE: attribute 0x{uint(data, pos, 2):04X} runs past the data")
            out.append(Attribute(id=uint(data, pos, 2), read_only=bit(data[pos + 2], 7), format=AttrFormat(data[pos + 2] & 3), raw=raw))
            pos += 5 + length
        return cls(attributes=tuple(out))

    def build(self) -> bytes:
        body = b"".join(a.build() for a in self.attributes)
        return len(body).to_bytes(4, "big") + body


def parse_attribute_list(data: bytes) -> tuple[int, ...]:
    """READ ATTRIBUTE service action 01h (ATTRIBUTE LIST): the identifiers present."""
    data = bytes(data)
    need(data, 4, "READ ATTRIBUTE list")
    end = min(len(data), 4 + uint(data, 0, 4))
    if (end - 4) % 2:
        raise ParseError("READ ATTRIBUTE list: odd number of bytes")
    return tuple(uint(data, i, 2) for i in range(4, end, 2))

"""REPORT DENSITY SUPPORT (SSC-4 6.x): the densities a drive or its medium supports.

Apart from ``native.scsi.density`` (the density codes' generations and names), which ``info`` reads on every
drive: ``info`` does not send REPORT DENSITY SUPPORT, and each answer's form is a dataclass built at import
(issue 32 §3).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import ascii_field, bit, need, uint
from native.errors import ParseError
from native.scsi.density import lto_generation


DESCRIPTOR_LENGTH = 52


@dataclass(frozen=True)
class DensityDescriptor:
    """One density support descriptor. ``capacity_mb`` is in 10**6 bytes units;
    ``bits_per_mm`` and ``media_width`` (tenths of mm) are as reported."""

    primary_code: int
    secondary_code: int
    wrtok: bool
    dup: bool
    deflt: bool
    bits_per_mm: int
    media_width: int
    tracks: int
    capacity_mb: int
    assigning_organization: str
    density_name: str
    description: str

    @property
    def generation(self) -> int | None:
        return lto_generation(self.primary_code)

    @classmethod
    def parse(cls, data: bytes) -> "DensityDescriptor":
        need(data, DESCRIPTOR_LENGTH, "density support descriptor")
        return cls(
            primary_code=data[0],
            secondary_code=data[1],
            wrtok=bit(data[2], 7),
            dup=bit(data[2], 6),
            deflt=bit(data[2], 5),
            bits_per_mm=uint(data, 5, 3),
            media_width=uint(data, 8, 2),
            tracks=uint(data, 10, 2),
            capacity_mb=uint(data, 12, 4),
            assigning_organization=ascii_field(data, 16, 8),
            density_name=ascii_field(data, 24, 8),
            description=ascii_field(data, 32, 20),
        )

    def build(self) -> bytes:
        def text(value: str, size: int) -> bytes:
            return value.encode("ascii", "replace")[:size].ljust(size, b" ")

        flags = (0x80 if self.wrtok else 0) | (0x40 if self.dup else 0) | (0x20 if self.deflt else 0) | 0x01
        return (
            bytes([self.primary_code, self.secondary_code, flags])
            + (DESCRIPTOR_LENGTH - 5).to_bytes(2, "big")
            + self.bits_per_mm.to_bytes(3, "big")
            + self.media_width.to_bytes(2, "big")
            + self.tracks.to_bytes(2, "big")
            + self.capacity_mb.to_bytes(4, "big")
            + text(self.assigning_organization, 8)
            + text(self.density_name, 8)
            + text(self.description, 20)
        )


@dataclass(frozen=True)
class DensitySupport:
    """REPORT DENSITY SUPPORT data (density descriptors, MEDIUM TYPE bit clear).

    ``media`` records whether the list describes the loaded medium (MEDIA bit set in
    the CDB) or everything the drive supports; the caller knows, the bytes do not.
    """

    descriptors: tuple[DensityDescriptor, ...]
    media: bool = False

    @property
    def default(self) -> DensityDescriptor | None:
        for d in self.descriptors:
            if d.deflt:
                return d
        return self.descriptors[0] if self.descriptors else None

    @classmethod
    def parse(cls, data: bytes, *, media: bool = False) -> "DensitySupport":
        data = bytes(data)
        need(data, 4, "REPORT DENSITY SUPPORT header")
        end = min(len(data), 2 + uint(data, 0, 2))
        out: list[DensityDescriptor] = []
        pos = 4
        while pos < end:
            if end - pos < 5:
                raise ParseError("REPORT DENSITY SUPPORT: trailing bytes shorter than a descriptor")
            # DLV set: bytes 3-4 give the length of the rest; SSC fixes it at 47.
            length = 5 + uint(data, pos + 3, 2) if bit(data[pos + 2], 0) else DESCRIPTOR_LENGTH
            if length < DESCRIPTOR_LENGTH or pos + length > end:
                raise ParseError(f"REPORT DENSITY SUPPORT: descriptor at byte {pos} is {length} bytes, data ends at {end}")
            out.append(DensityDescriptor.parse(data[pos : pos + length]))
            pos += length
        return cls(descriptors=tuple(out), media=media)

    def build(self) -> bytes:
        body = b"".join(d.build() for d in self.descriptors)
        return (len(body) + 2).to_bytes(2, "big") + b"\x00\x00" + body

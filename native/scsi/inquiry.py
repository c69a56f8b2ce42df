"""INQUIRY standard data and the VPD pages tapediag reads (0x00, 0x80, 0x83)."""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import ascii_field, bit, need, uint
from native.errors import ParseError

DEVICE_TYPES = {
    0x00: "disk",
    0x01: "tape",
    0x02: "printer",
    0x03: "processor",
    0x04: "write-once",
    0x05: "cd/dvd",
    0x07: "optical memory",
    0x08: "medium changer",
    0x0C: "storage array",
    0x0D: "enclosure services",
    0x0E: "simplified direct-access",
    0x11: "object storage",
    0x12: "automation/drive interface",
    0x1E: "well known logical unit",
    0x1F: "unknown or no device type",
}

VERSIONS = {0: "none", 3: "SPC", 4: "SPC-2", 5: "SPC-3", 6: "SPC-4", 7: "SPC-5"}


def device_type_name(code: int) -> str:
    return DEVICE_TYPES.get(code, f"type 0x{code:02X}")


@dataclass(frozen=True)
class Inquiry:
    """Standard INQUIRY data (SPC-4 6.6.2). Vendor/product/revision are stripped ASCII."""

    qualifier: int
    device_type: int
    removable: bool
    version: int
    response_format: int
    vendor: str
    product: str
    revision: str
    vendor_specific: bytes = b""

    @property
    def device_type_name(self) -> str:
        return device_type_name(self.device_type)

    @property
    def is_tape(self) -> bool:
        return self.device_type == 0x01

    @classmethod
    def parse(cls, data: bytes) -> "Inquiry":
        data = bytes(data)
        need(data, 36, "INQUIRY data")
        end = min(len(data), 5 + data[4])
        return cls(
            qualifier=data[0] >> 5,
            device_type=data[0] & 0x1F,
            removable=bit(data[1], 7),
            version=data[2],
            response_format=data[3] & 0x0F,
            vendor=ascii_field(data, 8, 8),
            product=ascii_field(data, 16, 16),
            revision=ascii_field(data, 32, 4),
            vendor_specific=data[36:max(36, min(end, 56))],
        )


def _vpd_body(data: bytes, page: int, what: str) -> tuple[int, bytes]:
    need(data, 4, what)
    if data[1] != page:
        raise ParseError(f"{what}: page code 0x{data[1]:02X}, expected 0x{page:02X}")
    length = uint(data, 2, 2)
    return data[0] & 0x1F, bytes(data[4 : 4 + length])


@dataclass(frozen=True)
class SupportedVpdPages:
    """VPD page 0x00: the VPD pages the device implements."""

    device_type: int
    pages: tuple[int, ...]

    @classmethod
    def parse(cls, data: bytes) -> "SupportedVpdPages":
        dtype, body = _vpd_body(bytes(data), 0x00, "VPD page 0x00")
        return cls(device_type=dtype, pages=tuple(body))


@dataclass(frozen=True)
class UnitSerialNumber:
    """VPD page 0x80: the unit (drive) serial number."""

    device_type: int
    serial: str

    @classmethod
    def parse(cls, data: bytes) -> "UnitSerialNumber":
        dtype, body = _vpd_body(bytes(data), 0x80, "VPD page 0x80")
        return cls(device_type=dtype, serial=ascii_field(body, 0, len(body)))


DESIGNATOR_TYPES = {
    0: "vendor specific",
    1: "T10 vendor ID",
    2: "EUI-64",
    3: "NAA",
    4: "relative target port",
    5: "target port group",
    6: "logical unit group",
    7: "MD5 logical unit",
    8: "SCSI name string",
    9: "protocol specific port",
    10: "UUID",
}
ASSOCIATIONS = ("logical unit", "target port", "target device", "reserved")
CODE_BINARY, CODE_ASCII, CODE_UTF8 = 1, 2, 3


@dataclass(frozen=True)
class Designator:
    """One identification descriptor of VPD page 0x83."""

    protocol: int
    code_set: int
    piv: bool
    association: int
    type: int
    value: bytes

    @property
    def type_name(self) -> str:
        return DESIGNATOR_TYPES.get(self.type, f"type {self.type}")

    @property
    def association_name(self) -> str:
        return ASSOCIATIONS[self.association]

    @property
    def naa(self) -> int | None:
        """The NAA field (2, 3, 5, 6) of an NAA designator, else None."""
        if self.type == 3 and self.value:
            return self.value[0] >> 4
        return None

    @property
    def text(self) -> str:
        """Human form: the string for ASCII/UTF-8 code sets, hex otherwise."""
        if self.code_set in (CODE_ASCII, CODE_UTF8):
            return self.value.rstrip(b"\x00").decode("utf-8", "replace").strip()
        return self.value.hex()


@dataclass(frozen=True)
class DeviceIdentification:
    """VPD page 0x83. ``wwn`` is the logical unit's NAA designator in hex (the WWN)."""

    device_type: int
    designators: tuple[Designator, ...]

    @property
    def wwn(self) -> str | None:
        for wanted_assoc in (0, 2, 1):
            for d in self.designators:
                if d.type == 3 and d.association == wanted_assoc and d.value:
                    return "0x" + d.value.hex()
        return None

    @classmethod
    def parse(cls, data: bytes) -> "DeviceIdentification":
        dtype, body = _vpd_body(bytes(data), 0x83, "VPD page 0x83")
        out: list[Designator] = []
        pos = 0
        while pos + 4 <= len(body):
            length = body[pos + 3]
            value = body[pos + 4 : pos + 4 + length]
            if len(value) < length:
                raise ParseError(f"VPD page 0x83: designator at byte {pos + 4} truncated")
            out.append(
                Designator(
                    protocol=body[pos] >> 4,
                    code_set=body[pos] & 0x0F,
                    piv=bit(body[pos + 1], 7),
                    association=(body[pos + 1] >> 4) & 0x03,
                    type=body[pos + 1] & 0x0F,
                    value=bytes(value),
                )
            )
            pos += 4 + length
        return cls(device_type=dtype, designators=tuple(out))


VPD_PARSERS: dict[int, type[SupportedVpdPages] | type[UnitSerialNumber] | type[DeviceIdentification]] = {
    0x00: SupportedVpdPages, 0x80: UnitSerialNumber, 0x83: DeviceIdentification}

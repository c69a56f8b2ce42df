"""Byte layouts of the virtual drive's data-in responses (SPC-4 / SSC-4).

Pure functions from typed state to bytes, kept apart from command dispatch so each
layout can be read against the standard (and cross-checked with sg3_utils'
``--inhex`` decoders in the tests) without the cartridge machinery around it.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from native.virtual.specs import GENERATION_OF_DENSITY, GenerationSpec

VENDOR = "HPE"
MiB = 1 << 20
MB = 1_000_000


def ascii_field(text: str, width: int) -> bytes:
    return text.encode("ascii", "replace")[:width].ljust(width)


# ---------------------------------------------------------------- INQUIRY
def standard_inquiry(spec: GenerationSpec) -> bytes:
    b = bytearray(96)
    b[0] = 0x01  # peripheral qualifier 0, sequential-access device
    b[1] = 0x80  # RMB: removable medium
    b[2] = 0x06  # SPC-4
    b[3] = 0x12  # HISUP, response data format 2
    b[4] = len(b) - 5
    b[7] = 0x02  # CMDQUE
    b[8:16] = ascii_field(spec.vendor, 8)
    b[16:32] = ascii_field(spec.product, 16)
    b[32:36] = ascii_field(spec.revision, 4)
    return bytes(b)


def vpd_page(page: int, spec: GenerationSpec, serial: str, naa: int) -> bytes | None:
    """VPD pages 0x00, 0x80, 0x83; None for pages we do not have."""
    if page == 0x00:
        body = bytes([0x00, 0x80, 0x83])
    elif page == 0x80:
        body = serial.encode("ascii")
    elif page == 0x83:
        t10 = ascii_field(spec.vendor, 8) + ascii_field(spec.product, 16) + serial.encode("ascii")
        body = bytes([0x01, 0x03, 0x00, 8]) + struct.pack(">Q", naa)  # binary, LU, NAA
        body += bytes([0x02, 0x01, 0x00, len(t10)]) + t10  # ASCII, LU, T10 vendor id
    else:
        return None
    return bytes([0x01, page]) + struct.pack(">H", len(body)) + body


# ---------------------------------------------------------------- MODE pages
@dataclass
class ModeState:
    """The virtual drive's current mode settings, which its MODE SENSE pages report and MODE SELECT changes."""

    block_length: int = 0  # 0 = variable
    compression: bool = True  # DCE
    density_code: int = 0
    partition_sizes: tuple[int, ...] = ()  # the loaded cartridge's partitions, bytes (page 11h)
    partition_request: tuple[int, ...] | None = None  # what MODE SELECT page 11h asked FORMAT MEDIUM to make


def compression_page(state: ModeState, changeable: bool = False) -> bytes:
    if changeable:
        return bytes([0x0F, 0x0E, 0x80]) + bytes(13)
    b = bytearray(16)
    b[0], b[1] = 0x0F, 0x0E
    b[2] = (0x80 if state.compression else 0) | 0x40  # DCE, DCC (drive can compress)
    b[3] = 0x80  # DDE: decompression enabled
    struct.pack_into(">II", b, 4, 1, 1)  # compression / decompression algorithm
    return bytes(b)


def device_configuration_page(changeable: bool = False) -> bytes:
    b = bytearray(16)
    b[0], b[1] = 0x10, 0x0E
    if not changeable:
        b[8] = 0x40  # LOIS: logical object identifiers supported
        b[10] = 0x18  # EEG, SEW: early-warning handling
        b[14] = 0x01  # default compression algorithm
    return bytes(b)


def partition_page(state: ModeState, changeable: bool = False) -> bytes:
    """Mode page 11h, medium partition (SSC-5 8.3.5): the cartridge's partitions, sizes in 10^6 bytes
    (10^9 when a size would not fit 16 bits), PSUM 3; changeable: what MODE SELECT may set."""
    sizes = state.partition_sizes or (0,)
    if changeable:
        return bytes([0x11, 0x0A, 0x00, 0xFF, 0xFC, 0x00, 0x0F, 0x00]) + b"\xff\xff" * 2
    unit = 6 if all(s // 10**6 < 0xFFFF for s in sizes) else 9
    b = bytearray([0x11, 0x06 + 2 * len(sizes), 1, len(sizes) - 1, (0x20 if len(sizes) > 1 else 0) | 0x18 | 0x04, 0x03, unit, 0])
    for size in sizes:
        b += struct.pack(">H", size // 10**unit)
    return bytes(b)


MODE_PAGES = (0x0F, 0x10, 0x11)


def mode_page(code: int, state: ModeState, changeable: bool) -> bytes:
    if code == 0x11:
        return partition_page(state, changeable)
    return compression_page(state, changeable) if code == 0x0F else device_configuration_page(changeable)


def block_descriptor(state: ModeState, changeable: bool) -> bytes:
    if changeable:
        return bytes([0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF])
    return bytes([state.density_code, 0, 0, 0, 0]) + state.block_length.to_bytes(3, "big")


# ---------------------------------------------------------------- REPORT DENSITY SUPPORT
#: density code -> (bits per mm, tracks)
_GEOMETRY = {0x44: (9638, 704), 0x46: (13250, 896), 0x58: (15142, 1280), 0x5A: (15143, 2176),
             0x5C: (19094, 3584), 0x5E: (20668, 6656), 0x60: (20668, 8960)}
# LTO-10 (0x62): no public bits/mm or track count found, so the descriptor reports 0 ("not
# given") for them rather than an invented figure; 30 TB native: shared/design/lto-drives.md.
_NATIVE_MB = {0x44: 400_000, 0x46: 800_000, 0x58: 1_500_000, 0x5A: 2_500_000, 0x5C: 6_000_000,
              0x5E: 12_000_000, 0x60: 18_000_000, 0x62: 30_000_000}


def density_descriptor(code: int, *, writable: bool, default: bool, capacity_mb: int | None = None) -> bytes:
    gen = GENERATION_OF_DENSITY[code]
    bpmm, tracks = _GEOMETRY.get(code, (0, 0))
    b = bytearray(52)
    b[0] = b[1] = code
    b[2] = (0x80 if writable else 0) | (0x20 if default else 0) | 0x01  # WRTOK, DEFLT, DLV
    struct.pack_into(">H", b, 3, 52 - 5)
    b[5:8] = bpmm.to_bytes(3, "big")
    struct.pack_into(">HHI", b, 8, 127, tracks, capacity_mb if capacity_mb is not None else _NATIVE_MB.get(code, 0))
    b[16:24] = ascii_field("LTO-CVE", 8)
    b[24:32] = ascii_field(f"U-{gen}16", 8)
    b[32:52] = ascii_field(f"Ultrium {gen}/16T", 20)
    return bytes(b)


def report_density(descriptors: list[bytes]) -> bytes:
    body = b"".join(descriptors)
    return struct.pack(">HH", len(body) + 2, 0) + body


# ---------------------------------------------------------------- READ ATTRIBUTE (MAM)
BINARY, ASCII = 0, 1


def attribute(ident: int, value: bytes, fmt: int = BINARY, read_only: bool = True) -> bytes:
    return struct.pack(">HBH", ident, (0x80 if read_only else 0) | fmt, len(value)) + value


@dataclass(frozen=True)
class MamValues:
    """The figures the virtual cartridge's memory (MAM) reports, in the units of their attributes."""

    remaining_mib: int
    maximum_mib: int
    load_count: int
    density_code: int
    mib_written_life: int
    mib_read_life: int
    mib_written_load: int
    mib_read_load: int
    manufacturer: str
    serial: str
    manufactured: str
    worm: bool
    barcode: str


def mam_attributes(v: MamValues) -> dict[int, bytes]:
    """Attribute id -> full attribute (header + value), in identifier order."""
    q = lambda n: struct.pack(">Q", n)  # noqa: E731 - one-liner for 8-byte counters
    attrs = {
        0x0000: attribute(0x0000, q(v.remaining_mib)),
        0x0001: attribute(0x0001, q(v.maximum_mib)),
        0x0003: attribute(0x0003, q(v.load_count)),
        0x0005: attribute(0x0005, ascii_field("LTO-CVE", 8), ASCII),
        0x0006: attribute(0x0006, bytes([v.density_code])),
        0x0220: attribute(0x0220, q(v.mib_written_life)),
        0x0221: attribute(0x0221, q(v.mib_read_life)),
        0x0222: attribute(0x0222, q(v.mib_written_load)),
        0x0223: attribute(0x0223, q(v.mib_read_load)),
        0x0400: attribute(0x0400, ascii_field(v.manufacturer, 8), ASCII),
        0x0401: attribute(0x0401, ascii_field(v.serial, 32), ASCII),
        0x0405: attribute(0x0405, bytes([v.density_code])),
        0x0406: attribute(0x0406, ascii_field(v.manufactured, 8), ASCII),
        0x0408: attribute(0x0408, bytes([0x80 if v.worm else 0x00])),
        0x0806: attribute(0x0806, ascii_field(v.barcode, 32), ASCII, read_only=False),
    }
    return attrs


# ---------------------------------------------------------------- LOG SENSE
def log_param(code: int, value: bytes, control: int = 0x00) -> bytes:
    return struct.pack(">HBB", code, control, len(value)) + value


def log_page(page: int, params: list[bytes]) -> bytes:
    body = b"".join(params)
    return struct.pack(">BBH", page, 0, len(body)) + body


def counter(code: int, value: int, width: int = 4) -> bytes:
    value = max(0, min(int(value), (1 << (8 * width)) - 1))
    return log_param(code, value.to_bytes(width, "big"))



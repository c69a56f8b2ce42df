"""Realistic LTO drive responses, built byte by byte as a drive sends them.

Shared by the parser tests and the sg3_utils cross-checks, so both look at the same
bytes. Values resemble an HPE LTO-9 drive with a FUJIFILM cartridge.
"""
from __future__ import annotations

from native.scsi.density_support import DensityDescriptor, DensitySupport
from native.scsi.logpages import LogPage, LogParameter, counter, tapealert_page
from native.scsi.mam import Attribute, AttrFormat, Mam, ascii_attr, binary


def inquiry(vendor: str = "HPE", product: str = "Ultrium 9-SCSI", revision: str = "Q3A1", serial: str = "HU12345678",
            device_type: int = 1) -> bytes:
    data = bytearray(96)
    data[0], data[1], data[2], data[3], data[4] = device_type, 0x80, 0x06, 0x12, 91
    data[8:16] = vendor.encode().ljust(8)
    data[16:32] = product.encode().ljust(16)
    data[32:36] = revision.encode().ljust(4)
    data[36:36 + len(serial)] = serial.encode()
    return bytes(data)


def vpd00(pages: tuple[int, ...] = (0x00, 0x80, 0x83, 0xB0, 0xC0)) -> bytes:
    return bytes([1, 0x00]) + len(pages).to_bytes(2, "big") + bytes(pages)


def vpd80(serial: str = "HU12345678") -> bytes:
    return bytes([1, 0x80]) + len(serial).to_bytes(2, "big") + serial.encode()


def vpd83(wwn: str = "500110a0001a2b3c", port: str = "500110a0001a2b3d", t10: str = "HPE     Ultrium 9-SCSI  HU12345678") -> bytes:
    naa = bytes([0x01, 0x03, 0x00, 0x08]) + bytes.fromhex(wwn)
    vendor = bytes([0x02, 0x01, 0x00, len(t10)]) + t10.encode()
    target = bytes([0x61, 0x93, 0x00, 0x08]) + bytes.fromhex(port)
    body = naa + vendor + target
    return bytes([1, 0x83]) + len(body).to_bytes(2, "big") + body


def mode_sense6(density: int = 0x60, block: int = 0, wp: bool = False, buffered: int = 1, pages: bytes = b"") -> bytes:
    bd = bytes([density, 0, 0, 0, 0]) + block.to_bytes(3, "big")
    body = bytes([0, (0x80 if wp else 0) | (buffered << 4), 8]) + bd + pages
    return bytes([len(body)]) + body


def mode_sense10(density: int = 0x60, block: int = 0, wp: bool = False, buffered: int = 1, pages: bytes = b"") -> bytes:
    bd = bytes([density, 0, 0, 0, 0]) + block.to_bytes(3, "big")
    body = bytes([0, (0x80 if wp else 0) | (buffered << 4), 0, 0, 0, 8]) + bd + pages
    return len(body).to_bytes(2, "big") + body


def compression_page(dce: bool = True, dcc: bool = True, dde: bool = True, red: int = 0, algo: int = 1, ps: bool = True) -> bytes:
    return bytes([0x0F | (0x80 if ps else 0), 0x0E, (0x80 if dce else 0) | (0x40 if dcc else 0),
                  (0x80 if dde else 0) | (red << 5)]) + algo.to_bytes(4, "big") + algo.to_bytes(4, "big") + bytes(4)


def device_config_page(rew: bool = False, sew: bool = True, eod: int = 0, eeg: bool = True, select_algo: int = 1) -> bytes:
    body = bytearray(14)
    body[0] = 0  # active format
    body[2], body[3] = 0x20, 0x20
    body[4:6] = (0).to_bytes(2, "big")
    body[6] = 0x01 if rew else 0
    body[8] = (eod << 5) | (0x10 if eeg else 0) | (0x08 if sew else 0)
    body[12] = select_algo
    return bytes([0x10 | 0x80, 0x0E]) + bytes(body)


def density_support() -> bytes:
    ds = (
        DensityDescriptor(0x60, 0x60, True, False, True, 20668, 127, 8960, 18_000_000, "LTO-CVE", "U-832", "Ultrium 9/16T"),
        DensityDescriptor(0x5E, 0x5E, True, False, False, 20668, 127, 6656, 12_000_000, "LTO-CVE", "U-732", "Ultrium 8/16T"),
    )
    return DensitySupport(ds).build()


def error_counters(page: int = 0x02, values: tuple[int, ...] = (11, 22, 33, 44, 55, 123_456_789, 7)) -> bytes:
    return LogPage(page, 0, False, False, tuple(counter(c, v, 8 if c == 5 else 4) for c, v in enumerate(values))).build()


def supported_log_pages(pages: tuple[int, ...] = (0x00, 0x02, 0x03, 0x0C, 0x17, 0x1B, 0x2E)) -> bytes:
    return bytes([0, 0]) + len(pages).to_bytes(2, "big") + bytes(pages)


def sequential_access(cleaning: int = 0) -> bytes:
    params = (counter(0, 10_000_000_000, 8), counter(1, 4_000_000_000, 8), counter(2, 3_000_000, 8), counter(3, 6_000_000, 8),
              counter(4, 17_000, 4), counter(5, 17_500, 4), counter(0x100, cleaning, 8))
    return LogPage(0x0C, 0, False, False, params).build()


def volume_statistics() -> bytes:
    text = lambda code, s: LogParameter(code, False, False, False, 0, 0b01, s.encode())  # noqa: E731
    params = (counter(0, 1, 1), counter(1, 321, 4), counter(4, 2, 4), counter(9, 1, 4), counter(0x10, 987_654, 8),
              counter(0x11, 123_456, 8), text(0x40, "ABC123  "), text(0x42, "ABC001L9"), text(0x43, "FUJIFILM"))
    return LogPage(0x17, 0, False, False, params).build()


def compression_log() -> bytes:
    params = (counter(0, 250, 2), counter(1, 180, 2), counter(2, 10, 4), counter(3, 5, 4), counter(8, 3, 4), counter(9, 100, 4))
    return LogPage(0x1B, 0, False, False, params).build()


def tapealert(active: frozenset[int] = frozenset({0x04, 0x14, 0x1F})) -> bytes:
    return tapealert_page(active)


def mam() -> bytes:
    attrs = (
        binary(0x0000, 17_000_000, 8),
        binary(0x0001, 17_166_000, 8),
        binary(0x0003, 42, 8),
        binary(0x0220, 5_555_555, 8),
        binary(0x0221, 4_444, 8),
        binary(0x0222, 1_234, 8),
        binary(0x0223, 567, 8),
        ascii_attr(0x0400, "FUJIFILM", 8),
        ascii_attr(0x0401, "A1B2C3D4E5", 32),
        binary(0x0405, 0x60, 1),
        ascii_attr(0x0406, "20230115", 8),
        binary(0x0408, 0x00, 1),
        ascii_attr(0x0806, "ABC001L9", 32, read_only=False),
        Attribute(0x0803, False, AttrFormat.TEXT, "Weekly full".encode().ljust(160, b"\x00")),
    )
    return Mam(attrs).build()

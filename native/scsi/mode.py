"""MODE SENSE / MODE SELECT data (SPC-4 7.5, SSC-4 8.3).

``ModeData.parse(data, ten=...)`` decodes a MODE SENSE(6) or (10) response into the
header, block descriptors and raw pages; typed views exist for the pages tapediag
changes (0x0F data compression, 0x10 device configuration). ``select_data()`` turns a
parsed (and possibly modified) ``ModeData`` back into MODE SELECT parameter data:
the mode data length is reserved in MODE SELECT and must be zero, and the PS bit
of each page must be cleared, or drives reject the list.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from native.scsi._bytes import bit, need, uint
from native.errors import InvalidParameter, ParseError

PAGE_DATA_COMPRESSION = 0x0F
PAGE_DEVICE_CONFIGURATION = 0x10
PAGE_MEDIUM_PARTITION = 0x11
PAGE_ALL = 0x3F


@dataclass(frozen=True)
class BlockDescriptor:
    """Sequential-access block descriptor: density code and block length (0 = variable)."""

    density_code: int
    blocks: int
    block_length: int

    @classmethod
    def parse(cls, data: bytes) -> "BlockDescriptor":
        need(data, 8, "block descriptor")
        return cls(density_code=data[0], blocks=uint(data, 1, 3), block_length=uint(data, 5, 3))

    def build(self) -> bytes:
        if not 0 <= self.block_length <= 0xFFFFFF:
            raise InvalidParameter(f"block length {self.block_length} does not fit 24 bits")
        return bytes([self.density_code]) + self.blocks.to_bytes(3, "big") + b"\x00" + self.block_length.to_bytes(3, "big")


@dataclass(frozen=True)
class ModePage:
    """One mode page as sent on the wire, without its 2- or 4-byte header."""

    code: int
    subpage: int
    ps: bool
    spf: bool
    body: bytes

    def build(self, *, clear_ps: bool = True) -> bytes:
        first = self.code | (0x40 if self.spf else 0) | (0 if clear_ps or not self.ps else 0x80)
        if self.spf:
            return bytes([first, self.subpage]) + len(self.body).to_bytes(2, "big") + self.body
        return bytes([first, len(self.body)]) + self.body


@dataclass(frozen=True)
class ModeData:
    """A decoded MODE SENSE response.

    ``write_protected`` is the WP bit and ``buffered_mode`` the 3-bit buffered mode
    field of the device-specific parameter (SSC meaning); ``speed`` its low 4 bits.
    """

    ten: bool
    medium_type: int
    write_protected: bool
    buffered_mode: int
    speed: int
    block_descriptors: tuple[BlockDescriptor, ...]
    pages: tuple[ModePage, ...]

    @property
    def density_code(self) -> int | None:
        return self.block_descriptors[0].density_code if self.block_descriptors else None

    @property
    def block_length(self) -> int | None:
        """Current block length from the first descriptor; 0 means variable-block mode."""
        return self.block_descriptors[0].block_length if self.block_descriptors else None

    def page(self, code: int, subpage: int = 0) -> ModePage | None:
        for p in self.pages:
            if p.code == code and p.subpage == subpage:
                return p
        return None

    @classmethod
    def parse(cls, data: bytes, *, ten: bool) -> "ModeData":
        data = bytes(data)
        if ten:
            need(data, 8, "MODE SENSE(10) header")
            total = 2 + uint(data, 0, 2)
            medium, specific, bd_len, pos = data[2], data[3], uint(data, 6, 2), 8
            if bit(data[4], 0):
                raise ParseError("MODE SENSE(10): long LBA block descriptors are not used by tape drives")
        else:
            need(data, 4, "MODE SENSE(6) header")
            total = 1 + data[0]
            medium, specific, bd_len, pos = data[1], data[2], data[3], 4
        end = min(len(data), total)
        if pos + bd_len > end:
            raise ParseError(f"mode data: block descriptor length {bd_len} runs past the data ({end} bytes)")
        descriptors = tuple(BlockDescriptor.parse(data[i : i + 8]) for i in range(pos, pos + bd_len - 7, 8))
        pos += bd_len
        pages: list[ModePage] = []
        while pos + 2 <= end:
            first = data[pos]
            spf = bit(first, 6)
            if spf:
                need(data[pos:end], 4, "sub-page mode page header")
                sub, length, hdr = data[pos + 1], uint(data, pos + 2, 2), 4
            else:
                sub, length, hdr = 0, data[pos + 1], 2
            body = data[pos + hdr : pos + hdr + length]
            if len(body) < length or pos + hdr + length > end:
                raise ParseError(f"mode page 0x{first & 0x3F:02X}: {length} bytes announced, data ends first")
            pages.append(ModePage(code=first & 0x3F, subpage=sub, ps=bit(first, 7), spf=spf, body=body))
            pos += hdr + length
        return cls(
            ten=ten,
            medium_type=medium,
            write_protected=bit(specific, 7),
            buffered_mode=(specific >> 4) & 0x07,
            speed=specific & 0x0F,
            block_descriptors=descriptors,
            pages=tuple(pages),
        )

    def with_block_length(self, length: int) -> "ModeData":
        """A copy whose first block descriptor asks for ``length`` (0 = variable)."""
        if not 0 <= length <= 0xFFFFFF:
            raise InvalidParameter(f"block size {length} is out of range (0..16777215)")
        first = self.block_descriptors[0] if self.block_descriptors else BlockDescriptor(0, 0, 0)
        # Number of blocks must be zero in MODE SELECT for sequential devices.
        new = replace(first, blocks=0, block_length=length)
        return replace(self, block_descriptors=(new,) + self.block_descriptors[1:])

    def with_page(self, page: ModePage) -> "ModeData":
        others = tuple(p for p in self.pages if (p.code, p.subpage) != (page.code, page.subpage))
        return replace(self, pages=others + (page,))

    def without_pages(self) -> "ModeData":
        return replace(self, pages=())

    def select_data(self, *, ten: bool | None = None) -> bytes:
        """MODE SELECT parameter data: mode data length zero, PS bits cleared.

        The WP bit is ignored by MODE SELECT; buffered mode and speed are kept since
        the device applies them.
        """
        ten = self.ten if ten is None else ten
        descriptors = b"".join(d.build() for d in self.block_descriptors)
        pages = b"".join(p.build(clear_ps=True) for p in self.pages)
        specific = (self.buffered_mode << 4) | self.speed
        if ten:
            header = bytes([0, 0, self.medium_type, specific, 0, 0]) + len(descriptors).to_bytes(2, "big")
        else:
            if len(descriptors) > 255:
                raise InvalidParameter("too many block descriptors for MODE SELECT(6)")
            header = bytes([0, self.medium_type, specific, len(descriptors)])
        return header + descriptors + pages


@dataclass(frozen=True)
class CompressionPage:
    """Mode page 0x0F, data compression (SSC-4 8.3.3)."""

    dce: bool  # data compression enabled (for writes)
    dcc: bool  # data compression capable
    dde: bool  # data decompression enabled (for reads)
    red: int  # report exception on decompression
    compression_algorithm: int
    decompression_algorithm: int
    ps: bool = False

    @classmethod
    def from_page(cls, page: ModePage) -> "CompressionPage":
        if page.code != PAGE_DATA_COMPRESSION:
            raise ParseError(f"mode page 0x{page.code:02X} is not the data compression page")
        body = page.body
        need(body, 10, "data compression page")
        return cls(
            dce=bit(body[0], 7),
            dcc=bit(body[0], 6),
            dde=bit(body[1], 7),
            red=(body[1] >> 5) & 0x03,
            compression_algorithm=uint(body, 2, 4),
            decompression_algorithm=uint(body, 6, 4),
            ps=page.ps,
        )

    def to_page(self) -> ModePage:
        body = bytearray(14)
        body[0] = (0x80 if self.dce else 0) | (0x40 if self.dcc else 0)
        body[1] = (0x80 if self.dde else 0) | ((self.red & 3) << 5)
        body[2:6] = self.compression_algorithm.to_bytes(4, "big")
        body[6:10] = self.decompression_algorithm.to_bytes(4, "big")
        return ModePage(code=PAGE_DATA_COMPRESSION, subpage=0, ps=self.ps, spf=False, body=bytes(body))


@dataclass(frozen=True)
class DeviceConfigurationPage:
    """Mode page 0x10, device configuration (SSC-4 8.3.4): the fields a technician needs."""

    active_format: int
    active_partition: int
    write_buffer_full_ratio: int
    read_buffer_empty_ratio: int
    write_delay_time: int  # in 100 ms units
    rew: bool  # report early warning
    gap_size: int
    eod_defined: int
    eeg: bool  # enable EOD generation
    sew: bool  # synchronize at early warning
    buffer_size_at_early_warning: int
    select_compression_algorithm: int
    ps: bool = False

    @classmethod
    def from_page(cls, page: ModePage) -> "DeviceConfigurationPage":
        if page.code != PAGE_DEVICE_CONFIGURATION:
            raise ParseError(f"mode page 0x{page.code:02X} is not the device configuration page")
        b = page.body
        need(b, 13, "device configuration page")
        return cls(
            active_format=b[0] & 0x1F,
            active_partition=b[1],
            write_buffer_full_ratio=b[2],
            read_buffer_empty_ratio=b[3],
            write_delay_time=uint(b, 4, 2),
            rew=bit(b[6], 0),
            gap_size=b[7],
            eod_defined=b[8] >> 5,
            eeg=bit(b[8], 4),
            sew=bit(b[8], 3),
            buffer_size_at_early_warning=uint(b, 9, 3),
            select_compression_algorithm=b[12],
            ps=page.ps,
        )


@dataclass(frozen=True)
class MediumPartitionPage:
    """Mode page 0x11, medium partition (SSC-4 8.3.4, SSC-5 8.3.5): how many partitions the cartridge has.

    Read-only use: ``additional_partitions`` (ADDITIONAL PARTITIONS DEFINED) is 1 on a two-partition
    cartridge (LTFS), 0 on an ordinary one; the size of each partition is in ``sizes`` (units of
    ``10 ** unit_exponent`` bytes when PSUM is 3, else as PSUM says)."""

    max_additional_partitions: int
    additional_partitions: int
    fdp: bool
    sdp: bool
    idp: bool
    psum: int
    pofm: bool
    medium_format_recognition: int
    unit_exponent: int
    sizes: tuple[int, ...]

    @property
    def partitions(self) -> int:
        return self.additional_partitions + 1

    @classmethod
    def from_page(cls, page: ModePage) -> "MediumPartitionPage":
        if page.code != PAGE_MEDIUM_PARTITION:
            raise ParseError(f"mode page 0x{page.code:02X} is not the medium partition page")
        b = page.body
        need(b, 6, "medium partition page")
        sizes = tuple(uint(b, i, 2) for i in range(6, len(b) - 1, 2))
        return cls(max_additional_partitions=b[0], additional_partitions=b[1], fdp=bit(b[2], 7), sdp=bit(b[2], 6),
                   idp=bit(b[2], 5), psum=(b[2] >> 3) & 0x03, pofm=bit(b[2], 2), medium_format_recognition=b[3],
                   unit_exponent=b[4] & 0x0F, sizes=sizes)

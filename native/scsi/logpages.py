"""LOG SENSE pages (SPC-4 7.3, SSC-4 8.2): a generic parameter list and typed pages.

``LogPage`` is any page (page code, subpage, parameters); the typed subclasses here are the pages
of a tape's own data path: 0x00 supported pages, 0x02/0x03 write/read error counters, 0x0C
sequential access, 0x17 volume statistics, 0x1B data compression, 0x2E TapeAlert (the drive-wide
pages are ``native.scsi.devicelogs``'; ``native.scsi.logparse.parse_log_page`` picks the class of
either). Typed pages expose their values as properties (None when the drive omits a parameter); the
raw parameters stay available for anything vendor-specific.

Vendor pages are not typed by ``parse_log_page``: page 0x34 is HP's performance
page but IBM's "read forward errors" page, so ``HpPerformance.from_page`` is applied
only when the caller knows the drive is an HP/HPE one.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import ascii_field, bit, need, uint
from native.scsi.tapealert import Severity, TapeAlertDefinition, definition
from native.errors import ParseError

PAGE_SUPPORTED = 0x00
PAGE_WRITE_ERRORS = 0x02
PAGE_READ_ERRORS = 0x03
PAGE_SEQUENTIAL_ACCESS = 0x0C
PAGE_VOLUME_STATISTICS = 0x17
PAGE_DATA_COMPRESSION = 0x1B
PAGE_TAPEALERT = 0x2E
PAGE_HP_PERFORMANCE = 0x34  # vendor-specific: HP/HPE LTO drives only


@dataclass(frozen=True)
class LogParameter:
    """One log parameter: code, control byte bits and the raw value bytes."""

    code: int
    du: bool
    tsd: bool
    etc: bool
    tmc: int
    format_linking: int
    value: bytes

    @property
    def int(self) -> int:  # noqa: A003 - reads naturally: param.int
        """The value as an unsigned big-endian counter (0 for an empty value)."""
        return int.from_bytes(self.value, "big") if self.value else 0

    @property
    def text(self) -> str:
        return ascii_field(self.value, 0, len(self.value))

    @property
    def is_ascii(self) -> bool:
        """Format-and-linking 01b: an ASCII list parameter."""
        return self.format_linking == 0b01

    def build(self) -> bytes:
        control = (0x80 if self.du else 0) | (0x20 if self.tsd else 0) | (0x10 if self.etc else 0) | ((self.tmc & 3) << 2) | (self.format_linking & 3)
        return self.code.to_bytes(2, "big") + bytes([control, len(self.value)]) + self.value


def counter(code: int, value: int, size: int = 4) -> LogParameter:
    """A binary counter parameter (format 10b), for building test pages."""
    return LogParameter(code=code, du=False, tsd=False, etc=False, tmc=0, format_linking=0b10, value=value.to_bytes(size, "big"))


@dataclass(frozen=True)
class LogPage:
    """A LOG SENSE page as read: its header bits and its parameters, typed further by the pages tapediag knows."""

    page_code: int
    subpage: int
    ds: bool
    spf: bool
    parameters: tuple[LogParameter, ...]

    def param(self, code: int) -> LogParameter | None:
        for p in self.parameters:
            if p.code == code:
                return p
        return None

    def value(self, code: int) -> int | None:
        p = self.param(code)
        return p.int if p is not None else None

    @classmethod
    def parse(cls, data: bytes) -> "LogPage":
        data = bytes(data)
        need(data, 4, "log page header")
        page_code, spf = data[0] & 0x3F, bit(data[0], 6)
        end = min(len(data), 4 + uint(data, 2, 2))
        params: list[LogParameter] = []
        if page_code == PAGE_SUPPORTED and not spf:
            # Page 0x00 carries a list of page codes, not parameters.
            return cls(page_code=page_code, subpage=data[1], ds=bit(data[0], 7), spf=spf, parameters=())
        pos = 4
        while pos + 4 <= end:
            length = data[pos + 3]
            value = data[pos + 4 : pos + 4 + length]
            if len(value) < length or pos + 4 + length > end:
                raise ParseError(f"log page 0x{page_code:02X}: parameter 0x{uint(data, pos, 2):04X} runs past the page")
            control = data[pos + 2]
            params.append(LogParameter(
                code=uint(data, pos, 2),
                du=bit(control, 7),
                tsd=bit(control, 5),
                etc=bit(control, 4),
                tmc=(control >> 2) & 3,
                format_linking=control & 3,
                value=value,
            ))
            pos += 4 + length
        return cls(page_code=page_code, subpage=data[1], ds=bit(data[0], 7), spf=spf, parameters=tuple(params))

    def build(self) -> bytes:
        body = b"".join(p.build() for p in self.parameters)
        return bytes([(0x80 if self.ds else 0) | (0x40 if self.spf else 0) | self.page_code, self.subpage]) + len(body).to_bytes(2, "big") + body


@dataclass(frozen=True)
class SupportedPages(LogPage):
    """Page 0x00: the log pages the device implements."""

    pages: tuple[int, ...] = ()

    @classmethod
    def parse(cls, data: bytes) -> "SupportedPages":
        data = bytes(data)
        need(data, 4, "supported log pages")
        end = min(len(data), 4 + uint(data, 2, 2))
        return cls(page_code=data[0] & 0x3F, subpage=data[1], ds=bit(data[0], 7), spf=bit(data[0], 6),
                   parameters=(), pages=tuple(b & 0x3F for b in data[4:end]))


@dataclass(frozen=True)
class ErrorCounters(LogPage):
    """Pages 0x02 (write) / 0x03 (read) error counters, parameters 0000h-0006h."""

    @property
    def direction(self) -> str:
        return "write" if self.page_code == PAGE_WRITE_ERRORS else "read"

    @property
    def corrected_without_delay(self) -> int | None:
        return self.value(0x0000)

    @property
    def corrected_with_delay(self) -> int | None:
        return self.value(0x0001)

    @property
    def total_retries(self) -> int | None:
        """Total rewrites (page 0x02) or rereads (0x03)."""
        return self.value(0x0002)

    @property
    def total_corrected(self) -> int | None:
        return self.value(0x0003)

    @property
    def correction_algorithm_processed(self) -> int | None:
        return self.value(0x0004)

    @property
    def total_bytes_processed(self) -> int | None:
        return self.value(0x0005)

    @property
    def total_uncorrected(self) -> int | None:
        return self.value(0x0006)


@dataclass(frozen=True)
class SequentialAccess(LogPage):
    """Page 0x0C: bytes to/from host and media, native capacities, cleaning required."""

    @property
    def bytes_from_host(self) -> int | None:
        return self.value(0x0000)

    @property
    def bytes_written_to_media(self) -> int | None:
        return self.value(0x0001)

    @property
    def bytes_read_from_media(self) -> int | None:
        return self.value(0x0002)

    @property
    def bytes_to_host(self) -> int | None:
        return self.value(0x0003)

    @property
    def capacity_bop_to_eod_mb(self) -> int | None:
        return self.value(0x0004)

    @property
    def capacity_bop_to_ew_mb(self) -> int | None:
        return self.value(0x0005)

    @property
    def buffer_mb(self) -> int | None:
        """0008h: maximum native capacity in the device object buffer (MB, 10^6 bytes): the drive's buffer."""
        return self.value(0x0008)

    @property
    def cleaning_required(self) -> bool | None:
        v = self.value(0x0100)
        return None if v is None else v != 0


# Page 0x17 parameter codes -> attribute names (SSC-4 table "Volume statistics").
VOLUME_STATISTICS = {
    0x0000: "page_valid",
    0x0001: "thread_count",
    0x0002: "total_data_sets_written",
    0x0003: "total_write_retries",
    0x0004: "total_unrecovered_write_errors",
    0x0005: "total_suspended_writes",
    0x0006: "total_fatal_suspended_writes",
    0x0007: "total_data_sets_read",
    0x0008: "total_read_retries",
    0x0009: "total_unrecovered_read_errors",
    0x000A: "total_suspended_reads",
    0x000B: "total_fatal_suspended_reads",
    0x000C: "last_mount_unrecovered_write_errors",
    0x000D: "last_mount_unrecovered_read_errors",
    0x000E: "last_mount_mb_written",
    0x000F: "last_mount_mb_read",
    0x0010: "lifetime_mb_written",
    0x0011: "lifetime_mb_read",
    0x0012: "last_load_write_compression_ratio",
    0x0013: "last_load_read_compression_ratio",
    0x0014: "medium_mount_time",
    0x0015: "medium_ready_time",
    0x0016: "total_native_capacity_mb",
    0x0017: "total_used_native_capacity_mb",
    0x0040: "volume_serial_number",
    0x0041: "tape_lot_identifier",
    0x0042: "volume_barcode",
    0x0043: "volume_manufacturer",
    0x0044: "volume_license_code",
    0x0045: "volume_personality",
    0x0080: "write_protect",
    0x0081: "worm",
    0x0082: "max_recommended_temperature_exceeded",
    0x0101: "bom_passes",
    0x0102: "mom_passes",
}
_VOLSTAT_TEXT = frozenset(range(0x0040, 0x0046))


@dataclass(frozen=True)
class VolumeStatistics(LogPage):
    """Page 0x17: lifetime statistics of the mounted volume. ``stats()`` gives them
    by name; text parameters (serial, barcode, manufacturer) as strings."""

    def stats(self) -> dict[str, int | str]:
        out: dict[str, int | str] = {}
        for p in self.parameters:
            name = VOLUME_STATISTICS.get(p.code)
            if name is None:
                continue
            out[name] = p.text if p.code in _VOLSTAT_TEXT else p.int
        return out


@dataclass(frozen=True)
class CompressionStatistics(LogPage):
    """Page 0x1B: compression ratios (x100) and byte counts; MB and byte parameters
    pair up (the exact count is MB * 2**20 + bytes, per SSC)."""

    @property
    def read_ratio(self) -> float | None:
        v = self.value(0x0000)
        return None if v is None else v / 100

    @property
    def write_ratio(self) -> float | None:
        v = self.value(0x0001)
        return None if v is None else v / 100

    def _pair(self, mb: int, rest: int) -> int | None:
        a, b = self.value(mb), self.value(rest)
        if a is None and b is None:
            return None
        return (a or 0) * 1_048_576 + (b or 0)

    @property
    def bytes_to_host(self) -> int | None:
        return self._pair(0x0002, 0x0003)

    @property
    def bytes_read_from_tape(self) -> int | None:
        return self._pair(0x0004, 0x0005)

    @property
    def bytes_from_host(self) -> int | None:
        return self._pair(0x0006, 0x0007)

    @property
    def bytes_written_to_tape(self) -> int | None:
        return self._pair(0x0008, 0x0009)

    @property
    def compression_enabled(self) -> bool | None:
        v = self.value(0x0100)
        return None if v is None else v != 0


@dataclass(frozen=True)
class TapeAlertFlag:
    """One TapeAlert flag as a drive reported it (page 2Eh or 12h), with its definition from ``native.scsi.tapealert``."""

    code: int
    active: bool
    definition: TapeAlertDefinition

    @property
    def name(self) -> str:
        return self.definition.name

    @property
    def severity(self) -> Severity:
        return self.definition.severity


@dataclass(frozen=True)
class TapeAlertPage(LogPage):
    """Page 0x2E: parameters 0001h-0040h, one flag each (bit 0 of a 1-byte value)."""

    @property
    def flags(self) -> tuple[TapeAlertFlag, ...]:
        return tuple(
            TapeAlertFlag(code=p.code, active=bool(p.value and p.value[-1] & 1), definition=definition(p.code))
            for p in self.parameters
            if 1 <= p.code <= 0x40
        )

    @property
    def active(self) -> tuple[TapeAlertFlag, ...]:
        return tuple(f for f in self.flags if f.active)


# HP LTO "Performance Data" log page 0x34.
# Public source: HP Ultrium Generation 3 technical reference manual, volume 3 "The SCSI
# interface" (Q1530-90901, edition 6, Dec 2004), LOG SENSE chapter, "Performance Data
# log page": parameters 0-4, each 2 bytes, control byte 60h; rates in units of 100 KB/s;
# all cleared at tape load except the native rate, which is fixed.
#   0 repositions per 100 MB written (tape direction changes: shoe-shining)
#   1 data rate into the buffer, after compression: the true tape rate
#   2 maximum data rate this data allows (compressibility x compressor bandwidth, capped)
#   3 current data rate: what the host delivers, before compression
#   4 native data rate of the drive
# Inferred, not stated there: later HP generations keep codes and units (the design
# note and HP L&TT use the page on every generation; HPE's newer references are not
# public); "KB" is 1000 bytes (the manual's table gives 96h = 150 for 15 MB/s and
# 12Ch = 300 for 30 MB/s; its Gen 3 row, 230h for 80 MB/s, is inconsistent with every
# other row and is not relied on); a drive that sends wider fields is read at their
# length, as every other counter here.
HP_PERFORMANCE = {
    0x0000: "repositions_per_100mb",
    0x0001: "buffer_in_mb_s",
    0x0002: "max_possible_mb_s",
    0x0003: "current_mb_s",
    0x0004: "native_mb_s",
}
HP_RATE_UNIT_MB_S = 0.1  # 100 KB/s


@dataclass(frozen=True)
class HpPerformance(LogPage):
    """HP LTO page 0x34: how efficiently the drive is being fed (see the table above).

    The host is the bottleneck when ``current_mb_s`` is well below ``max_possible_mb_s``
    and repositions climb; the tape is when ``buffer_in_mb_s`` sits at ``native_mb_s``.
    """

    @classmethod
    def from_page(cls, page: LogPage) -> "HpPerformance":
        if page.page_code != PAGE_HP_PERFORMANCE or page.subpage != 0:
            raise ParseError(f"log page 0x{page.page_code:02X},{page.subpage:02X} is not the HP performance page 0x34")
        return cls(page_code=page.page_code, subpage=page.subpage, ds=page.ds, spf=page.spf, parameters=page.parameters)

    def _rate(self, code: int) -> float | None:
        v = self.value(code)
        return None if v is None else round(v * HP_RATE_UNIT_MB_S, 1)

    @property
    def repositions_per_100mb(self) -> int | None:
        return self.value(0x0000)

    @property
    def buffer_in_mb_s(self) -> float | None:
        return self._rate(0x0001)

    @property
    def max_possible_mb_s(self) -> float | None:
        return self._rate(0x0002)

    @property
    def current_mb_s(self) -> float | None:
        return self._rate(0x0003)

    @property
    def native_mb_s(self) -> float | None:
        return self._rate(0x0004)

    def figures(self) -> dict[str, int | float]:
        """The parameters present, by name (``HP_PERFORMANCE``), in MB/s for rates."""
        return {name: getattr(self, name) for code, name in HP_PERFORMANCE.items() if self.param(code) is not None}


def error_counters_page(page_code: int, *, corrected: int | None = None, uncorrected: int | None = None,
                        retries: int | None = None, processed: int | None = None) -> bytes:
    """Page 02h or 03h holding the totals given (None: the parameter is left out), for tests and stored runs."""
    values = {0x0002: retries, 0x0003: corrected, 0x0005: processed, 0x0006: uncorrected}
    params = tuple(counter(code, v, 8) for code, v in values.items() if v is not None)
    return LogPage(page_code, 0, False, False, params).build()


def hp_performance_page(repositions: int, buffer_in: int, max_possible: int, current: int, native: int) -> bytes:
    """Page 0x34 as the HP manual lays it out (rates in 100 KB/s units): for tests and the virtual drive."""
    values = (repositions, buffer_in, max_possible, current, native)
    # Control byte 60h as the manual gives it (bit 6, obsolete DS, is not modelled by LogParameter).
    body = b"".join(c.to_bytes(2, "big") + bytes([0x60, 2]) + v.to_bytes(2, "big") for c, v in enumerate(values))
    return bytes([PAGE_HP_PERFORMANCE, 0]) + len(body).to_bytes(2, "big") + body


def tapealert_page(active: set[int] | frozenset[int]) -> bytes:
    """A full 64-flag TapeAlert page with the given flags set (test transports, virtual drive)."""
    params = tuple(LogParameter(code=c, du=False, tsd=False, etc=False, tmc=0, format_linking=0, value=bytes([1 if c in active else 0]))
                   for c in range(1, 0x41))
    return LogPage(PAGE_TAPEALERT, 0, False, False, params).build()

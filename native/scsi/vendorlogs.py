"""Vendor-specific LTO log pages (codes 30h-3Eh), gated by the INQUIRY vendor (issue 15).

The same page code means different things on different drives: 34h is HP's "performance
data" page but IBM's "read forward errors" page. So nothing here is decoded by page code
alone: ``vendor_family(inquiry.vendor)`` names the family and ``decode_vendor_page(family,
data)`` applies that family's table. A page tapediag has no public layout for is still shown,
by name, with every parameter raw (code and hex bytes): it is never hidden.

What public sources document, and so what is decoded (everything else is raw):

=====  ======  ==========================  ===================================================
page   family  name                        layout from
=====  ======  ==========================  ===================================================
0x30   HP IBM  tape usage                  HP Ultrium technical reference manual C7379-90900
                                           (the Ultrium 1/2 drives' volume 3), Commands, LOG
                                           SENSE "Tape Usage Log Page": parameters 1-9
                                           (widths 4 8 4 2 2 2 8 4 2), read from
                                           the LTO-CM tape usage log. sg3_utils sg_logs
                                           (src/sg_logs_vendor.c show_tape_usage_page, "LTO-5
                                           and LTO-6 specific", vendor-neutral LTO) decodes the
                                           same widths and adds 0Ah/0Bh (suspended reads, fatal
                                           suspended reads, 2 bytes each)
0x31   HP IBM  tape capacity               same manual, and HP Ultrium Generation 3 technical
                                           reference manual vol. 3 (Q1530-90901), Commands,
                                           "Tape Capacity log page": parameters
                                           1-4, 4 bytes each, in megabytes of 1 048 576 bytes,
                                           native (uncompressed); sg_logs show_tape_capacity_page
                                           (MiB); LTFS src/tape_drivers/ibm_tape.h
                                           ``TAPECAP_REMAIN_0``... reads the same four from IBM
                                           LTO-5 drives (src/tape_drivers/linux/sg/sg_tape.c
                                           sg_remaining_capacity)
0x32   HP IBM  data compression            same two HP manuals "Data Compression log page": the
                                           layout SSC-4 later standardised as page 1Bh; the
                                           megabyte count is rounded to the nearest MiB and the
                                           4-byte remainder may be negative (signed); sg_logs
                                           decodes 32h with its 1Bh decoder
0x37   IBM     performance characteristics parameter 0001h only: "media efficiency" (LTFS
                                           sg_tape.c ``PERF_CART_CONDITION``, read by
                                           sg_get_cartridge_health at any width of 1, 2, 4 or 8
                                           bytes; Oracle StorageTek Tape Analytics reference:
                                           "IBM Media Efficiency", 01h best ... FFh worst, 00h
                                           unknown). The other parameters: raw
=====  ======  ==========================  ===================================================

Named but not decoded (no public parameter layout found; sg_logs names them, and prints them
in hex too): HP 33h write errors, 34h (``logpages.HpPerformance``, decoded elsewhere), 35h DT
device error, 3Eh device status; IBM 33h write errors, 34h read forward errors, 35h DT device
error, 38h blocks/bytes transferred, 39h host port 0 interface errors, 3Ah drive control
verification, 3Bh host port 1 interface errors, 3Ch drive usage information, 3Dh subsystem
statistics, 3Eh device status. Names: sg3_utils src/sg_logs.c page table (``-M lto5``), which
follows the IBM LTO SCSI Reference (GA32-0928) page list.

Quantum (INQUIRY "QUANTUM"): 3Eh "tape device statistics" is decoded after Quantum's LTO-3 and
LTO-4 tape drive SCSI references (section 3.9.20 "Tape Device Statistics Log Page (3Eh)", page
length 6Ch): 7000h the TapeAlert flags bitmap (8 bytes), 8000h-8005h drive lifetime loads, motion
hours, motion hours since the last clean, the periodic cleaning interval (motion hours), GB
written and read; 9000h-9005h the loaded medium's lifetime loads, wear passes and wear hours,
each with the drive's own threshold for it (4 bytes each). Those manuals cover Quantum's own
LTO-3/LTO-4 mechanisms; a later Quantum-badged drive that sends other codes in 3Eh has them shown
raw, as every code not in the table is.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from native.errors import ParseError
from native.scsi.logpages import LogPage, LogParameter

HP, IBM, QUANTUM = "hp", "ibm", "quantum"

#: INQUIRY vendor identification (trimmed, upper case) -> page family.
_FAMILY = {"HP": HP, "HPE": HP, "IBM": IBM, "QUANTUM": QUANTUM}

SOURCE_HP_MANUAL = ("HP Ultrium technical reference manuals C7379-90900 and Q1530-90901 vol. 3, Commands, "
                    "LOG SENSE; sg3_utils sg_logs")
SOURCE_SG_LOGS_NAME = "page name: sg3_utils sg_logs page table (IBM LTO SCSI Reference page list); no public parameter layout"
SOURCE_LTFS_37 = "parameter 0001h: LTFS sg_tape.c PERF_CART_CONDITION (media efficiency); others: no public layout"
SOURCE_LTFS_31 = ("HP Ultrium technical reference manuals C7379-90900 and Q1530-90901 vol. 3, Tape Capacity log page; "
                  "sg3_utils sg_logs; LTFS ibm_tape.h TAPECAP_* for IBM LTO")

#: Page 30h parameter code -> (name, width in bytes the HP manual / sg_logs give it).
TAPE_USAGE: dict[int, tuple[str, int]] = {
    0x0001: ("thread_count", 4),
    0x0002: ("total_data_sets_written", 8),
    0x0003: ("total_write_retries", 4),
    0x0004: ("total_unrecovered_write_errors", 2),
    0x0005: ("total_suspended_writes", 2),
    0x0006: ("total_fatal_suspended_writes", 2),
    0x0007: ("total_data_sets_read", 8),
    0x0008: ("total_read_retries", 4),
    0x0009: ("total_unrecovered_read_errors", 2),
    0x000A: ("total_suspended_reads", 2),
    0x000B: ("total_fatal_suspended_reads", 2),
}

#: Page 31h parameter code -> name; values in MiB (1 048 576 bytes), native.
TAPE_CAPACITY: dict[int, str] = {
    0x0001: "main_partition_remaining_mib",
    0x0002: "alternate_partition_remaining_mib",
    0x0003: "main_partition_maximum_mib",
    0x0004: "alternate_partition_maximum_mib",
}

SOURCE_QUANTUM_3E = ("Quantum LTO-3 / LTO-4 tape drive SCSI reference, 3.9.20 Tape Device Statistics Log Page (3Eh)")

#: Quantum page 3Eh parameter code -> name (4-byte counters; 7000h is an 8-byte bitmap).
QUANTUM_DEVICE_STATISTICS: dict[int, str] = {
    0x7000: "tapealert_flags",
    0x8000: "drive_lifetime_loads",
    0x8001: "drive_lifetime_motion_hours",
    0x8002: "drive_motion_hours_since_clean",
    0x8003: "drive_cleaning_interval_motion_hours",
    0x8004: "drive_lifetime_gb_written",
    0x8005: "drive_lifetime_gb_read",
    0x9000: "media_lifetime_loads",
    0x9001: "media_lifetime_loads_threshold",
    0x9002: "media_lifetime_wear_passes",
    0x9003: "media_lifetime_wear_passes_threshold",
    0x9004: "media_lifetime_wear_hours",
    0x9005: "media_lifetime_wear_hours_threshold",
}

#: IBM page 37h: the one parameter a public source names.
IBM_PERFORMANCE: dict[int, str] = {0x0001: "media_efficiency"}


@dataclass(frozen=True)
class PageSpec:
    """What tapediag knows about one vendor page of one family."""

    code: int
    name: str
    source: str
    names: dict[int, str] = field(default_factory=dict)  # decoded parameter codes -> field names


def _usage_names() -> dict[int, str]:
    return {code: name for code, (name, _) in TAPE_USAGE.items()}


_COMPRESSION_NAMES = {0x0000: "read_compression_ratio_x100", 0x0001: "write_compression_ratio_x100",
                      0x0100: "compression_enabled"}

_SHARED = {
    0x30: PageSpec(0x30, "tape usage", SOURCE_HP_MANUAL, _usage_names()),
    0x31: PageSpec(0x31, "tape capacity", SOURCE_LTFS_31, dict(TAPE_CAPACITY)),
    0x32: PageSpec(0x32, "data compression", SOURCE_HP_MANUAL + " (the SSC-4 page 1Bh layout)", dict(_COMPRESSION_NAMES)),
    0x33: PageSpec(0x33, "write errors", SOURCE_SG_LOGS_NAME),
    0x35: PageSpec(0x35, "DT device error", SOURCE_SG_LOGS_NAME),
    0x3E: PageSpec(0x3E, "device status", SOURCE_SG_LOGS_NAME),
}

PAGES: dict[str, dict[int, PageSpec]] = {
    HP: {**_SHARED,
         0x34: PageSpec(0x34, "performance data", "HP Ultrium technical reference manual (Q1530-90901), "
                                                  "Performance Data log page (decoded as HpPerformance)")},
    IBM: {**_SHARED,
          0x34: PageSpec(0x34, "read forward errors", SOURCE_SG_LOGS_NAME),
          0x37: PageSpec(0x37, "performance characteristics", SOURCE_LTFS_37, dict(IBM_PERFORMANCE)),
          0x38: PageSpec(0x38, "blocks/bytes transferred", SOURCE_SG_LOGS_NAME),
          0x39: PageSpec(0x39, "host port 0 interface errors", SOURCE_SG_LOGS_NAME),
          0x3A: PageSpec(0x3A, "drive control verification", SOURCE_SG_LOGS_NAME),
          0x3B: PageSpec(0x3B, "host port 1 interface errors", SOURCE_SG_LOGS_NAME),
          0x3C: PageSpec(0x3C, "drive usage information", SOURCE_SG_LOGS_NAME),
          0x3D: PageSpec(0x3D, "subsystem statistics", SOURCE_SG_LOGS_NAME)},
    QUANTUM: {0x3E: PageSpec(0x3E, "tape device statistics", SOURCE_QUANTUM_3E, dict(QUANTUM_DEVICE_STATISTICS))},
}


def vendor_family(vendor: str) -> str | None:
    """``HP``/``HPE`` -> "hp", ``IBM`` -> "ibm", ``QUANTUM`` -> "quantum"; anything else None (its vendor
    pages are shown raw)."""
    return _FAMILY.get(vendor.strip().upper())


def page_spec(family: str | None, code: int) -> PageSpec:
    """The spec of a vendor page; an unknown family or code gets a bare "vendor page" spec (raw only)."""
    known = PAGES.get(family or "", {}).get(code)
    return known or PageSpec(code, "vendor-specific page", "no public layout known to tapediag for this vendor")


@dataclass(frozen=True)
class RawParameter:
    """A parameter tapediag does not decode: its code and bytes, shown as they came."""

    code: int
    hex: str

    @classmethod
    def of(cls, p: LogParameter) -> "RawParameter":
        return cls(p.code, p.value.hex())


@dataclass(frozen=True)
class VendorPage:
    """One vendor page as shown: decoded figures by name, the rest raw, and where the layout comes from."""

    family: str | None
    page_code: int
    name: str
    source: str
    figures: dict[str, int]
    raw: tuple[RawParameter, ...]
    problem: str = ""  # why the page could not be shown (an error reading or decoding it); "" when it could

    @classmethod
    def unreadable(cls, family: str | None, code: int, problem: str) -> "VendorPage":
        """A listed page that could not be read or decoded: still named, with the reason, never dropped."""
        spec = page_spec(family, code)
        return cls(family=family if family in PAGES else None, page_code=code, name=spec.name, source=spec.source,
                   figures={}, raw=(), problem=problem)

    @property
    def title(self) -> str:
        who = {HP: "HP", IBM: "IBM", QUANTUM: "Quantum"}.get(self.family or "", "vendor")
        return f"{who} log page 0x{self.page_code:02X}: {self.name}"


def _figures(page: LogPage, names: dict[int, str]) -> tuple[dict[str, int], tuple[RawParameter, ...]]:
    figures: dict[str, int] = {}
    raw: list[RawParameter] = []
    for p in page.parameters:
        name = names.get(p.code)
        if name is None or not p.value or len(p.value) > 8:
            raw.append(RawParameter.of(p))
        else:
            figures[name] = p.int
    return figures, tuple(raw)


#: Page 32h (megabytes, remainder) parameter pairs -> exact byte-count figure.
_COMPRESSION_PAIRS = ((0x0002, 0x0003, "bytes_to_host"), (0x0004, 0x0005, "bytes_read_from_tape"),
                      (0x0006, 0x0007, "bytes_from_host"), (0x0008, 0x0009, "bytes_written_to_tape"))


def _compression(page: LogPage) -> tuple[dict[str, int], tuple[RawParameter, ...]]:
    """Page 32h: the ratios and flag by name, each megabytes/remainder pair folded into one byte count.

    HP's manual (Q1530-90901, Data Compression log page): the megabyte count is *rounded to the
    nearest* megabyte (of 1 048 576 bytes) and the remainder "may be a signed quantity", so a 4-byte
    remainder is read as two's complement. A pair with either half missing stays raw."""
    figures, raw = _figures(page, _COMPRESSION_NAMES)
    used: set[int] = set()
    for mb_code, rest_code, name in _COMPRESSION_PAIRS:
        mb, rest = page.param(mb_code), page.param(rest_code)
        if mb is None or rest is None or not mb.value or not rest.value or len(mb.value) > 8 or len(rest.value) > 8:
            continue
        remainder = int.from_bytes(rest.value, "big", signed=len(rest.value) == 4)
        figures[name] = mb.int * 1_048_576 + remainder
        used |= {mb_code, rest_code}
    return figures, tuple(r for r in raw if r.code not in used)


def decode_vendor_page(family: str | None, data: bytes) -> VendorPage:
    """Decode a vendor page (30h-3Eh) the way ``family`` documents it; raises ``ParseError`` only for a
    malformed page (a parameter running past the page end), never for an unknown one."""
    return vendor_page_from(family, LogPage.parse(bytes(data)))


def vendor_page_from(family: str | None, page: LogPage) -> VendorPage:
    """``decode_vendor_page`` for a page already split into parameters (``TapeDrive.log_sense``)."""
    if page.page_code < 0x30 or page.page_code > 0x3E:
        raise ParseError(f"log page 0x{page.page_code:02X} is not a vendor-specific page (30h-3Eh)")
    spec = page_spec(family, page.page_code)
    figures: dict[str, int]
    raw: tuple[RawParameter, ...]
    if page.subpage != 0:
        figures, raw = {}, tuple(RawParameter.of(p) for p in page.parameters)
    elif spec.code == 0x32 and spec.names:
        figures, raw = _compression(page)
    else:
        figures, raw = _figures(page, spec.names)
    return VendorPage(family=family if family in PAGES else None, page_code=page.page_code,
                      name=spec.name, source=spec.source, figures=figures, raw=raw)


def vendor_log_page(code: int, params: list[tuple[int, bytes]], control: int = 0x00) -> bytes:
    """A vendor page from (parameter code, value) pairs: for tests and round trips."""
    built = tuple(LogParameter(code=c, du=bool(control & 0x80), tsd=bool(control & 0x20), etc=bool(control & 0x10),
                               tmc=(control >> 2) & 3, format_linking=control & 3, value=bytes(v)) for c, v in params)
    return LogPage(code, 0, False, False, built).build()

"""The virtual drive's vendor log pages (30h-3Eh) and its two personalities, HP and IBM (issue 15).

Encoded here from the vendors' documents, independently of the host-side decoder
(``native.scsi.vendorlogs``); the tests read these bytes with both it and ``sg_logs -M lto5``.

* 30h tape usage: HP Ultrium technical reference manual (Q1530-90901 vol. 3), "Tape Usage Log
  Page": parameters 1-9 with widths 4 8 4 2 2 2 8 4 2, control byte 00h here.
* 31h tape capacity: same manual: parameters 1-4, 4 bytes, MiB, native; one partition, so the
  alternate partition's 2 and 4 are 0 (the manual: "not supported and returned as zero").
* 32h data compression: same manual: the SSC page 1Bh layout (``reports._log_compression``).
* IBM 37h: parameter 0001h "media efficiency" (LTFS sg_tape.c); the width is not published, the
  virtual drive sends 1 byte (LTFS reads 1, 2, 4 or 8). Its value is a model: 01h ("best", per
  Oracle STA's description) for a healthy drive, 80h with ``worn=1``.
* IBM 33h 34h 38h 39h 3Bh 3Ch 3Dh: listed, as a real IBM ULT3580-TD6/TDA lists them, but no public
  layout exists for their parameters, so the virtual drive sends each with no parameters rather
  than invented ones.

Personalities: ``vendor=hp`` (default) answers INQUIRY "HPE" / "Ultrium N-SCSI" and lists the
HP pages; ``vendor=ibm`` answers "IBM" / "ULT3580-TDN" (IBM names generation 10 "TDA") and lists
exactly the IBM list of issue 15: 00 02 03 06 0C 11 12 14 16 17 1A 1B 2E 30 31 32 33 34 37 38 39
3B 3C 3D (no 0Dh temperature, no 18h SAS port page: IBM's list has neither).
"""
from __future__ import annotations

from native.virtual import pages

HP, IBM = "hp", "ibm"
VENDORS = (HP, IBM)

#: The IBM pages with no public parameter layout: listed, sent empty.
IBM_UNDOCUMENTED = (0x33, 0x34, 0x38, 0x39, 0x3B, 0x3C, 0x3D)
#: Pages an IBM drive does not list (issue 15's real IBM list), though the HP personality does.
NOT_ON_IBM = (0x0D, 0x18)

DATA_SET_BYTES = 400 * 1024  # the same approximation page 17h uses (reports._log_volume)


def product(vendor: str, generation: int) -> tuple[str, str]:
    """(INQUIRY vendor, product) of the personality: ("HPE", "Ultrium 9-SCSI") or ("IBM", "ULT3580-TD9")."""
    if vendor == IBM:
        return "IBM", f"ULT3580-TD{generation:X}"  # IBM: TD5 ... TD9, then TDA for LTO-10
    return pages.VENDOR, f"Ultrium {generation}-SCSI"


def worn_retries(processed: int, per_gb: float) -> int:
    """Rewrites/rereads a worn head needs for ``processed`` bytes (``wornhead=``/``worn=1``, a model)."""
    return int(processed * per_gb / 1e9)


def tape_usage(*, loads: int, tape_written: int, tape_read: int, worn_head: float) -> list[bytes]:
    """30h from the cartridge's lifetime counters (HP manual widths)."""
    values = ((1, loads, 4), (2, tape_written // DATA_SET_BYTES, 8), (3, worn_retries(tape_written, worn_head), 4),
              (4, 0, 2), (5, 0, 2), (6, 0, 2), (7, tape_read // DATA_SET_BYTES, 8), (8, worn_retries(tape_read, worn_head), 4),
              (9, 0, 2))
    return [pages.counter(code, value, width) for code, value, width in values]


def tape_capacity(*, remaining_mib: int, maximum_mib: int) -> list[bytes]:
    """31h: main partition remaining and maximum, in MiB; the alternate partition (none) is 0."""
    return [pages.counter(1, remaining_mib), pages.counter(2, 0), pages.counter(3, maximum_mib), pages.counter(4, 0)]


def ibm_performance(*, worn: bool) -> list[bytes]:
    """IBM 37h: only the media efficiency parameter (0001h) is publicly named."""
    return [pages.log_param(0x0001, bytes([0x80 if worn else 0x01]), 0x03)]


def undocumented() -> list[bytes]:
    """An IBM page with no public layout: sent with no parameters (see the module docstring)."""
    return []

"""Every parser, fed arbitrary bytes, either parses or raises ParseError - nothing else.

Device responses are untrusted input: a firmware bug must end in one clear error,
never an IndexError or struct.error deep in a report.
"""
from __future__ import annotations

from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native.scsi.buffers import BufferDescriptor, ErrorHistoryDirectory
from native.scsi.density_support import DensitySupport
from native.scsi.inquiry import DeviceIdentification, Inquiry, SupportedVpdPages, UnitSerialNumber
from native.scsi.logpages import LogPage, SupportedPages
from native.scsi.logparse import parse_log_page
from native.scsi.mam import Mam, parse_attribute_list
from native.scsi.mode import CompressionPage, DeviceConfigurationPage, ModeData, ModePage
from native.scsi.sense import Sense
from native.scsi.position import LongPosition, Position
from native.scsi.tape import BlockLimits
from native.errors import ParseError
from tests.scsi import samples


def _log_page_rendered(data: bytes) -> object:
    page = parse_log_page(data)
    # Typed properties must not fail either.
    for name in ("flags", "active", "pages", "total_uncorrected", "cleaning_required", "read_ratio", "bytes_written_to_tape"):
        getattr(page, name, None)
    if hasattr(page, "stats"):
        page.stats()
    return page


def _sense_rendered(data: bytes) -> str:
    return Sense.parse(data).describe()


def _mam_rendered(data: bytes) -> object:
    mam = Mam.parse(data)
    return [(a.name, a.value, a.unit) for a in mam.attributes], mam.medium_type, mam.barcode


def _mode_pages(data: bytes, ten: bool) -> object:
    md = ModeData.parse(data, ten=ten)
    for page in md.pages:
        for typed in (CompressionPage, DeviceConfigurationPage):
            try:
                typed.from_page(page)
            except ParseError:
                pass
    md.select_data(ten=ten)
    return md


PARSERS = {
    "sense": _sense_rendered,
    "sense_descriptor": _sense_rendered,
    "inquiry": Inquiry.parse,
    "vpd00": SupportedVpdPages.parse,
    "vpd80": UnitSerialNumber.parse,
    "vpd83": lambda d: DeviceIdentification.parse(d).wwn,
    "block_limits": BlockLimits.parse,
    "position": Position.parse,
    "long_position": LongPosition.parse,
    "mode6": partial(_mode_pages, ten=False),
    "mode10": partial(_mode_pages, ten=True),
    "density": DensitySupport.parse,
    "log_generic": LogPage.parse,
    "log_typed": _log_page_rendered,
    "log_supported": SupportedPages.parse,
    "mam": _mam_rendered,
    "attribute_list": parse_attribute_list,
    "error_history_directory": ErrorHistoryDirectory.parse,
    "buffer_descriptor": BufferDescriptor.parse,
}

SEEDS = {
    "sense": bytes.fromhex("f0 00 63 ff ff ff 9c 0a 00 00 00 07 11 00 05 00 00 00"),
    "sense_descriptor": bytes.fromhex("73 08 00 05 00 00 00 24 00 0a 80 00 ff ff ff ff ff ff ff fe 04 02 00 c0"
                                      " 01 0a 00 00 00 00 00 00 00 00 00 2a 02 06 00 00 80 40 00 00"),
    "inquiry": samples.inquiry(),
    "vpd00": samples.vpd00(),
    "vpd80": samples.vpd80(),
    "vpd83": samples.vpd83(),
    "block_limits": bytes(6),
    "position": bytes(20),
    "long_position": bytes(32),
    "mode6": samples.mode_sense6(pages=samples.compression_page() + samples.device_config_page()),
    "mode10": samples.mode_sense10(pages=samples.compression_page()),
    "density": samples.density_support(),
    "log_generic": samples.error_counters(),
    "log_typed": samples.tapealert(),
    "log_supported": samples.supported_log_pages(),
    "mam": samples.mam(),
    "attribute_list": bytes([0, 0, 0, 2, 4, 1]),
    # IBM's directory header (CLR_SUP, EHS_RETRIEVED 10b), its own entry and one 55-byte data buffer 10h
    "error_history_directory": b"IBM     " + bytes([0, 0x11]) + bytes(20) + bytes([0, 16])
    + bytes([0x00, 0, 1, 0, 0, 0, 0, 48]) + bytes([0x10, 0, 1, 0, 0, 0, 0, 55]),
    "buffer_descriptor": bytes([0, 0x0A, 0, 0]),
}


def _mutations(seed: bytes) -> st.SearchStrategy[bytes]:
    """Arbitrary bytes, plus the realistic response truncated or with bytes flipped."""
    flipped = st.tuples(st.integers(0, max(0, len(seed) - 1)), st.integers(0, 255), st.integers(1, len(seed) or 1)).map(
        lambda t: (seed[: t[0]] + bytes([t[1]]) + seed[t[0] + 1:])[: t[2]])
    return st.one_of(st.binary(max_size=300), flipped)


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_parser_raises_only_parse_error(name: str) -> None:
    parser = PARSERS[name]

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(data=_mutations(SEEDS[name]))
    def run(data: bytes) -> None:
        try:
            parser(data)
        except ParseError:
            pass

    run()


@given(code=st.integers(0, 0x3F), sub=st.integers(0, 255), body=st.binary(max_size=40), spf=st.booleans())
@settings(max_examples=200, deadline=None)
def test_typed_mode_pages_from_arbitrary_pages(code: int, sub: int, body: bytes, spf: bool) -> None:
    page = ModePage(code=code, subpage=sub, ps=False, spf=spf, body=body)
    for typed in (CompressionPage, DeviceConfigurationPage):
        try:
            typed.from_page(page)
        except ParseError:
            pass

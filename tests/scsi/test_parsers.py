"""Response parsers: known bytes -> expected fields, and build -> parse round trips."""
from __future__ import annotations

import pytest

from native.scsi.density import LTO_DENSITIES, density_name, lto_generation
from native.scsi.density_support import DensitySupport
from native.scsi.inquiry import DeviceIdentification, Inquiry, SupportedVpdPages, UnitSerialNumber
from native.scsi.logpages import CompressionStatistics, ErrorCounters, LogPage, SequentialAccess, SupportedPages, TapeAlertPage, VolumeStatistics
from native.scsi.logparse import parse_log_page
from native.scsi.mam import Mam, parse_attribute_list
from native.scsi.mode import BlockDescriptor, CompressionPage, DeviceConfigurationPage, ModeData
from native.scsi.position import LongPosition, Position
from native.scsi.tape import BlockLimits
from native.scsi.tapealert import TAPEALERTS, Severity
from native.errors import ParseError
from tests.scsi import samples


def test_inquiry() -> None:
    inq = Inquiry.parse(samples.inquiry())
    assert (inq.vendor, inq.product, inq.revision) == ("HPE", "Ultrium 9-SCSI", "Q3A1")
    assert inq.is_tape and inq.removable and inq.version == 6 and inq.device_type_name == "tape"
    with pytest.raises(ParseError):
        Inquiry.parse(samples.inquiry()[:35])


def test_vpd_pages() -> None:
    assert SupportedVpdPages.parse(samples.vpd00()).pages == (0x00, 0x80, 0x83, 0xB0, 0xC0)
    assert UnitSerialNumber.parse(samples.vpd80("HU99")).serial == "HU99"
    ident = DeviceIdentification.parse(samples.vpd83())
    assert ident.wwn == "0x500110a0001a2b3c"
    assert [d.type_name for d in ident.designators] == ["NAA", "T10 vendor ID", "NAA"]
    assert ident.designators[1].text == "HPE     Ultrium 9-SCSI  HU12345678"
    assert ident.designators[0].naa == 5 and ident.designators[2].association_name == "target port"
    with pytest.raises(ParseError, match="expected 0x80"):
        UnitSerialNumber.parse(samples.vpd83())


def test_block_limits_and_positions() -> None:
    bl = BlockLimits.parse(bytes([0x02, 0xFF, 0xFF, 0xFF, 0x00, 0x01]))
    assert (bl.granularity, bl.max_length, bl.min_length) == (2, 0xFFFFFF, 1)
    short = bytes([0xA4, 1, 0, 0]) + (7).to_bytes(4, "big") + (5).to_bytes(4, "big") + bytes([0, 0, 0, 2]) + (4096).to_bytes(4, "big")
    p = Position.parse(short)
    assert (p.bop, p.eop, p.bpu, p.locu, p.partition, p.first_block, p.last_block, p.buffered_blocks, p.buffered_bytes) == (
        True, False, True, True, 1, 7, 5, 2, 4096)
    long = bytes([0x40, 0, 0, 0]) + (3).to_bytes(4, "big") + (1 << 33).to_bytes(8, "big") + (12).to_bytes(8, "big") + bytes(8)
    lp = LongPosition.parse(long)
    assert (lp.eop, lp.partition, lp.logical_object, lp.logical_file) == (True, 3, 1 << 33, 12)


def test_mode_sense6_with_pages() -> None:
    data = samples.mode_sense6(density=0x5A, block=0, wp=True, buffered=1,
                               pages=samples.compression_page() + samples.device_config_page(rew=True))
    md = ModeData.parse(data, ten=False)
    assert md.write_protected and md.buffered_mode == 1 and md.density_code == 0x5A and md.block_length == 0
    comp = CompressionPage.from_page(md.page(0x0F))
    assert (comp.dce, comp.dcc, comp.dde, comp.red, comp.compression_algorithm) == (True, True, True, 0, 1)
    assert comp.ps
    cfg = DeviceConfigurationPage.from_page(md.page(0x10))
    assert cfg.rew and cfg.sew and cfg.eeg and cfg.select_compression_algorithm == 1


def test_mode_sense10_matches_mode_sense6() -> None:
    pages = samples.compression_page(dce=False)
    six = ModeData.parse(samples.mode_sense6(block=262144, pages=pages), ten=False)
    ten = ModeData.parse(samples.mode_sense10(block=262144, pages=pages), ten=True)
    assert (six.block_length, six.density_code, six.pages) == (ten.block_length, ten.density_code, ten.pages)


def test_mode_select_data_from_parsed_sense() -> None:
    md = ModeData.parse(samples.mode_sense6(density=0x60, block=0, wp=True, pages=samples.compression_page(ps=True)), ten=False)
    changed = md.with_block_length(65536)
    six = changed.select_data(ten=False)
    assert six[0] == 0  # mode data length reserved in MODE SELECT
    assert six[3] == 8 and six[4] == 0x60 and six[9:12] == (65536).to_bytes(3, "big")
    assert six[12] == 0x0F  # PS bit cleared
    back = ModeData.parse(bytes([len(six) - 1]) + six[1:], ten=False)
    assert back.block_length == 65536 and back.page(0x0F).body == md.page(0x0F).body
    ten = changed.select_data(ten=True)
    assert ten[:2] == b"\x00\x00" and ten[6:8] == (8).to_bytes(2, "big") and ten[16] == 0x0F


def test_compression_page_round_trip() -> None:
    page = CompressionPage(dce=True, dcc=True, dde=False, red=2, compression_algorithm=0xFF, decompression_algorithm=3)
    assert CompressionPage.from_page(page.to_page()) == page


def test_block_descriptor_round_trip() -> None:
    bd = BlockDescriptor(0x5E, 0, 524288)
    assert BlockDescriptor.parse(bd.build()) == bd


@pytest.mark.parametrize("data", [b"\x03\x00\x00\x08", b"\x0b\x00\x00\x00\x0f\x0e\x00\x00"])
def test_malformed_mode_data(data: bytes) -> None:
    with pytest.raises(ParseError):
        ModeData.parse(data, ten=False)


def test_density_support_and_generations() -> None:
    ds = DensitySupport.parse(samples.density_support(), media=True)
    assert len(ds.descriptors) == 2 and ds.media
    d = ds.default
    assert (d.primary_code, d.wrtok, d.deflt, d.bits_per_mm, d.media_width, d.tracks, d.capacity_mb) == (
        0x60, True, True, 20668, 127, 8960, 18_000_000)
    assert (d.assigning_organization, d.density_name, d.description, d.generation) == ("LTO-CVE", "U-832", "Ultrium 9/16T", 9)
    assert DensitySupport.parse(ds.build()) == DensitySupport(ds.descriptors)
    assert [lto_generation(c) for c in (0x40, 0x42, 0x44, 0x46, 0x58, 0x5A, 0x5C, 0x5D, 0x5E, 0x60, 0x62, 0x63)] == [1, 2, 3, 4, 5, 6, 7, 8, 8, 9, 10, 10]
    assert lto_generation(0x00) is None and lto_generation(0x99) is None
    assert density_name(0x5D) == "LTO-7 type M (M8)" and density_name(0) == "default" and len(LTO_DENSITIES) == 12


def test_log_pages_typed() -> None:
    assert isinstance(parse_log_page(samples.supported_log_pages()), SupportedPages)
    assert parse_log_page(samples.supported_log_pages()).pages == (0x00, 0x02, 0x03, 0x0C, 0x17, 0x1B, 0x2E)
    we = parse_log_page(samples.error_counters(0x02))
    assert isinstance(we, ErrorCounters) and we.direction == "write"
    assert (we.corrected_without_delay, we.corrected_with_delay, we.total_retries, we.total_corrected,
            we.correction_algorithm_processed, we.total_bytes_processed, we.total_uncorrected) == (11, 22, 33, 44, 55, 123_456_789, 7)
    sa = parse_log_page(samples.sequential_access(cleaning=1))
    assert isinstance(sa, SequentialAccess) and sa.cleaning_required and sa.bytes_from_host == 10_000_000_000
    vs = parse_log_page(samples.volume_statistics())
    assert isinstance(vs, VolumeStatistics)
    stats = vs.stats()
    assert stats["thread_count"] == 321 and stats["volume_barcode"] == "ABC001L9" and stats["lifetime_mb_written"] == 987_654
    cs = parse_log_page(samples.compression_log())
    assert isinstance(cs, CompressionStatistics)
    assert cs.read_ratio == 2.5 and cs.write_ratio == 1.8 and cs.bytes_written_to_tape == 3 * 1_048_576 + 100
    ta = parse_log_page(samples.tapealert())
    assert isinstance(ta, TapeAlertPage) and len(ta.flags) == 64
    assert [(f.code, f.name, f.severity) for f in ta.active] == [
        (0x04, "Media", Severity.CRITICAL), (0x14, "Cleaning required", Severity.CRITICAL), (0x1F, "Hardware B", Severity.CRITICAL)]


def test_generic_log_page_round_trip() -> None:
    page = LogPage.parse(samples.error_counters(0x03))
    assert LogPage.parse(page.build()) == page
    assert page.param(5).format_linking == 0b10 and page.value(0x99) is None


def test_tapealert_table_complete() -> None:
    assert sorted(TAPEALERTS) == list(range(1, 65))
    counts = {s: sum(1 for d in TAPEALERTS.values() if d.severity is s) for s in Severity}
    assert all(counts.values())
    assert TAPEALERTS[0x14].name == "Cleaning required" and TAPEALERTS[0x04].severity is Severity.CRITICAL


def test_mam() -> None:
    mam = Mam.parse(samples.mam())
    assert (mam.remaining_capacity_mib, mam.maximum_capacity_mib, mam.load_count) == (17_000_000, 17_166_000, 42)
    assert (mam.mb_written_total, mam.mb_read_total, mam.mb_written_last_load, mam.mb_read_last_load) == (5_555_555, 4_444, 1_234, 567)
    assert (mam.manufacturer, mam.serial, mam.density_code, mam.manufacture_date, mam.barcode, mam.medium_type) == (
        "FUJIFILM", "A1B2C3D4E5", 0x60, "20230115", "ABC001L9", "data")
    assert mam.get(0x0806).read_only is False and mam.get(0x0400).read_only is True
    assert mam.value(0x0803) == "Weekly full" and mam.get(0x0220).unit == "MiB"
    assert Mam.parse(mam.build()) == mam
    assert parse_attribute_list(bytes([0, 0, 0, 4, 0, 0, 4, 1])) == (0x0000, 0x0401)


@pytest.mark.parametrize("parser, data", [
    (Mam.parse, bytes([0, 0, 0, 9, 0, 0, 0, 0, 8, 1, 2])),
    (parse_log_page, bytes([0x02, 0, 0, 8, 0, 0, 0, 9, 1])),
    (DensitySupport.parse, bytes([0, 12, 0, 0, 0x60, 0x60, 0xA1, 0, 47])),
    (parse_attribute_list, bytes([0, 0, 0, 3, 0, 0, 4])),
])
def test_truncated_structures_raise_parse_error(parser, data: bytes) -> None:
    with pytest.raises(ParseError):
        parser(data)

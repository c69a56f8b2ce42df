"""TapeDrive against the virtual LTO drive: the full SSC path with real bytes on a
cartridge file, no scripted answers."""
from __future__ import annotations

import pytest

from app.drive import TapeDrive, Unsupported, supported
from native.scsi.cdb import SpaceCode
from native.scsi.logpages import ErrorCounters, TapeAlertPage
from native.errors import DataProtect, IllegalRequest, InvalidParameter

DEV = "virtual:lto9?realtime=0"


@pytest.fixture
def drive():
    with TapeDrive.open(DEV) as d:
        d.wait_ready(30, poll=0.01)
        d.rewind()
        yield d


def test_identity_and_generation(drive: TapeDrive) -> None:
    inq = drive.inquiry()
    assert inq.is_tape and inq.vendor == "HPE"
    assert drive.generation() == 9
    assert drive.serial_number()
    assert 0x80 in drive.vpd(0x00).pages


def test_variable_block_write_filemark_read_counts(drive: TapeDrive) -> None:
    blocks = [bytes([i]) * n for i, n in enumerate((1000, 65536, 300))]
    for b in blocks:
        assert not drive.write(b).eom_warning
    drive.write_filemarks(1)
    drive.write(b"after-filemark")
    drive.rewind()
    out = drive.read(65536)
    assert out.ili and out.nbytes == 1000 and bytes(out.data) == blocks[0] and out.residual == 65536 - 1000
    out = drive.read(65536)
    assert out.nbytes == 65536 and not out.ili and not out.stopped and bytes(out.data) == blocks[1]
    out = drive.read(100)  # block of 300 into 100: truncated, negative residual
    assert out.ili and out.nbytes == 100 and out.residual == -200
    out = drive.read(65536)
    assert out.filemark and out.nbytes == 0
    out = drive.read(65536)
    assert bytes(out.data) == b"after-filemark"
    out = drive.read(65536)
    assert out.eod and out.nbytes == 0


def test_fixed_block_mode(drive: TapeDrive) -> None:
    drive.set_block_size(4096)
    assert drive.block_size() == 4096
    drive.write(bytes(range(256)) * 16 * 8, block_size=4096)  # 8 blocks
    drive.write_filemarks(1)
    drive.rewind()
    buf = bytearray(4096 * 10)
    out = drive.read(buf, block_size=4096)
    assert out.filemark and out.nbytes == 8 * 4096 and out.residual == 2
    drive.set_block_size(0)
    assert drive.block_size() == 0
    with pytest.raises(InvalidParameter):
        drive.write(b"x" * 100, block_size=4096)


def test_positioning(drive: TapeDrive) -> None:
    for i in range(5):
        drive.write(bytes([i]) * 512)
    drive.write_filemarks(1)
    drive.write(b"z" * 512)
    pos = drive.read_position()
    assert not pos.bop and pos.first_block == 7
    drive.locate(2)
    assert drive.read_position().first_block == 2
    assert bytes(drive.read(512).data) == b"\x02" * 512
    drive.rewind()
    assert drive.read_position().bop
    out = drive.space(1, SpaceCode.FILEMARKS)
    assert out.residual == 0 and drive.read_position().first_block == 6
    out = drive.space(5, SpaceCode.FILEMARKS)
    assert out.eod or out.residual > 0
    drive.space(0, SpaceCode.END_OF_DATA)
    assert drive.read_position().first_block == 7
    assert drive.read_position_long().logical_object == 7


def test_compression_density_logs_mam(drive: TapeDrive) -> None:
    assert drive.set_compression(False)
    assert drive.compression().dce is False
    assert drive.set_compression(True) and drive.compression().dce
    density = drive.report_density_support(media=True)
    assert density.default is not None and density.default.generation == 9
    assert 0x2E in drive.supported_log_pages()
    assert isinstance(drive.log_sense(0x02), ErrorCounters)
    assert isinstance(drive.tapealert(), TapeAlertPage)
    mam = drive.read_attributes()
    assert mam.density_code == 0x60 and mam.barcode
    assert 0x0401 in drive.attribute_list()


def test_erase_then_read_is_eod(drive: TapeDrive) -> None:
    drive.write(b"data" * 100)
    drive.rewind()
    drive.erase()
    drive.rewind()
    assert drive.read(4096).eod


def test_unload_load_and_wait_ready(drive: TapeDrive) -> None:
    drive.unload()
    drive.load()
    drive.wait_ready(30, poll=0.01)
    drive.test_unit_ready()


def test_write_protected_cartridge() -> None:
    with TapeDrive.open(DEV + "&wp=1") as d:
        d.wait_ready(30, poll=0.01)
        assert d.is_write_protected()
        with pytest.raises(DataProtect, match="DATA PROTECT"):
            d.write(b"x" * 512)


def test_unknown_log_page_is_unsupported(drive: TapeDrive) -> None:
    result = supported(drive.log_sense, 0x3C)
    assert isinstance(result, Unsupported) and result.reason == "not supported by this device"
    with pytest.raises(IllegalRequest, match=r"LOG SENSE: ILLEGAL REQUEST: Invalid field in cdb \(24/00\)"):
        drive.log_sense(0x3C)


def test_request_sense_after_a_good_command_is_no_sense(drive: TapeDrive) -> None:
    drive.test_unit_ready()
    sense = drive.request_sense()
    assert sense.key == 0 and sense.key_name == "NO SENSE"


def test_virtual_lto10_is_an_lto10_drive(tmp_path) -> None:
    """Density 0x62 (LTFS tape_ops.h), IBM's published speed-matching table, 400 MB/s native, 1000 MB/s at 2.5:1."""
    from native.scsi.density import density_name, lto_generation
    from app.tapeperf.rated import possible, rated
    from native.virtual.specs import spec_for

    with TapeDrive.open(f"virtual:lto10?cartridge={tmp_path / 'a.cart'}&realtime=0&capacity=64M") as drive:
        assert drive.generation() == 10
        assert drive.mode_header().density_code == 0x62
        assert drive.inquiry().product == "Ultrium 10-SCSI"
    assert (lto_generation(0x62), lto_generation(0x63), density_name(0x62)) == (10, 10, "LTO-10")
    spec = spec_for(10)
    assert [round(s / 1e6) for s in spec.speed_steps] == [157, 176, 195, 214, 234, 253, 272, 291, 311, 330, 349, 368, 387, 407]
    assert spec.readable == spec.writable == (0x62,) and spec.native_rate == 400e6
    assert rated(10) == (400, 1000)
    p = possible(10, 2.5)
    assert p is not None and p.mb_s == 1000

"""TapeDrive against a real tgtd tape LUN over iSCSI (127.0.0.1 only).

tgt is the one real SCSI tape target on this machine; its quirks (see
/work/shared/design/tgt-target.md) are exactly what TapeDrive must absorb: EOD as
BLANK CHECK + EOM with ASC 00/00, a wrong transport residual on tape errors,
MODE SELECT(10) and every mode page rejected, no LOG SENSE / READ ATTRIBUTE /
REPORT DENSITY SUPPORT / LOCATE / ERASE.
"""
from __future__ import annotations

import pytest

from app.drive import CompressionChange, TapeDrive, Unsupported, supported
from app.info import Verdict, gather
from native.scsi.cdb import SpaceCode
from tests.helpers.tgt import tgt_available, tgt_module_target  # noqa: F401  (fixture)

pytestmark = [
    pytest.mark.tgt,
    pytest.mark.skipif(not tgt_available(), reason="tgt is not installed"),
]
pytest.importorskip("native.iscsi")


@pytest.fixture
def drive(tgt_module_target):  # noqa: F811
    with TapeDrive.open(tgt_module_target.url) as d:
        d.wait_ready(30, poll=0.1)
        d.set_block_size(0)
        d.rewind()
        yield d


def test_identity_limits_and_readiness(drive: TapeDrive) -> None:
    drive.test_unit_ready()
    inq = drive.inquiry()
    assert (inq.vendor, inq.product, inq.is_tape) == ("IET", "VIRTUAL-TAPE", True)
    limits = drive.read_block_limits()
    assert limits.max_length >= 1 << 20 and limits.min_length >= 1
    assert drive.generation() is None  # tgt reports no LTO density and no LTO product name


def test_mode_select_to_fixed_and_back(drive: TapeDrive) -> None:
    drive.set_block_size(8192)
    assert drive.block_size() == 8192
    drive.write(b"\x5a" * 8192 * 4, block_size=8192)
    drive.write_filemarks(1)
    drive.rewind()
    buf = bytearray(8192 * 6)
    out = drive.read(buf, block_size=8192)
    assert out.filemark and out.nbytes == 4 * 8192 and out.residual == 2
    assert bytes(buf[: out.nbytes]) == b"\x5a" * 8192 * 4
    drive.set_block_size(0)
    assert drive.block_size() == 0


def test_write_filemark_read_ili_filemark_eod_counts(drive: TapeDrive) -> None:
    drive.write(b"A" * 1000)
    drive.write(b"B" * 65536)
    drive.write(b"C" * 300)
    drive.write_filemarks(1)
    drive.write(b"D" * 10)
    drive.rewind()
    out = drive.read(65536)  # short block
    assert out.ili and out.nbytes == 1000 and bytes(out.data) == b"A" * 1000
    out = drive.read(65536)
    assert out.nbytes == 65536 and not out.ili and not out.stopped
    out = drive.read(100)  # long block, truncated
    assert out.ili and out.nbytes == 100 and out.residual == -200
    out = drive.read(65536)
    assert out.filemark and out.nbytes == 0 and not out.eod
    out = drive.read(65536)
    assert out.nbytes == 10
    out = drive.read(65536)
    assert out.eod and out.nbytes == 0  # tgt: BLANK CHECK + EOM, ASC 00/00
    drive.rewind()
    assert drive.space(1, SpaceCode.FILEMARKS).residual == 0
    assert bytes(drive.read(64).data) == b"D" * 10


def test_what_tgt_lacks_is_not_supported(drive: TapeDrive) -> None:
    for call in (lambda: drive.log_sense(0x2E), drive.read_attributes, drive.report_density_support,
                 lambda: drive.locate(0), drive.erase, drive.supported_log_pages):
        result = supported(call)
        assert isinstance(result, Unsupported) and result.reason == "not supported by this device"
    change = drive.set_compression(True)
    assert isinstance(change, CompressionChange) and not change and change.reason


def test_info_on_tgt_shows_unsupported_sections(drive: TapeDrive) -> None:
    info = gather(drive)
    assert info.identity.vendor == "IET" and info.identity.serial
    for section in (info.cartridge, info.tapealerts, info.write_errors, info.read_errors, info.volume_statistics):
        assert isinstance(section, Unsupported) and section.reason == "not supported by this device"
    assert info.health.verdict is Verdict.NOT_ASSESSED  # nothing health-related was readable (issue 11)
    assert "TapeAlert" in info.health.reasons[0] and "not supported by this device" in info.health.reasons[0]


def test_request_sense_on_tgt(drive: TapeDrive) -> None:
    sense = drive.request_sense()
    assert sense.key_name == "NO SENSE" and not sense.descriptor_format


def test_tgt_lists_its_commands_without_timeout_values_so_the_defaults_apply(drive: TapeDrive) -> None:
    """tgt answers REPORT SUPPORTED OPERATION CODES with RCTD, but every timeout is 0 (not specified)."""
    report = drive.supported_commands()
    rewind = report.find(0x01)
    assert rewind is not None and rewind.timeouts is not None and rewind.timeouts.recommended == 0
    timeouts = drive.command_timeouts()
    assert not timeouts.reported
    assert timeouts.source == "tapediag's defaults (the drive reports every timeout as 0, not specified)"
    assert all(e.seconds == e.default for e in timeouts.commands)

"""Issue 11: a health verdict only from evidence, and tape commands only to a tape.

Errors a drive returns to health queries drive the verdict (HARDWARE ERROR -> Failing,
MEDIUM ERROR -> Attention); a failing TEST UNIT READY no longer aborts ``info``; a drive
that reports neither TapeAlert nor error counters is "Not assessed"; a non-tape device
gets INQUIRY only and a refusal (exit 2) from every tape command path.
"""
from __future__ import annotations

import json

import pytest

from app.cli import main
from app.info_view import render_text
from app.drive import NotATapeDrive, Supported, TapeDrive, Unsupported
from app.info import EXIT_CODES, Verdict, gather
from native.scsi import cdb as C
from tests.helpers import faults
from tests.helpers.faults import FaultyTransport, RecordingTransport, reply
from tests.scsi import samples
from tests.test_info import scripted_hpe_drive

# Every opcode info sends after INQUIRY (and its VPD pages).
HEALTH_QUERIES = (C.TEST_UNIT_READY, C.MODE_SENSE_6, C.MODE_SENSE_10, C.READ_BLOCK_LIMITS, C.READ_ATTRIBUTE, C.LOG_SENSE)


def test_hardware_error_on_every_query_is_failing_with_the_decoded_sense() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    for opcode in HEALTH_QUERIES:
        faulty.inject(faults.check_condition(0x4, 0x40, 0x81, "diagnostic failure 81h"), opcode=opcode, times=None)
    info = gather(TapeDrive(faulty))
    assert info.identity.vendor == "HPE" and info.identity.serial  # identity still shown
    assert info.health.verdict is Verdict.FAILING and info.health.exit_code == EXIT_CODES[Verdict.FAILING] == 11
    # One diagnosis, naming every query that got it (not one line per query).
    assert info.health.reasons == ("TEST UNIT READY, MODE SENSE, READ BLOCK LIMITS, MODE SENSE (compression), "
                                   "READ ATTRIBUTE (MAM), LOG SENSE (supported pages), LOG SENSE page 2Eh, "
                                   "LOG SENSE page 02h, LOG SENSE page 03h, LOG SENSE page 0Ch, LOG SENSE page 17h, LOG SENSE page 34h: "
                                   "HARDWARE ERROR: Diagnostic failure on component 81h (40/81)",)
    assert isinstance(info.tapealerts, Unsupported) and "HARDWARE ERROR" in info.tapealerts.reason
    assert "not supported" not in info.tapealerts.reason
    text = render_text(info)
    assert "Verdict                   Failing" in text


def test_medium_error_on_a_log_page_is_attention() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    faulty.inject(faults.medium_error_read(), opcode=C.LOG_SENSE, after=2)  # 0x00, 0x2E answer, then 0x02 fails
    info = gather(TapeDrive(faulty))
    assert info.health.verdict is Verdict.ATTENTION
    assert info.health.reasons == ("LOG SENSE page 02h: " + info.write_errors.reason.split(": ", 1)[1],)  # type: ignore[union-attr]
    assert "MEDIUM ERROR" in info.health.reasons[0]


def test_tur_deferred_hardware_error_still_gathers_every_page() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    faulty.inject(faults.check_condition(0x4, 0x44, 0x00, "deferred", deferred=True), opcode=C.TEST_UNIT_READY)
    info = gather(TapeDrive(faulty))
    assert info.health.verdict is Verdict.FAILING
    assert info.health.reasons[0].startswith("TEST UNIT READY: HARDWARE ERROR") and "deferred" in info.health.reasons[0]
    for section in (info.media, info.cartridge, info.tapealerts, info.write_errors, info.read_errors):
        assert isinstance(section, Supported)


def test_illegal_request_other_than_not_supported_is_evidence() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    faulty.inject(faults.check_condition(0x5, 0x2C, 0x00, "sequence error"), opcode=C.READ_ATTRIBUTE)
    info = gather(TapeDrive(faulty))
    assert info.health.verdict is Verdict.ATTENTION and info.health.reasons[0].startswith("READ ATTRIBUTE (MAM): ILLEGAL")


def test_no_cartridge_is_not_evidence() -> None:
    faulty = FaultyTransport(scripted_hpe_drive()).inject(faults.no_medium(), opcode=C.READ_ATTRIBUTE)
    assert gather(TapeDrive(faulty)).health.verdict is Verdict.HEALTHY


def test_every_page_unsupported_is_not_assessed_exit_12(capsys: pytest.CaptureFixture[str]) -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    faulty.inject(faults.check_condition(0x5, 0x20, 0x00), opcode=C.LOG_SENSE, times=None)
    info = gather(TapeDrive(faulty))
    assert info.health.verdict is Verdict.NOT_ASSESSED and info.health.exit_code == 12
    assert "TapeAlert" in info.health.reasons[0]


def _disk() -> RecordingTransport:
    vpd = {0x00: samples.vpd00(), 0x80: samples.vpd80(), 0x83: samples.vpd83()}
    return RecordingTransport(device="scripted:disk", scripted_peripheral_type=None, responses={
        C.INQUIRY: lambda cdb, out, alloc: reply(data=vpd[cdb[2]] if cdb[1] & 1 else samples.inquiry(
            vendor="LIO-ORG", product="disk0", device_type=0)),
    })


def test_non_tape_gets_inquiry_only_and_no_verdict() -> None:
    disk = _disk()
    info = gather(TapeDrive(disk))
    assert {cdb[0] for cdb, _ in disk.calls} == {C.INQUIRY}
    assert info.health.verdict is Verdict.NOT_A_TAPE and info.health.exit_code == 2
    assert info.health.reasons == ("scripted:disk is a disk (peripheral type 0), not a tape drive",)
    text = render_text(info)
    assert "Product                   disk0" in text and "Not a tape drive:" in text
    assert "Verdict" not in text and "TapeAlert" not in text


@pytest.mark.parametrize("call", [lambda d: d.rewind(), lambda d: d.write(b"x" * 512), lambda d: d.test_unit_ready(),
                                  lambda d: d.mode_header(), lambda d: d.log_sense(0x2E)])
def test_the_drive_layer_refuses_tape_commands_to_a_non_tape(call) -> None:  # type: ignore[no-untyped-def]
    disk = _disk()
    with pytest.raises(NotATapeDrive, match=r"is a disk \(peripheral type 0\), not a tape drive"):
        call(TapeDrive(disk))
    assert [cdb[0] for cdb, _ in disk.calls] == [C.INQUIRY]  # INQUIRY first, nothing else reached the device


def test_cli_json_carries_verdict_and_exit_code(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["info", "virtual:lto9?realtime=0&tapealert=3", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 10 and data["health"]["exit_code"] == 10 and data["health"]["verdict"] == "Attention"


def test_help_documents_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["info", "--help"])
    out = capsys.readouterr().out
    for line in ("0   Healthy", "10  Attention", "11  Failing", "12  Not assessed", "2   not a tape drive"):
        assert line in out


def test_text_prints_each_reason_once(capsys: pytest.CaptureFixture[str]) -> None:
    main(["info", "virtual:lto7?realtime=0&tapealert=3,20,4"])
    out = capsys.readouterr().out
    health = out.split("\nHealth\n", 1)[1]
    for reason in ("TapeAlert 04h Media (Critical)", "TapeAlert 03h Hard error (Warning)"):
        assert health.count(reason) == 1

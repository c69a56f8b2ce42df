"""``tapediag info``: gathering from the virtual drive and from scripted drives, the
health verdict, "not supported by this device" sections, text and JSON output."""
from __future__ import annotations

import json

import pytest

from app.cli import main
from app.drive import Supported, TapeDrive, Unsupported
from app.info import NO_CARTRIDGE, Verdict, assess, gather
from app.info_view import render_text
from native.scsi import cdb as C
from native.scsi.vendorlogs import vendor_log_page
from native.scsi.logpages import ErrorCounters, TapeAlertFlag, error_counters_page, hp_performance_page
from native.scsi.logparse import parse_log_page
from native.scsi.tapealert import Severity, TapeAlertDefinition
from tests.helpers import faults
from tests.helpers.faults import FaultyTransport, RecordingTransport, reply
from tests.scsi import samples

VIRTUAL = "virtual:lto9?realtime=0"


def virtual(**options: str) -> str:
    extra = "".join(f"&{k}={v}" for k, v in options.items())
    return VIRTUAL + extra


def scripted_hpe_drive(*, write_uncorrected: int = 0, alerts: frozenset[int] = frozenset(), cleaning: int = 0,
                       vendor: str = "HPE", perf: bytes | None = None,
                       extra: dict[int, bytes] | None = None) -> RecordingTransport:
    """An LTO-9 drive answering with the realistic sample pages (see tests/scsi/samples.py);
    with ``perf`` it also lists and answers page 0x34, with ``extra`` those pages too."""
    listed = (0x00, 0x02, 0x03, 0x0C, 0x17, 0x1B, 0x2E) + ((0x34,) if perf is not None else ()) + tuple(sorted(extra or {}))
    logs = {
        **(extra or {}),
        0x00: samples.supported_log_pages(listed),
        0x34: perf,
        0x02: samples.error_counters(0x02, (5, 0, 3, 5, 5, 10**12, write_uncorrected)),
        0x03: samples.error_counters(0x03, (1, 0, 1, 1, 1, 10**11, 0)),
        0x0C: samples.sequential_access(cleaning=cleaning),
        0x17: samples.volume_statistics(),
        0x2E: samples.tapealert(alerts),
    }
    vpd = {0x00: samples.vpd00(), 0x80: samples.vpd80(), 0x83: samples.vpd83()}
    return RecordingTransport(device="scripted:hpe", responses={
        C.INQUIRY: lambda cdb, out, alloc: reply(data=vpd[cdb[2]] if cdb[1] & 1 else samples.inquiry(vendor=vendor)),
        C.MODE_SENSE_10: lambda cdb, out, alloc: reply(data=samples.mode_sense10(
            density=0x60, pages=samples.compression_page() if cdb[2] & 0x3F == 0x0F else samples.device_config_page())),
        C.READ_BLOCK_LIMITS: bytes([0, 0xFF, 0xFF, 0xFF, 0, 1]),
        C.READ_ATTRIBUTE: samples.mam(),
        C.LOG_SENSE: lambda cdb, out, alloc: reply(data=logs[cdb[2] & 0x3F]),
    })


def test_gather_from_the_virtual_drive() -> None:
    with TapeDrive.open(virtual(barcode="ABC123L9")) as drive:
        info = gather(drive)
    assert (info.identity.vendor, info.identity.device_type, info.generation) == ("HPE", "tape", 9)
    assert info.identity.serial and info.identity.wwn and info.identity.wwn.startswith("0x5")
    assert isinstance(info.media, Supported) and info.media.value.density_code == 0x60 and info.media.value.block_length == 0
    assert isinstance(info.block_limits, Supported) and info.block_limits.value.max_length >= 1 << 20
    assert isinstance(info.cartridge, Supported) and info.cartridge.value.barcode == "ABC123L9"
    assert info.health.verdict is Verdict.HEALTHY
    assert info.health.reasons == ("TapeAlert: no warning or critical flag; write and read error counters: no uncorrected "
                                   "error; temperature, device status, device statistics, SAS port, tape diagnostic data "
                                   "and non-medium errors: nothing past a threshold",)
    assert info.health.findings == ()


@pytest.mark.parametrize("flags, verdict", [("", Verdict.HEALTHY), ("21", Verdict.ATTENTION), ("1", Verdict.ATTENTION),
                                            ("20", Verdict.ATTENTION), ("4", Verdict.FAILING), ("1,30", Verdict.FAILING)])
def test_verdict_from_virtual_drive_tapealerts(flags: str, verdict: Verdict) -> None:
    dev = virtual(tapealert=flags) if flags else VIRTUAL
    with TapeDrive.open(dev) as drive:
        info = gather(drive)
    assert info.health.verdict is verdict
    codes = {int(f) for f in flags.split(",") if f}
    assert isinstance(info.tapealerts, Supported) and {a.code for a in info.tapealerts.value} == codes


def test_tapealert_page_is_read_once() -> None:
    transport = scripted_hpe_drive(alerts=frozenset({0x04}))
    info = gather(TapeDrive(transport))
    reads = [cdb for cdb, _ in transport.calls if cdb[0] == C.LOG_SENSE and cdb[2] & 0x3F == 0x2E]
    assert len(reads) == 1 and info.health.verdict is Verdict.FAILING


def test_scripted_hpe_drive_sections() -> None:
    info = gather(TapeDrive(scripted_hpe_drive(write_uncorrected=2, cleaning=1)))
    assert info.identity.wwn == "0x500110a0001a2b3c" and info.identity.serial == "HU12345678"
    assert info.write_errors.value.total_uncorrected == 2 and info.read_errors.value.total_bytes_processed == 10**11
    assert info.cleaning_required.value is True
    assert info.volume_statistics.value["volume_barcode"] == "ABC001L9"
    assert info.cartridge.value.mb_written_total == 5_555_555 and info.cartridge.value.manufacturer == "FUJIFILM"
    assert info.health.verdict is Verdict.ATTENTION
    assert any("2 uncorrected write error" in r for r in info.health.reasons)
    assert any(r.startswith("cleaning requested") for r in info.health.reasons)


def test_hp_performance_page_is_read_from_hp_drives_only() -> None:
    # Rates in 100 KB/s units: host 95.0 MB/s, possible 700.0, into buffer 47.5, native 400.0; 37 repositions.
    perf = hp_performance_page(37, 475, 7000, 950, 4000)
    info = gather(TapeDrive(scripted_hpe_drive(perf=perf)))
    assert isinstance(info.performance, Supported) and info.performance.value.figures() == {
        "repositions_per_100mb": 37, "buffer_in_mb_s": 47.5, "max_possible_mb_s": 700.0, "current_mb_s": 95.0,
        "native_mb_s": 400.0}
    text = render_text(info)
    assert "Performance (HP log page 0x34)" in text and "Repositions per 100 MB" in text and "95.0 MB/s" in text
    assert info.to_dict()["performance"] == {"supported": True, "repositions_per_100mb": 37, "buffer_in_mb_s": 47.5,
                                             "max_possible_mb_s": 700.0, "current_mb_s": 95.0, "native_mb_s": 400.0}

    # On an IBM drive 0x34 is another page (read forward errors): never read as performance, shown
    # under IBM's name with its parameters raw (no public layout), none dropped.
    ibm = scripted_hpe_drive(vendor="IBM", perf=perf)
    info = gather(TapeDrive(ibm))
    assert info.performance == Unsupported("not supported by this device")
    assert isinstance(info.vendor_pages, Supported)
    (page,) = info.vendor_pages.value
    assert (page.page_code, page.name, page.figures) == (0x34, "read forward errors", {})
    assert [(r.code, r.hex) for r in page.raw] == [(0, "0025"), (1, "01db"), (2, "1b58"), (3, "03b6"), (4, "0fa0")]
    assert "IBM log page 0x34: read forward errors" in render_text(info) and "Parameter 0000h (raw)" in render_text(info)
    # On the HP drive the same bytes are the performance page only, not a second vendor-page section.
    assert gather(TapeDrive(scripted_hpe_drive(perf=perf))).vendor_pages == Unsupported("not supported by this device")
    # An HP drive that does not list the page: not supported, not a failure.
    assert gather(TapeDrive(scripted_hpe_drive())).performance == Unsupported("not supported by this device")


def test_sections_the_device_lacks_are_unsupported_not_failures() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    invalid = faults.check_condition(0x5, 0x20, 0x00, "invalid opcode")
    for opcode in (C.LOG_SENSE, C.READ_ATTRIBUTE, C.READ_BLOCK_LIMITS):
        faulty.inject(invalid, opcode=opcode, times=None)
    info = gather(TapeDrive(faulty))
    for section in (info.cartridge, info.tapealerts, info.write_errors, info.read_errors, info.volume_statistics, info.block_limits):
        assert isinstance(section, Unsupported) and section.reason == "not supported by this device"
    assert sum(1 for cdb in faulty.calls if cdb[0] == C.LOG_SENSE) == 1  # asked once, not per page
    # Nothing that says anything about health was read: not "Healthy" (issue 11).
    assert isinstance(info.media, Supported) and info.health.verdict is Verdict.NOT_ASSESSED
    assert info.health.reasons == ("the drive did not report TapeAlert, write error counters or read error counters "
                                   "(not supported by this device)",)
    text = render_text(info)
    assert text.count("not supported by this device") == 8  # six sections, one line for the drive-wide pages, one verdict reason
    assert "temperature (0x0D), device status (0x11)" in text  # the optional drive pages share that one line
    data = info.to_dict()
    assert data["cartridge"] == {"supported": False, "reason": "not supported by this device"}
    json.dumps(data)


def test_no_cartridge_and_medium_errors_become_reasons() -> None:
    faulty = FaultyTransport(scripted_hpe_drive())
    faulty.inject(faults.no_medium(), opcode=C.READ_ATTRIBUTE)
    faulty.inject(faults.medium_error_read(), opcode=C.LOG_SENSE, after=2)  # 0x00, 0x2E, then 0x02 fails
    info = gather(TapeDrive(faulty))
    assert isinstance(info.cartridge, Unsupported) and info.cartridge.reason == NO_CARTRIDGE
    assert isinstance(info.write_errors, Unsupported) and "MEDIUM ERROR" in info.write_errors.reason
    assert isinstance(info.read_errors, Supported)


def test_unit_attention_before_info_is_consumed() -> None:
    faulty = FaultyTransport(scripted_hpe_drive()).inject(faults.power_on_reset(), opcode=C.TEST_UNIT_READY)
    info = gather(TapeDrive(faulty))
    assert info.identity.vendor == "HPE" and faulty.fired


def _flag(code: int, name: str, severity: Severity) -> TapeAlertFlag:
    return TapeAlertFlag(code, True, TapeAlertDefinition(code, name, severity, ""))


def _counters(page: int, uncorrected: int) -> ErrorCounters:
    counters = parse_log_page(error_counters_page(page, corrected=0, uncorrected=uncorrected, retries=0, processed=0))
    assert isinstance(counters, ErrorCounters)
    return counters


def test_assess_rules() -> None:
    crit = _flag(0x1E, "Hardware A", Severity.CRITICAL)
    warn = _flag(0x01, "Read warning", Severity.WARNING)
    info_flag = _flag(0x0B, "Cleaning media", Severity.INFORMATION)
    clean = _flag(0x14, "Cleaning required", Severity.CRITICAL)
    none = Unsupported()
    ok = Supported(_counters(0x02, 0))
    assert assess(Supported(()), ok, ok, none).verdict is Verdict.HEALTHY
    assert assess(Supported((info_flag,)), ok, ok, none).verdict is Verdict.HEALTHY
    assert assess(Supported((warn,)), ok, ok, none).verdict is Verdict.ATTENTION
    assert assess(Supported((clean,)), ok, ok, none).verdict is Verdict.ATTENTION
    assert assess(Supported((crit, warn)), ok, ok, none).reasons[0].startswith("TapeAlert 1Eh Hardware A")
    assert assess(none, Supported(_counters(0x02, 3)), ok, none).verdict is Verdict.ATTENTION
    assert assess(none, none, none, Supported(True)).verdict is Verdict.ATTENTION
    assert assess(none, none, none, none).verdict is Verdict.NOT_ASSESSED
    assert assess(none, ok, none, none).verdict is Verdict.HEALTHY  # the write counters alone are evidence
    # A Healthy verdict names exactly the evidence it rests on.
    assert assess(none, ok, none, none).reasons == ("write error counters: no uncorrected error",)
    assert assess(Supported((info_flag,)), none, none, none).reasons == ("TapeAlert: no warning or critical flag",)


def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["info", virtual(tapealert="4"), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert rc == 11 and data["health"]["exit_code"] == 11
    assert data["identity"]["product"] == "Ultrium 9-SCSI" and data["generation"] == 9
    assert data["health"]["verdict"] == "Failing"
    assert data["tapealerts"]["value"][0] == {"code": 4, "name": "Media", "severity": "Critical",
                                              "text": data["tapealerts"]["value"][0]["text"]}
    assert data["media"]["block_mode"] == "variable" and data["cartridge"]["supported"] is True


def test_cli_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", VIRTUAL]) == 0
    out = capsys.readouterr().out
    for heading in ("Mode", "Block limits", "Compression", "Cartridge (MAM)", "TapeAlert", "Write errors", "Health"):
        assert f"\n{heading}\n" in out
    assert "Verdict                   Healthy" in out and "LTO-9" in out


def test_cli_errors_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "nonsense"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tapediag: error: 'nonsense' is not a device") and err.count("\n") == 1


def test_lost_connection_during_info_is_one_line(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import app.drive

    real_open = app.drive.TapeDrive.open

    def faulty_open(device: str) -> TapeDrive:
        drive = real_open(device)
        return TapeDrive(FaultyTransport(drive.transport).inject(faults.connection_lost(), opcode=C.LOG_SENSE), device=device)

    monkeypatch.setattr(app.drive.TapeDrive, "open", staticmethod(faulty_open))
    assert main(["info", VIRTUAL]) == 1
    err = capsys.readouterr().err
    assert err == "tapediag: error: the connection to the device was lost\n"
    from app.history import History

    with History.open() as hist:  # the snapshot that broke off is kept as failed, not left incomplete
        (run,) = hist.list_runs()
    assert (run.kind, run.status, run.error) == ("drive-info", "failed", "the connection to the device was lost")


def test_info_records_a_drive_info_run(capsys: pytest.CaptureFixture[str]) -> None:
    from app.history import History

    assert main(["info", VIRTUAL, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data.pop("history")["keys"]["drive_serial"] == data["identity"]["serial"]  # from the history, not stored
    with History.open() as hist:
        run = hist.get_run(data.pop("run_id"), samples=False)
    assert (run.kind, run.device, run.status) == ("drive-info", VIRTUAL, "complete")
    from app.runs.stored import VERSION_KEY

    assert run.results.pop(VERSION_KEY) == 1  # the shape's version, for the loader of a later tapediag
    assert run.results == data  # the stored snapshot is DriveInfo.to_dict(), the shape reports read
    assert main(["info", "nonsense"]) == 2  # a device that cannot be opened leaves no run
    with History.open() as hist:
        assert len(hist.list_runs()) == 1


def test_quantum_tape_device_statistics_and_the_drives_own_thresholds() -> None:
    """Quantum 3Eh (LTO-3/LTO-4 SCSI reference 3.9.20): decoded only for a QUANTUM drive, and its
    cartridge counts against the drive's own thresholds feed the cartridge verdict with that source."""
    counters = {0x8000: 5000, 0x8001: 12000, 0x8002: 40, 0x8003: 100, 0x8004: 900, 0x8005: 300,
                0x9000: 120, 0x9001: 0, 0x9002: 950, 0x9003: 1000, 0x9004: 30, 0x9005: 0}
    page = vendor_log_page(0x3E, [(0x7000, bytes(8))] + [(c, v.to_bytes(4, "big")) for c, v in counters.items()])
    info = gather(TapeDrive(scripted_hpe_drive(vendor="QUANTUM", extra={0x3E: page})))
    assert isinstance(info.vendor_pages, Supported)
    (q,) = info.vendor_pages.value
    assert q.title == "Quantum log page 0x3E: tape device statistics" and q.figures["media_lifetime_wear_passes"] == 950
    assert isinstance(info.wear, Supported) and info.wear.value.cartridge is not None
    cart = info.wear.value.cartridge
    passes = [f for f in cart.figures if f.quantity.startswith("cartridge wear passes")]
    assert [(f.value, f.design_life, f.percent_used) for f in passes] == [(950, 1000, 95.0)]
    assert "reported by the drive" in passes[0].source and cart.verdict.value == "monitor"
    text = render_text(info)
    assert "Quantum log page 0x3E" in text and "950 of 1,000 = 95.0 % of design life used" in text
    # An IBM drive's 3Eh is its "device status" page: same bytes, nothing decoded, nothing rated.
    ibm = gather(TapeDrive(scripted_hpe_drive(vendor="IBM", extra={0x3E: page})))
    assert isinstance(ibm.vendor_pages, Supported) and ibm.vendor_pages.value[0].figures == {}
    assert isinstance(ibm.wear, Supported) and ibm.wear.value.cartridge is not None
    assert not [f for f in ibm.wear.value.cartridge.figures if "drive's threshold" in f.quantity]


def test_a_vendor_page_that_cannot_be_decoded_is_named_with_the_reason_not_dropped() -> None:
    broken = bytes([0x30, 0, 0, 6, 0, 1, 0, 9, 0, 0])  # parameter 0001h says 9 bytes, the page holds 2
    info = gather(TapeDrive(scripted_hpe_drive(vendor="IBM", extra={0x30: broken})))
    assert isinstance(info.vendor_pages, Supported)
    (page,) = info.vendor_pages.value
    assert page.name == "tape usage" and "cannot decode" in page.problem
    assert "IBM log page 0x30: tape usage" in render_text(info)

"""``tapediag info`` with the drive-wide log pages (issue 15): temperature, DT device status,
TapeAlert response (flags not cleared), device statistics, SAS port counters, diagnostics."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import main
from app.drive import Supported, TapeDrive
from app.info import Verdict, gather
from app.info_view import render_text, sections
from native.scsi import cdb as C
from native.scsi import devicelogs as D
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport, reply
from tests.scsi import samples
from tests.test_info import scripted_hpe_drive


def virtual(tmp_path: Path, **options: object) -> str:
    query = {"cartridge": str(tmp_path / "c.cart"), "realtime": "0", "capacity": "64M", **options}
    return "virtual:lto9?" + "&".join(f"{k}={v}" for k, v in query.items())


def test_info_shows_the_virtual_drives_own_pages(tmp_path: Path) -> None:
    with TapeDrive.open(virtual(tmp_path, temp=45, phyerrors=77, hours=5000)) as drive:
        info = gather(drive)
    assert isinstance(info.temperature, Supported) and info.temperature.value.celsius == 45
    assert isinstance(info.device_status, Supported)
    status = info.device_status.value
    assert (status.cleaning_required, status.cleaning_requested, status.medium_present, status.write_protected) == (
        False, False, True, False)
    assert isinstance(info.device_statistics, Supported)
    figures = info.device_statistics.value.stats()
    assert figures["lifetime_power_on_hours"] == 5000 and figures["lifetime_head_hours"] == 2000
    assert figures["hard_write_errors"] == 0 and info.device_statistics.value.medium_type_hours[0].density_code == 0x60
    assert isinstance(info.ports, Supported)
    ((phy,),) = [port.phys for port in info.ports.value]
    assert (phy.link_rate, phy.invalid_dwords, phy.disparity_errors, phy.loss_of_sync) == ("12 Gbps", 77, 77, 7)
    assert info.diagnostics == Supported(()) and info.non_medium_errors == Supported(0)
    # 161 SAS link errors: evidence against the path (cable, HBA), none against the drive (issue 25).
    assert info.health.verdict is Verdict.ATTENTION
    assert [(f.rule, f.culprit) for f in info.health.findings] == [("sas-phy-errors", "path")]

    data = info.to_dict()
    assert data["temperature"] == {"supported": True, "celsius": 45, "reference_celsius": None}
    assert data["ports"]["value"][0]["invalid_dwords"] == 77 and data["device_status"]["flags"]["mounted"] is True
    text = render_text(info)
    for line in ("Current                   45 °C", "Lifetime power on hours          5,000", "Invalid dwords          77",
                 "Port 1 phy 0              12 Gbps", "no errors recorded"):
        assert line in text, line
    titles = [section.title for section in sections(info)]  # what the CLI prints and the GUI panel shows
    assert {"Temperature (log page 0x0D)", "Device statistics (log page 0x14)", "SAS port (log page 0x18)"} <= set(titles)


def test_tapealert_response_page_is_preferred_and_leaves_the_flags_set(tmp_path: Path) -> None:
    """Page 0x12 gives the flags without clearing them: two snapshots see the same flags, 0x2E is never read."""
    transport = FaultyTransport(open_virtual(virtual(tmp_path, tapealert="3,31")))
    with TapeDrive(transport) as drive:
        first, second = gather(drive), gather(drive)
    for info in (first, second):
        assert isinstance(info.tapealerts, Supported) and {a.code for a in info.tapealerts.value} == {3, 31}
        assert "0x12" in info.tapealert_source and info.health.verdict is Verdict.FAILING  # 1Fh is Critical
    pages = [cdb[2] & 0x3F for cdb in transport.calls if cdb[0] == C.LOG_SENSE]
    assert 0x12 in pages and 0x2E not in pages


def test_a_drive_without_page_0x12_still_reads_0x2e_once() -> None:
    drive = scripted_hpe_drive(alerts=frozenset({0x04}))
    info = gather(TapeDrive(drive))
    assert [a.code for a in info.tapealerts.value] == [0x04] and "0x2E" in info.tapealert_source
    assert sum(1 for cdb, _ in drive.calls if cdb[0] == C.LOG_SENSE and cdb[2] & 0x3F == 0x2E) == 1
    assert "Drive log pages" in render_text(info)  # none of the optional pages: one line, not six sections


def _with_device_status(status: D.DtStatus) -> object:
    """The scripted LTO-9 drive, also listing and answering page 0x11."""
    drive = scripted_hpe_drive()
    base = drive.responses[C.LOG_SENSE]
    listed = (0x00, 0x02, 0x03, 0x0C, 0x11, 0x17, 0x1B, 0x2E)

    def log_sense(cdb: bytes, out: object, alloc: int) -> object:
        page = cdb[2] & 0x3F
        if page == 0x00:
            return reply(data=samples.supported_log_pages(listed))
        if page == 0x11:
            return reply(data=D.device_status_page(status))
        return base(cdb, out, alloc)

    drive.responses[C.LOG_SENSE] = log_sense
    return drive


def test_cleaning_required_on_the_device_status_page_is_attention() -> None:
    flags = {n: n in ("cleaning_required", "medium_present", "mounted") for n in D.DT_FLAG_NAMES}
    info = gather(TapeDrive(_with_device_status(D.DtStatus(flags, 0))))
    assert info.cleaning_required == Supported(True)
    assert info.health.verdict is Verdict.ATTENTION
    assert info.health.reasons == ("cleaning requested: the drive reports that cleaning is required",)


def test_cleaning_requested_alone_is_attention() -> None:
    """CRQST (routine cleaning requested) is Attention, as the README says (issue 25: it gave Healthy)."""
    flags = {n: n in ("cleaning_requested", "medium_present") for n in D.DT_FLAG_NAMES}
    info = gather(TapeDrive(_with_device_status(D.DtStatus(flags, 0))))
    assert info.device_status.value.cleaning_requested and not info.device_status.value.cleaning_required
    assert info.cleaning_required == Supported(False) and info.health.verdict is Verdict.ATTENTION
    (finding,) = info.health.findings
    assert (finding.rule, finding.culprit, finding.page, finding.parameter) == (
        "cleaning-requested", "drive", "log page 11h (DT device status)", "CRQST")


def test_cli_json_carries_the_drive_pages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", virtual(tmp_path, tapealert="20"), "--json"]) == 10
    data = json.loads(capsys.readouterr().out)
    assert data["device_status"]["cleaning_required"] is True and data["health"]["verdict"] == "Attention"
    assert data["device_statistics"]["figures"]["lifetime_power_on_hours"] == 2000
    assert "0x12" in data["tapealert_source"]

"""Drive-wide log pages (issue 15): round trips, fuzzing, and sg_logs agreeing on the virtual drive's bytes.

Three readers of the same bytes: the app's parsers (``native.scsi.devicelogs``), the virtual
drive's independent builders (``native.virtual.health``) and sg3_utils' ``sg_logs --inhex``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from native.scsi import devicelogs as D
from native.scsi.logparse import parse_log_page
from native.errors import ParseError
from tests.virtual.conftest import sg_inhex


# ---------------------------------------------------------------- round trips (build -> parse)
def test_temperature_round_trip() -> None:
    page = parse_log_page(D.temperature_page(41, reference=60))
    assert isinstance(page, D.Temperature) and (page.celsius, page.reference_celsius) == (41, 60)
    unknown = parse_log_page(D.temperature_page(None))
    assert isinstance(unknown, D.Temperature) and unknown.celsius is None and unknown.reference_celsius is None


def test_device_status_round_trip_every_flag() -> None:
    for name in D.DT_FLAG_NAMES:
        status = D.DtStatus(flags={n: n == name for n in D.DT_FLAG_NAMES}, activity=6)
        page = parse_log_page(D.device_status_page(status))
        assert isinstance(page, D.DeviceStatus) and page.status == status
        assert page.status.activity_name == "writing to medium"
    status = D.DtStatus(flags={n: True for n in D.DT_FLAG_NAMES}, activity=0x85)
    page = parse_log_page(D.device_status_page(status))
    assert page.status == status and page.cleaning_required and page.cleaning_requested
    assert page.status.activity_name == "vendor specific (85h)"


def test_tapealert_response_round_trip() -> None:
    active = {1, 8, 9, 0x14, 0x1F, 0x40}
    page = parse_log_page(D.tapealert_response_page(active))
    assert isinstance(page, D.TapeAlertResponse)
    assert {f.code for f in page.active} == active and len(page.flags) == 64
    assert next(f for f in page.active if f.code == 0x14).name  # the same definitions as page 0x2E


def test_device_statistics_round_trip() -> None:
    stats = {"lifetime_volume_loads": 1234, "lifetime_cleaning_operations": 7, "lifetime_power_on_hours": 40_000,
             "lifetime_head_hours": 16_000, "lifetime_metres_processed": 288_000_000_000, "hard_write_errors": 2,
             "hard_read_errors": 3, "drive_serial": "HU1234ABCD"}
    hours = (D.MediumTypeHours(0x5E, 0, 900), D.MediumTypeHours(0x60, 1, 15_100))
    page = parse_log_page(D.device_statistics_page(stats, hours))
    assert isinstance(page, D.DeviceStatistics)
    assert page.stats() == stats and page.medium_type_hours == hours


def test_tape_diagnostic_round_trip_skips_empty_slots() -> None:
    entry = D.DiagnosticEntry(code=0, density_code=0x60, medium_type=0, head_hours=812, repeat=True, sense_key=3,
                              asc=0x11, ascq=0, vendor_code=0xDEADBEEF, revision="Q3A1", hours_since_clean=12,
                              opcode=0x08, service_action=0, medium_id="TDC1234567L9", timestamp_origin=2,
                              timestamp=123_456_789)
    empty = D.DiagnosticEntry(1, 0, 0, 0, False, 0, 0, 0, 0, "", 0, 0, 0, "", 0, 0)
    page = parse_log_page(D.tape_diagnostic_page((entry, empty)))
    assert isinstance(page, D.TapeDiagnostic) and page.entries == (entry,)


def test_sas_port_round_trip() -> None:
    phys = tuple(D.SasPhy(phy_id=i, link_rate_code=0xB - i, attached_device_type=1, sas_address=0x5001438000000010 + i,
                          attached_sas_address=0x500605B000000001, attached_phy_id=i, invalid_dwords=100 * i,
                          disparity_errors=7, loss_of_sync=3, phy_reset_problems=i) for i in range(2))
    port = D.PortStatus(port=1, protocol=D.PROTOCOL_SAS, phys=phys)
    page = parse_log_page(D.sas_port_page((port,)))
    assert isinstance(page, D.ProtocolPort) and page.ports == (port,)
    assert [p.link_rate for p in phys] == ["12 Gbps", "6 Gbps"] and phys[1].error_total == 100 + 7 + 3 + 1


def test_non_medium_and_power_round_trip() -> None:
    nm = parse_log_page(D.non_medium_error_page(42))
    assert isinstance(nm, D.NonMediumErrors) and nm.count == 42
    counts = {"active": 10, "idle_a": 9, "idle_b": 0, "idle_c": 1, "standby_z": 2, "standby_y": 3}
    pc = parse_log_page(D.power_conditions_page(counts))
    assert isinstance(pc, D.PowerConditions) and pc.transitions() == counts


# ---------------------------------------------------------------- fuzz: only ParseError, never anything else
SEEDS = [
    D.temperature_page(41, 60), D.tapealert_response_page({3, 20}),
    D.device_status_page(D.DtStatus({n: True for n in D.DT_FLAG_NAMES}, 5)),
    D.device_statistics_page({"lifetime_volume_loads": 5, "drive_serial": "X"}, (D.MediumTypeHours(0x60, 0, 9),)),
    D.tape_diagnostic_page((D.DiagnosticEntry(0, 0x60, 0, 1, False, 3, 0x11, 0, 0, "A", 1, 8, 0, "M", 2, 5),)),
    D.sas_port_page((D.PortStatus(1, 6, (D.SasPhy(0, 0xB, 1, 1, 2, 0, 1, 2, 3, 4),)),)),
    D.non_medium_error_page(1), D.power_conditions_page({"active": 1}),
]


def _render(data: bytes) -> None:
    page = parse_log_page(data)
    for name in ("celsius", "reference_celsius", "status", "cleaning_required", "flags", "active",
                 "medium_type_hours", "entries", "ports", "count"):
        getattr(page, name, None)
    for method in ("stats", "transitions"):
        if hasattr(page, method):
            getattr(page, method)()
    if isinstance(page, D.DeviceStatus) and page.status is not None:
        page.status.activity_name  # noqa: B018 - must not raise
    if isinstance(page, D.ProtocolPort):
        [phy.link_rate for port in page.ports for phy in port.phys]


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: f"page{s[0]:02X}")
def test_truncated_or_garbled_pages_raise_only_parse_error(seed: bytes) -> None:
    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(cut=st.integers(0, len(seed)), pos=st.integers(0, len(seed) - 1), byte=st.integers(0, 255))
    def run(cut: int, pos: int, byte: int) -> None:
        data = (seed[:pos] + bytes([byte]) + seed[pos + 1:])[:cut]
        try:
            _render(data)
        except ParseError:
            pass

    run()


@settings(max_examples=300, deadline=None)
@given(page=st.sampled_from([0x06, 0x0D, 0x11, 0x12, 0x14, 0x16, 0x18, 0x1A]), body=st.binary(max_size=200))
def test_garbage_bodies_raise_only_parse_error(page: int, body: bytes) -> None:
    try:
        _render(bytes([page, 0]) + len(body).to_bytes(2, "big") + body)
    except ParseError:
        pass


# ---------------------------------------------------------------- the builders, read by sg_logs
def test_builders_bytes_decode_with_sg_logs(tmp_path: Path) -> None:
    """The app's own builders (used by the round trips) lay pages out as sg_logs reads them too."""
    entry = D.DiagnosticEntry(0, 0x62, 0, 812, False, 4, 0x44, 0, 0, "VAA0", 12, 0x08, 0, "ABC123L10", 2, 99)
    text = sg_inhex("sg_logs", D.tape_diagnostic_page((entry,)), tmp_path, "--pdt=1")
    assert "ABC123L10" in text and "Sense key: 0x4" in text and re.search(r"Lifetime media motion hours: 812", text), text

"""The virtual drive's drive-wide log pages (issue 15), read by the app's parsers and by ``sg_logs --inhex``."""
from __future__ import annotations

import re
import struct
from pathlib import Path

from native.scsi.logparse import parse_log_page
from tests.virtual.conftest import sg_inhex


def log_sense(d, page: int, alloc: int = 0xFFFF) -> bytes:  # type: ignore[no-untyped-def]
    r = d.execute(bytes([0x4D, 0, 0x40 | page, 0, 0, 0, 0]) + struct.pack(">H", alloc) + b"\x00", data_in=alloc)
    assert r.good, bytes(r.sense).hex()
    return bytes(r.data)


def test_virtual_drive_pages_decode_the_same_with_sg_logs(open_drive, tmp_path: Path) -> None:
    d = open_drive(tapealert="3,20", temp=44, phyerrors=123, hours=40000)
    supported = parse_log_page(log_sense(d, 0x00))
    assert {0x06, 0x0D, 0x11, 0x12, 0x14, 0x16, 0x18, 0x1A} <= set(supported.pages)

    raw = log_sense(d, 0x0D)
    temp = parse_log_page(raw)
    assert temp.celsius == 44 and "Current temperature = 44 C" in sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")

    raw = log_sense(d, 0x11)
    status = parse_log_page(raw).status
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    for label, name in (("MACC", "mam_accessible"), ("CMPR", "compression_enabled"), ("WRTP", "write_protected"),
                        ("CRQST", "cleaning_requested"), ("CRQRD", "cleaning_required"), ("MPRSNT", "medium_present"),
                        ("MTHRD", "medium_threaded"), ("MOUNTED", "mounted"), ("TAFC", "tapealert_changed")):
        assert f"{label}={int(status.flags[name])}" in text, label
    assert status.flags["cleaning_required"] and not status.flags["cleaning_requested"]  # flag 14h: clean now

    raw = log_sense(d, 0x12)
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    sg_flags = {int(code, 16) for code, v in re.findall(r"(?:Flag)?([0-9A-F]{2})h: (\d)", text) if v == "1"}
    assert sg_flags == {f.code for f in parse_log_page(raw).active} == {3, 20}
    assert {f.code for f in parse_log_page(log_sense(d, 0x12)).active} == {3, 20}  # 0x12 clears nothing

    raw = log_sense(d, 0x14)
    stats = parse_log_page(raw)
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    s = stats.stats()
    for label, name in (("Lifetime media loads", "lifetime_volume_loads"), ("Lifetime cleaning operations", "lifetime_cleaning_operations"),
                        ("Lifetime power on hours", "lifetime_power_on_hours"), ("Lifetime media motion \\(head\\) hours", "lifetime_head_hours"),
                        ("Lifetime metres of tape processed", "lifetime_metres_processed"), ("Hard write errors", "hard_write_errors"),
                        ("Hard read errors", "hard_read_errors")):
        assert int(re.search(label + r": (\d+)", text).group(1)) == s[name], label
    assert s["lifetime_power_on_hours"] == 40000 and s["drive_serial"] == d.serial
    (medium,) = stats.medium_type_hours
    assert f"Density code: 0x{medium.density_code:x}" in text and re.search(rf"Medium motion hours: {medium.hours}\b", text)

    raw = log_sense(d, 0x18)
    (port,) = parse_log_page(raw).ports
    (phy,) = port.phys
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert f"negotiated logical link rate: {phy.link_rate}" in text and phy.link_rate == "12 Gbps"
    assert f"SAS address = 0x{phy.sas_address:x}" in text and phy.sas_address == d.naa
    for label, value in (("Invalid DWORD count", phy.invalid_dwords), ("Running disparity error count", phy.disparity_errors),
                         ("Loss of DWORD synchronization count", phy.loss_of_sync), ("Phy reset problem count", phy.phy_reset_problems)):
        assert f"{label} = {value}" in text
    assert (phy.invalid_dwords, phy.loss_of_sync) == (123, 12)

    raw = log_sense(d, 0x06)
    assert parse_log_page(raw).count == 0 and "Non-medium error count = 0" in sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    raw = log_sense(d, 0x1A)
    transitions = parse_log_page(raw).transitions()
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert f"Accumulated transitions to active = {transitions['active']}" in text and transitions["active"] > 0


def test_tape_diagnostic_entry_from_a_medium_error_decodes_with_sg_logs(open_drive, tmp_path: Path, monkeypatch) -> None:
    """A write the cartridge file refuses is a MEDIUM ERROR; the drive keeps it on page 0x16, as a real one does."""
    d = open_drive()
    assert parse_log_page(log_sense(d, 0x16)).entries == ()

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(d.cart, "append_blocks", broken)
    r = d.execute(bytes([0x0A, 0, 0, 0x10, 0, 0]), data_out=b"x" * 4096)
    assert not r.good and bytes(r.sense)[2] & 0x0F == 3
    raw = log_sense(d, 0x16)
    (entry,) = parse_log_page(raw).entries
    assert (entry.sense_key, entry.asc, entry.ascq, entry.opcode) == (3, 0x0C, 0, 0x0A)
    assert entry.medium_id == d.cart.meta.serial and entry.density_code == 0x60
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1")
    assert re.search(r"Sense key: 0x3", text, re.IGNORECASE) or "Medium Error" in text, text
    assert d.cart.meta.serial in text  # sg_logs 1.45 shows the space-padded id as hex + ASCII
    assert parse_log_page(log_sense(d, 0x11)).status.flags["tape_diagnostic_entry_created"]

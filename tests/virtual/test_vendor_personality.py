"""The virtual drive plays HP and IBM drives (``vendor=``) and a worn one (``worn=1``), issue 15.

Its vendor pages are read three ways: the raw bytes by ``sg_logs -M lto5``, by
``native.scsi.vendorlogs`` and through ``tapediag info``.
"""
from __future__ import annotations

import json
import random
import re
import struct
from pathlib import Path

import pytest

from app.cli import main
from app.drive import Supported, TapeDrive
from app.info import gather
from native.errors import InvalidParameter
from native.scsi.inquiry import Inquiry
from native.scsi.logparse import parse_log_page
from native.scsi.vendorlogs import HP, IBM, decode_vendor_page
from native.virtual.options import parse_device
from tests.virtual.conftest import sg_inhex
from tests.virtual.test_drive_pages import log_sense

#: A real IBM ULT3580-TD6 / ULT3580-TDA's supported log pages (issue 15).
REAL_IBM_LIST = [0x00, 0x02, 0x03, 0x06, 0x0C, 0x11, 0x12, 0x14, 0x16, 0x17, 0x1A, 0x1B, 0x2E, 0x30, 0x31, 0x32, 0x33, 0x34,
                 0x37, 0x38, 0x39, 0x3B, 0x3C, 0x3D]


def _inquiry(d) -> Inquiry:  # type: ignore[no-untyped-def]
    r = d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96)
    return Inquiry.parse(bytes(r.data))


@pytest.mark.parametrize("gen, product", [(5, "ULT3580-TD5"), (9, "ULT3580-TD9"), (10, "ULT3580-TDA")])
def test_ibm_identity_and_real_page_list(open_drive, gen: int, product: str) -> None:  # type: ignore[no-untyped-def]
    d = open_drive(gen=gen, vendor="ibm")
    inq = _inquiry(d)
    assert (inq.vendor.strip(), inq.product.strip()) == ("IBM", product)
    assert list(parse_log_page(log_sense(d, 0x00)).pages) == REAL_IBM_LIST


def test_hp_is_the_default_and_lists_its_vendor_pages(open_drive) -> None:  # type: ignore[no-untyped-def]
    d = open_drive()
    inq = _inquiry(d)
    assert (inq.vendor.strip(), inq.product.strip()) == ("HPE", "Ultrium 9-SCSI")
    pages = set(parse_log_page(log_sense(d, 0x00)).pages)
    assert {0x30, 0x31, 0x32, 0x34, 0x0D, 0x18} <= pages and not pages & {0x33, 0x37, 0x38, 0x3C}


def test_vendor_pages_decode_the_same_with_sg_logs(open_drive, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    d = open_drive(vendor="ibm")
    blocks = random.Random(1).randbytes(65536)  # incompressible: 13 MB of tape
    for _ in range(200):  # the cartridge's data-set counters move
        assert d.execute(bytes([0x0A, 0, 1, 0, 0, 0]), data_out=blocks).good
    assert d.execute(bytes([0x10, 0, 0, 0, 1, 0])).good  # a filemark flushes the buffer to "tape"
    raw = log_sense(d, 0x30)
    usage = decode_vendor_page(IBM, raw).figures
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1", "-M", "lto5")
    assert int(re.search(r"Thread count: (\d+)", text).group(1)) == usage["thread_count"] >= 1  # type: ignore[union-attr]
    assert int(re.search(r"Total data sets written: (\d+)", text).group(1)) == usage["total_data_sets_written"] > 0  # type: ignore[union-attr]

    raw = log_sense(d, 0x31)
    cap = decode_vendor_page(IBM, raw).figures
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1", "-M", "lto5")
    assert int(re.search(r"Main partition maximum capacity \(in MiB\): (\d+)", text).group(1)) == cap["main_partition_maximum_mib"] == 64  # type: ignore[union-attr]
    assert int(re.search(r"Main partition remaining capacity \(in MiB\): (\d+)", text).group(1)) == cap["main_partition_remaining_mib"] < 64  # type: ignore[union-attr]

    raw = log_sense(d, 0x32)
    comp = decode_vendor_page(IBM, raw).figures
    text = sg_inhex("sg_logs", raw, tmp_path, "--pdt=1", "-M", "lto5")
    assert int(re.search(r"Megabytes transferred from server: (\d+)", text).group(1)) == comp["bytes_from_host"] // 1_048_576  # type: ignore[union-attr]
    assert comp["bytes_from_host"] == 200 * 65536

    page = decode_vendor_page(IBM, log_sense(d, 0x37))
    assert page.figures == {"media_efficiency": 0x01}
    for code in (0x33, 0x34, 0x38, 0x39, 0x3B, 0x3C, 0x3D):  # listed, no public layout: no invented parameters
        empty = decode_vendor_page(IBM, log_sense(d, code))
        assert empty.figures == {} and empty.raw == () and empty.name != "vendor-specific page"


def test_ibm_drive_never_answers_hp_performance(open_drive) -> None:  # type: ignore[no-untyped-def]
    d = open_drive(vendor="ibm")
    assert decode_vendor_page(IBM, log_sense(d, 0x34)).name == "read forward errors"
    hp = open_drive(cart="h.cart")
    assert decode_vendor_page(HP, log_sense(hp, 0x34)).name == "performance data"
    r = d.execute(bytes([0x4D, 0, 0x40 | 0x18, 0, 0, 0, 0]) + struct.pack(">H", 512) + b"\x00", data_in=512)
    assert not r.good  # IBM's list has no 18h: ILLEGAL REQUEST, as a real IBM drive answers


def test_worn_head_option(open_drive) -> None:  # type: ignore[no-untyped-def]
    d = open_drive(worn=1)
    stats = parse_log_page(log_sense(d, 0x14)).stats()
    assert stats["lifetime_power_on_hours"] == 40_000
    for _ in range(320):  # 20 MB written: two modelled rewrites
        assert d.execute(bytes([0x0A, 0, 1, 0, 0, 0]), data_out=b"\x01" * 65536).good
    errors = parse_log_page(log_sense(d, 0x02))
    assert errors.total_retries == errors.total_corrected == 2 and errors.total_uncorrected == 0
    assert open_drive(cart="w.cart", worn=1, hours=100).life.power_on_hours == 100  # hours= wins
    ibm = open_drive(cart="i.cart", vendor="ibm", worn=1)
    assert decode_vendor_page(IBM, log_sense(ibm, 0x37)).figures == {"media_efficiency": 0x80}


def test_personality_options_are_checked() -> None:
    assert parse_device("virtual:lto9?vendor=IBM").vendor == "ibm"
    with pytest.raises(InvalidParameter, match="must be hp or ibm"):
        parse_device("virtual:lto9?vendor=quantum")
    with pytest.raises(InvalidParameter, match="IBM drive does not list"):
        parse_device("virtual:lto9?vendor=ibm&phyerrors=5000")
    with pytest.raises(InvalidParameter, match="is not on or off"):
        parse_device("virtual:lto9?worn=maybe")


def test_info_json_on_an_ibm_lto10(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(tmp_path / "data"))
    dev = f"virtual:lto10?vendor=ibm&realtime=0&capacity=64M&cartridge={tmp_path / 'a.cart'}"
    assert main(["info", dev, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["identity"]["vendor"].strip() == "IBM" and data["generation"] == 10
    pages = {p["page_code"]: p for p in data["vendor_pages"]["value"]}
    assert sorted(pages) == [0x30, 0x31, 0x32, 0x33, 0x34, 0x37, 0x38, 0x39, 0x3B, 0x3C, 0x3D]
    assert all(p["source"] for p in pages.values()) and pages[0x34]["name"] == "read forward errors"
    assert data["performance"]["supported"] is False  # IBM 34h is not HP's performance page
    wear = data["wear"]
    assert all(f["source"] == "no published design figure" and f["percent_used"] is None for f in wear["drive"])
    # LTO-10 cartridges: no published load/unload rating, so no percentage and no verdict.
    assert wear["cartridge"]["verdict"] == "not assessed"


def test_info_on_an_lto7_cartridge_has_its_rated_loads(open_drive) -> None:  # type: ignore[no-untyped-def]
    d = open_drive(gen=7)
    info = gather(TapeDrive(d))
    assert isinstance(info.wear, Supported) and info.wear.value.cartridge is not None
    (loads, *_) = info.wear.value.cartridge.figures
    assert loads.design_life == 20_000 and loads.source.startswith("IBM TS2900")
    assert info.wear.value.cartridge.verdict.value == "keep"


def test_a_recorded_ibm_info_reads_back_as_it_was_printed(open_drive) -> None:  # type: ignore[no-untyped-def]
    """``tapediag show`` rebuilds DriveInfo from the stored JSON: vendor pages and wear included."""
    from app.info_view import render_text
    from app.info import DriveInfo
    from app.runs.typed import from_dict

    info = gather(TapeDrive(open_drive(gen=7, vendor="ibm", worn=1)))
    back = from_dict(DriveInfo, json.loads(json.dumps(info.to_dict())))
    # The parser types come back from their stored fields (a page's raw parameters are not stored): the same
    # stored form and the same text, not the same objects.
    assert back.to_dict() == info.to_dict() and render_text(back) == render_text(info)
    assert "IBM log page 0x37: performance characteristics" in render_text(info) and "80h" in render_text(info)

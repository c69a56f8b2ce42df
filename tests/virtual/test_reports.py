"""Identity, mode pages, density, log pages and MAM, decoded by sg3_utils' own parsers."""
from __future__ import annotations

import os
import re
import struct

from tests.virtual.conftest import cdb6, filemarks, read, rewind, sense_fields, sg_inhex, write


def log_sense(d, page: int, alloc: int = 0xFFFF):
    return d.execute(bytes([0x4D, 0, 0x40 | page, 0, 0, 0, 0]) + struct.pack(">H", alloc) + b"\x00", data_in=alloc)


def _traffic(d) -> tuple[int, int]:
    """Write 4 x 256 KiB of 2:1-ish text and 1 random MiB, read it all back."""
    text = (b"tapediag virtual drive " * 12000)[: 256 << 10]
    blocks = [text] * 4 + [os.urandom(1 << 20)]
    for b in blocks:
        assert write(d, b).good
    filemarks(d)
    rewind(d)
    for b in blocks:
        assert read(d, len(b)).good
    return sum(map(len, blocks)), len(blocks)


def test_log_pages_decode_with_sg_logs(open_drive, tmp_path) -> None:
    d = open_drive(capacity="1G")
    total, _ = _traffic(d)
    listing = sg_inhex("sg_logs", bytes(log_sense(d, 0x00).data), tmp_path, "--pdt=1")
    for name in ("Write error", "Read error", "Sequential access device", "Volume statistics", "Data compression", "Tape alert"):
        assert name in listing
    comp = sg_inhex("sg_logs", bytes(log_sense(d, 0x1B).data), tmp_path, "--pdt=1")
    host_w = int(re.search(r"Megabytes transferred from server: (\d+)", comp).group(1)) * 2**20 + int(  # SSC: this page counts 1 048 576-byte megabytes
        re.search(r"Bytes transferred from server: (\d+)", comp).group(1))
    assert host_w == total == d.load["host_w"]
    ratio = int(re.search(r"Write compression ratio x100: (\d+)", comp).group(1))
    assert ratio == int(100 * d.load["host_w"] / d.load["tape_w"])
    assert 110 < ratio < 400  # text compresses, the random MiB does not
    assert "Data compression enabled: 0x1" in comp
    vol = sg_inhex("sg_logs", bytes(log_sense(d, 0x17).data), tmp_path, "--pdt=1")
    assert "Thread count: 1" in vol and f"Volume serial number: {d.cart.meta.serial}" in vol
    assert f"Volume barcode: {d.cart.meta.barcode}" in vol and "Write protect: 0" in vol and "WORM: 0" in vol
    seq = sg_inhex("sg_logs", bytes(log_sense(d, 0x0C).data), tmp_path, "--pdt=1")
    assert "Sequential access device page" in seq
    werr = sg_inhex("sg_logs", bytes(log_sense(d, 0x02).data), tmp_path, "--pdt=1")
    assert re.search(r"Total bytes processed = %d" % total, werr)


def test_log_sense_truncates_to_allocation_and_rejects_unknown_pages(open_drive) -> None:
    d = open_drive()
    r = log_sense(d, 0x1B, alloc=10)
    assert r.good and r.transferred == 10 and struct.unpack_from(">H", r.data, 2)[0] > 6
    assert sense_fields(log_sense(d, 0x33).sense)[:3] == (5, 0x24, 0)


def test_tapealert_flags_are_cleared_by_reading(open_drive, tmp_path) -> None:
    d = open_drive(tapealert="3,20")
    first = sg_inhex("sg_logs", bytes(log_sense(d, 0x2E).data), tmp_path, "--pdt=1")
    assert "Hard error: 1" in first and "Cleaning required: 1" in first and "Media: 0" in first
    raw = bytes(log_sense(d, 0x2E).data)
    assert len(raw) == 4 + 64 * 5 and all(raw[4 + 5 * i + 4] == 0 for i in range(64))


def test_mam_attributes_decode_with_sg_read_attr(open_drive, tmp_path) -> None:
    d = open_drive(capacity="256M", barcode="TDG001L9")
    _traffic(d)
    r = d.execute(bytes([0x8C, 0, 0, 0, 0, 0, 0, 0, 0, 0]) + struct.pack(">I", 8192) + b"\x00\x00", data_in=8192)
    assert r.good
    text = sg_inhex("sg_read_attr", bytes(r.data), tmp_path)
    assert "Maximum capacity in partition [MiB]: 256" in text
    remaining = int(re.search(r"Remaining capacity in partition \[MiB\]: (\d+)", text).group(1))
    assert remaining == (256 * 2**20 - d.cart.tape_used()) // 2**20
    assert "Load count: 1" in text and "Medium density code: 0x60" in text
    assert "Total MiB written in current/last load: 2" in text and "Total MiB read in current/last load: 2" in text
    assert "Barcode: TDG001L9" in text and re.search(r"Medium manufacture date: \d{8}", text)
    d.close()
    d = open_drive(capacity="256M")  # reopened: the load count went up, lifetime totals stayed
    r = d.execute(bytes([0x8C, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x20]) + struct.pack(">I", 8192) + b"\x00\x00", data_in=8192)
    text = sg_inhex("sg_read_attr", bytes(r.data), tmp_path)
    assert "Total MiB written in medium life: 2" in text and "Load count" not in text
    lst = d.execute(bytes([0x8C, 1, 0, 0, 0, 0, 0, 0, 0, 0]) + struct.pack(">I", 512) + b"\x00\x00", data_in=512)
    ids = struct.unpack_from(">%dH" % ((lst.transferred - 4) // 2), lst.data, 4)
    assert {0x0000, 0x0001, 0x0003, 0x0220, 0x0223, 0x0400, 0x0401, 0x0405, 0x0406, 0x0408, 0x0806} <= set(ids)
    assert d.cart.meta.load_count == 2


def test_inquiry_and_vpd(open_drive, tmp_path) -> None:
    d = open_drive(gen=7)
    std = bytes(d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96).data)
    assert std[0] == 0x01 and std[1] & 0x80 and std[8:16] == b"HPE     " and std[16:32] == b"Ultrium 7-SCSI  "
    sup = bytes(d.execute(bytes([0x12, 1, 0, 0, 255, 0]), data_in=255).data)
    assert list(sup[4:]) == [0x00, 0x80, 0x83]
    sn = bytes(d.execute(bytes([0x12, 1, 0x80, 0, 255, 0]), data_in=255).data)
    assert sn[4:].decode() == d.serial and len(d.serial) == 10
    ids = bytes(d.execute(bytes([0x12, 1, 0x83, 0, 255, 0]), data_in=255).data)
    text = sg_inhex("sg_vpd", ids, tmp_path, "--page=di")
    assert f"0x{d.naa:016x}" in text and d.naa >> 36 == 0x5001438 and f"Ultrium 7-SCSI  {d.serial}" in text


def test_mode_sense_select_and_block_limits(open_drive) -> None:
    d = open_drive(gen=8)
    ms = bytes(d.execute(bytes([0x5A, 0, 0x0F, 0, 0, 0, 0, 0, 255, 0]), data_in=255).data)
    assert struct.unpack_from(">H", ms, 6)[0] == 8 and ms[8] == 0x5E  # density of LTO-8
    assert ms[3] == 0x10 and ms[16] == 0x0F and ms[18] & 0x80  # buffered mode 1, DCE on
    off = bytes([0, 0, 0x10, 0]) + bytes([0x0F, 0x0E, 0x00, 0x80]) + bytes(12)
    assert d.execute(cdb6(0x15, 0x10, len(off)), data_out=off).good
    ms = bytes(d.execute(bytes([0x1A, 0x08, 0x0F, 0, 255, 0]), data_in=255).data)
    assert ms[3] == 0 and ms[4] == 0x0F and not ms[6] & 0x80  # no block descriptor, DCE off
    bad = bytes([0, 0, 0x10, 0]) + bytes([0x25, 0x02, 0, 0])
    assert sense_fields(d.execute(cdb6(0x15, 0x10, len(bad)), data_out=bad).sense)[:3] == (5, 0x26, 0)
    assert sense_fields(d.execute(bytes([0x1A, 0, 0xC0 | 0x0F, 0, 255, 0]), data_in=255).sense)[:3] == (5, 0x39, 0)
    rbl = bytes(d.execute(cdb6(0x05), data_in=6).data)
    assert rbl == bytes([0, 0xFF, 0xFF, 0xFF, 0, 1])


def test_report_density_support(open_drive) -> None:
    d = open_drive(gen=9, capacity="1G")
    r = d.execute(bytes([0x44, 0, 0, 0, 0, 0, 0, 0x10, 0, 0]), data_in=4096)
    data = bytes(r.data)
    assert struct.unpack_from(">H", data)[0] == len(data) - 2 == 2 + 2 * 52
    codes = [(data[4 + 52 * i], data[4 + 52 * i + 2]) for i in range(2)]
    assert codes == [(0x5E, 0x81), (0x60, 0xA1)]  # LTO-8 writable, LTO-9 writable + default
    media = bytes(d.execute(bytes([0x44, 1, 0, 0, 0, 0, 0, 0x10, 0, 0]), data_in=4096).data)
    assert media[4] == 0x60 and struct.unpack_from(">I", media, 4 + 12)[0] == (1 << 30) // 10**6


def test_lto10_reads_and_writes_lto10_media_only(open_drive) -> None:
    """LTO-10 breaks the one-generation-back rule (LTFS ibm_tape.c lists only LTO-10 media for it)."""
    d = open_drive(gen=10, capacity="1G")
    r = d.execute(bytes([0x44, 0, 0, 0, 0, 0, 0, 0x10, 0, 0]), data_in=4096)
    data = bytes(r.data)
    assert struct.unpack_from(">H", data)[0] == len(data) - 2 == 2 + 52
    assert (data[4], data[6]) == (0x62, 0xA1)  # LTO-10, writable + default
    assert struct.unpack_from(">I", data, 4 + 12)[0] == 30_000_000  # 30 TB native, in 10^6-byte units
    std = bytes(d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96).data)
    assert std[16:32] == b"Ultrium 10-SCSI " and std[32:36] == b"VAA0"


def test_hp_performance_page_reports_the_model_figures(open_drive) -> None:
    from native.scsi.logpages import HpPerformance
    from native.scsi.logparse import parse_log_page

    d = open_drive(capacity="1G")
    _traffic(d)
    page = HpPerformance.from_page(parse_log_page(bytes(log_sense(d, 0x34).data)))
    assert page.native_mb_s == d.spec.native_rate / 1e6
    assert page.max_possible_mb_s is not None and page.max_possible_mb_s >= d.spec.speed_steps[-1] / 1e6 * 0.99
    assert page.buffer_in_mb_s is not None and page.buffer_in_mb_s > 0
    assert page.repositions_per_100mb == round(d.model.stats.backhitches * 1e8 / d.model.stats.host_bytes)

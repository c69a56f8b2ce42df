"""WRITE/READ/filemarks/EOD with exact sense bytes, cross-checked by sg_decode_sense."""
from __future__ import annotations

import os

from native.transport import CHECK_CONDITION
from tests.virtual.conftest import (
    cdb6, decode_sense, filemarks, position, read, rewind, sense_fields, space, write,
)


def test_blocks_survive_reopen_with_exact_bytes(open_drive) -> None:
    blocks = [os.urandom(n) for n in (1, 4096, 65536, 300_001)]
    d = open_drive()
    for b in blocks:
        assert write(d, b).good
    assert filemarks(d).good
    assert write(d, b"after the mark").good
    d.close()
    d = open_drive()
    for b in blocks:
        r = read(d, len(b))
        assert r.good and bytes(r.data) == b and r.transferred == len(b)
    assert sense_fields(read(d, 10).sense)[4]  # the filemark
    assert bytes(read(d, 14).data) == b"after the mark"
    assert position(d)[1:] == (6, 1)


def test_unclean_stop_is_recovered_by_scanning_records(open_drive, tmp_path) -> None:
    d = open_drive()
    data = [os.urandom(1000 + i) for i in range(5)]
    for b in data:
        write(d, b)
    filemarks(d, 2)
    # Simulate a crash: no close (no index written, header still dirty).
    d.cart._fd, fd = -1, d.cart._fd
    d._closed = True
    os.close(fd)
    d2 = open_drive()
    assert d2.cart.count == 7
    assert [bytes(read(d2, 2000).data) for _ in range(5)] == data


def _crash(d) -> None:
    """Stop the drive as a killed process would: no index written, the header left dirty."""
    d.cart._fd, fd = -1, d.cart._fd
    d._closed = True
    os.close(fd)


def test_an_overwrite_from_bot_reuses_the_file_in_place_and_a_scan_ignores_the_old_records(open_drive, tmp_path) -> None:
    # Issue 32: cutting the file at BOT (0.3 s for 2 GiB on tmpfs) and growing it again made every
    # second --force run slower. The new records overwrite the old in place; after an unclean stop
    # the records past the new EOD belong to an older epoch and do not come back as data.
    d = open_drive()
    old = [os.urandom(4000) for _ in range(6)]
    for b in old:
        assert write(d, b).good
    d.close()
    size = (tmp_path / "c.cart").stat().st_size
    d = open_drive()
    new = [os.urandom(4000) for _ in range(2)]  # the same size: an old record header right after them
    for b in new:
        assert write(d, b).good  # the first one truncates at BOT
    assert (tmp_path / "c.cart").stat().st_size >= size  # nothing cut while the drive writes
    _crash(d)
    d = open_drive()
    assert d.cart.count == 2
    assert [bytes(read(d, 5000).data) for _ in range(2)] == new
    assert sense_fields(read(d, 10).sense)[:3] == (8, 0, 5)  # then EOD, not the third old block
    d.close()
    assert (tmp_path / "c.cart").stat().st_size < 64 * 1024 + 3 * 4100  # a clean close cuts the old records


def test_a_truncation_without_a_write_after_it_survives_an_unclean_stop(open_drive) -> None:
    d = open_drive()
    for i in range(5):
        assert write(d, bytes([i + 1]) * 100).good
    rewind(d)
    read(d, 100)
    assert d.execute(cdb6(0x19, 1)).good  # ERASE here: EOD after the first block
    _crash(d)
    d = open_drive()
    assert d.cart.count == 1 and bytes(read(d, 100).data) == b"\x01" * 100


def test_read_shorter_and_longer_than_the_block_gives_ili_with_signed_info(open_drive) -> None:
    d = open_drive()
    write(d, b"x" * 1000)
    write(d, b"y" * 1000)
    rewind(d)
    r = read(d, 400)  # block longer than asked: overlength, INFO negative
    assert r.status == CHECK_CONDITION and bytes(r.data) == b"x" * 400 and r.transferred == 400
    assert sense_fields(r.sense) == (0, 0, 0, -600, False, False, True)
    assert "ILI" in decode_sense(r.sense) and "0xfffffda8" in decode_sense(r.sense)  # -600, two's complement
    r = read(d, 5000)  # underlength: INFO positive, the block is all there is
    assert sense_fields(r.sense) == (0, 0, 0, 4000, False, False, True) and r.transferred == 1000
    rewind(d)
    r = read(d, 5000, sili=True)  # SILI: no CHECK CONDITION in variable mode
    assert r.good and r.transferred == 1000


def test_filemark_then_eod_sense(open_drive) -> None:
    d = open_drive()
    write(d, b"a" * 10)
    filemarks(d)
    rewind(d)
    read(d, 10)
    r = read(d, 8192)
    assert sense_fields(r.sense) == (0, 0, 1, 8192, True, False, False) and r.transferred == 0
    assert "Filemark detected" in decode_sense(r.sense) and "FMK" in decode_sense(r.sense)
    assert position(d)[1:] == (2, 1)  # after the filemark
    r = read(d, 8192)
    assert sense_fields(r.sense) == (8, 0, 5, 8192, False, False, False)
    assert "Blank Check" in decode_sense(r.sense) and "End-of-data detected" in decode_sense(r.sense)
    assert position(d)[1] == 2  # EOD does not move


def test_fixed_block_mode_counts_blocks_in_info(open_drive) -> None:
    d = open_drive()
    select = bytes([0, 0, 0x10, 8, 0, 0, 0, 0, 0]) + (512).to_bytes(3, "big")
    assert d.execute(cdb6(0x15, 0x10, len(select)), data_out=select).good
    assert d.execute(cdb6(0x0A, 1, 3), data_out=os.urandom(1536)).good
    assert filemarks(d).good
    rewind(d)
    r = d.execute(cdb6(0x08, 1, 5), data_in=5 * 512)
    assert sense_fields(r.sense) == (0, 0, 1, 2, True, False, False) and r.transferred == 1536
    r = d.execute(cdb6(0x08, 1 | 2, 1), data_in=512)  # FIXED with SILI is invalid
    assert sense_fields(r.sense)[:3] == (5, 0x24, 0)


def test_write_in_the_middle_truncates_the_rest(open_drive) -> None:
    d = open_drive()
    for i in range(5):
        write(d, bytes([i]) * 100)
    rewind(d)
    space(d, 0, 2)
    write(d, b"new")
    assert position(d)[1] == 3 and d.cart.count == 3
    r = read(d, 100)
    assert sense_fields(r.sense)[:3] == (8, 0, 5)


def test_no_cartridge_is_not_ready_but_inquiry_works(open_drive) -> None:
    d = open_drive(loaded=0)
    r = d.execute(cdb6(0x00))
    assert sense_fields(r.sense)[:3] == (2, 0x3A, 0)
    assert "Medium not present" in decode_sense(r.sense)
    assert d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96).good
    rs = d.execute(cdb6(0x03, 0, 18), data_in=18)
    assert rs.good and sense_fields(bytes(rs.data))[:3] == (2, 0x3A, 0)
    assert d.execute(bytes([0x1B, 0, 0, 0, 1, 0])).good  # LOAD
    assert d.execute(cdb6(0x00)).good


def test_early_warning_then_volume_overflow(open_drive) -> None:
    d = open_drive(capacity="2M", ew="512K")
    block = os.urandom(256 << 10)  # random: ~1:1 on tape
    statuses = [write(d, block) for _ in range(9)]
    keys = [sense_fields(r.sense)[:3] + (sense_fields(r.sense)[5],) if r.sense else "good" for r in statuses]
    assert keys[:5] == ["good"] * 5  # 1.25 MiB: before early warning
    assert (0, 0, 2, True) in keys  # EOM early warning, data written
    ew = keys.index((0, 0, 2, True))
    overflow = keys.index((0xD, 0, 2, True))
    assert ew < overflow
    r = statuses[overflow]
    assert sense_fields(r.sense)[3] == len(block)  # nothing of it written
    assert "Volume Overflow" in decode_sense(r.sense) and "EOM" in decode_sense(r.sense)
    assert d.cart.count == overflow


def test_unknown_opcode_and_short_allocation(open_drive) -> None:
    d = open_drive()
    r = d.execute(bytes([0xE7]) + bytes(15))
    assert sense_fields(r.sense)[:3] == (5, 0x20, 0)
    assert "Invalid command operation code" in decode_sense(r.sense)
    r = d.execute(bytes([0x12, 0, 0, 0, 5, 0]), data_in=255)
    assert r.transferred == 5 and bytes(r.data) == bytes([0x01, 0x80, 0x06, 0x12, 91])
    r = d.execute(bytes([0x12, 1, 0x99, 0, 255, 0]), data_in=255)
    assert sense_fields(r.sense)[:3] == (5, 0x24, 0)


def test_many_small_fixed_blocks_in_one_command(open_drive) -> None:
    d = open_drive()
    select = bytes([0, 0, 0x10, 8, 0, 0, 0, 0, 0]) + (512).to_bytes(3, "big")
    d.execute(cdb6(0x15, 0x10, len(select)), data_out=select)
    payload = os.urandom(1200 * 512)  # more blocks than one pwritev carries
    assert d.execute(cdb6(0x0A, 1, 1200), data_out=payload).good
    filemarks(d)
    assert d.cart.count == 1201 and position(d)[1] == 1201
    d.close()
    d = open_drive()
    d.execute(cdb6(0x15, 0x10, len(select)), data_out=select)
    r = d.execute(cdb6(0x08, 1, 2000), data_in=2000 * 512)
    assert sense_fields(r.sense) == (0, 0, 1, 800, True, False, False)
    assert r.transferred == len(payload) and bytes(r.data) == payload
    rewind(d)
    space(d, 0, 1199)
    r = d.execute(cdb6(0x08, 1, 1), data_in=512)
    assert r.good and bytes(r.data) == payload[-512:]


def test_a_command_slower_than_its_timeout_raises_command_timeout(open_drive) -> None:
    import pytest

    from native.errors import CommandTimeout

    d = open_drive(buffer="1M", interface=10)  # 10 MB/s: 4 MiB takes 0.4 s of model time
    with pytest.raises(CommandTimeout):
        d.execute(cdb6(0x0A, 0, 4 << 20), data_out=bytes(4 << 20), timeout=0.1)
    assert d.execute(cdb6(0x0A, 0, 4 << 20), data_out=bytes(4 << 20), timeout=5).good


def test_zero_blocks_cost_no_disk_and_read_back_as_zeros(open_drive, tmp_path) -> None:
    d = open_drive(capacity="1G")
    for _ in range(16):
        assert write(d, bytes(1 << 20)).good
    assert write(d, b"\x00" * 100 + b"\x01").good  # almost zero: stored as data
    filemarks(d)
    assert d.cart.file_bytes < 4096
    d.close()
    d = open_drive(capacity="1G")  # the index remembers which records are zero blocks
    for _ in range(16):
        r = read(d, 1 << 20)
        assert r.good and not any(bytes(r.data))
    assert bytes(read(d, 101).data) == b"\x00" * 100 + b"\x01"
    d.cart._fd, fd = -1, d.cart._fd  # crash: the next open scans the records
    d._closed = True
    os.close(fd)
    write_after = open_drive(capacity="1G")
    assert write_after.cart.count == 18 and write_after.cart.length(0) == 1 << 20
    assert not any(bytes(read(write_after, 1 << 20).data))


def test_the_file_budget_ends_the_medium_for_compressible_data(open_drive) -> None:
    d = open_drive(capacity="64M", maxfile="2M")
    text = (b"highly compressible " * 60000)[: 256 << 10]
    results = [write(d, text) for _ in range(12)]
    keys = [sense_fields(r.sense)[:3] if r.sense else "good" for r in results]
    assert (0, 0, 2) in keys and (0xD, 0, 2) in keys  # early warning, then overflow
    assert d.cart.file_bytes <= 2 << 20 and d.cart.tape_used() < (8 << 20)

"""``TapeDrive.write_burst``/``read_burst``: a stream of WRITEs/READs in one transport call (issue 19).

A burst must mean what the same READs and WRITEs one at a time mean: a filemark, EOD,
a short block or the early warning end it as its ``tail`` (the outcome ``read``/
``write`` give), an error ends it as a value after the clean I/Os it counted. The same
checks run on tgt over iSCSI (the C loop) and on the virtual drive (the generic loop).
"""
from __future__ import annotations

import time
from array import array

import pytest

from app.drive import TapeDrive
from native.errors import CheckCondition
from tests.helpers.tgt import tgt_available, tgt_module_target  # noqa: F401  (fixture)

BLOCK = 8192


def times(n: int = 64) -> tuple[array, array]:
    return array("d", bytes(8 * n)), array("d", bytes(8 * n))


def number(buf: bytearray, index: int) -> None:
    buf[:] = index.to_bytes(8, "big") * (len(buf) // 8)


@pytest.fixture(params=["virtual", "tgt"])
def drive(request: pytest.FixtureRequest):
    if request.param == "tgt":
        if not tgt_available():
            pytest.skip("tgt is not installed")
        url = request.getfixturevalue("tgt_module_target").url
    else:
        url = "virtual:lto9?realtime=0"
    with TapeDrive.open(url) as d:
        d.wait_ready(30, poll=0.1)
        d.set_block_size(0)
        d.rewind()
        yield d


def test_a_read_burst_ends_at_the_filemark_as_its_tail(drive: TapeDrive) -> None:
    starts, ends = times()
    buf = bytearray(BLOCK)
    wrote = drive.write_burst(buf, count=6, until=time.perf_counter() + 60, starts=starts, ends=ends, fill=number)
    assert (wrote.clean, wrote.tail, wrote.error) == (6, None, None)
    drive.write_filemarks(1)
    number(buf, 99)
    drive.write(buf[:512])  # a short block after the filemark
    drive.rewind()
    view = memoryview(bytearray(BLOCK))
    data = drive.read_burst(view, count=6, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert (data.clean, data.tail, data.error) == (6, None, None)  # stopped by its count
    assert int.from_bytes(view[:8], "big") == 5
    first = drive.read_burst(view, count=64, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert first.clean == 0 and first.error is None
    assert first.tail is not None and first.tail.filemark and first.tail.nbytes == 0
    second = drive.read_burst(view, count=64, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert second.clean == 0 and second.tail is not None
    assert second.tail.nbytes == 512 and second.tail.ili and int.from_bytes(view[:8], "big") == 99
    third = drive.read_burst(view, count=64, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert third.clean == 0 and third.tail is not None and third.tail.eod


def test_a_refused_burst_is_an_error_value_not_an_exception(drive: TapeDrive) -> None:
    starts, ends = times()
    drive.set_block_size(0)
    drive.rewind()
    drive.write(bytearray(BLOCK))  # a block of its own: tgt answers a fixed READ at EOD of a blank tape GOOD, 0 bytes
    drive.write_filemarks(1)
    drive.rewind()
    got = drive.read_burst(memoryview(bytearray(BLOCK)), block_size=BLOCK, count=4, until=time.perf_counter() + 60,
                           starts=starts, ends=ends)  # fixed-block READ while the drive is in variable mode
    # (ILLEGAL REQUEST from the virtual drive, MEDIUM ERROR 31/00 from tgt: refused either way)
    assert got.clean == 0 and got.tail is None and isinstance(got.error, CheckCondition)

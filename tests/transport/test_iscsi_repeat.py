"""``Transport.repeat`` over iSCSI: the whole stream of WRITEs or READs in one C call (issue 19).

The generic loop in ``native.transport.Transport.repeat`` is the contract; the C loop of
``native._iscsi_cmd.Runner.repeat`` must give the same answers on the same tape: the
same clean count, the same tail, the same bytes, clock readings on perf_counter's time
base, and a dead session as an error value after the clean commands it did count.
"""
from __future__ import annotations

import os
import time
from array import array

import pytest

from native.errors import ConnectionLost, InvalidParameter
from native.iscsi import IscsiTransport
from native.transport import GOOD, Transport
from tests.helpers.stopping import grown, kill_when
from tests.helpers.tgt import TgtTarget
from tests.transport._cdb import REWIND, FixedSense, read6, write6, write_filemarks

pytestmark = pytest.mark.tgt

BLOCK = 4096


def times(n: int) -> tuple[array, array]:
    return array("d", bytes(8 * n)), array("d", bytes(8 * n))


def stamp(buf: bytearray, index: int) -> None:
    """A fill that makes every block say which it is."""
    buf[:] = index.to_bytes(8, "big") * (len(buf) // 8)


def generic(transport: IscsiTransport, **kwargs):
    """The same request through the contract's own loop (the base class), not the C loop."""
    return Transport.repeat(transport, **kwargs)


@pytest.fixture
def transport(tgt_target: TgtTarget):
    t = IscsiTransport(tgt_target.url)
    yield t
    t.close()


@pytest.mark.parametrize("path", ["c", "generic"])
def test_writes_are_filled_per_command_and_reads_stop_at_the_filemark(transport: IscsiTransport, path: str) -> None:
    run = transport.repeat if path == "c" else (lambda cdb, **kw: generic(transport, cdb=cdb, **kw))
    starts, ends = times(16)
    buf = bytearray(BLOCK)
    before = time.perf_counter()
    wrote = run(write6(BLOCK), data_out=buf, count=5, until=before + 60, starts=starts, ends=ends, fill=stamp,
                first=10, step=2)
    after = time.perf_counter()
    assert (wrote.clean, wrote.tail, wrote.error) == (5, None, None)
    assert before <= starts[0] <= ends[0] <= starts[1] <= ends[4] <= after  # perf_counter's clock, in order
    assert transport.execute(write_filemarks(1)).good and transport.execute(REWIND).good

    view = memoryview(bytearray(BLOCK))
    seen: list[int] = []
    read = run(read6(BLOCK), data_in=view, count=16, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert read.clean == 5 and read.error is None and read.executed == 6
    assert read.tail is not None and read.tail.status == 0x02  # the filemark ends the burst as its tail
    sense = FixedSense.parse(read.tail.sense)
    assert sense.filemark and sense.info == BLOCK  # nothing read (tgt's residual is wrong here: INFO counts)
    seen.append(int.from_bytes(view[:8], "big"))
    assert seen == [18]  # the view holds the last clean block: 10 + 4 * 2
    assert ends[5] >= starts[5] >= ends[4]


def test_the_c_loop_and_the_generic_loop_agree_on_a_short_block(transport: IscsiTransport) -> None:
    for size in (BLOCK, BLOCK, 512):  # the third block is short: a variable read of BLOCK gets 512 and ILI
        assert transport.execute(write6(size), data_out=bytes(size)).good
    answers = []
    for run in (transport.repeat, lambda cdb, **kw: generic(transport, cdb=cdb, **kw)):
        assert transport.execute(REWIND).good
        starts, ends = times(8)
        got = run(read6(BLOCK), data_in=memoryview(bytearray(BLOCK)), count=8, until=time.perf_counter() + 60,
                  starts=starts, ends=ends)
        assert got.tail is not None
        answers.append((got.clean, got.tail.status, bytes(got.tail.sense), got.tail.transferred))
    assert answers[0] == answers[1]
    assert answers[0][0] == 2


def test_count_and_clock_bound_the_burst(transport: IscsiTransport) -> None:
    starts, ends = times(4)
    buf = bytearray(BLOCK)
    calls: list[int] = []
    late = transport.repeat(write6(BLOCK), data_out=buf, count=4, until=time.perf_counter() - 1, starts=starts,
                            ends=ends, fill=lambda b, i: calls.append(i))
    assert (late.clean, late.tail, late.error, late.executed) == (0, None, None, 0)
    none = transport.repeat(write6(BLOCK), data_out=buf, count=0, until=time.perf_counter() + 60, starts=starts, ends=ends)
    assert none.clean == 0 and none.tail is None
    with pytest.raises(ValueError, match="fewer than count"):
        transport.repeat(write6(BLOCK), data_out=buf, count=5, until=time.perf_counter() + 60, starts=starts, ends=ends)


def test_a_fill_that_raises_stops_the_burst_with_its_exception(transport: IscsiTransport) -> None:
    starts, ends = times(4)

    def broken(buf: bytearray, index: int) -> None:
        if index == 2:
            raise RuntimeError("pattern generator failed")

    with pytest.raises(RuntimeError, match="pattern generator"):
        transport.repeat(write6(BLOCK), data_out=bytearray(BLOCK), count=4, until=time.perf_counter() + 60,
                         starts=starts, ends=ends, fill=broken)
    assert transport.execute(REWIND).good  # the session is intact


def test_a_dead_session_is_an_error_value_after_the_clean_writes(tgt_factory) -> None:
    target = tgt_factory(large_segments=True)
    transport = IscsiTransport(target.url)
    starts, ends = times(4096)
    clean = 0
    size = target.cartridge_path.stat().st_size
    with kill_when(target, grown(target.cartridge_path, size, 4 << 20)):  # dies once 4 MiB are on its tape
        for _ in range(100_000):
            got = transport.repeat(write6(64 << 10), data_out=bytearray(64 << 10), count=4096,
                                   until=time.perf_counter() + 60, starts=starts, ends=ends)
            clean += got.clean
            if got.error is not None:
                break
            if got.tail is not None:  # the early warning of the small cartridge: start over
                assert transport.execute(REWIND).good
    assert isinstance(got.error, ConnectionLost) and got.tail is None
    assert clean > 0 and got.executed == got.clean + 1  # the clean WRITEs before the failure are counted
    with pytest.raises(ConnectionLost):  # and the session stays dead: nothing is re-sent
        transport.execute(bytes(6))
    transport.close()


def test_a_good_status_with_the_whole_transfer_is_what_clean_means(transport: IscsiTransport) -> None:
    starts, ends = times(3)
    got = transport.repeat(write6(BLOCK), data_out=bytearray(BLOCK), count=3, until=time.perf_counter() + 60,
                           starts=starts, ends=ends)
    assert got.clean == 3
    assert transport.execute(REWIND).good
    result = transport.execute(read6(BLOCK), data_in=BLOCK)
    assert result.status == GOOD and result.transferred == BLOCK


@pytest.mark.parametrize("size", [BLOCK, 1 << 20])  # 1 MiB: more than the first burst, so R2T and Data-Out follow
def test_overlapped_writes_put_every_block_on_tape_as_filled(tgt_factory, size: int) -> None:
    # With a spare buffer the C loop fills the next buffer while a WRITE from the other is in flight:
    # each block on tape must still be exactly the one filled for it (no buffer refilled under a WRITE).
    target = tgt_factory(large_segments=True)
    transport = IscsiTransport(target.url)
    try:
        count = 24
        starts, ends = times(count)
        filled: list[int] = []
        when: list[float] = []

        def fill(buf: bytearray, index: int) -> None:
            filled.append(index)
            when.append(time.perf_counter())
            stamp(buf, index)

        got = transport.repeat(write6(size), data_out=bytearray(size), count=count, until=time.perf_counter() + 60,
                               starts=starts, ends=ends, fill=fill, first=7, step=3, spare=bytearray(size))
        assert (got.clean, got.tail, got.error) == (count, None, None)
        assert filled == [7 + 3 * i for i in range(count)]  # each index once, in order, none past the count
        assert all(starts[i] <= ends[i] <= starts[i + 1] for i in range(count - 1))
        # The overlap itself: the next block is filled while this WRITE is in flight, before its end.
        overlapped = sum(starts[i] < when[i + 1] < ends[i] for i in range(count - 1))
        assert overlapped >= (count - 1) // 2, overlapped
        assert transport.execute(REWIND).good
        back = bytearray(size)
        for i in range(count):
            result = transport.execute(read6(size), data_in=back)
            assert result.good
            assert back == (7 + 3 * i).to_bytes(8, "big") * (size // 8), f"block {i}"
    finally:
        transport.close()


def test_an_overlapped_burst_stops_at_the_early_warning_with_it_as_tail(tgt_factory) -> None:
    target = tgt_factory(large_segments=True, size_mb=8)
    transport = IscsiTransport(target.url)
    try:
        starts, ends = times(4096)
        got = transport.repeat(write6(64 << 10), data_out=bytearray(64 << 10), count=4096,
                               until=time.perf_counter() + 60, starts=starts, ends=ends, fill=stamp,
                               spare=bytearray(64 << 10))
        assert 0 < got.clean < 4096 and got.error is None and got.tail is not None
        assert FixedSense.parse(got.tail.sense).eom  # the cartridge's end: the tail, with the clean ones counted
    finally:
        transport.close()


@pytest.mark.parametrize("spare", [False, True])
def test_the_pattern_filler_fills_in_c_and_the_tape_holds_its_blocks(tgt_factory, spare: bool) -> None:
    # native._pattern.Filler is called by the C loop without the GIL: what reaches the tape must be
    # exactly the generator's blocks, in the plain loop and in the overlapped one.
    from app.patterns import Pattern

    size = 256 << 10
    gen = Pattern.parse("2:1").generator(size, 16384, seed=3, pool_bytes=1 << 20)
    target = tgt_factory(large_segments=True)
    transport = IscsiTransport(target.url)
    try:
        count = 12
        starts, ends = times(count)
        got = transport.repeat(write6(size), data_out=bytearray(size), count=count, until=time.perf_counter() + 60,
                               starts=starts, ends=ends, fill=gen.filler, first=40, step=1,
                               spare=bytearray(size) if spare else None)
        assert (got.clean, got.tail, got.error) == (count, None, None)
        assert transport.execute(REWIND).good
        back = bytearray(size)
        for i in range(count):
            assert transport.execute(read6(size), data_in=back).good
            assert gen.mismatch(back, 40 + i) == -1, f"block {i}"
    finally:
        transport.close()


def test_a_refused_time_buffer_leaves_no_buffer_locked(transport: IscsiTransport) -> None:
    # Every buffer the C loop took is given back on each refusal: a bytearray still exported
    # could never be resized again (BufferError on append).
    data, spare = bytearray(BLOCK), bytearray(BLOCK)
    starts, _ = times(2)
    with pytest.raises(InvalidParameter):
        transport.repeat(write6(BLOCK), data_out=data, count=2, until=time.perf_counter() + 60, starts=starts,
                         ends=b"read-only times", fill=stamp, spare=spare)  # type: ignore[arg-type]
    for buf in (data, spare):
        buf.append(0)  # not locked
        del buf[-1]


def _bytes_handed_to_tcp(fd: int) -> int:
    """Every byte the initiator has written to its socket so far: sent (``tcpi_bytes_sent``, Linux 4.19+)
    plus not yet sent (``tcpi_notsent_bytes``), from TCP_INFO (``linux/tcp.h`` offsets)."""
    import socket
    import struct

    with socket.socket(fileno=os.dup(fd)) as sock:
        info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232)
    if len(info) < 208:
        pytest.skip("this kernel's TCP_INFO has no tcpi_bytes_sent")
    return struct.unpack_from("=Q", info, 200)[0] + struct.unpack_from("=I", info, 144)[0]


def test_an_overlapped_fill_waits_until_the_write_has_sent_all_its_data(tgt_factory) -> None:
    # tgtd as installed asks for a WRITE's data in R2T rounds (InitialR2T=Yes, 8 KiB segments, 256 KiB
    # bursts): 1 MiB goes out as the command with 8 KiB of immediate data, then four rounds of Data-Out.
    # A fill run after the first round would hold up the target's next R2T; from the second WRITE of a
    # burst on, the loop fills only once the WRITE in flight has handed all its data to the socket.
    if not hasattr(__import__("socket"), "TCP_INFO"):
        pytest.skip("no TCP_INFO on this platform")
    size, count = 1 << 20, 6
    target = tgt_factory(size_mb=32)
    transport = IscsiTransport(target.url)
    try:
        fd = transport._lib.iscsi_get_fd(transport._ctx)
        base = _bytes_handed_to_tcp(fd)
        handed: dict[int, int] = {}

        def fill(buf: bytearray, index: int) -> None:
            handed[index] = _bytes_handed_to_tcp(fd) - base
            stamp(buf, index)

        starts, ends = times(count)
        got = transport.repeat(write6(size), data_out=bytearray(size), count=count, until=time.perf_counter() + 60,
                               starts=starts, ends=ends, fill=fill, spare=bytearray(size))
        assert (got.clean, got.tail, got.error) == (count, None, None)
        assert sorted(handed) == list(range(count))
        # The fill of block k+1 runs during WRITE k: WRITEs 0..k must all be on the socket whole by then.
        late = [k for k in range(1, count - 1) if handed[k + 1] < (k + 1) * size]
        assert not late, {k: handed[k + 1] for k in late}
        assert transport.execute(REWIND).good
        back = bytearray(size)
        for i in range(count):
            assert transport.execute(read6(size), data_in=back).good
            assert back == i.to_bytes(8, "big") * (size // 8), f"block {i}"
    finally:
        transport.close()

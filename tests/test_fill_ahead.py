"""FillAhead / _pattern.Filler: background fills give exactly the inline fill's bytes."""
from __future__ import annotations

import pytest

from app.patterns import FillAhead, Pattern
from native import _pattern

POOL = 4 << 20
BLOCK = 64 << 10
IO = 4 * BLOCK


@pytest.fixture(scope="module")
def gen():
    return Pattern.parse("2:1").generator(BLOCK, 1024, seed=5, pool_bytes=POOL)


def _inline(gen, block: int) -> bytes:
    buf = bytearray(IO)
    gen.fill(buf, block)
    return bytes(buf)


def test_sequential_takes_match_inline_fill(gen) -> None:
    with FillAhead(gen, bytearray(IO), bytearray(IO)) as ahead:
        for k in range(12):
            buf = ahead.take(4 * k, 4 * k + 4)
            assert buf == _inline(gen, 4 * k), f"I/O {k}"


def test_a_wrong_guess_is_refilled_inline(gen) -> None:
    """After a short write the next I/O starts elsewhere than guessed: the data must still be right."""
    with FillAhead(gen, bytearray(IO), bytearray(IO)) as ahead:
        assert ahead.take(0, 4) == _inline(gen, 0)
        assert ahead.take(3, 7) == _inline(gen, 3)  # only 3 of 4 blocks went out
        assert ahead.take(7, 11) == _inline(gen, 7)


def test_the_returned_buffer_is_not_written_while_the_next_fills(gen) -> None:
    first, second = bytearray(IO), bytearray(IO)
    ahead = FillAhead(gen, first, second)
    buf = ahead.take(0, 4)
    snapshot = bytes(buf)
    ahead.close()
    assert buf == snapshot
    other = second if buf is first else first
    assert other == _inline(gen, 4)


def test_buffers_are_locked_while_a_fill_runs_and_freed_after(gen) -> None:
    filler = _pattern.Filler()
    buf = bytearray(IO)
    filler.start(buf, gen.pool.data, BLOCK, 0, gen.seed, 4096, True)
    with pytest.raises(RuntimeError, match="outstanding"):
        filler.start(buf, gen.pool.data, BLOCK, 0, gen.seed, 4096, True)
    with pytest.raises(BufferError):
        buf.extend(b"x")  # the worker may be writing into it
    filler.wait()
    filler.wait()  # nothing outstanding: a no-op
    buf.extend(b"x")
    assert len(buf) == IO + 1


def test_dropping_a_filler_mid_fill_waits_for_it(gen) -> None:
    filler = _pattern.Filler()
    buf = bytearray(IO)
    filler.start(buf, gen.pool.data, BLOCK, 8, gen.seed, 4096, True)
    del filler  # must join the worker, not free memory it still writes
    assert buf == _inline(gen, 8)


def test_mismatched_buffers_are_refused(gen) -> None:
    from native.errors import InvalidParameter

    with pytest.raises(InvalidParameter):
        FillAhead(gen, bytearray(IO), bytearray(IO + 1))


def test_data_stays_exact_across_inline_and_background_spells(gen) -> None:
    """A device faster than the fill makes FillAhead fill inline for a while: same bytes."""
    ahead = FillAhead(gen, bytearray(IO), bytearray(IO))
    ahead.LATE_LIMIT, ahead.INLINE_RUN = 0, 3  # switch at once, come back after 3 I/Os
    try:
        for k in range(10):
            assert ahead.take(4 * k, 4 * k + 4) == _inline(gen, 4 * k), f"I/O {k}"
    finally:
        ahead.close()


def test_ready_reports_a_finished_fill_without_blocking(gen) -> None:
    filler = _pattern.Filler()
    assert filler.ready()  # nothing outstanding
    buf = bytearray(IO)
    filler.start(buf, gen.pool.data, BLOCK, 0, gen.seed, 4096, True)
    while not filler.ready():
        pass
    assert filler.ready()  # stays ready until wait() collects it
    filler.wait()
    assert buf == _inline(gen, 0)

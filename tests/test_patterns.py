"""Data patterns: ratios under the project's SLDC model, regeneration, uniqueness."""
from __future__ import annotations

import pytest

from app.patterns import CHUNK, Pattern, clear_pool_cache
from native import sldc
from native.errors import InvalidParameter

POOL = 6 << 20  # smaller than the default pool: enough for 4 MiB of distinct blocks


def _ratio_on_blocks(text: str, block: int, history: int, first: int = 1000) -> float:
    gen = Pattern.parse(text).generator(block, history, seed=11, pool_bytes=POOL)
    buf = bytearray(max(4 << 20, 2 * block))
    gen.fill(buf, first)
    return len(buf) / sum(sldc.compressed_sizes(buf, block, history))


@pytest.mark.parametrize("history", [1024, 16384])
@pytest.mark.parametrize("block", [64 << 10, 256 << 10, 1 << 20])
@pytest.mark.parametrize("text", ["2:1", "4.3:1", "1.5:1", "7:1", "10:1"])
def test_ratio_within_two_percent_of_target(text: str, block: int, history: int) -> None:
    target = Pattern.parse(text).target
    assert _ratio_on_blocks(text, block, history) == pytest.approx(target, rel=0.02)


@pytest.mark.parametrize("history", [1024, 16384])
def test_random_is_stored_at_one_to_one_and_zeros_squeeze(history: int) -> None:
    assert _ratio_on_blocks("random", 256 << 10, history) == pytest.approx(1.0, abs=0.002)
    assert _ratio_on_blocks("zeros", 256 << 10, history) > 75


def test_predicted_ratio_is_what_the_model_gives() -> None:
    gen = Pattern.parse("3:1").generator(128 << 10, 16384, seed=2, pool_bytes=POOL)
    assert gen.predicted_ratio == pytest.approx(3.0, rel=0.005)


def test_blocks_regenerate_from_pattern_seed_and_number() -> None:
    block = 64 << 10
    a = Pattern.parse("2:1").generator(block, 1024, seed=42, pool_bytes=POOL)
    io = bytearray(4 * block)
    a.fill(io, 77)  # blocks 77..80 in one I/O buffer
    # A generator built from scratch (same pattern, seed) regenerates any block alone.
    clear_pool_cache()
    b = Pattern.parse("2:1").generator(block, 1024, seed=42, pool_bytes=POOL)
    assert b.pool is not a.pool
    assert b.block(79) == bytes(io[2 * block : 3 * block])
    assert a.mismatch(io, 77) == -1
    assert a.mismatch(memoryview(io)[block:], 78) == -1
    io[3 * block + 5] ^= 0x40
    assert a.mismatch(io, 77) == 3 * block + 5
    assert a.mismatch(io, 78) == 0  # wrong block number: differs at once


def test_every_block_is_unique_even_when_the_pool_repeats() -> None:
    block = 256 << 10
    gen = Pattern.parse("4.3:1").generator(block, 1024, seed=1, pool_bytes=POOL)
    # The pool holds ~24 blocks; 200 blocks wrap it many times over.
    seen = {gen.block(n)[:4096] for n in range(200)}
    assert len(seen) == 200


def test_seed_changes_the_data() -> None:
    one = Pattern.parse("random").generator(CHUNK, seed=1, pool_bytes=POOL).block(0)
    two = Pattern.parse("random").generator(CHUNK, seed=2, pool_bytes=POOL).block(0)
    assert one != two


def test_odd_block_sizes_fill_and_verify() -> None:
    gen = Pattern.parse("2:1").generator(1000, 1024, seed=3, pool_bytes=POOL)
    buf = bytearray(10_500)  # ten blocks and a short one
    gen.fill(buf, 5)
    assert gen.mismatch(buf, 5) == -1
    assert bytes(buf[1000:2000]) == gen.block(6)


@pytest.mark.parametrize(
    ("text", "name"), [("zeros", "zeros"), ("RANDOM", "random"), ("2:1", "2:1"), ("4.3 : 1", "4.3:1"), ("10:1", "10:1")]
)
def test_parse(text: str, name: str) -> None:
    assert Pattern.parse(text).name == name


@pytest.mark.parametrize("text", ["0.5:1", "11:1", "2", "two to one", "2:2", ""])
def test_parse_rejects(text: str) -> None:
    with pytest.raises(InvalidParameter):
        Pattern.parse(text)


def test_the_filler_writes_the_blocks_the_verifier_regenerates() -> None:
    # The C object a transport's loop calls without the GIL (and fill() calls) must write exactly the
    # blocks the read-back verifier, a separate C routine, regenerates: several blocks and a short one.
    gen = Pattern.parse("2:1").generator(64 << 10, 16384, seed=5, pool_bytes=POOL)
    filler = gen.filler
    assert gen.filler is filler  # one per generator
    for first in (0, 1, 977):
        buf = bytearray(3 * (64 << 10) + 100)
        filler(buf, first)
        assert gen.mismatch(buf, first) == -1
        assert gen.mismatch(buf, first + 1) != -1
        assert buf[: 64 << 10] == gen.block(first)
    with pytest.raises(TypeError):
        filler(b"read-only", 0)

"""Test data with a known compression ratio on the drive's own compressor.

A tape drive compresses in hardware (SLDC), so "2:1 data" only means something measured
against SLDC with the drive's history size (1 KiB for LTO-1...5, 16 KiB for LTO-6+).
The method (``/work/shared/design/data-patterns.md``):

* a pool of tens of MiB is built once per (ratio, history, block-size class, seed), in
  self-contained 4 KiB chunks of segments: ``LITERALS`` fresh random bytes (too few for
  the drive's switch to its raw scheme ever to pay, so its switching policy does not
  matter) then M bytes copied from an earlier distance that is a multiple of 8;
* M is tuned by bisection against ``native.sldc`` until the pool's blocks compress to
  the target ratio;
* block k is a chunk-aligned pool slice XOR-ed with a 64-bit key derived from
  (seed, k): copies stay copies, every block is unique (a deduplicating virtual tape
  cannot cheat) and any block can be regenerated to verify a read-back.

``zeros`` is plain zeros (what naive benchmarks use; the drive squeezes it ~94:1) and
``random`` is keyed random bytes (the drive stores it at ~1:1).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import cached_property

from native import _pattern, sldc
from native.errors import InvalidParameter

#: Fresh random bytes per segment: at 9 bits each in scheme 1, a run this short never
#: repays the two 13-bit scheme switches that scheme 2 (8 bits a byte) would need.
LITERALS = 24
#: Pool chunks are self-contained: no copy reaches back past a chunk start, so any block
#: starting on a chunk boundary holds its own references, even at 4 KiB.
CHUNK = 4096
#: A pool that stays in a core's own cache (with the I/O buffers): the fill then costs half
#: what it does from a 32 MiB pool (6.6 vs 14 us per 256 KiB here), and it is the one work a
#: tape write does that a bare C loop writing a static buffer does not. Uniqueness does not
#: need a bigger pool: every block is its slice XOR its own 64-bit key. The generator grows
#: the pool for blocks larger than this.
DEFAULT_POOL_BYTES = 1 << 20
#: Calibration stops once the model's ratio is this close to the target (relative).
TOLERANCE = 0.002
_CALIBRATION_BYTES = 2 << 20
_CALIBRATION_BLOCK_MAX = 1 << 20

_RATIO_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*:\s*1\s*$")
MIN_RATIO = 1.0
MAX_RATIO = 10.0


@dataclass(frozen=True)
class Pattern:
    """What data a test writes: ``zeros``, ``random`` or a target ratio ``N:1``."""

    kind: str  # "zeros" | "random" | "ratio"
    target: float | None = None  # the N of N:1, for kind "ratio"

    @classmethod
    def parse(cls, text: str) -> "Pattern":
        """``zeros``, ``random``, ``2:1``, ``4.3:1``, any ``N:1`` with 1.0 <= N <= 10.0."""
        word = text.strip().lower()
        if word in ("zeros", "zero", "zeroes"):
            return cls("zeros")
        if word in ("random", "incompressible"):
            return cls("random")
        match = _RATIO_RE.match(word)
        if not match:
            raise InvalidParameter(
                f"'{text}' is not a data pattern", hint="use zeros, random, or a ratio N:1 such as 2:1 or 4.3:1"
            )
        target = float(match.group(1))
        if not MIN_RATIO <= target <= MAX_RATIO:
            raise InvalidParameter(f"compression ratio {text} is outside 1:1 ... 10:1")
        return cls("ratio", target)

    def stated_ratio(self, history: int = sldc.HISTORY_LTO1_5) -> float:
        """The ratio of this pattern's data without building it: what a run that generates no data (a
        read without verify) says the tape holds. N for N:1 (the pools are calibrated to it within
        ``TOLERANCE``), the model's ratio of one chunk for zeros, 1.0 for random: none of them calibrates
        (0.3 s of CPU for N:1, issue 32.4)."""
        if self.kind == "ratio":
            assert self.target is not None
            return self.target
        if self.kind == "zeros":
            return _model_ratio(bytes(CHUNK), CHUNK, history)
        return 1.0

    @property
    def name(self) -> str:
        if self.kind == "ratio":
            return f"{self.target:g}:1"
        return self.kind

    def __str__(self) -> str:
        return self.name

    def generator(
        self, block_size: int, history: int = sldc.HISTORY_LTO1_5, seed: int = 0, pool_bytes: int = DEFAULT_POOL_BYTES
    ) -> "BlockGenerator":
        """The generator of this pattern's blocks of ``block_size`` bytes (pool shared and cached)."""
        if block_size < 1:
            raise InvalidParameter("block size must be at least 1 byte")
        pool_bytes = max(pool_bytes, _round_up(block_size, CHUNK) + CHUNK)
        pool_bytes = _round_up(pool_bytes, CHUNK)
        key = (self.kind, self.target, history, _calibration_block(block_size) if self.kind == "ratio" else 0, seed, pool_bytes)
        with _CACHE_LOCK:
            pool = _POOLS.get(key)
            if pool is None:
                pool = _build(self, history, key[3], seed, pool_bytes)
                if len(_POOLS) >= _CACHE_MAX:
                    _POOLS.pop(next(iter(_POOLS)))
                _POOLS[key] = pool
        return BlockGenerator(self, block_size, history, seed, pool)


@dataclass(frozen=True)
class Pool:
    """A built pattern pool and what the SLDC model said about it."""

    data: bytes | bytearray = field(repr=False)  # never mutated once built
    match_avg: float  # mean copy length per segment (0: random, -1: zeros)
    model_ratio: float  # the ratio native.sldc gives on the calibration blocks
    keyed: bool


@dataclass(frozen=True)
class BlockGenerator:
    """Fills buffers with blocks ``first, first+1, ...`` of one pattern, in place.

    ``fill`` is one C pass over the buffer (pool slice XOR key): nothing is allocated,
    so it can sit in the hot loop of a tape write.
    """

    pattern: Pattern
    block_size: int
    history: int
    seed: int
    pool: Pool = field(repr=False)

    @property
    def predicted_ratio(self) -> float:
        """The ratio the SLDC model predicts for these blocks."""
        return self.pool.model_ratio

    def fill(self, buf: bytearray | memoryview, block_number: int) -> None:
        """Write blocks ``block_number, block_number + 1, ...`` into ``buf`` (last may be short)."""
        self.filler(buf, block_number)

    @cached_property
    def filler(self) -> _pattern.Filler:
        """``fill`` as one C object: ``filler(buf, block_number)`` is ``fill``, and a transport's C
        loop calls it between WRITEs without the GIL (``native._iscsi_cmd``)."""
        return _pattern.Filler(self.pool.data, self.block_size, self.seed, CHUNK, self.pool.keyed)

    def block(self, block_number: int) -> bytes:
        """One block as new bytes (tests and tools; the hot loop uses ``fill``)."""
        buf = bytearray(self.block_size)
        self.fill(buf, block_number)
        return bytes(buf)

    def mismatch(self, data: bytes | bytearray | memoryview, block_number: int) -> int:
        """Offset of the first byte of ``data`` that differs from the regenerated blocks, or -1."""
        return _pattern.mismatch(data, self.pool.data, self.block_size, block_number, self.seed, CHUNK, self.pool.keyed)


_POOLS: dict[tuple, Pool] = {}
_CACHE_LOCK = threading.Lock()
_CACHE_MAX = 4


def clear_pool_cache() -> None:
    """Forget built pools (tests prove regeneration from scratch; frees memory)."""
    with _CACHE_LOCK:
        _POOLS.clear()


def _round_up(value: int, multiple: int) -> int:
    return (value + multiple - 1) // multiple * multiple


def _calibration_block(block_size: int) -> int:
    """The block size the ratio is tuned at: the one in use, within [4 KiB, 1 MiB].

    Chunks are self-contained, so beyond a chunk the block size barely moves the ratio
    (only the per-record End of Record and padding); 1 MiB stands for anything larger.
    """
    return min(max(_round_up(block_size, CHUNK), CHUNK), _CALIBRATION_BLOCK_MAX)


def _model_ratio(data: bytes | bytearray, block: int, history: int) -> float:
    sizes = sldc.compressed_sizes(data, block, history)
    return len(data) / sum(sizes)


def _build(pattern: Pattern, history: int, calib_block: int, seed: int, pool_bytes: int) -> Pool:
    if pattern.kind == "zeros":
        data = bytes(pool_bytes)
        return Pool(data, -1.0, _model_ratio(data[:calib_block or CHUNK], calib_block or CHUNK, history), keyed=False)
    buf = bytearray(pool_bytes)
    if pattern.kind == "random":
        _pattern.build_pool(buf, seed, 0.0, LITERALS, history, CHUNK)
        sample = buf[: min(pool_bytes, _CALIBRATION_BYTES)]
        return Pool(buf, 0.0, _model_ratio(sample, CHUNK * 64, history), keyed=True)
    assert pattern.target is not None
    match_avg, ratio = calibrate(pattern.target, history, calib_block, seed)
    _pattern.build_pool(buf, seed, match_avg, LITERALS, history, CHUNK)
    return Pool(buf, match_avg, ratio, keyed=True)


def calibrate(target: float, history: int, block: int, seed: int = 0) -> tuple[float, float]:
    """(mean copy length, model ratio) that makes blocks of ``block`` bytes compress ``target``:1.

    Bisection on the mean copy length M; the model ratio grows with M (more copied
    bytes per random byte). The sample is the pool's own prefix (same seed, same
    generator), at least two blocks.
    """
    sample_len = _round_up(max(_CALIBRATION_BYTES, 2 * block), CHUNK)
    sample = bytearray(sample_len)

    def ratio_at(match_avg: float) -> float:
        _pattern.build_pool(sample, seed, match_avg, LITERALS, history, CHUNK)
        return _model_ratio(sample, block, history)

    lo, hi = 0.25, 4096.0
    best = (lo, ratio_at(lo))
    if best[1] >= target:
        return best
    for _ in range(40):
        mid = (lo + hi) / 2
        r = ratio_at(mid)
        if abs(r - target) < abs(best[1] - target):
            best = (mid, r)
        if abs(r - target) <= TOLERANCE * target:
            break
        if r < target:
            lo = mid
        else:
            hi = mid
    return best


__all__ = ["Pattern", "BlockGenerator", "Pool", "calibrate", "clear_pool_cache", "LITERALS", "CHUNK"]

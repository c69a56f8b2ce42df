"""What goes into the files: the tape test's data patterns, so files compress on the
drive exactly like the tape performance test's data does.

The pattern pool (``app.patterns``) is built from self-contained 4 KiB chunks. Every
file starts on a chunk boundary of the pool and is XOR-ed with its own 64-bit key in
8-byte phase (done by ``native.diskio`` while writing): copy distances are multiples
of 8, so the ratio is unchanged, and no two files are alike (a deduplicating array
cannot make the figure look better than real data would).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from native.errors import InvalidParameter

#: Pool alignment for file starts: the pattern pool's self-contained chunk.
CHUNK = 4096
#: The tape block size the ratio is calibrated for (the white paper's 256 KB blocks).
CALIBRATION_BLOCK = 256 * 1024
POOL_BYTES = 32 << 20


@dataclass(frozen=True)
class Content:
    """A pattern's pool, ready for the writer: bytes, whether files get keys, the model's ratio."""

    name: str
    pool: bytes = field(repr=False)
    keyed: bool
    predicted_ratio: float | None

    def draw(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        """(pool offsets, XOR keys) for ``count`` files."""
        offsets = rng.integers(0, len(self.pool) // CHUNK, size=count, dtype=np.int64) * CHUNK
        if self.keyed:
            keys = rng.integers(1, 2**63 - 1, size=count, dtype=np.int64)
        else:
            keys = np.zeros(count, dtype=np.int64)
        return offsets, keys


def check(spec: str) -> None:
    """Raise InvalidParameter for a pattern that cannot be made (cheap: no pool is built)."""
    try:
        from app.patterns import Pattern
    except ImportError:
        _fallback_ratio(spec)
        return
    Pattern.parse(spec)


def _fallback_ratio(spec: str) -> float | None:
    word = spec.strip().lower()
    if word in ("zeros", "zero", "random"):
        return None
    try:
        ratio = float(word.split(":")[0]) if word.endswith(":1") else float("nan")
    except ValueError:
        ratio = float("nan")
    if not 1.0 <= ratio <= 10.0:
        raise InvalidParameter(f"'{spec}' is not a data pattern", hint="use zeros, random, or a ratio N:1 such as 2:1")
    return ratio


def load(spec: str, seed: int = 0) -> Content:
    """The content for ``zeros``, ``random`` or ``N:1``, from ``app.patterns``.

    The import is guarded so that the disk tests keep working (with a plainer pool)
    on a build where the pattern generator is missing.
    """
    try:
        from app.patterns import Pattern
    except ImportError:  # pattern generator absent: fall back to a self-made pool
        return _fallback(spec, seed)
    pattern = Pattern.parse(spec)
    gen = pattern.generator(CALIBRATION_BLOCK, seed=seed, pool_bytes=POOL_BYTES)
    return Content(pattern.name, gen.pool.data, gen.pool.keyed, gen.predicted_ratio)


def _fallback(spec: str, seed: int) -> Content:
    """zeros / random / N:1 without app.patterns: N:1 as segments of 16 random bytes
    followed by a copy from 8..64 bytes back, sized for N under SLDC's costs (literal
    9 bits, copy of 16..31 bytes 19 bits with a 1 KiB history); uncalibrated."""
    word = spec.strip().lower()
    rng = np.random.default_rng(seed)
    if word in ("zeros", "zero"):
        return Content("zeros", bytes(POOL_BYTES // 8), False, None)
    if word == "random":
        return Content("random", rng.integers(0, 256, POOL_BYTES // 8, dtype=np.uint8).tobytes(), True, None)
    ratio = _fallback_ratio(spec)
    assert ratio is not None
    lit = 16
    copy = max(2, min(271, round(ratio * (lit * 9 + 19) / 8 - lit)))
    size = POOL_BYTES // 32
    out = bytearray(size)
    pos = 0
    while pos < size:
        chunk_start = pos - pos % CHUNK
        n = min(lit, size - pos)
        out[pos : pos + n] = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        pos += n
        dist = 8 * int(rng.integers(1, 9))
        end = min(pos + copy, size, chunk_start + CHUNK)  # copies stay inside their chunk
        while pos < end and pos - dist >= chunk_start:
            out[pos] = out[pos - dist]
            pos += 1
    return Content(f"{ratio:g}:1", bytes(out), True, None)

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

from app.patterns import Pattern

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
    Pattern.parse(spec)


def load(spec: str, seed: int = 0) -> Content:
    """The content for ``zeros``, ``random`` or ``N:1``: the tape test's own generator,
    calibrated for the white paper's 256 KB tape blocks."""
    pattern = Pattern.parse(spec)
    gen = pattern.generator(CALIBRATION_BLOCK, seed=seed, pool_bytes=POOL_BYTES)
    return Content(pattern.name, gen.pool.data, gen.pool.keyed, gen.predicted_ratio)

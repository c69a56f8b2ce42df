"""What goes into the files: the tape test's data patterns, so files compress on the
drive exactly like the tape performance test's data does.

The pattern pool (``app.patterns``) is built from self-contained 4 KiB chunks that
each start with fresh random literals. A file is written from its *window*: 1 MiB of
the pool from a chunk-aligned offset, XOR-ed with the file's own 64-bit key in 8-byte
phase (copy distances are multiples of 8, so the ratio is unchanged). The file
repeats its window every MiB, and the first 8 bytes of every 4 KiB block are replaced
by a stamp, key ^ (block number + 1) x 0x9E3779B97F4A7C15.

Why this shape (``native.diskio`` writes it; ``tests/disk/test_content.py`` spells it
out byte by byte):

* the stamps land on bytes the compressor stores as literals anyway, so the ratio
  holds, and no two 4 KiB blocks of a run are alike: a deduplicating array cannot make
  the figure look better than real data would;
* the writer's source stays in the CPU cache. XOR-ing 32 MiB of pool into every large
  file cost ~10% of a 1.5 GB/s page-cache write (the pool streamed from RAM, then the
  kernel's copy); with the window the per-byte cost is the kernel's copy alone, as
  for fio's scrambled buffer;
* repeats at 1 MiB lie beyond the usual storage compression units, each compressed on
  its own (ZFS's default 128 KiB record, btrfs's 128 KiB extents, NTFS's 64 KiB
  units); only a ZFS dataset with a record size above 1 MiB could find them.
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
    pool: bytes | bytearray = field(repr=False)
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

"""File contents compress the way the pattern says, on the drive's own compressor model."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.disk import MANIFEST_NAME, CreateDataParams, CreateDataTest

from .conftest import tree_files

sldc = pytest.importorskip("native.sldc", reason="the SLDC model is not built")


def _ratio_of_files(root: Path) -> tuple[float, int]:
    names = sorted(n for n in tree_files(root) if n != MANIFEST_NAME)
    blobs = [(root / n).read_bytes() for n in names]
    raw = sum(len(b) for b in blobs)
    return raw / sum(sldc.compressed_size(b) for b in blobs), len(blobs)


@pytest.mark.parametrize("pattern,low,high", [("2:1", 1.9, 2.1), ("3:1", 2.85, 3.15), ("random", 0.9, 1.03)])
def test_small_files_compress_like_the_pattern(tmp_path: Path, pattern: str, low: float, high: float) -> None:
    # each 4-16 KiB file is compressed on its own, as a tape record would be (worst case for the ratio)
    result = CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=2, files_per_dir=15,
                                             pattern=pattern)).run()
    ratio, count = _ratio_of_files(tmp_path / "t")
    assert count == 30
    assert low <= ratio <= high, f"{pattern}: SLDC ratio {ratio:.3f}"
    if pattern != "random":
        assert result.predicted_ratio == pytest.approx(float(pattern.split(":")[0]), rel=0.02)


def test_zeros_are_zeros(tmp_path: Path) -> None:
    CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=1, files_per_dir=3, pattern="zeros")).run()
    blobs = [(tmp_path / "t" / n).read_bytes() for n in tree_files(tmp_path / "t") if n != MANIFEST_NAME]
    assert all(b == bytes(len(b)) for b in blobs)


def test_large_file_in_256k_records(tmp_path: Path) -> None:
    """A 5 MiB file cut into 256 KiB tape records keeps the 2:1 ratio across slices."""
    CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=1, files_per_dir=1, min_size=5 << 20,
                                    max_size=5 << 20)).run()
    data = (tmp_path / "t" / "s01" / "d00" / "f000000.dat").read_bytes()
    sizes = sldc.compressed_sizes(data, 256 << 10)
    assert len(data) / sum(sizes) == pytest.approx(2.0, rel=0.03)


def _model(pool: bytes, off: int, key: int, size: int) -> bytes:
    """The documented content (app/disk/content.py), spelled out: byte p is
    pool[(off + p mod WINDOW) mod len(pool)] XOR key byte (p mod 8), then the first 8
    bytes of each 4 KiB block b are the stamp key ^ (b + 1) * golden ratio constant."""
    import numpy as np

    from native.diskio import STAMP_BLOCK, WINDOW

    key &= (1 << 64) - 1
    p = np.arange(size)
    j = p % WINDOW
    src = np.frombuffer(pool, np.uint8)[(off + j) % len(pool)]
    keyb = np.frombuffer(key.to_bytes(8, "little"), np.uint8)
    out = bytearray((src ^ keyb[j % 8]).tobytes())
    if key:
        for q in range(0, size, STAMP_BLOCK):
            stamp = (key ^ (((q // STAMP_BLOCK + 1) * 0x9E3779B97F4A7C15) & ((1 << 64) - 1))).to_bytes(8, "little")
            out[q : min(size, q + 8)] = stamp[: min(size, q + 8) - q]
    return bytes(out)


@pytest.mark.parametrize("native", [True, False], ids=["C", "python"])
@pytest.mark.parametrize("size,chunk,slices", [(5000, 4096, [5000]), ((1 << 20) + 12345, 5000, [3, 9999, 1 << 20, 1 << 30])])
@pytest.mark.parametrize("key", [0, 0x1234567890ABCDEF, -5])
def test_writer_follows_the_content_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, native: bool, size: int,
                                          chunk: int, slices: list[int], key: int) -> None:
    """C and Python writers give the documented bytes whatever the write and slice sizes
    (slices start mid-block and mid-window; the pool wraps inside the window)."""
    import os

    import numpy as np

    from native import diskio

    if native and not diskio.NATIVE:
        pytest.skip("the C module is not built")
    monkeypatch.setattr(diskio, "NATIVE", native)
    pool = np.random.default_rng(1).integers(0, 256, 1 << 19, dtype=np.uint8).tobytes()
    off = len(pool) - 4096 * 3
    win = diskio.window(pool, off, key, size, chunk)
    fd = os.open(tmp_path / "f", os.O_WRONLY | os.O_CREAT | getattr(os, "O_BINARY", 0))  # no CRLF translation on Windows
    pos = 0
    for n in slices:
        n = min(n, size - pos)
        assert diskio.write_fd(fd, win, pos, n, key, chunk) == (n, 0)
        pos += n
    os.close(fd)
    assert (tmp_path / "f").read_bytes() == _model(pool, off, key, size)


def test_large_files_have_no_repeated_4k_block(tmp_path: Path) -> None:
    """The window repeats every MiB, the stamps do not: a deduplicating store finds no
    two equal 4 KiB blocks, within a file or across files."""
    CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=1, files_per_dir=2, min_size=5 << 20,
                                    max_size=5 << 20)).run()
    blocks = set()
    for n in ("f000000.dat", "f000001.dat"):
        data = (tmp_path / "t" / "s01" / "d00" / n).read_bytes()
        blocks.update(data[i : i + 4096] for i in range(0, len(data), 4096))
    assert len(blocks) == 2 * (5 << 20) // 4096

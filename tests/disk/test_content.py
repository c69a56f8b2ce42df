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

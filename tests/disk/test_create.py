"""create-data on real directories: tree shape, sizes, contents, results, events."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from app.disk import MANIFEST_NAME, CreateDataParams, CreateDataTest, clean
from app.disk.manifest import Manifest
from app.events import PhaseFinished, PhaseStarted, Progress, SampleBatch
from native.errors import InvalidParameter

from .conftest import all_entries, cancel_at_first_sample, tree_files


def _create(target: Path, events: list | None = None, **kw) -> object:
    params = CreateDataParams(str(target), **kw)
    return CreateDataTest(params).run(events.append if events is not None else (lambda e: None))


def test_tree_has_the_asked_shape(tmp_path: Path) -> None:
    target = tmp_path / "t"
    result = _create(target, depth=3, breadth=2, files_per_dir=7, min_size=4096, max_size=16384, streams=2)
    files = tree_files(target)
    files.pop(MANIFEST_NAME)
    dirs = {os.path.dirname(f) for f in files}
    # per stream: 2 + 4 + 8 directories, every one with 7 files
    assert len(dirs) == 2 * 14 and result.dirs_created == 28
    for d in dirs:
        parts = d.split("/")
        assert parts[0] in ("s01", "s02") and 2 <= len(parts) <= 4
        assert all(p in ("d00", "d01") for p in parts[1:])
        assert sum(1 for f in files if os.path.dirname(f) == d) == 7
    assert all(4096 <= size <= 16384 for size in files.values())
    assert all(len(part) <= 16 for f in files for part in f.split("/"))
    assert result.total_files == len(files) == 2 * 14 * 7
    assert result.total_bytes == sum(files.values())
    assert result.status == "complete" and result.native


@pytest.mark.parametrize("distribution", ["fixed", "uniform", "log-uniform"])
def test_size_distributions_stay_in_range(tmp_path: Path, distribution: str) -> None:
    result = _create(tmp_path / "t", depth=1, breadth=2, files_per_dir=100, min_size=1000, max_size=64000,
                     distribution=distribution)
    sizes = np.array([s for n, s in tree_files(tmp_path / "t").items() if n != MANIFEST_NAME])
    assert sizes.min() >= 1000 and sizes.max() <= 64000
    if distribution == "fixed":
        assert set(sizes) == {64000}
    elif distribution == "uniform":
        assert 25000 < np.median(sizes) < 40000  # middle of the range
    else:
        assert np.median(sizes) < 15000  # geometric middle: sqrt(1000 * 64000) = 8000
    assert result.total_bytes == sizes.sum()


def test_file_count_limit_is_shared_by_streams(tmp_path: Path) -> None:
    result = _create(tmp_path / "t", depth=2, breadth=3, files_per_dir=10, files=25, streams=3)
    assert [s.files for s in result.streams] == [9, 8, 8]
    assert len(tree_files(tmp_path / "t")) - 1 == 25


def test_total_size_limit(tmp_path: Path) -> None:
    result = _create(tmp_path / "t", depth=2, breadth=2, files_per_dir=50, min_size=4096, max_size=8192,
                     total_size=400_000, streams=2)
    # each stream stops once its half is reached: it may overshoot by less than one file
    for s in result.streams:
        assert 200_000 <= s.bytes < 200_000 + 8192
    assert result.total_bytes == sum(v for k, v in tree_files(tmp_path / "t").items() if k != MANIFEST_NAME)


def test_limits_that_cannot_fit_are_rejected_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameter):
        CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=2, files_per_dir=5, files=11))
    with pytest.raises(InvalidParameter):
        CreateDataTest(CreateDataParams(str(tmp_path / "t"), streams=9))
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize("streams", [1, 2, 5, 8])
def test_streams_each_write_their_own_subtree(tmp_path: Path, streams: int) -> None:
    result = _create(tmp_path / "t", depth=1, breadth=2, files_per_dir=5, streams=streams, fsync="none")
    assert len(result.streams) == streams
    assert sorted(os.listdir(tmp_path / "t")) == sorted([MANIFEST_NAME] + [f"s{i:02d}" for i in range(1, streams + 1)])
    assert all(s.files == 10 for s in result.streams)
    assert result.seconds == max(s.seconds for s in result.streams)  # the slowest stream's time
    assert result.mb_s == pytest.approx(result.total_bytes / result.seconds / 1e6)
    assert "fsync none" in " ".join(result.warnings)


def test_large_files_are_written_in_slices(tmp_path: Path, events: list) -> None:
    result = _create(tmp_path / "t", events, depth=1, breadth=1, files_per_dir=2, min_size=9 << 20,
                     max_size=9 << 20, pattern="random")
    files = tree_files(tmp_path / "t")
    assert sorted(v for k, v in files.items() if k != MANIFEST_NAME) == [9 << 20, 9 << 20]
    assert result.total_bytes == 18 << 20 and result.latency.count == 2
    slices = [s for e in events if isinstance(e, SampleBatch) for s in e.samples]
    assert sum(s.nbytes for s in slices) == 18 << 20 and len(slices) >= 4  # 8 MiB slices, sampled each


def test_events_and_result_shape(tmp_path: Path, events: list) -> None:
    result = _create(tmp_path / "t", events, depth=2, breadth=2, files_per_dir=30, streams=2)
    kinds = [type(e) for e in events]
    assert PhaseStarted in kinds and PhaseFinished in kinds and Progress in kinds
    samples = [s for e in events if isinstance(e, SampleBatch) for s in e.samples]
    assert sum(s.nbytes for s in samples) == result.total_bytes
    assert {s.stream for s in samples} == {1, 2} and {s.phase for s in samples} == {"create"}
    lat = result.latency
    assert lat.count == result.total_files and 0 < lat.p50_ms <= lat.p90_ms <= lat.p99_ms <= lat.max_ms
    d = json.loads(json.dumps(result.to_dict()))
    assert d["total_files"] == result.total_files and len(d["streams"]) == 2 and d["streams"][0]["mb_s"] > 0


def test_fsync_per_file(tmp_path: Path) -> None:
    result = _create(tmp_path / "t", depth=1, breadth=1, files_per_dir=5, fsync="file")
    assert result.total_files == 5 and result.fsync == "file" and not result.warnings


def test_same_seed_same_tree_and_every_file_unique(tmp_path: Path) -> None:
    _create(tmp_path / "a", depth=1, breadth=2, files_per_dir=20, seed=7)
    _create(tmp_path / "b", depth=1, breadth=2, files_per_dir=20, seed=7)
    fa, fb = tree_files(tmp_path / "a"), tree_files(tmp_path / "b")
    fa.pop(MANIFEST_NAME), fb.pop(MANIFEST_NAME)
    assert fa == fb
    blobs = [(tmp_path / "a" / n).read_bytes() for n in fa]
    assert all((tmp_path / "b" / n).read_bytes() == b for n, b in zip(fa, blobs))
    heads = {b[:4096] for b in blobs}
    assert len(heads) == len(blobs)  # no two files alike: deduplication cannot flatter


def test_python_fallback_writes_the_same_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The guarded pure-Python path (Windows, unbuilt C) makes byte-identical trees."""
    from native import diskio

    _create(tmp_path / "c", depth=1, breadth=2, files_per_dir=10, seed=3, min_size=100, max_size=20000)
    monkeypatch.setattr(diskio, "NATIVE", False)
    result = _create(tmp_path / "py", depth=1, breadth=2, files_per_dir=10, seed=3, min_size=100, max_size=20000)
    assert not result.native and result.warnings
    fc, fp = tree_files(tmp_path / "c"), tree_files(tmp_path / "py")
    fc.pop(MANIFEST_NAME), fp.pop(MANIFEST_NAME)
    assert fc == fp
    assert all((tmp_path / "c" / n).read_bytes() == (tmp_path / "py" / n).read_bytes() for n in fc)


def test_cancel_keeps_partial_results_and_manifest(disk_path: Path) -> None:
    sink, cancel = cancel_at_first_sample()

    target = disk_path / "t"
    result = CreateDataTest(CreateDataParams(str(target), depth=2, breadth=4, files_per_dir=200, fsync="file",
                                             streams=2)).run(sink, cancel)
    files = tree_files(target)
    files.pop(MANIFEST_NAME)
    assert result.status == "cancelled"
    assert 0 < result.total_files == len(files) < 2 * 20 * 200
    assert result.total_bytes == sum(files.values())
    manifest = Manifest.load(target)
    assert manifest.runs[0].state == "cancelled"
    assert sum(e.files for e in manifest.runs[0].dirs) == len(files)
    clean(target)
    assert all_entries(target) == set()


def test_presets_reproduce_the_white_paper_data_sets(tmp_path: Path) -> None:
    small = CreateDataParams.preset("small", str(tmp_path), files=100)
    assert (small.min_size, small.max_size, small.pattern, small.files_per_dir) == (4096, 16384, "2:1", 750)
    typical = CreateDataParams.preset("typical", str(tmp_path))
    assert (typical.min_size, typical.max_size, typical.pattern) == (64 << 10, 64 << 20, "2:1")
    assert typical.dirs_per_stream == 20  # "4,389 files in 20 folders"
    result = CreateDataTest(small).run()
    assert result.total_files == 100


def test_path_based_fallback_without_directory_descriptors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Windows code path (no openat, no C module), exercised here: same tree, same bytes."""
    from app.disk import ReadDataParams, ReadDataTest
    from native import diskio

    _create(tmp_path / "c", depth=2, breadth=2, files_per_dir=5, seed=5, min_size=100, max_size=6 << 20)
    monkeypatch.setattr(diskio, "NATIVE", False)
    monkeypatch.setattr(diskio, "HAVE_DIRFD", False)
    result = _create(tmp_path / "w", depth=2, breadth=2, files_per_dir=5, seed=5, min_size=100, max_size=6 << 20)
    fc, fw = tree_files(tmp_path / "c"), tree_files(tmp_path / "w")
    fc.pop(MANIFEST_NAME), fw.pop(MANIFEST_NAME)
    assert fc == fw and result.total_files == 30
    assert all((tmp_path / "c" / n).read_bytes() == (tmp_path / "w" / n).read_bytes() for n in fc)
    read = ReadDataTest(ReadDataParams(str(tmp_path / "w"), streams=2)).run()
    assert read.total_bytes == sum(fw.values())  # the manifest is bookkeeping, not data
    clean(tmp_path / "w")
    assert all_entries(tmp_path / "w") == set()


def test_cancel_inside_large_files_leaves_no_partial_file(disk_path: Path) -> None:
    sink, cancel = cancel_at_first_sample()

    target = disk_path / "t"
    result = CreateDataTest(CreateDataParams(str(target), depth=1, breadth=1, files_per_dir=40, min_size=6 << 20,
                                             max_size=6 << 20, fsync="file")).run(sink, cancel)
    files = tree_files(target)
    files.pop(MANIFEST_NAME)
    assert result.status == "cancelled"
    assert set(files.values()) <= {6 << 20} and len(files) == result.total_files < 40
    assert result.total_bytes == sum(files.values())
    clean(target)
    assert all_entries(target) == set()

"""read-data on real trees: every byte counted, unreadable files listed, cache honesty."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import json
from pathlib import Path

import pytest

from app.disk import CreateDataParams, CreateDataTest, ReadDataParams, ReadDataTest
from app.events import PhaseFinished, PhaseStarted, SampleBatch
from native import diskio
from native.errors import DiskTestError, InvalidParameter
from tests.helpers.unprivileged import run_unprivileged

from .conftest import cancel_at_first_sample

ROOT = Path(__file__).resolve().parents[2]


def _mixed_tree(root: Path) -> dict[str, int]:
    """A 'customer' tree: odd sizes, empty files, a big file, nested and flat dirs."""
    sizes = {"a.txt": 0, "b.bin": 1, "c/d.dat": 4095, "c/e.dat": 4097, "c/f/g.dat": 123_457,
             "c/f/h/big.iso": (9 << 20) + 13, "i/j.log": 65536}
    for rel, size in sizes.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(os.urandom(size))
    return sizes


@pytest.mark.parametrize("streams", [1, 3, 8])
def test_reads_count_every_byte(tmp_path: Path, streams: int, events: list) -> None:
    sizes = _mixed_tree(tmp_path)
    result = ReadDataTest(ReadDataParams(str(tmp_path), streams=streams, buffer_size=64 << 10)).run(events.append)
    assert result.status == "complete" and result.unreadable_count == 0
    assert result.total_files == len(sizes) and result.total_bytes == sum(sizes.values())
    assert result.tree_walk.files == len(sizes) and result.tree_walk.bytes == sum(sizes.values())
    assert result.tree_walk.dirs == 4 and result.tree_walk.seconds > 0
    assert len(result.streams) == streams
    assert result.seconds == max(s.seconds for s in result.streams)
    samples = [s for e in events if isinstance(e, SampleBatch) for s in e.samples]
    assert sum(s.nbytes for s in samples) == result.total_bytes
    phases = [e.phase for e in events if isinstance(e, (PhaseStarted, PhaseFinished))]
    assert phases == ["tree-walk", "tree-walk", "read-data", "read-data"]


def test_reads_the_created_test_data(tmp_path: Path) -> None:
    target = tmp_path / "t"
    created = CreateDataTest(CreateDataParams(str(target), depth=2, breadth=3, files_per_dir=40, streams=2)).run()
    result = ReadDataTest(ReadDataParams(str(target), streams=4)).run()
    assert (target / ".tapediag-manifest.json").is_file()  # there, but create-data's bookkeeping: not read
    assert result.total_files == created.total_files
    assert result.total_bytes == created.total_bytes
    assert result.latency.count == result.total_files


@pytest.mark.skipif(sys.platform == "win32", reason="creating a symbolic link needs a privilege on Windows")
def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "real.dat").write_bytes(b"x" * 1000)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.dat").write_bytes(b"y" * 5000)
    (tree / "link-dir").symlink_to(outside)
    (tree / "link-file").symlink_to(outside / "secret.dat")
    result = ReadDataTest(ReadDataParams(str(tree))).run()
    assert result.total_files == 1 and result.total_bytes == 1000
    assert result.tree_walk.skipped_symlinks == 2


def test_file_vanishing_after_the_walk_is_counted_unreadable(tmp_path: Path) -> None:
    _mixed_tree(tmp_path)

    def remove_one(event) -> None:
        if isinstance(event, PhaseStarted) and event.phase == "read-data":
            (tmp_path / "c" / "e.dat").unlink()

    result = ReadDataTest(ReadDataParams(str(tmp_path))).run(remove_one)
    assert result.status == "complete"
    assert result.unreadable_count == 1 and result.unreadable[0].path.endswith(os.path.join("c", "e.dat"))
    assert "No such file" in result.unreadable[0].error
    assert result.total_files == 6


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes: Windows does not deny a read for chmod 000")
def test_unreadable_files_without_root_privilege() -> None:
    """Root reads everything, so the CLI runs without root's file-mode bypass over
    root-owned files and a directory with mode 000."""
    base = Path(tempfile.mkdtemp(prefix="tapediag-read-"))
    try:
        os.chmod(base, 0o755)
        tree = base / "tree"
        sizes = _mixed_tree(tree)
        for d in (tree, *[p for p in tree.rglob("*") if p.is_dir()]):
            os.chmod(d, 0o755)
        for f in (p for p in tree.rglob("*") if p.is_file()):
            os.chmod(f, 0o644)
        os.chmod(tree / "c" / "d.dat", 0o000)
        os.chmod(tree / "i", 0o000)  # an unreadable directory: its file is never seen
        data = base / "data"
        data.mkdir()
        proc = run_unprivileged([sys.executable, "-m", "app", "read-data", str(tree), "--streams", "2", "--json"],
                                capture_output=True, text=True, cwd=ROOT, timeout=120,
                                env={**os.environ, "TAPEDIAG_DATA_DIR": str(data)})
        assert proc.returncode == 0, proc.stderr
        out = json.loads(proc.stdout)
        assert out["unreadable_count"] == 2
        assert sorted(Path(u["path"]).name for u in out["unreadable"]) == ["d.dat", "i"]
        assert all("Permission denied" in u["error"] for u in out["unreadable"])
        assert out["total_files"] == len(sizes) - 2
        assert out["total_bytes"] == sum(sizes.values()) - sizes["c/d.dat"] - sizes["i/j.log"]
    finally:
        shutil.rmtree(base)


def test_cancel_keeps_partial_results(disk_path: Path) -> None:
    target = disk_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=2, breadth=4, files_per_dir=250)).run()
    sink, cancel = cancel_at_first_sample()

    result = ReadDataTest(ReadDataParams(str(target), streams=2, buffer_size=4096)).run(sink, cancel)
    assert result.status == "cancelled"
    assert 0 < result.total_files < 20 * 250  # stopped before the end
    assert result.total_bytes > 0


def test_direct_io(tmp_path: Path) -> None:
    if not diskio.HAVE_O_DIRECT:
        pytest.skip("no O_DIRECT on this platform")
    sizes = _mixed_tree(tmp_path)
    try:
        result = ReadDataTest(ReadDataParams(str(tmp_path), streams=2, direct=True)).run()
    except DiskTestError:
        pytest.skip("the test file system does not support O_DIRECT")
    assert result.direct and result.total_bytes == sum(sizes.values()) and result.unreadable_count == 0
    with pytest.raises(InvalidParameter):
        ReadDataTest(ReadDataParams(str(tmp_path), direct=True, buffer_size=5000))


def test_tmpfs_is_flagged_as_served_from_memory(tmpfs) -> None:
    mnt = tmpfs("16m")
    (mnt / "f.dat").write_bytes(os.urandom(1 << 20))
    result = ReadDataTest(ReadDataParams(str(mnt))).run()
    assert any("memory" in w for w in result.warnings)


@pytest.mark.skipif(sys.platform == "win32", reason="the page cache's residency (mincore) is asked on Linux only")
def test_eviction_off_with_cached_data_warns(tmp_path: Path) -> None:
    (tmp_path / "f.dat").write_bytes(os.urandom(1 << 20))
    (tmp_path / "f.dat").read_bytes()
    result = ReadDataTest(ReadDataParams(str(tmp_path), evict=False)).run()
    assert any("page cache" in w for w in result.warnings)
    evicted = ReadDataTest(ReadDataParams(str(tmp_path))).run()  # clean pages: eviction works on ext4
    assert not any("memory" in w for w in evicted.warnings) or "tmpfs" in str(evicted.warnings)


def test_an_empty_tree_is_bad_input_not_a_zero_rate(tmp_path: Path) -> None:
    # A rate of 0 MB/s over no files would be a figure a technician could copy into a ticket.
    with pytest.raises(InvalidParameter, match="holds no regular files"):
        ReadDataTest(ReadDataParams(str(tmp_path))).run()


def test_python_fallback_reads_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sizes = _mixed_tree(tmp_path)
    monkeypatch.setattr(diskio, "NATIVE", False)
    result = ReadDataTest(ReadDataParams(str(tmp_path), streams=2, buffer_size=8192)).run()
    assert not result.native and result.total_bytes == sum(sizes.values()) and result.total_files == len(sizes)


def test_batches_span_many_small_directories(tmp_path: Path) -> None:
    expected = 0
    for i in range(150):  # more directories than one batch may hold open
        d = tmp_path / f"d{i:03d}"
        d.mkdir()
        (d / "x.dat").write_bytes(b"z" * (i + 1))
        expected += i + 1
    (tmp_path / "d077" / "x.dat").chmod(0o000)  # root still reads it: the count must not change
    result = ReadDataTest(ReadDataParams(str(tmp_path), streams=3)).run()
    assert result.total_files == 150 and result.total_bytes == expected and result.unreadable_count == 0


def test_file_latencies_do_not_come_from_a_coarse_monotonic_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Windows' time.monotonic_ns() is GetTickCount64: 15.6 ms steps. Simulate it: the disk
    # tests must time with perf_counter_ns (QueryPerformanceCounter there), so small files
    # still get sub-millisecond latencies instead of 0 or 15.6 ms.
    import time as _time

    tick = 15_625_000
    real = _time.monotonic_ns
    monkeypatch.setattr(_time, "monotonic_ns", lambda: real() // tick * tick)
    monkeypatch.setattr(diskio, "NATIVE", False)  # the Python loops: Windows has no C helper
    for i in range(200):
        (tmp_path / f"f{i:03d}.dat").write_bytes(os.urandom(4096))
    result = ReadDataTest(ReadDataParams(str(tmp_path), streams=1, buffer_size=64 << 10)).run(lambda e: None)
    lat = result.to_dict()["latency"]
    assert 0 < lat["p50_ms"] < 15.0, lat


_FIFO_SCRIPT = """
import os, sys, json
from app.disk import ReadDataParams, ReadDataTest
from native import diskio
if sys.argv[2] == "python":
    diskio.NATIVE = False
top = sys.argv[1]
real_walk = ReadDataTest._walk
def walk_then_swap(self, *args):
    result = real_walk(self, *args)
    for name in ("f005.dat", "big.dat"):  # a small file (batched reads) and a large one (sliced reads)
        os.unlink(os.path.join(top, name))
        os.mkfifo(os.path.join(top, name))
    return result
ReadDataTest._walk = walk_then_swap
r = ReadDataTest(ReadDataParams(top, streams=2, buffer_size=64 << 10)).run(lambda e: None)
print(json.dumps(r.to_dict()))
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs on Windows (os.mkfifo is POSIX)")
@pytest.mark.parametrize("loop", ["native", "python"])
def test_a_file_replaced_by_a_fifo_after_the_walk_is_skipped_not_waited_for(tmp_path: Path, loop: str) -> None:
    import subprocess

    for i in range(20):
        (tmp_path / f"f{i:03d}.dat").write_bytes(os.urandom(4096))
    (tmp_path / "big.dat").write_bytes(os.urandom(40 << 20))  # above the small-file batch limit
    got = subprocess.run([sys.executable, "-c", _FIFO_SCRIPT, str(tmp_path), loop], capture_output=True, text=True,
                         timeout=60, cwd=Path(__file__).resolve().parents[2])
    assert got.returncode == 0, got.stderr[-2000:]
    result = json.loads(got.stdout)
    skipped = {u["path"].rsplit("/", 1)[-1]: u["error"] for u in result["unreadable"]}
    assert skipped == {"f005.dat": "not a regular file (skipped)", "big.dat": "not a regular file (skipped)"}, skipped

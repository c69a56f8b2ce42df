"""The refusals and the cleanup: nothing is left behind but what the manifest lists."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from app.disk import MANIFEST_NAME, CreateDataParams, CreateDataTest, clean
from app.disk.manifest import Manifest
from app.events import PhaseStarted, SampleBatch
from native.errors import DiskTestError, InvalidParameter, NoSpace, TargetNotEmpty

from tests.helpers.unprivileged import run_unprivileged

from .conftest import all_entries, tree_files

ROOT = Path(__file__).resolve().parents[2]


def _listed_files(target: Path) -> set[str]:
    """What the manifest says the runs created (complete/stopped/cancelled runs)."""
    out = set()
    for run in Manifest.load(target).runs:
        for entry in run.dirs:
            out |= {f"{entry.path}/f{i:06d}.dat" for i in range(entry.files)}
    return out


def test_refuses_a_non_empty_target_and_touches_nothing(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("customer data")
    with pytest.raises(TargetNotEmpty):
        CreateDataTest(CreateDataParams(str(tmp_path))).run()
    assert all_entries(tmp_path) == {"precious.txt"}


@pytest.mark.skipif(sys.platform == "win32", reason="creating a symbolic link needs a privilege on Windows")
def test_allow_non_empty_writes_into_its_own_subdirectory(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("customer data")
    outside = tmp_path.parent / (tmp_path.name + "-outside")
    outside.mkdir()
    (tmp_path / "s01").symlink_to(outside)  # a link named like our stream root
    result = CreateDataTest(CreateDataParams(str(tmp_path), depth=1, breadth=2, files_per_dir=3,
                                             allow_non_empty=True)).run()
    assert result.run_root.startswith("td") and len(result.run_root) <= 16
    assert os.listdir(outside) == []
    assert set(tree_files(tmp_path)) - {MANIFEST_NAME, "precious.txt"} == _listed_files(tmp_path)
    clean(tmp_path)
    assert all_entries(tmp_path) == {"precious.txt", "s01"} and os.listdir(outside) == []


def test_cleanup_removes_exactly_the_created_files(tmp_path: Path) -> None:
    target = tmp_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=2, breadth=2, files_per_dir=4, streams=2)).run()
    (target / "s01" / "d00" / "notes.txt").write_text("added by someone else")
    (target / "s02" / "d01" / "d00" / "f000099.dat").write_text("not one of ours: index beyond the count")
    result = clean(target)
    assert result.files_removed == 2 * 6 * 4
    assert all_entries(target) == {"s01", "s01/d00", "s01/d00/notes.txt", "s02", "s02/d01", "s02/d01/d00",
                                   "s02/d01/d00/f000099.dat"}
    assert sorted(result.kept_dirs) == sorted(["s01/d00", "s02/d01/d00", "s02/d01", "s01", "s02"])


def test_cleanup_never_follows_a_link_swapped_into_the_tree(tmp_path: Path) -> None:
    target = tmp_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=1, breadth=1, files_per_dir=2)).run()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f000000.dat").write_text("must survive")
    shutil.rmtree(target / "s01")
    (target / "s01").symlink_to(outside)
    clean(target)
    assert (outside / "f000000.dat").read_text() == "must survive"


def test_cleanup_of_a_run_that_never_finished(tmp_path: Path) -> None:
    target = tmp_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=2, breadth=2, files_per_dir=3)).run()
    manifest = Manifest.load(target)
    manifest.runs[0].state = "running"  # as if the process had been killed mid-run
    manifest.runs[0].dirs = manifest.runs[0].dirs[:1]  # and the last saves were lost
    manifest.save()
    (target / "s01" / "d01" / "mine.doc").write_text("x")
    listed = manifest.runs[0].dirs[0]
    result = clean(target)
    # What the last save listed is gone; what it does not list stays (it cannot be proven ours), counted.
    assert not any((target / listed.path / f"f{i:06d}.dat").exists() for i in range(listed.files))
    assert (target / "s01" / "d01" / "mine.doc").exists()
    assert result.unlisted_files > 0 and result.unlisted_files == sum(
        1 for p in target.rglob("f*.dat") if p.is_file())


def test_a_killed_runs_cleanup_keeps_the_users_files_named_like_ours(tmp_path: Path) -> None:
    target = tmp_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=1, breadth=1, files_per_dir=2)).run()
    manifest = Manifest.load(target)
    manifest.runs[0].state = "running"
    manifest.save()
    theirs = target / manifest.runs[0].dirs[-1].path / "f123456.dat"
    theirs.write_text("the user's own file")
    result = clean(target)
    assert theirs.read_text() == "the user's own file"
    assert result.unlisted_files == 1


@pytest.mark.parametrize("evil", ["//{outside}", "/{outside}", "s01/../../outside", "s01//x"])
def test_a_manifest_path_outside_the_tree_refuses_the_whole_clean(tmp_path: Path, evil: str) -> None:
    target = tmp_path / "t"
    CreateDataTest(CreateDataParams(str(target), depth=1, breadth=1, files_per_dir=2)).run()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f000000.dat").write_text("must survive")
    data = json.loads((target / ".tapediag-manifest.json").read_text())
    data["runs"][0]["dirs"].append([evil.format(outside=str(outside).lstrip("/")), 1])
    (target / ".tapediag-manifest.json").write_text(json.dumps(data))
    before = all_entries(target)
    with pytest.raises(InvalidParameter, match="nothing was removed"):
        clean(target)
    assert (outside / "f000000.dat").read_text() == "must survive"
    assert all_entries(target) == before


def test_clean_refuses_a_directory_without_manifest(tmp_path: Path) -> None:
    (tmp_path / "f000000.dat").write_text("x")
    with pytest.raises(DiskTestError):
        clean(tmp_path)
    assert (tmp_path / "f000000.dat").exists()


def test_no_space_is_refused_before_writing(tmpfs) -> None:
    mnt = tmpfs("2m")
    target = mnt / "t"
    with pytest.raises(NoSpace):
        CreateDataTest(CreateDataParams(str(target), depth=1, breadth=1, files_per_dir=500)).run()
    assert all_entries(mnt) == set()


def test_disk_full_mid_run_stops_cleanly(tmpfs) -> None:
    mnt = tmpfs("8m")
    target = mnt / "t"

    def fill_disk(event) -> None:  # someone else fills the disk once the run has started
        if isinstance(event, PhaseStarted) and event.phase == "create":
            st = os.statvfs(mnt)
            (mnt / "filler").write_bytes(b"\0" * (st.f_bavail * st.f_frsize - 200_000))

    result = CreateDataTest(CreateDataParams(str(target), depth=2, breadth=2, files_per_dir=50, min_size=8192,
                                             max_size=8192, streams=2)).run(fill_disk)
    assert result.status == "stopped" and "disk filled up" in result.error
    files = tree_files(target)
    files.pop(MANIFEST_NAME)
    assert 0 < result.total_files == len(files)  # no partial file left behind
    assert set(files.values()) == {8192}
    assert set(files) == _listed_files(target)
    assert Manifest.load(target).runs[0].state == "stopped"
    clean(target)
    assert all_entries(mnt) == {"filler"}


def _chattr(flag: str, path: Path) -> bool:
    return subprocess.run(["chattr", flag, str(path)], capture_output=True).returncode == 0


@pytest.mark.skipif(sys.platform == "win32", reason="chattr +i (Linux's immutable flag) makes the directories refuse writes")
def test_permission_denied_mid_run_stops_cleanly(disk_path: Path) -> None:
    target = disk_path / "t"
    locked: list[Path] = []

    def lock(event) -> None:  # the stream's directories become immutable while the run goes on
        if isinstance(event, SampleBatch) and not locked and (target / "s01").exists():
            # Every directory made so far, not only the root: a run that already made its
            # whole tree would otherwise finish in the unlocked subdirectories (a timing flake).
            for dirpath, _dirs, _files in os.walk(target / "s01"):
                if _chattr("+i", Path(dirpath)):
                    locked.append(Path(dirpath))

    # 240 files a directory: the run lasts well past its first published batch (about 1.6 s here). With 60
    # (0.4 s) a CI run once finished its whole tree before the lock came, and ended "complete".
    files_per_dir = 240
    try:
        result = CreateDataTest(CreateDataParams(str(target), depth=2, breadth=3, files_per_dir=files_per_dir,
                                                 fsync="file")).run(lock)
    finally:
        for path in locked:
            _chattr("-i", path)
    if not locked:
        pytest.skip("chattr +i not supported on this file system")
    assert result.status == "stopped" and "permission denied" in result.error
    files = tree_files(target)
    files.pop(MANIFEST_NAME)
    assert 0 < result.total_files == len(files) < 12 * files_per_dir
    assert set(files) == _listed_files(target)
    clean(target)
    assert all_entries(target) == set()


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file modes and an unprivileged user (setuid) are Linux")
def test_permission_denied_target_without_root_privilege() -> None:
    """Root ignores permissions, so the CLI runs without root's file-mode bypass against
    a root-owned directory of mode 555."""
    base = Path(tempfile.mkdtemp(prefix="tapediag-perm-"))
    try:
        target = base / "ro"
        target.mkdir(mode=0o555)
        os.chmod(target, 0o555)  # whatever the umask
        data = base / "data"
        data.mkdir()
        env = {**os.environ, "TAPEDIAG_DATA_DIR": str(data)}
        proc = run_unprivileged([sys.executable, "-m", "app", "create-data", str(target), "--files", "5", "--json"],
                                capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
        assert proc.returncode == 1, proc.stderr
        assert "Permission denied" in proc.stderr and "Traceback" not in proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
        assert all_entries(target) == set()
    finally:
        shutil.rmtree(base)


def test_cli_cleanup_flag_leaves_an_empty_target(tmp_path: Path, capsys) -> None:
    from app.cli import main

    target = tmp_path / "t"
    assert main(["create-data", str(target), "--depth", "1", "--breadth", "2", "--files-per-dir", "5",
                 "--cleanup", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total_files"] == 10 and "removed 10 files" in out["cleanup"] and not out["warnings"]
    assert not target.exists()  # it created the target, so cleanup removed it too


@pytest.mark.skipif(sys.platform == "win32", reason="creating a symbolic link needs a privilege on Windows")
def test_create_data_into_a_symlink_refuses_before_anything_is_made(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with pytest.raises(InvalidParameter, match="symbolic link"):
        CreateDataTest(CreateDataParams(str(tmp_path / "link"), depth=1, breadth=1, files_per_dir=2)).run()
    assert list(real.iterdir()) == []


def test_create_data_with_a_negative_seed_is_bad_input_before_anything_is_made(tmp_path: Path) -> None:
    with pytest.raises(InvalidParameter, match="seed"):
        CreateDataTest(CreateDataParams(str(tmp_path / "t"), depth=1, breadth=1, files_per_dir=2, seed=-1)).run()
    assert not (tmp_path / "t").exists()

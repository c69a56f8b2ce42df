"""Fixtures of the disk tests: real directories, real small file systems."""
from __future__ import annotations

import os
import sys
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable, Iterator

import pytest

from app.events import CancelToken, Event, EventSink, SampleBatch


@pytest.fixture
def events() -> list[Event]:
    return []


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[str], Path]]:
    """mount(size) -> a fresh tmpfs of that size (e.g. "4m"); skipped where mounting is not allowed."""
    mounts: list[Path] = []

    def mount(size: str) -> Path:
        if not sys.platform.startswith("linux"):
            pytest.skip("tmpfs is Linux's")
        point = tmp_path / f"mnt{len(mounts)}"
        point.mkdir()
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(point)],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
        mounts.append(point)
        return point

    yield mount
    for point in reversed(mounts):
        subprocess.run(["umount", "-l", str(point)], capture_output=True)


def cancel_at_first_sample() -> tuple[EventSink, CancelToken]:
    """(sink, cancel) for a run that is cancelled as soon as its first samples arrive."""
    cancel = CancelToken()

    def sink(event: Event) -> None:
        if isinstance(event, SampleBatch):
            cancel.cancel()

    return sink, cancel


def _fs_type(path: Path) -> str:
    """The file system type holding ``path`` (the longest mount point above it)."""
    best, kind = "", ""
    try:
        with open("/proc/self/mounts") as mounts:
            for line in mounts:
                fields = line.split()
                point = fields[1].replace("\\040", " ")
                if (str(path) == point or str(path).startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                    best, kind = point, fields[2]
    except OSError:
        pass
    return kind


@pytest.fixture
def disk_path(tmp_path: Path) -> Iterator[Path]:
    """A directory on a disk-backed file system: ``tmp_path`` unless that is a tmpfs (as
    /tmp is on Debian 13), where reads never leave memory and fsync costs nothing, so a
    run is over before the events these tests wait for; then a directory in /var/tmp."""
    if _fs_type(tmp_path.resolve()) not in ("tmpfs", "ramfs"):
        yield tmp_path
        return
    path = Path(tempfile.mkdtemp(prefix="tapediag-test-", dir="/var/tmp" if os.path.isdir("/var/tmp") else None))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def tree_files(root: Path) -> dict[str, int]:
    """Every regular file under root (relative path -> size), without following links."""
    out = {}
    for dirpath, _dirs, files in os.walk(root, followlinks=False):
        for name in files:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.stat().st_size
    return out


def all_entries(root: Path) -> set[str]:
    out = set()
    for dirpath, dirs, files in os.walk(root, followlinks=False):
        for name in dirs + files:
            out.add((Path(dirpath) / name).relative_to(root).as_posix())
    return out

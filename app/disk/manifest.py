"""The record of what create-data made, so that cleanup removes exactly that.

``.tapediag-manifest.json`` in the target lists each run: its stream roots (always
directories the run created itself) and every directory it created with the number
of files made there, named ``f000000.dat`` upwards. It is written before the first
file, rewritten about once a second while the run goes on, and finally at the end,
each time atomically (temporary file + rename), so a crash leaves a valid manifest.

Cleanup of a finished run removes exactly the listed files and then the listed
directories that are empty; anything somebody else put into the tree survives (and
keeps its directory). A run that never finished (killed) is cleaned by name: inside
its own stream roots, files and directories that carry its naming scheme.
"""
from __future__ import annotations

import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from native.errors import DiskTestError, InvalidParameter

MANIFEST_NAME = ".tapediag-manifest.json"
FORMAT = "tapediag-create-data"
_FILE_RE = re.compile(r"^f\d{6}\.dat$")
_DIR_RE = re.compile(r"^(s|d)\d{2}$")


def file_name(index: int) -> str:
    return f"f{index:06d}.dat"


@dataclass
class DirEntry:
    path: str  # relative to the target, '/'-separated
    files: int = 0


@dataclass
class RunRecord:
    run_id: str
    started: str
    state: str  # running | complete | stopped | cancelled
    root: str  # relative: "" (the target itself) or the run's own subdirectory
    created_root: bool
    stream_roots: list[str]
    params: dict[str, Any]
    dirs: list[DirEntry] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        d = dict(self.__dict__)
        d["dirs"] = [[e.path, e.files] for e in self.dirs]
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "RunRecord":
        dirs = [DirEntry(str(p), int(n)) for p, n in d.get("dirs", [])]
        return cls(str(d["run_id"]), str(d.get("started", "")), str(d.get("state", "running")), str(d.get("root", "")),
                   bool(d.get("created_root", False)), [str(s) for s in d.get("stream_roots", [])],
                   dict(d.get("params", {})), dirs)


@dataclass
class Manifest:
    target: Path
    created_target: bool = False
    runs: list[RunRecord] = field(default_factory=list)

    @property
    def path(self) -> Path:
        return self.target / MANIFEST_NAME

    @classmethod
    def load(cls, target: Path) -> "Manifest":
        path = target / MANIFEST_NAME
        if path.is_symlink() or not path.is_file():
            raise DiskTestError(f"{target} has no tapediag manifest: nothing there was created by tapediag")
        try:
            data = json.loads(path.read_text())
            if data.get("format") != FORMAT:
                raise ValueError("not a create-data manifest")
            return cls(target, bool(data.get("created_target", False)), [RunRecord.from_dict(r) for r in data["runs"]])
        except (ValueError, KeyError, TypeError) as err:
            raise DiskTestError(f"the manifest {path} is damaged ({err}); remove the test data by hand") from None

    @classmethod
    def load_or_new(cls, target: Path, created_target: bool) -> "Manifest":
        if (target / MANIFEST_NAME).exists():
            return cls.load(target)
        return cls(target, created_target)

    def try_save(self, sync: bool = True) -> str | None:
        """``save``, but a failure (disk full, permissions changed) is returned, not raised:
        the periodic save must not end a run; the final one reports it."""
        try:
            self.save(sync)
        except OSError as err:
            return f"could not update the manifest {self.path}: {err.strerror or err}"
        return None

    def save(self, sync: bool = True) -> None:
        """Atomic replace; on a full disk, an in-place rewrite into the old file's blocks.

        Should even that fail, the manifest on disk still says "running" for this run,
        and cleanup then goes by name inside the run's own stream roots.
        ``sync=False`` (the periodic saves during a run) skips the fsync: on ext4 each
        fsync commits the journal with every stream's pending metadata, a mid-run flush
        the measured workload never asked for; the first and the last save are synced,
        and the stream roots cleanup falls back on are in the first.
        """
        data = json.dumps({"format": FORMAT, "version": 1, "created_target": self.created_target,
                           "runs": [r.to_dict() for r in self.runs]}, separators=(",", ":")).encode()
        tmp = self.target / (MANIFEST_NAME + ".tmp")
        try:
            _write_synced(tmp, data, "wb", sync)
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            if not self.path.exists() or self.path.is_symlink():
                raise
            _write_synced(self.path, data, "r+b", sync)


def _write_synced(path: Path, data: bytes, mode: str, sync: bool = True) -> None:
    with open(path, mode) as f:
        if mode == "r+b":
            f.truncate(0)
        f.write(data)
        f.flush()
        if sync:
            os.fsync(f.fileno())


@dataclass
class CleanResult:
    target: str
    files_removed: int = 0
    dirs_removed: int = 0
    bytes_removed: int = 0
    kept_dirs: list[str] = field(default_factory=list)  # not empty: others' files in them
    runs: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def clean(target: str | os.PathLike[str], run_id: str | None = None) -> CleanResult:
    """Remove what the manifest in ``target`` lists (one run, or all), then the manifest
    itself once no run is left in it."""
    root = Path(target)
    if not root.is_dir():
        raise InvalidParameter(f"{root} is not a directory", hint="give the directory create-data wrote to")
    manifest = Manifest.load(root)
    runs = [r for r in manifest.runs if run_id is None or r.run_id == run_id]
    result = CleanResult(str(root), runs=len(runs))
    for run in runs:
        _clean_run(root, run, result)
        manifest.runs.remove(run)
    if manifest.runs:
        manifest.save()
        return result
    manifest.path.unlink()
    if manifest.created_target:
        try:
            root.rmdir()
        except OSError:
            pass
    return result


def _unlink_file(path: Path, result: CleanResult) -> None:
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        return
    os.unlink(path)  # never follows a symlink: removes the link itself at most
    result.files_removed += 1
    if stat.S_ISREG(st.st_mode):
        result.bytes_removed += st.st_size


def _real_dir(root: Path, rel: str) -> bool:
    """True if every component of ``rel`` under ``root`` is a real directory (no symlink):
    a link swapped into the tree must never lead cleanup outside it."""
    path = root
    for part in Path(rel).parts:
        if part in ("..", "/") or not part:
            return False
        path = path / part
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except OSError:
            return False
    return True


def _rmdir(root: Path, rel: str, result: CleanResult) -> None:
    if not _real_dir(root, rel):
        return
    path = root / rel
    try:
        path.rmdir()
        result.dirs_removed += 1
    except OSError:
        result.kept_dirs.append(rel)


def _clean_run(root: Path, run: RunRecord, result: CleanResult) -> None:
    if run.state == "running":
        _clean_by_name(root, run, result)
    else:
        for entry in run.dirs:
            base = root / entry.path
            if not _real_dir(root, entry.path):
                continue
            for i in range(entry.files):
                _unlink_file(base / file_name(i), result)
        for entry in sorted(run.dirs, key=lambda e: e.path.count("/"), reverse=True):
            _rmdir(root, entry.path, result)
    for rel in sorted(run.stream_roots, key=lambda p: p.count("/"), reverse=True):
        _rmdir(root, rel, result)
    if run.created_root and run.root:
        _rmdir(root, run.root, result)


def _clean_by_name(root: Path, run: RunRecord, result: CleanResult) -> None:
    """An unfinished run: inside its stream roots, our names only, never following links."""
    for rel in run.stream_roots:
        top = root / rel
        if not _real_dir(root, rel):
            continue
        for dirpath, dirnames, filenames in os.walk(top, topdown=False, followlinks=False):
            for name in filenames:
                if _FILE_RE.match(name):
                    _unlink_file(Path(dirpath) / name, result)
            for name in dirnames:
                if _DIR_RE.match(name):
                    _rmdir(root, os.path.relpath(os.path.join(dirpath, name), root), result)

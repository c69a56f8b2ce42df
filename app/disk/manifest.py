"""The record of what create-data made, so that cleanup removes exactly that.

``.tapediag-manifest.json`` in the target lists each run: its stream roots (always
directories the run created itself) and every directory it created with the number
of files made there, named ``f000000.dat`` upwards. It is written before the first
file, rewritten about once a second while the run goes on, and finally at the end,
each time atomically (temporary file + rename), so a crash leaves a valid manifest.

Cleanup of a finished run removes exactly the listed files and then the listed
directories that are empty; anything somebody else put into the tree survives (and
keeps its directory). A run that never finished (killed) is cleaned from its last
periodic save: what it lists goes; files made after that save are left and counted,
because nothing proves they are tapediag's (a user's own ``f123456.dat`` would be lost).
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
HAVE_DIRFD = os.name == "posix" and os.rmdir in os.supports_dir_fd and os.open in os.supports_dir_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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
    # Files a killed run may have made after the manifest's last save: not listed, so not
    # provably tapediag's, so left where they are (named here for the technician).
    unlisted_files: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def clean(target: str | os.PathLike[str], run_id: str | None = None) -> CleanResult:
    """Remove what the manifest in ``target`` lists (one run, or all), then the manifest
    itself once no run is left in it.

    The manifest is a file anyone can edit, so every path in it is checked before anything
    is removed: a relative path of real names, no anchor (``/``, ``//``, a drive), no
    ``..``. One bad entry refuses the whole clean. Directories are then opened one level
    at a time relative to their parent without following links (``openat``), so a link
    swapped into the tree cannot lead the removal outside it.
    """
    root = Path(target)
    if not root.is_dir():
        raise InvalidParameter(f"{root} is not a directory", hint="give the directory create-data wrote to")
    manifest = Manifest.load(root)
    runs = [r for r in manifest.runs if run_id is None or r.run_id == run_id]
    for run in runs:
        for rel in [run.root, *run.stream_roots, *(e.path for e in run.dirs)]:
            if rel and not _safe_rel(rel):
                raise InvalidParameter(f"the manifest {manifest.path} lists {rel!r}, which is not inside {root}: "
                                       "nothing was removed", hint="remove the test data by hand")
    result = CleanResult(str(root), runs=len(runs))
    with _Tree(root) as tree:
        for run in runs:
            _clean_run(tree, run, result)
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


def _safe_rel(rel: str) -> bool:
    """A '/'-separated path of plain names below the target: no anchor, no '..', nothing odd."""
    if not isinstance(rel, str) or "\\" in rel or "\0" in rel or rel.startswith("/"):
        return False
    return all(part not in ("", ".", "..") and ":" not in part for part in rel.split("/"))


class _Tree:
    """Directories under a root, opened component by component without following links.

    POSIX: ``openat(O_NOFOLLOW|O_DIRECTORY)`` per level and ``unlinkat``/``rmdir(dir_fd=)``;
    Windows (no ``dir_fd``): each component ``lstat``-checked to be a real directory first.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self.fd: int | None = None

    def __enter__(self) -> "_Tree":
        if HAVE_DIRFD:
            self.fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def open_dir(self, rel: str) -> "_Dir | None":
        """The directory ``rel`` (real directories all the way down), or None."""
        if self.fd is None:
            path = self.root
            for part in rel.split("/") if rel else []:
                path = path / part
                try:
                    if not stat.S_ISDIR(os.lstat(path).st_mode):
                        return None
                except OSError:
                    return None
            return _Dir(None, path)
        fd = os.dup(self.fd)
        for part in rel.split("/") if rel else []:
            try:
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW, dir_fd=fd)
            except OSError:
                os.close(fd)
                return None
            os.close(fd)
            fd = nxt
        return _Dir(fd, self.root / rel)


class _Dir:
    def __init__(self, fd: int | None, path: Path) -> None:
        self.fd, self.path = fd, path

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)

    def unlink(self, name: str, result: CleanResult) -> None:
        """Remove ``name`` here if it is not a directory (a link is removed, never followed)."""
        try:
            st = os.lstat(name, dir_fd=self.fd) if self.fd is not None else os.lstat(self.path / name)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(st.st_mode):
            return
        if self.fd is not None:
            os.unlink(name, dir_fd=self.fd)
        else:
            os.unlink(self.path / name)
        result.files_removed += 1
        if stat.S_ISREG(st.st_mode):
            result.bytes_removed += st.st_size


def _rmdir(tree: _Tree, rel: str, result: CleanResult) -> None:
    """Remove the directory ``rel`` if it is empty; a full one is kept (and named)."""
    parent_rel, _, name = rel.rpartition("/")
    parent = tree.open_dir(parent_rel)
    if parent is None:
        return
    try:
        if parent.fd is not None:
            st = os.lstat(name, dir_fd=parent.fd)
            if not stat.S_ISDIR(st.st_mode):
                return
            os.rmdir(name, dir_fd=parent.fd)
        else:
            if not stat.S_ISDIR(os.lstat(parent.path / name).st_mode):
                return
            os.rmdir(parent.path / name)
        result.dirs_removed += 1
    except FileNotFoundError:
        return
    except OSError:
        result.kept_dirs.append(rel)
    finally:
        parent.close()


def _clean_run(tree: _Tree, run: RunRecord, result: CleanResult) -> None:
    """Exactly the listed files (``f000000.dat`` up to each directory's count) and then the
    listed directories that are empty. A killed run's manifest is its last periodic save:
    files made after it are not listed and stay (``unlisted_files`` counts them)."""
    for entry in run.dirs:
        d = tree.open_dir(entry.path)
        if d is None:
            continue
        try:
            for i in range(entry.files):
                d.unlink(file_name(i), result)
        finally:
            d.close()
    if run.state == "running":
        result.unlisted_files += _count_ours(tree, run)
    for entry in sorted(run.dirs, key=lambda e: e.path.count("/"), reverse=True):
        _rmdir(tree, entry.path, result)
    for rel in sorted(run.stream_roots, key=lambda p: p.count("/"), reverse=True):
        _rmdir(tree, rel, result)
    if run.created_root and run.root:
        _rmdir(tree, run.root, result)


def _count_ours(tree: _Tree, run: RunRecord) -> int:
    """Files named like tapediag's left in a killed run's stream roots (not removed: unlisted)."""
    count = 0
    for rel in run.stream_roots:
        top = tree.open_dir(rel)
        if top is None:
            continue
        top.close()
        for _dirpath, _dirnames, filenames in os.walk(tree.root / rel, followlinks=False):
            count += sum(1 for name in filenames if _FILE_RE.match(name))
    return count

"""Directories the disk tests work in, reached without ever following a symbolic link.

On POSIX every directory is a descriptor opened with O_NOFOLLOW relative to its
parent's descriptor, and files are opened relative to it (openat): even a link
swapped into the tree mid-run cannot send a write outside the target. Windows has no
directory descriptors; there the handle carries the path and the (rarer) junction
risk is accepted, with the same API so the engines do not care.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

from native import diskio

_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) \
    | getattr(os, "O_BINARY", 0)


@dataclass
class DirHandle:
    path: str  # for messages and the path-based fallback
    fd: int = -1  # -1 where directory descriptors do not exist

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> "DirHandle":
        path = os.fspath(path)
        return cls(path, os.open(path, _DIR_FLAGS) if diskio.HAVE_DIRFD else -1)

    def _at(self, name: str) -> tuple[str, dict]:
        if self.fd >= 0:
            return name, {"dir_fd": self.fd}
        return os.path.join(self.path, name), {}

    def mkdir(self, name: str) -> "DirHandle":
        """Create subdirectory ``name`` (never an existing one) and open it."""
        target, kw = self._at(name)
        os.mkdir(target, 0o755, **kw)
        fd = os.open(target, _DIR_FLAGS, **kw) if self.fd >= 0 else -1
        return DirHandle(os.path.join(self.path, name), fd)

    def create(self, name: str) -> int:
        """A new file for writing (O_EXCL: an existing file or link is never reused)."""
        target, kw = self._at(name)
        return os.open(target, _NEW_FILE, 0o644, **kw)

    def open_existing(self, rel: str) -> int:
        """A file this run made, opened for fsync (write access: Windows needs it to flush)."""
        target, kw = self._at(rel)
        return os.open(target, os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
                       | getattr(os, "O_BINARY", 0), **kw)

    def unlink(self, name: str) -> None:
        target, kw = self._at(name)
        os.unlink(target, **kw)

    def open_read(self, name: str, flags: int) -> int:
        target, _kw = self._at(name)
        return diskio.open_read(target, flags, self.fd if self.fd >= 0 else None)

    def dup(self) -> "DirHandle":
        """An independent handle on the same directory (closed separately)."""
        return DirHandle(self.path, os.dup(self.fd) if self.fd >= 0 else -1)

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

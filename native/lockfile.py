"""An exclusive lock on a file that the operating system releases when the process ends.

Why the OS and not a PID written in a file: a claim must vanish with its holder however the
holder ends (Ctrl-C, SIGKILL, a crash, a power cut of the terminal), or a killed run would
block the drive until someone deletes a file by hand. ``flock`` (POSIX) and a byte-range lock
(``msvcrt.locking``, Windows) are both dropped by the kernel when the last descriptor of the
open file closes, which process exit does.

Both kinds are per open file (``flock``: per open file description; Windows: per handle), so
a second open of the same file in the same process does not get the lock either: one process
cannot claim one drive twice by two names.

On Windows the lock is on one byte far past the file's content (``LOCK_OFFSET``): a locked
region cannot be read by another process there, and the content is the holder's name,
which a refused program must be able to read.
"""
from __future__ import annotations

import errno
import os
import stat
import sys
import time
from pathlib import Path

from native.errors import TapediagError

LOCK_OFFSET = 1 << 30  # Windows: the locked byte, beyond any content
#: Open flags: POSIX's O_NOFOLLOW/O_CLOEXEC where they exist, Windows' O_BINARY there.
_FLAGS = (os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
          | getattr(os, "O_BINARY", 0))

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


class LockFileError(TapediagError):
    """The lock file cannot be opened (a planted link, a directory, no permission)."""


def open_lock_file(path: Path, *, mode: int = 0o666) -> int:
    """Open (or create) ``path`` to lock it; a symbolic link or anything but a regular file is refused.

    ``mode``: the permissions of a new file, set explicitly (the umask would take the write bits
    from the other users who must be able to lock the same file).
    """
    try:
        fd = os.open(path, _FLAGS, mode)
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise LockFileError(f"the lock file {path} is a symbolic link: remove it") from None
        raise LockFileError(f"cannot open the lock file {path}: {err.strerror or err}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise LockFileError(f"the lock file {path} is not a regular file: remove it")
    if info.st_size == 0 and hasattr(os, "fchmod"):
        try:
            os.fchmod(fd, mode)  # only its owner may; another user's file keeps its mode
        except OSError:
            pass
    return fd


def try_lock(fd: int) -> bool:
    """Take the exclusive lock without waiting; False when another open file holds it."""
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as err:
            if err.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        return True
    return _windows_lock(fd, wait=False)


def lock(fd: int, *, timeout: float = 30.0) -> bool:
    """Take the exclusive lock, waiting at most ``timeout`` seconds; False if it did not come."""
    deadline = time.monotonic() + timeout
    delay = 0.005
    while True:
        if try_lock(fd):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.1)


def unlock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return
    import msvcrt  # Windows

    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    except OSError:
        pass


def _windows_lock(fd: int, *, wait: bool) -> bool:  # pragma: no cover - Windows only
    if sys.platform != "win32":
        raise OSError(errno.ENOSYS, "no flock and not Windows")
    import msvcrt

    os.lseek(fd, LOCK_OFFSET, os.SEEK_SET)
    try:
        msvcrt.locking(fd, msvcrt.LK_LOCK if wait else msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


def read_text(fd: int, limit: int = 4096) -> str:
    """The file's content (the holder's own words), from the start; '' when unreadable."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        return os.read(fd, limit).decode("utf-8", "replace")
    except OSError:
        return ""


def write_text(fd: int, text: str) -> None:
    """Replace the file's content with ``text`` (the holder writes it once it holds the lock)."""
    data = text.encode("utf-8")
    os.lseek(fd, 0, os.SEEK_SET)
    os.ftruncate(fd, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


__all__ = ["LOCK_OFFSET", "LockFileError", "lock", "open_lock_file", "read_text", "try_lock", "unlock", "write_text"]

"""Every file tapediag writes for the user, written one way: the ticket, the report PDF, an export, a
``--samples`` CSV, the GUI's exports.

Why one helper: each writer had its own rule, and some replaced what they were given. Run as root,
``ticket -o /dev/full`` turned ``/dev/full`` into a zip; a FIFO or a symbolic link became a plain
file. The rule, once:

* the target must be a regular file or nothing. A directory, a device node, a FIFO, a socket or a
  symbolic link (even a dangling one) is refused in one line (exit 2) and left as it was: tapediag
  never turns a node into a file, nor writes through a link to somewhere else;
* the content goes into a hidden temporary file beside the target (same directory, so the rename
  is atomic), is flushed and synced, and only then renamed over the target, which is checked again
  just before: a full disk, an error or a Ctrl-C never leaves half a file nor costs an older one.

``--samples`` may also name a pipe (a FIFO, or ``>(gzip > s.csv.gz)``'s ``/dev/fd/N``), on purpose:
it streams the samples to another program and replaces nothing (``open_output(..., pipes=True)``).
That is the one exception, and only for that option.
"""
from __future__ import annotations

import contextlib
import errno
import io
import os
import stat
from pathlib import Path
from typing import BinaryIO, Iterator, TextIO

from app.paths import create_beside
from native.errors import InvalidParameter, TapediagError

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"))


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is, in words for the one-line refusal."""
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def check_target(path: Path, what: str) -> None:
    """Refuse a target that is anything but a regular file or nothing (``InvalidParameter``: exit 2)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return
    except OSError as err:
        raise InvalidParameter(f"cannot write {what} to {path}: {err.strerror or err}") from None
    if stat.S_ISREG(mode):
        if not os.access(path, os.W_OK):
            raise InvalidParameter(f"cannot write {what} to {path}: permission denied")
        return
    raise InvalidParameter(f"cannot write {what} to {path}: it is {kind_of(mode)}, which tapediag does not replace; "
                           "name a regular file or a new one")


class Replacement:
    """A new content for ``path``: written to ``stream`` (binary), then ``commit()`` renames it over the target;
    ``discard()`` (or an exception in the ``with`` block) removes it and leaves the target as it was."""

    def __init__(self, path: Path, what: str) -> None:
        self.path, self.what = Path(path), what
        check_target(self.path, what)
        try:
            fd, self.tmp = create_beside(self.path)
        except OSError as err:
            raise InvalidParameter(f"cannot write {what} to {self.path}: {err.strerror or err}") from None
        self.stream: BinaryIO = os.fdopen(fd, "w+b")
        self._text: io.TextIOWrapper | None = None

    def text(self) -> io.TextIOWrapper:
        """The same file as UTF-8 text with the newlines as written (CSV, JSON)."""
        if self._text is None:
            self._text = io.TextIOWrapper(self.stream, encoding="utf-8", newline="", write_through=True)
        return self._text

    def commit(self) -> Path:
        """Sync the new content and rename it over the target, checked again first (it may have been swapped)."""
        try:
            if self._text is not None:
                self._text.flush()
            self.stream.flush()
            os.fsync(self.stream.fileno())
            self._close()
            check_target(self.path, self.what)
            os.replace(self.tmp, self.path)
        except OSError as err:
            self.discard()
            raise TapediagError(f"cannot write {self.what} to {self.path}: {err.strerror or err}; "
                                "nothing was replaced") from err
        except BaseException:
            self.discard()
            raise
        _sync_directory(self.path.parent)
        return self.path

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self._close()
        with contextlib.suppress(OSError):
            self.tmp.unlink(missing_ok=True)

    def _close(self) -> None:
        if self._text is not None:
            self._text.detach()
            self._text = None
        self.stream.close()

    def __enter__(self) -> "Replacement":
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()


@contextlib.contextmanager
def replacing(path: Path, what: str) -> Iterator[Replacement]:
    """``with replacing(path, "the ticket") as out: out.stream.write(...)``: committed when the block ends."""
    with Replacement(path, what) as out:
        yield out


def write_bytes(path: Path, data: bytes, what: str) -> Path:
    """``data`` as the new content of ``path``, the short way."""
    with replacing(path, what) as out:
        out.stream.write(data)
    return Path(path)


class Stream:
    """A pipe another program reads (``--samples`` only): written in place, nothing replaced. The same
    ``text``/``commit``/``discard`` as ``Replacement``, so a writer does not care which it has."""

    def __init__(self, fh: TextIO) -> None:
        self._fh = fh

    def text(self) -> TextIO:
        return self._fh

    def commit(self) -> None:
        self._fh.close()

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            self._fh.close()


def open_output(path: Path, what: str, *, pipes: bool = False) -> "Replacement | Stream":
    """Where ``what`` goes: a ``Replacement`` of ``path``, or with ``pipes`` a ``Stream`` into the pipe
    ``path`` names (a FIFO, ``/dev/fd/N`` of a shell's process substitution)."""
    stream = _open_pipe(path, what) if pipes else None
    return Stream(stream) if stream is not None else Replacement(path, what)


def _open_pipe(path: Path, what: str) -> TextIO | None:
    """The pipe ``path`` leads to, opened for writing; None when it is not a pipe. Opened without
    blocking, so a pipe nobody reads is one line, not a hang before the test."""
    try:
        if not stat.S_ISFIFO(os.stat(path).st_mode):
            return None
    except OSError:
        return None
    try:
        fd = os.open(path, os.O_WRONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as err:
        reason = "no program is reading that pipe" if err.errno == errno.ENXIO else (err.strerror or str(err))
        raise InvalidParameter(f"cannot write {what} to {path}: {reason}") from None
    os.set_blocking(fd, True)
    return os.fdopen(fd, "w", newline="", encoding="utf-8")


def _sync_directory(directory: Path) -> None:
    """The rename survives a crash once the directory is synced (POSIX; NTFS logs the rename itself)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the file is complete either way


__all__ = ["Replacement", "Stream", "check_target", "kind_of", "open_output", "replacing", "write_bytes"]

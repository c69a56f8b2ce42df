"""Positional file I/O and an exclusive lock for the virtual cartridge, on every platform.

POSIX has ``pread``/``pwrite``/``preadv``/``pwritev`` and ``flock``; Windows' Python has
none of them (``info virtual:lto9`` died there with ``AttributeError: module 'os' has no
attribute 'pwrite'``). A cartridge is used by one drive object from one thread, so on
Windows a seek followed by read/write calls is equivalent; the lock is a byte-range lock
(``msvcrt.locking``) on the first byte of the header, which is enough to keep a second
process from opening the same cartridge.
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Union

Buf = Union[bytes, bytearray, memoryview]

#: Whether the OS has positional I/O; tests switch it off to run the fallback on Linux.
POSITIONAL = all(hasattr(os, name) for name in ("pread", "pwrite", "preadv", "pwritev"))


def pread(fd: int, n: int, offset: int) -> bytes:
    if POSITIONAL:
        return os.pread(fd, n, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    parts, left = [], n
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def pwrite(fd: int, data: Buf, offset: int) -> int:
    if POSITIONAL:
        return os.pwrite(fd, data, offset)
    return pwritev(fd, [data], offset)


def pwritev(fd: int, buffers: Sequence[Buf], offset: int) -> int:
    """Write the buffers one after another from ``offset``; returns the bytes written."""
    if POSITIONAL:
        return os.pwritev(fd, buffers, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    done = 0
    for buf in buffers:
        view = memoryview(buf).cast("B")
        while view:
            n = os.write(fd, view)
            done += n
            view = view[n:]
    return done


def preadv(fd: int, buffers: Sequence[bytearray | memoryview], offset: int) -> int:
    """Fill the buffers one after another from ``offset``; returns the bytes read."""
    if POSITIONAL:
        return os.preadv(fd, buffers, offset)
    os.lseek(fd, offset, os.SEEK_SET)
    done = 0
    for buf in buffers:
        view = memoryview(buf).cast("B")
        while view:
            n = os.readv(fd, [view]) if hasattr(os, "readv") else _read_into(fd, view)
            if n == 0:
                return done
            done += n
            view = view[n:]
    return done


def _read_into(fd: int, view: memoryview) -> int:
    chunk = os.read(fd, len(view))
    view[: len(chunk)] = chunk
    return len(chunk)


def lock_exclusive(fd: int) -> bool:
    """Take an exclusive, non-blocking lock on the open file; False when another process holds it."""
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    if fcntl is not None:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        return True
    import msvcrt  # Windows

    here = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    finally:
        os.lseek(fd, here, os.SEEK_SET)
    return True

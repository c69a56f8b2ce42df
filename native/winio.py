"""Unbuffered file reads on Windows: kernel32 through ctypes, used by ``native.diskio``.

Why: the read-data test must measure the disk, not the file cache. Linux evicts each
file (posix_fadvise DONTNEED) or opens it O_DIRECT; Windows has neither. Its
equivalent is a handle opened with FILE_FLAG_NO_BUFFERING: every ReadFile on it goes
to the volume, whatever the cache holds, so it serves both the default (evict) mode
and ``--direct``. Links are not an issue here: the tree walk skips symbolic links
and junctions, and a file is only read. Other reparse points (deduplicated files,
HSM and cloud placeholders) must be read through their filter, as a backup agent
reads them, so FILE_FLAG_OPEN_REPARSE_POINT is not used: with it a deduplicated file
would read as its sparse stub.

NO_BUFFERING has rules: the buffer address, every read length and every file offset
must be multiples of the volume's sector size. ``ALIGN`` (4096) covers 512-byte and
4K sectors. The buffer must be page-aligned (an ``mmap``) and ``ALIGN``-sized
multiples; every read asks for the whole buffer, so each read starts where the last
full one ended, at an aligned offset. A read that returns fewer bytes than asked is
the end of the file (a synchronous ReadFile on a file is short only there), so no
read is ever issued at the unaligned offset after it.

kernel32 is loaded on first use, so importing this module elsewhere works; the tests
put a fake in ``_kernel32`` (and ``_get_last_error``) that enforces the rules above.
"""
from __future__ import annotations

import ctypes
import errno
import os
from ctypes import wintypes
from typing import Any

from native.errors import InvalidParameter
from native.kernel32 import kernel32

ALIGN = 4096

GENERIC_READ = 0x80000000
FILE_SHARE_READ = 0x1
FILE_SHARE_WRITE = 0x2
FILE_SHARE_DELETE = 0x4
OPEN_EXISTING = 3
FILE_FLAG_NO_BUFFERING = 0x20000000
FILE_FLAG_SEQUENTIAL_SCAN = 0x08000000
SHARE = FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE
OPEN_FLAGS = FILE_FLAG_NO_BUFFERING | FILE_FLAG_SEQUENTIAL_SCAN
#: INVALID_HANDLE_VALUE as a ``c_void_p`` result reads back (all bits set).
INVALID_HANDLE = ctypes.c_void_p(-1).value

ERROR_FILE_NOT_FOUND = 2
ERROR_PATH_NOT_FOUND = 3
ERROR_ACCESS_DENIED = 5
ERROR_INVALID_HANDLE = 6
ERROR_NOT_READY = 21
ERROR_SHARING_VIOLATION = 32
ERROR_LOCK_VIOLATION = 33
ERROR_HANDLE_EOF = 38
ERROR_INVALID_PARAMETER = 87
ERROR_INVALID_NAME = 123
ERROR_CANT_ACCESS_FILE = 1920
ERROR_CANT_RESOLVE_FILENAME = 1921
ERROR_WRITE_PROTECT = 19
ERROR_HANDLE_DISK_FULL = 39
ERROR_FILE_EXISTS = 80
ERROR_DISK_FULL = 112
ERROR_ALREADY_EXISTS = 183

#: Win32 error -> errno, so unreadable files are counted and listed, and a full disk stops
#: create-data, as on Linux (``os.strerror`` of the errno is what the user sees): for the
#: reads here and for the error codes of the C loops (``native._diskio`` on Windows).
#: Anything else is EIO.
_ERRNO = {
    ERROR_FILE_NOT_FOUND: errno.ENOENT,
    ERROR_PATH_NOT_FOUND: errno.ENOENT,
    ERROR_INVALID_NAME: errno.ENOENT,
    ERROR_ACCESS_DENIED: errno.EACCES,
    ERROR_SHARING_VIOLATION: errno.EACCES,  # another process holds it exclusively: as "permission denied"
    ERROR_LOCK_VIOLATION: errno.EACCES,
    ERROR_CANT_ACCESS_FILE: errno.EACCES,
    ERROR_CANT_RESOLVE_FILENAME: errno.ELOOP,
    ERROR_INVALID_PARAMETER: errno.EINVAL,  # e.g. a sector size NO_BUFFERING's 4K alignment does not meet
    ERROR_INVALID_HANDLE: errno.EBADF,
    ERROR_NOT_READY: errno.EIO,
    ERROR_FILE_EXISTS: errno.EEXIST,  # CREATE_NEW on a name that exists (a link included)
    ERROR_ALREADY_EXISTS: errno.EEXIST,
    ERROR_DISK_FULL: errno.ENOSPC,
    ERROR_HANDLE_DISK_FULL: errno.ENOSPC,
    ERROR_WRITE_PROTECT: errno.EROFS,
}

_kernel32: Any = None  # a test's fake; None: the shared kernel32(), which caches itself


def _k32() -> Any:
    return _kernel32 if _kernel32 is not None else kernel32()


def _get_last_error() -> int:
    return ctypes.get_last_error()  # type: ignore[attr-defined]


def to_errno(winerror: int) -> int:
    """The errno an unreadable file is reported with for a Win32 error code."""
    return _ERRNO.get(winerror, errno.EIO)


def open_unbuffered(path: str) -> int:
    """A read handle on ``path`` that bypasses the file cache.

    Raises ``OSError`` with the errno of ``to_errno`` (not a ``winerror``, which would
    make Python recompute the errno on Windows).
    """
    handle = _k32().CreateFileW(path, GENERIC_READ, SHARE, None, OPEN_EXISTING, OPEN_FLAGS, None)
    if handle is None or handle == INVALID_HANDLE:
        werr = _get_last_error()
        code = to_errno(werr)
        raise OSError(code, f"{os.strerror(code)} (Windows error {werr})", path)
    return int(handle)


def close_handle(handle: int) -> None:
    _k32().CloseHandle(handle)


def aligned(buf: Any) -> bool:
    """True if ``buf`` meets NO_BUFFERING's rules: address and length multiples of ``ALIGN``."""
    n = len(buf)
    return n > 0 and n % ALIGN == 0 and _address(buf, n) % ALIGN == 0


def _address(buf: Any, n: int) -> int:
    view = (ctypes.c_char * n).from_buffer(buf)  # needs a writable buffer (mmap, bytearray)
    try:
        return ctypes.addressof(view)
    finally:
        del view  # releases the export, so an mmap can be closed later


def require_aligned(buf: Any) -> None:
    """Refuse (``InvalidParameter``) a buffer that unbuffered reads cannot use; checked
    before any file is opened, here and before the C loop's unbuffered reads."""
    n = len(buf)
    if n == 0 or n % ALIGN:
        raise InvalidParameter(f"unbuffered reads need a buffer size that is a multiple of {ALIGN} (got {n})")
    if _address(buf, n) % ALIGN:
        raise InvalidParameter(f"unbuffered reads need a buffer aligned to {ALIGN} bytes")


def read_handle(handle: int, buf: Any, max_bytes: int = -1) -> tuple[int, int, bool]:
    """Read up to ``max_bytes`` (-1: to EOF) in whole-buffer reads; (bytes, errno, eof).

    The same contract as ``diskio.read_fd``: reading stops at the first error, whose
    errno is returned with the bytes read before it.
    """
    require_aligned(buf)
    n = len(buf)
    view = (ctypes.c_char * n).from_buffer(buf)
    try:
        addr = ctypes.addressof(view)
        k32 = _k32()
        got = wintypes.DWORD()
        total = 0
        while max_bytes < 0 or total < max_bytes:
            if not k32.ReadFile(handle, addr, n, ctypes.byref(got), None):
                werr = _get_last_error()
                if werr == ERROR_HANDLE_EOF:
                    return total, 0, True
                return total, to_errno(werr), False
            total += got.value
            if got.value < n:  # short only at EOF; the next offset would be unaligned anyway
                return total, 0, True
        return total, 0, False
    finally:
        del view


def read_file(path: str, buf: Any, max_bytes: int = -1) -> tuple[int, int, bool]:
    """Open ``path`` unbuffered, read it like ``read_handle``, close it; an open error is
    returned as (0, errno, False), as ``diskio.read_files`` records it."""
    try:
        handle = open_unbuffered(path)
    except OSError as exc:
        return 0, exc.errno or errno.EIO, False
    try:
        return read_handle(handle, buf, max_bytes)
    finally:
        close_handle(handle)

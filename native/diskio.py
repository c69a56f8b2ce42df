"""File I/O loops of the disk tests, in C where it is built (``native._diskio``).

The C module releases the GIL for a whole batch of files, which is what lets several
stream threads create or read small files in parallel. It has the same entry points on
POSIX and on Windows (there: directory paths instead of descriptors, Win32 handles for
large files, Win32 error codes that ``_native_errors`` turns into errno values with
``winio.to_errno``). Where it is missing (a source checkout without a compiler) the
same functions run in plain Python: the results are correct, only small-file rates with
several streams are lower, and ``NATIVE`` says which one is in use so results can
report it.

Records: every batch function returns packed int64 records, four per file attempted
(errno, bytes, end time on the ``time.perf_counter_ns`` clock (CLOCK_MONOTONIC on Linux, as the C loop uses; QueryPerformanceCounter on Windows, where monotonic_ns ticks in 15.6 ms), latency in ns), as one
bytes object: the engine reads them with numpy, so no Python object is made per file.
``unpack`` turns them into ``FileRecord``s where that is easier (tests, tools).
"""
from __future__ import annotations

import array
import mmap
import os
import stat
import sys
import time
from dataclasses import dataclass
from typing import Any, Sequence, Union

from native import winio

#: What the loops read into (an mmap: page-aligned, as O_DIRECT and unbuffered Windows reads need).
ReadBuffer = Union[bytearray, memoryview, mmap.mmap]
#: A pattern pool the writers copy from.
Pool = Union[bytes, bytearray, memoryview]

_msvcrt: Any = None  # CRT descriptors around the unbuffered Win32 handles (Windows only)
if sys.platform == "win32":
    import msvcrt as _msvcrt

_c: Any = None  # the C loops (when built); None: the Python loops below
try:
    from native import _diskio

    _c = _diskio
    NATIVE = hasattr(_c, "create_files")
except ImportError:  # not built
    NATIVE = False

FLAG_FSYNC = 1
FLAG_EVICT = 1
FLAG_DIRECT = 2
HAVE_O_DIRECT = hasattr(os, "O_DIRECT")
# Directory descriptors (openat) exist on POSIX only; on Windows paths are joined.
HAVE_DIRFD = os.name == "posix"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: A file record's error code for "not a regular file" (not an errno; the C loop's own constant).
ERR_NOT_REGULAR = getattr(_c, "ERR_NOT_REGULAR", 100000)
NOT_REGULAR_TEXT = "not a regular file (skipped)"
_BINARY = getattr(os, "O_BINARY", 0)


@dataclass(frozen=True)
class FileRecord:
    err: int  # 0, or the errno that stopped this file
    nbytes: int
    t_end_ns: int
    latency_ns: int


def unpack(raw: bytes) -> list[FileRecord]:
    """Packed records as ``FileRecord``s."""
    mv = memoryview(raw).cast("q")
    return [FileRecord(mv[i], mv[i + 1], mv[i + 2], mv[i + 3]) for i in range(0, len(mv), 4)]


def file_name(prefix: str, index: int) -> str:
    """The name ``create_files`` gives file ``index`` (at most 16 characters)."""
    return f"{prefix}{index:06d}.dat"


#: File content repeats its window every WINDOW bytes; the first 8 bytes of each
#: STAMP_BLOCK are a per-file, per-block stamp (see ``app.disk.content``). The C writer
#: has the same two #defines; tests/disk/test_content.py holds both to one model.
WINDOW = 1 << 20
STAMP_BLOCK = 4096
_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1


def window(pool: Pool, off: int, key: int, size: int, chunk: int) -> bytearray:
    """The window a file of ``size`` bytes is written from with ``chunk``-sized writes:
    pool[off:] XOR the 64-bit key (8-byte phase, wrapping the pool), repeated every
    ``WINDOW`` bytes, as long as any write of that file reaches, plus 8 spare bytes."""
    if NATIVE:
        return _c.window(pool, off, _signed(key), size, chunk)
    view = memoryview(pool)
    need = min(size, WINDOW + chunk)
    first = min(need, WINDOW)
    raw = bytearray()
    o = off % len(view)
    while len(raw) < first:
        piece = view[o : o + first - len(raw)]
        raw += piece
        o = (o + len(piece)) % len(view)
    key &= _MASK64
    if key:
        keyb = key.to_bytes(8, "little") * ((first + 7) // 8)
        raw = bytearray((int.from_bytes(raw, "little") ^ int.from_bytes(keyb[:first], "little")).to_bytes(first, "little"))
    out = bytearray(need + 8)
    for j in range(0, need, WINDOW):
        out[j : min(need, j + WINDOW)] = raw[: min(WINDOW, need - j)]
    return out


def _py_write(fd: int, win: bytearray, pos: int, nbytes: int, key: int, chunk: int) -> tuple[int, int]:
    """Python twin of the C writer: file bytes [pos, pos+nbytes) from ``win``, block
    starts stamped in place."""
    done = 0
    key &= _MASK64
    try:
        while done < nbytes:
            p = pos + done
            n = min(nbytes - done, chunk)
            s = p % WINDOW
            if key:
                for q in range(p - p % STAMP_BLOCK, p + n, STAMP_BLOCK):
                    stamp = key ^ (((q // STAMP_BLOCK + 1) * _GOLDEN) & _MASK64)
                    at = s - (p - q)
                    win[at : at + 8] = stamp.to_bytes(8, "little")
            view = memoryview(win)[s : s + n]
            while view:
                view = view[os.write(fd, view):]
            done += n
    except OSError as err:
        return done, err.errno or 5
    return done, 0


def create_files(specs: bytes, dirpaths: Sequence[str], pool: Pool, chunk: int, flags: int) -> bytes:
    """Create files ``f%06d.dat`` with pattern data, possibly across several directories.

    ``specs`` holds int64 rows (size, pool offset, XOR key, directory fd, file index),
    one per file; ``dirpaths`` names each row's directory (used where descriptors do not
    exist). Stops at the first error; a file that failed half-way is removed again (it
    was ours: O_EXCL), and its record carries the errno.
    """
    if NATIVE and HAVE_DIRFD:
        return _c.create_files(specs, pool, chunk, flags)
    if NATIVE and IS_WINDOWS:
        return _native_errors(_c.create_files(specs, list(dirpaths), pool, chunk, flags))
    rows = memoryview(specs).cast("q")
    out: list[FileRecord] = []
    for i in range(len(rows) // 5):
        size, off, key, dirfd, index = (rows[5 * i + k] for k in range(5))
        key &= 0xFFFFFFFFFFFFFFFF
        name = file_name("f", index)
        t0 = time.perf_counter_ns()
        err, written = 0, 0
        kw = {"dir_fd": dirfd} if HAVE_DIRFD else {}
        path = name if HAVE_DIRFD else os.path.join(dirpaths[i], name)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC | _BINARY, 0o644, **kw)
        except OSError as exc:
            err = exc.errno or 5
        else:
            written, err = _py_write(fd, window(pool, off, key, size, chunk), 0, size, key, chunk)
            try:
                if not err and flags & FLAG_FSYNC:
                    os.fsync(fd)
            except OSError as exc:
                err = exc.errno or 5
            os.close(fd)
            if err:
                os.unlink(path, **kw)
        t1 = time.perf_counter_ns()
        out.append(FileRecord(err, 0 if err else written, t1, t1 - t0))
        if err:
            break
    return _pack_records(out)


def write_fd(fd: int, win: bytearray, pos: int, nbytes: int, key: int, chunk: int) -> tuple[int, int]:
    """Write file bytes [pos, pos+nbytes) from the file's ``window()``; (written, errno)."""
    if NATIVE and IS_WINDOWS:
        written, werr = _c.write_fd(_msvcrt.get_osfhandle(fd), win, pos, nbytes, _signed(key), chunk)
        return written, winio.to_errno(werr) if werr else 0
    if NATIVE:
        return _c.write_fd(fd, win, pos, nbytes, _signed(key), chunk)
    return _py_write(fd, win, pos, nbytes, key, chunk)


def _unbuffered(flags: int) -> bool:
    """On Windows both evict (the default) and direct read with FILE_FLAG_NO_BUFFERING
    (``native.winio``): the file cache is bypassed, as eviction or O_DIRECT do on Linux."""
    return IS_WINDOWS and bool(flags & (FLAG_EVICT | FLAG_DIRECT))


def _open_read(path: str, flags: int, dirfd: int | None) -> int:
    if _unbuffered(flags):
        return _open_unbuffered_fd(path)  # no directory descriptors on Windows: path is whole
    oflags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _BINARY | _NONBLOCK
    if flags & FLAG_DIRECT and HAVE_O_DIRECT:
        oflags |= os.O_DIRECT
    fd = os.open(path, oflags, dir_fd=dirfd) if dirfd is not None else os.open(path, oflags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # a FIFO or device swapped in after the walk
        os.close(fd)
        raise OSError(ERR_NOT_REGULAR, NOT_REGULAR_TEXT)
    if hasattr(os, "posix_fadvise"):
        if flags & FLAG_EVICT:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_SEQUENTIAL)  # what a backup agent (and fio) asks for
    return fd


def read_files(dirfds: int | Sequence[int], dirpaths: str | Sequence[str], names: Sequence[bytes],
               buf: ReadBuffer, flags: int) -> bytes:
    """Read whole files with ``len(buf)``-sized reads; errors do not stop the batch.

    ``dirfds``/``dirpaths``: one directory for every name, or one per name (a batch
    may span many small directories, so the interpreter is visited once per batch).
    """
    if NATIVE and IS_WINDOWS:
        if _unbuffered(flags):
            winio.require_aligned(buf)
        return _native_errors(_c.read_files(dirpaths if isinstance(dirpaths, str) else list(dirpaths),
                                            list(names), buf, flags))
    if _unbuffered(flags):
        return _read_files_unbuffered(dirpaths, names, buf)
    if NATIVE and HAVE_DIRFD:
        fds = dirfds if isinstance(dirfds, int) else array.array("i", dirfds).tobytes()
        return bytes(_c.read_files(fds, names, buf, flags))
    out = []
    for i, name in enumerate(names):
        dirfd = dirfds if isinstance(dirfds, int) else dirfds[i]
        dirpath = dirpaths[i] if not isinstance(dirpaths, str) else dirpaths
        t0 = time.perf_counter_ns()
        err, got = 0, 0
        try:
            if HAVE_DIRFD:
                fd = _open_read(os.fsdecode(name), flags, dirfd)
            else:
                fd = _open_read(os.path.join(dirpath, os.fsdecode(name)), flags, None)
        except OSError as exc:
            err = exc.errno or 5
        else:
            got, err, _eof = read_fd(fd, buf, -1)
            os.close(fd)
        t1 = time.perf_counter_ns()
        out.append(FileRecord(err, got, t1, t1 - t0))
    return _pack_records(out)


def read_fd(fd: int, buf: ReadBuffer, max_bytes: int) -> tuple[int, int, bool]:
    """Read up to ``max_bytes`` (-1: to EOF) in buffer-sized reads; (bytes, errno, eof).

    On Windows an aligned buffer is read with ReadFile on the descriptor's handle, which
    an unbuffered handle from ``open_read`` requires (the CRT's read() would allocate
    an unaligned buffer of its own); a plain handle reads the same that way."""
    if NATIVE and IS_WINDOWS:
        got, werr, eof = _c.read_fd(_msvcrt.get_osfhandle(fd), buf, max_bytes)
        return got, winio.to_errno(werr) if werr else 0, bool(eof)
    if IS_WINDOWS and winio.aligned(buf):
        return winio.read_handle(_msvcrt.get_osfhandle(fd), buf, max_bytes)
    if NATIVE:
        got, err, eof = _c.read_fd(fd, buf, max_bytes)
        return got, err, bool(eof)
    total = 0
    try:
        while max_bytes < 0 or total < max_bytes:
            n = os.readv(fd, [buf]) if hasattr(os, "readv") else _readinto(fd, buf)
            if n == 0:
                return total, 0, True
            total += n
    except OSError as exc:
        return total, exc.errno or 5, False
    return total, 0, False


def _open_unbuffered_fd(path: str) -> int:
    """A CRT descriptor owning an unbuffered Win32 handle: ``os.close`` closes both, so
    callers treat it like any descriptor from ``open_read``."""
    handle = winio.open_unbuffered(path)
    try:
        return _msvcrt.open_osfhandle(handle, os.O_RDONLY)
    except BaseException:
        winio.close_handle(handle)
        raise


def _read_files_unbuffered(dirpaths: str | Sequence[str], names: Sequence[bytes],
                           buf: ReadBuffer) -> bytes:
    """``read_files`` on Windows: each file opened, read and closed through ``winio``
    (Win32 handles only, no CRT descriptor per file); the same records."""
    out = []
    for i, name in enumerate(names):
        dirpath = dirpaths if isinstance(dirpaths, str) else dirpaths[i]
        t0 = time.perf_counter_ns()
        got, err, _eof = winio.read_file(os.path.join(dirpath, os.fsdecode(name)), buf)
        t1 = time.perf_counter_ns()
        out.append(FileRecord(err, got, t1, t1 - t0))
    return _pack_records(out)


def _readinto(fd: int, buf: ReadBuffer) -> int:
    data = os.read(fd, len(buf))
    memoryview(buf)[: len(data)] = data
    return len(data)


def open_read(path: str, flags: int, dirfd: int | None = None) -> int:
    """Open a file to read the way ``read_files`` does (no symlinks, optional evict/direct)."""
    return _open_read(path, flags, dirfd)


def sync_filesystem(fd: int) -> None:
    """Flush the file system that holds ``fd`` (syncfs on Linux, sync elsewhere)."""
    if NATIVE and fd >= 0 and hasattr(_c, "syncfs"):  # the Windows module has none
        _c.syncfs(fd)
    elif hasattr(os, "sync"):
        os.sync()


def resident_fraction(path: str) -> float | None:
    """Share of a file's pages now in the page cache; None where that cannot be asked."""
    if not NATIVE or not path or not hasattr(_c, "resident"):  # no mincore on Windows
        return None
    try:
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _CLOEXEC)
    except OSError:
        return None
    try:
        res, total = _c.resident(fd)
    except OSError:
        return None
    finally:
        os.close(fd)
    return res / total if total else None


def _signed(key: int) -> int:
    key &= 0xFFFFFFFFFFFFFFFF
    return key - (1 << 64) if key >= 1 << 63 else key


def _native_errors(raw: bytes) -> bytes:
    """Records from the Windows C loops with their Win32 error codes as errno values
    (``winio.to_errno``, the one table); ``ERR_NOT_REGULAR`` stays as it is."""
    rows = array.array("q", raw)
    errs = rows[0::4]
    if not any(errs):
        return raw
    for i, err in enumerate(errs):
        if err and err != ERR_NOT_REGULAR:
            rows[4 * i] = winio.to_errno(err)
    return rows.tobytes()


def _pack_records(records: list[FileRecord]) -> bytes:
    arr = array.array("q")
    for r in records:
        arr.extend((r.err, r.nbytes, r.t_end_ns, r.latency_ns))
    return arr.tobytes()


IS_WINDOWS = sys.platform == "win32"

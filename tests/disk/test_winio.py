"""Unbuffered reads on Windows (``native.winio``) and their wiring into ``native.diskio``.

No Windows machine runs here, so most tests serve real files through ``FakeKernel32``,
which enforces FILE_FLAG_NO_BUFFERING's rules (buffer address, length and file offset
multiples of 4096, else ERROR_INVALID_PARAMETER): an alignment regression in the read
loop fails them. The tests at the end use the real kernel32 and run on Windows only.
Nothing here imports numpy at module level, so this file also runs on a bare Windows
Python.
"""
from __future__ import annotations

import ctypes
import errno
import mmap
import os
import sys
from pathlib import Path

import pytest

from native import diskio, winio
from native.errors import InvalidParameter

SECTOR = 4096


class FakeKernel32:
    """CreateFileW/ReadFile/CloseHandle over real files, with NO_BUFFERING's rules."""

    def __init__(self) -> None:
        self.handles: dict[int, list] = {}  # handle -> [file object, offset]
        self.opens: list[tuple] = []
        self.reads: list[tuple[int, int]] = []  # (offset, length) of every ReadFile
        self.last_error = 0
        self.denied: dict[str, int] = {}  # path -> Win32 error CreateFileW fails with
        self.fail_at: dict[int, int] = {}  # file offset -> Win32 error ReadFile fails with there
        self.eof_error = False  # ReadFile at EOF: FALSE + ERROR_HANDLE_EOF instead of TRUE + 0 bytes
        self._next = 0x40

    def get_last_error(self) -> int:
        return self.last_error

    def CreateFileW(self, path, access, share, security, disposition, flags, template):  # noqa: N802
        self.opens.append((path, access, share, security, disposition, flags, template))
        if path in self.denied:
            self.last_error = self.denied[path]
            return winio.INVALID_HANDLE
        try:
            f = open(path, "rb", buffering=0)
        except FileNotFoundError:
            self.last_error = winio.ERROR_FILE_NOT_FOUND
            return winio.INVALID_HANDLE
        self._next += 4
        self.handles[self._next] = [f, 0]
        return self._next

    def ReadFile(self, handle, addr, n, p_got, overlapped):  # noqa: N802
        entry = self.handles.get(handle)
        if entry is None:
            self.last_error = winio.ERROR_INVALID_HANDLE
            return 0
        f, offset = entry
        self.reads.append((offset, n))
        if addr % SECTOR or n % SECTOR or offset % SECTOR or overlapped is not None:
            self.last_error = winio.ERROR_INVALID_PARAMETER
            return 0
        if offset in self.fail_at:
            self.last_error = self.fail_at[offset]
            return 0
        f.seek(offset)
        data = f.read(n)
        if not data and self.eof_error:
            self.last_error = winio.ERROR_HANDLE_EOF
            return 0
        ctypes.memmove(addr, data, len(data))
        p_got._obj.value = len(data)
        entry[1] = offset + len(data)
        return 1

    def CloseHandle(self, handle):  # noqa: N802
        entry = self.handles.pop(handle, None)
        if entry is None:
            return 0
        entry[0].close()
        return 1


class FakeCrt:
    """msvcrt's open_osfhandle/get_osfhandle: a real descriptor (of the null device)
    stands for each handle, so ``os.close`` works on it as on Windows. A descriptor it
    did not make (a plain ``os.open``, as with --no-evict) gets a handle on its file."""

    def __init__(self, k32: FakeKernel32) -> None:
        self.k32 = k32
        self.owned: dict[int, int] = {}
        self._null = os.stat(os.devnull)

    def open_osfhandle(self, handle: int, flags: int) -> int:
        assert flags == os.O_RDONLY
        fd = os.open(os.devnull, os.O_RDONLY)
        self.owned[fd] = handle
        return fd

    def get_osfhandle(self, fd: int) -> int:
        st = os.fstat(fd)
        if fd in self.owned and (st.st_dev, st.st_ino) == (self._null.st_dev, self._null.st_ino):
            return self.owned[fd]
        self.k32._next += 4
        self.k32.handles[self.k32._next] = [os.fdopen(os.dup(fd), "rb", buffering=0), os.lseek(fd, 0, os.SEEK_CUR)]
        return self.k32._next


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeKernel32:
    k32 = FakeKernel32()
    monkeypatch.setattr(winio, "_kernel32", k32)
    monkeypatch.setattr(winio, "_get_last_error", k32.get_last_error)
    yield k32
    for f, _ in k32.handles.values():
        f.close()


@pytest.fixture
def windows(fake: FakeKernel32, monkeypatch: pytest.MonkeyPatch) -> FakeCrt:
    """``native.diskio`` as on Windows without its C module (the Python loops): no
    directory descriptors, fake kernel32 and CRT. (The Windows C loops run only on
    Windows: tests/disk/test_diskio_windows.py, under the Windows Python.)"""
    crt = FakeCrt(fake)
    monkeypatch.setattr(diskio, "IS_WINDOWS", True)
    monkeypatch.setattr(diskio, "NATIVE", False)
    monkeypatch.setattr(diskio, "HAVE_DIRFD", False)
    monkeypatch.setattr(diskio, "_msvcrt", crt)
    return crt


def _file(path: Path, size: int) -> bytes:
    data = os.urandom(size)
    path.write_bytes(data)
    return data


# -- the read loop ---------------------------------------------------------------------


@pytest.mark.parametrize("size", [0, 1, 4095, 4096, 5000, 3 * 8192, 3 * 8192 + 17])
def test_whole_file_in_aligned_reads(tmp_path: Path, fake: FakeKernel32, size: int) -> None:
    path = tmp_path / "f.dat"
    _file(path, size)
    with mmap.mmap(-1, 8192) as buf:
        assert winio.read_file(str(path), buf) == (size, 0, True)
    assert all(off % SECTOR == 0 and n == 8192 for off, n in fake.reads)
    # one read per full buffer, then one that is short (or empty): never one past it
    assert len(fake.reads) == size // 8192 + 1
    assert fake.handles == {}


def test_open_flags_bypass_the_cache(tmp_path: Path, fake: FakeKernel32) -> None:
    path = tmp_path / "f.dat"
    _file(path, 10)
    with mmap.mmap(-1, SECTOR) as buf:
        winio.read_file(str(path), buf)
    (opened, access, share, security, disposition, flags, template), = fake.opens
    assert opened == str(path) and access == 0x80000000 and share == 0x7 and disposition == 3
    assert flags == 0x20000000 | 0x08000000  # NO_BUFFERING | SEQUENTIAL_SCAN; reparse points read through
    assert security is None and template is None


def _read_whole(path: Path) -> bytes:
    """Open unbuffered and read sector by sector to EOF, every read error-free."""
    handle = winio.open_unbuffered(str(path))
    seen = b""
    try:
        with mmap.mmap(-1, SECTOR) as buf:
            while True:
                got, err, eof = winio.read_handle(handle, buf, SECTOR)
                assert err == 0
                seen += buf[:got]
                if eof:
                    return seen
    finally:
        winio.close_handle(handle)


def test_bytes_land_in_the_buffer(tmp_path: Path, fake: FakeKernel32) -> None:
    path = tmp_path / "f.dat"
    data = _file(path, 3 * SECTOR + 123)
    assert _read_whole(path) == data


def test_max_bytes_stops_on_a_buffer_boundary_and_resumes(tmp_path: Path, fake: FakeKernel32) -> None:
    path = tmp_path / "big.dat"
    _file(path, 10 * 8192 + 100)
    handle = winio.open_unbuffered(str(path))
    try:
        with mmap.mmap(-1, 8192) as buf:
            assert winio.read_handle(handle, buf, 3 * 8192) == (3 * 8192, 0, False)
            assert winio.read_handle(handle, buf, 3 * 8192) == (3 * 8192, 0, False)
            assert winio.read_handle(handle, buf, 3 * 8192) == (3 * 8192, 0, False)
            assert winio.read_handle(handle, buf, 3 * 8192) == (8192 + 100, 0, True)
    finally:
        winio.close_handle(handle)
    assert [off for off, _ in fake.reads] == [k * 8192 for k in range(11)]


def test_eof_reported_as_handle_eof(tmp_path: Path, fake: FakeKernel32) -> None:
    fake.eof_error = True
    path = tmp_path / "f.dat"
    _file(path, 2 * SECTOR)
    with mmap.mmap(-1, SECTOR) as buf:
        assert winio.read_file(str(path), buf) == (2 * SECTOR, 0, True)
    assert fake.handles == {}


@pytest.mark.parametrize("size", [100, 4096 + 512])
def test_buffer_of_wrong_length_refused_and_handle_closed(tmp_path: Path, fake: FakeKernel32, size: int) -> None:
    path = tmp_path / "f.dat"
    _file(path, 10)
    with mmap.mmap(-1, size) as buf, pytest.raises(InvalidParameter, match="multiple of 4096"):
        winio.read_file(str(path), buf)
    assert fake.reads == [] and fake.handles == {}
    assert not winio.aligned(bytearray(size))


def test_unaligned_buffer_address_refused(tmp_path: Path, fake: FakeKernel32) -> None:
    path = tmp_path / "f.dat"
    _file(path, 10)
    with mmap.mmap(-1, 3 * SECTOR) as big:
        view = memoryview(big)[512 : 512 + SECTOR]  # right length, address off by 512
        try:
            assert winio.aligned(memoryview(big)[SECTOR : 2 * SECTOR])
            assert not winio.aligned(view)
            with pytest.raises(InvalidParameter, match="aligned"):
                winio.read_file(str(path), view)
        finally:
            view.release()
    assert fake.reads == [] and fake.handles == {}


def test_fake_catches_a_misaligned_read(tmp_path: Path, fake: FakeKernel32) -> None:
    """The guard the other tests rely on: an unaligned offset is ERROR_INVALID_PARAMETER."""
    path = tmp_path / "f.dat"
    _file(path, 3 * SECTOR)
    handle = winio.open_unbuffered(str(path))
    try:
        fake.handles[handle][1] = 100  # as if a read had stopped mid-sector
        with mmap.mmap(-1, SECTOR) as buf:
            assert winio.read_handle(handle, buf) == (0, errno.EINVAL, False)
    finally:
        winio.close_handle(handle)


# -- errors ----------------------------------------------------------------------------


@pytest.mark.parametrize(("winerror", "code"), [
    (winio.ERROR_ACCESS_DENIED, errno.EACCES), (winio.ERROR_FILE_NOT_FOUND, errno.ENOENT),
    (winio.ERROR_PATH_NOT_FOUND, errno.ENOENT), (winio.ERROR_SHARING_VIOLATION, errno.EACCES),
    (winio.ERROR_INVALID_PARAMETER, errno.EINVAL), (23, errno.EIO), (1117, errno.EIO),
])
def test_open_errors_become_errno(tmp_path: Path, fake: FakeKernel32, winerror: int, code: int) -> None:
    path = str(tmp_path / "f.dat")
    _file(Path(path), 10)
    fake.denied[path] = winerror
    with mmap.mmap(-1, SECTOR) as buf:
        assert winio.read_file(path, buf) == (0, code, False)
    with pytest.raises(OSError) as info:
        winio.open_unbuffered(path)
    assert info.value.errno == code and info.value.filename == path and f"Windows error {winerror}" in str(info.value)


def test_missing_file_is_enoent(tmp_path: Path, fake: FakeKernel32) -> None:
    with mmap.mmap(-1, SECTOR) as buf:
        assert winio.read_file(str(tmp_path / "gone"), buf) == (0, errno.ENOENT, False)


def test_read_error_mid_file_keeps_bytes_and_closes(tmp_path: Path, fake: FakeKernel32) -> None:
    path = tmp_path / "f.dat"
    _file(path, 5 * SECTOR)
    fake.fail_at[2 * SECTOR] = 23  # ERROR_CRC: a bad sector
    with mmap.mmap(-1, SECTOR) as buf:
        assert winio.read_file(str(path), buf) == (2 * SECTOR, errno.EIO, False)
    assert fake.handles == {}


# -- native.diskio on Windows ------------------------------------------------------------


def test_read_files_records_on_windows(tmp_path: Path, windows: FakeCrt, fake: FakeKernel32) -> None:
    sizes = {"a": 0, "b": 5000, "c": 70000}
    for name, size in sizes.items():
        _file(tmp_path / name, size)
    names = [b"a", b"missing", b"b", b"c"]
    for flags in (diskio.FLAG_EVICT, diskio.FLAG_DIRECT):
        fake.opens.clear()
        with mmap.mmap(-1, 16384) as buf:
            raw = diskio.read_files([-1] * 4, [str(tmp_path)] * 4, names, buf, flags)
        recs = diskio.unpack(raw)
        assert [(r.err, r.nbytes) for r in recs] == [(0, 0), (errno.ENOENT, 0), (0, 5000), (0, 70000)]
        assert all(r.latency_ns >= 0 and r.t_end_ns > 0 for r in recs)
        assert [o[0] for o in fake.opens] == [os.path.join(str(tmp_path), n.decode()) for n in names]
    assert fake.handles == {}


def test_open_read_and_read_fd_on_windows(tmp_path: Path, windows: FakeCrt, fake: FakeKernel32) -> None:
    path = tmp_path / "big.dat"
    _file(path, 3 * 65536 + 1)
    fd = diskio.open_read(str(path), diskio.FLAG_EVICT)
    handle = windows.get_osfhandle(fd)
    try:
        with mmap.mmap(-1, 65536) as buf:
            assert diskio.read_fd(fd, buf, 2 * 65536) == (2 * 65536, 0, False)
            assert diskio.read_fd(fd, buf, 2 * 65536) == (65536 + 1, 0, True)
    finally:
        os.close(fd)
        winio.close_handle(handle)  # os.close would have closed it on Windows; the fake CRT cannot
    assert all(off % SECTOR == 0 for off, _ in fake.reads) and len(fake.reads) == 4


def test_open_read_error_is_oserror_with_errno(tmp_path: Path, windows: FakeCrt, fake: FakeKernel32) -> None:
    fake.denied[str(tmp_path / "x")] = winio.ERROR_ACCESS_DENIED
    with pytest.raises(OSError) as info:
        diskio.open_read(str(tmp_path / "x"), diskio.FLAG_DIRECT)
    assert info.value.errno == errno.EACCES and windows.owned == {}


@pytest.mark.skipif(sys.platform == "win32", reason="the non-Windows path")
def test_linux_path_untouched_without_windows(tmp_path: Path, fake: FakeKernel32) -> None:
    """Off Windows the same calls never reach winio, whatever the flags."""
    _file(tmp_path / "a", 5000)
    dirfd = os.open(tmp_path, os.O_RDONLY)
    try:
        with mmap.mmap(-1, SECTOR) as buf:
            recs = diskio.unpack(diskio.read_files(dirfd, str(tmp_path), [b"a"], buf, diskio.FLAG_EVICT))
    finally:
        os.close(dirfd)
    assert [(r.err, r.nbytes) for r in recs] == [(0, 5000)]
    assert fake.opens == [] and fake.reads == []


# -- the read-data engine on "Windows" ------------------------------------------------------


def test_read_data_engine_unbuffered(tmp_path: Path, windows: FakeCrt, fake: FakeKernel32) -> None:
    pytest.importorskip("numpy")
    from app.disk import ReadDataParams, ReadDataTest
    from app.disk.read import LARGE_FILE

    sizes = {"a.txt": 0, "b.bin": 1, "c/d.dat": 4097, "c/e/big.iso": LARGE_FILE + 8192 + 13, "f/g.log": 65536}
    for rel, size in sizes.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        _file(tmp_path / rel, size)
    locked = tmp_path / "f" / "locked.dat"
    _file(locked, 100)
    fake.denied[str(locked)] = winio.ERROR_SHARING_VIOLATION
    events: list = []
    result = ReadDataTest(ReadDataParams(str(tmp_path), streams=2, buffer_size=64 << 10)).run(events.append)
    assert result.status == "complete" and result.total_bytes == sum(sizes.values())
    assert result.unreadable_count == 1 and result.unreadable[0].path == str(locked)
    assert result.unreadable[0].error == os.strerror(errno.EACCES)
    assert not any("cannot be bypassed" in w for w in result.warnings)
    texts = [getattr(e, "text", "") for e in events]
    assert any("unbuffered" in t for t in texts)
    assert all(off % SECTOR == 0 and n % SECTOR == 0 for off, n in fake.reads)
    # every handle read_files opened is closed; those left belong to descriptors the fake CRT
    # cannot close (the probe's and the large file's, closed by os.close on Windows)
    assert set(fake.handles) == set(windows.owned.values())


def test_read_data_refuses_unaligned_buffer_on_windows(tmp_path: Path, windows: FakeCrt) -> None:
    pytest.importorskip("numpy")
    from app.disk import ReadDataParams, ReadDataTest

    with pytest.raises(InvalidParameter, match="multiple of 4K"):
        ReadDataTest(ReadDataParams(str(tmp_path), buffer_size=100_000))
    ReadDataTest(ReadDataParams(str(tmp_path), buffer_size=100_000, evict=False))  # cache reads: any size


def test_read_data_warns_only_when_eviction_is_off(tmp_path: Path, windows: FakeCrt, fake: FakeKernel32) -> None:
    pytest.importorskip("numpy")
    from app.disk import ReadDataParams, ReadDataTest

    _file(tmp_path / "a.dat", 9000)
    on = ReadDataTest(ReadDataParams(str(tmp_path), buffer_size=8192)).run()
    off = ReadDataTest(ReadDataParams(str(tmp_path), buffer_size=8192, evict=False)).run()
    assert on.total_bytes == off.total_bytes == 9000
    assert not any("memory" in w for w in on.warnings)
    assert any("eviction is off" in w and "memory" in w for w in off.warnings)


# -- real kernel32 (Windows only) ------------------------------------------------------------

windows_only = pytest.mark.skipif(sys.platform != "win32", reason="needs the real kernel32")


@windows_only
def test_real_unbuffered_read_returns_the_file(tmp_path: Path) -> None:
    path = tmp_path / "real.dat"
    data = _file(path, 5 * SECTOR + 321)
    assert _read_whole(path) == data


@windows_only
def test_real_read_files_and_read_fd(tmp_path: Path) -> None:
    _file(tmp_path / "a", 70000)
    _file(tmp_path / "b", 0)
    with mmap.mmap(-1, 16384) as buf:
        recs = diskio.unpack(diskio.read_files([-1] * 3, [str(tmp_path)] * 3, [b"a", b"b", b"zz"], buf,
                                               diskio.FLAG_EVICT))
        assert [(r.err, r.nbytes) for r in recs] == [(0, 70000), (0, 0), (errno.ENOENT, 0)]
        fd = diskio.open_read(str(tmp_path / "a"), diskio.FLAG_DIRECT)
        try:
            assert diskio.read_fd(fd, buf, 32768) == (32768, 0, False)
            assert diskio.read_fd(fd, buf, -1) == (70000 - 32768, 0, True)
        finally:
            os.close(fd)  # closes the unbuffered handle with it


def test_walk_skips_junctions_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A junction is not a symlink to Python 3.11 but must not be walked into."""
    from types import SimpleNamespace

    from app.disk import read

    def entry(tag: int, symlink: bool = False) -> SimpleNamespace:
        return SimpleNamespace(is_symlink=lambda: symlink,
                               stat=lambda follow_symlinks=True: SimpleNamespace(st_reparse_tag=tag))

    monkeypatch.setattr(read.os, "name", "nt")
    assert read._is_link(entry(0xA0000003))  # junction
    assert read._is_link(entry(0xA000000C, symlink=True))  # symbolic link
    assert not read._is_link(entry(0x80000013))  # a deduplicated file: read through its filter
    assert not read._is_link(entry(0))

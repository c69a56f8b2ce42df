"""18.7: the C disk loops on Windows (``native/src/_diskio.c`` under ``_WIN32``).

Two halves:

* **Here, on Linux**: ``_diskio.c`` cross-compiled with mingw-w64 against CPython 3.12's
  headers; the resulting .pyd must export ``PyInit__diskio``, import the Win32 calls the
  loops are made of, and carry every entry point ``native.diskio`` calls (the method
  names of its ``PyMethodDef`` table) — the same names as the POSIX module's. Skipped
  where mingw-w64, the headers or the mingw ``pyconfig.h`` are missing (the Windows build,
  ``packaging/build-windows-wine.sh``, needs the same three).
* **Under a Windows Python** (on Windows, or under Wine in CI): the real module, through
  ``native.diskio``: the files the C loop creates hold the bytes the Python loop writes,
  records carry errno values (Win32 codes mapped by ``winio.to_errno``), an existing file
  is never overwritten, reads unbuffered and cached both count every byte.

No numpy at module level, so this file runs on a bare Windows Python.
"""
from __future__ import annotations

import array
import errno
import glob
import mmap
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from native import diskio
from native.errors import InvalidParameter

ROOT = Path(__file__).resolve().parents[2]
#: What native.diskio calls in the C module on every platform.
ENTRY_POINTS = ("create_files", "window", "write_fd", "read_files", "read_fd")
#: POSIX only: syncfs (Windows: flushing a volume needs administrator rights) and resident (mincore).
POSIX_ONLY = ("syncfs", "resident")
MINGW = "x86_64-w64-mingw32-gcc"
WIN32_CALLS = ("CreateFileW", "WriteFile", "ReadFile", "FlushFileBuffers", "DeleteFileW", "CloseHandle",
               "GetFileType", "QueryPerformanceCounter")

on_windows = pytest.mark.skipif(sys.platform != "win32", reason="the Windows C loops run on Windows (or Wine) only")


# -- the cross-built module (Linux) -------------------------------------------------------


def _headers_312() -> Path | None:
    env = os.environ.get("TAPEDIAG_PY312_INCLUDE")
    cands = [env] if env else []
    cands += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.12.*/include/python3.12")))
    cands += ["/usr/include/python3.12", "/usr/local/include/python3.12"]
    return next((Path(c) for c in cands if c and (Path(c) / "Python.h").is_file()), None)


def _python312_dll() -> Path | None:
    cache = os.environ.get("TAPEDIAG_WINE_CACHE", "/var/cache/tapediag-wine")
    for d in (os.environ.get("TAPEDIAG_WIN_PYTHON_DIR"), f"{cache}/embed/python"):
        if d and (Path(d) / "python312.dll").is_file():
            return Path(d)
    return None


@pytest.fixture(scope="module")
def windows_pyd(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """_diskio.c built for Windows, as packaging/build-windows-wine.sh builds it."""
    if not shutil.which(MINGW):
        pytest.skip(f"{MINGW} is not installed (apt-get install mingw-w64)")
    headers = _headers_312()
    pyconfig = Path(os.environ.get("TAPEDIAG_WIN_PYCONFIG", ROOT / "packaging" / "windows" / "pyconfig-mingw64.h"))
    if headers is None or not pyconfig.is_file():
        pytest.skip("needs CPython 3.12 headers and packaging/windows/pyconfig-mingw64.h (the Windows build's)")
    pydir = _python312_dll()
    if pydir is None:
        pytest.skip("needs the Windows python312.dll (TAPEDIAG_WIN_PYTHON_DIR, or the Windows build's cache)")
    tmp = tmp_path_factory.mktemp("win-diskio")
    inc = tmp / "include"
    shutil.copytree(headers, inc)
    shutil.copy(pyconfig, inc / "pyconfig.h")
    out = tmp / "_diskio.cp312-win_amd64.pyd"
    proc = subprocess.run([MINGW, "-shared", "-O3", "-Wall", "-Werror", f"-I{inc}", "-o", str(out),
                           str(ROOT / "native" / "src" / "_diskio.c"), f"-L{pydir}", "-lpython312"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return out


def _pe_tables(pyd: Path) -> tuple[list[str], dict[str, set[str]]]:
    """(exported names, {imported DLL: its function names}) from ``objdump -p``."""
    text = subprocess.run(["objdump", "-p", str(pyd)], capture_output=True, text=True, check=True).stdout
    exports = re.findall(r"^\s*\[\s*\d+\]\s+(\w+)$", text.split("[Ordinal/Name Pointer] Table", 1)[1].split("\n\n")[0],
                         re.M)
    imports: dict[str, set[str]] = {}
    for block in text.split("DLL Name: ")[1:]:
        name, _, rest = block.partition("\n")
        body = rest.split("\n\n")[0]
        imports[name.strip().lower()] = set(re.findall(r"^\s+[0-9a-f]+\s+\d+\s+(\w+)$", body, re.M))
    return exports, imports


@pytest.mark.skipif(sys.platform == "win32", reason="cross-build check, run where the bundle is built")
def test_the_windows_module_has_the_posix_modules_entry_points(windows_pyd: Path) -> None:
    exports, imports = _pe_tables(windows_pyd)
    assert exports == ["PyInit__diskio"]
    assert set(WIN32_CALLS) <= imports["kernel32.dll"]
    assert "python312.dll" in imports
    # The method names of the PyMethodDef table, as NUL-terminated strings in the image.
    image = windows_pyd.read_bytes()
    posix_names = set(ENTRY_POINTS)
    if diskio.NATIVE:  # the POSIX module built here: the same entry points, plus its two POSIX-only ones
        from native import _diskio

        posix_names = {n for n in dir(_diskio) if callable(getattr(_diskio, n)) and not n.startswith("_")}
        assert posix_names - set(POSIX_ONLY) == set(ENTRY_POINTS)
    for name in set(ENTRY_POINTS):
        assert b"\0" + name.encode() + b"\0" in image, name
    for name in POSIX_ONLY:
        assert b"\0" + name.encode() + b"\0" not in image, name


# -- the real module (Windows) ------------------------------------------------------------


def _specs(indices: list[int], size: int) -> bytes:
    rows = array.array("q")
    for i in indices:
        rows.extend((size + i, 8 * i, 0x1234_5678_9ABC_DEF0 + i, -1, i))
    return rows.tobytes()


def _records(raw: bytes) -> list[diskio.FileRecord]:
    return diskio.unpack(raw)


POOL = os.urandom(64 * 1024)


@on_windows
def test_windows_module_is_native() -> None:
    from native import _diskio

    assert diskio.NATIVE
    assert set(ENTRY_POINTS) <= set(dir(_diskio))


@on_windows
def test_c_loop_writes_what_the_python_loop_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c_dir, py_dir = tmp_path / "c", tmp_path / "данные"  # a non-ASCII directory too
    c_dir.mkdir()
    py_dir.mkdir()
    indices = list(range(12))
    before = diskio.time.perf_counter_ns()
    raw = diskio.create_files(_specs(indices, 5000), [str(c_dir)] * len(indices), POOL, 4096, diskio.FLAG_FSYNC)
    after = diskio.time.perf_counter_ns()
    recs = _records(raw)
    assert [r.err for r in recs] == [0] * len(indices)
    assert [r.nbytes for r in recs] == [5000 + i for i in indices]
    assert all(before <= r.t_end_ns <= after and 0 < r.latency_ns <= after - before for r in recs)
    monkeypatch.setattr(diskio, "NATIVE", False)
    diskio.create_files(_specs(indices, 5000), [str(py_dir)] * len(indices), POOL, 4096, 0)
    for i in indices:
        name = diskio.file_name("f", i)
        assert (c_dir / name).read_bytes() == (py_dir / name).read_bytes(), name


@on_windows
def test_an_existing_file_stops_create_with_eexist_and_stays(tmp_path: Path) -> None:
    (tmp_path / "f000001.dat").write_bytes(b"not ours")
    recs = _records(diskio.create_files(_specs([0, 1, 2], 100), [str(tmp_path)] * 3, POOL, 4096, 0))
    assert [r.err for r in recs] == [0, errno.EEXIST]  # stops at the first error
    assert (tmp_path / "f000001.dat").read_bytes() == b"not ours"
    assert not (tmp_path / "f000002.dat").exists()


@on_windows
@pytest.mark.parametrize("flags", [0, diskio.FLAG_EVICT, diskio.FLAG_DIRECT])
def test_read_files_counts_every_byte_and_lists_the_missing(tmp_path: Path, flags: int) -> None:
    sizes = [0, 1, 4095, 4096, 70_000]
    names = []
    for i, size in enumerate(sizes):
        (tmp_path / f"r{i}.dat").write_bytes(os.urandom(size))
        names.append(f"r{i}.dat".encode())
    names.insert(2, b"missing.dat")
    with mmap.mmap(-1, 8192) as buf:
        recs = _records(diskio.read_files(-1, str(tmp_path), names, buf, flags))
    assert [r.err for r in recs] == [0, 0, errno.ENOENT, 0, 0, 0]
    assert [r.nbytes for r in recs] == sizes[:2] + [0] + sizes[2:]


@on_windows
def test_unbuffered_read_refuses_an_unaligned_buffer(tmp_path: Path) -> None:
    (tmp_path / "a.dat").write_bytes(b"x" * 10)
    with pytest.raises(InvalidParameter):
        diskio.read_files(-1, str(tmp_path), [b"a.dat"], bytearray(5000), diskio.FLAG_EVICT)


@on_windows
def test_large_file_slices_by_handle(tmp_path: Path) -> None:
    path = tmp_path / "big.dat"
    size, chunk, key = 3 * 1024 * 1024 + 123, 256 * 1024, 0x0123_4567_89AB_CDEF
    win = diskio.window(POOL, 0, key, size, chunk)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_BINARY)
    try:
        done = 0
        while done < size:
            w, err = diskio.write_fd(fd, win, done, min(1 << 20, size - done), key, chunk)
            assert err == 0
            done += w
    finally:
        os.close(fd)
    assert path.stat().st_size == size
    fd = diskio.open_read(str(path), diskio.FLAG_EVICT)
    try:
        with mmap.mmap(-1, 65536) as buf:
            total, eof = 0, False
            while not eof:
                got, err, eof = diskio.read_fd(fd, buf, 1 << 20)
                assert err == 0
                total += got
    finally:
        os.close(fd)
    assert total == size

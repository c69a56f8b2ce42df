"""The stream loops' Windows half (``native/src/_netio.c`` under ``_WIN32``), checked here on Linux.

``_netio.c`` is cross-compiled with mingw-w64 against this CPython's headers and the Windows
build's ``pyconfig.h``: it must compile without a warning, and link against nothing but
Python and kernel32 (Winsock's functions are looked up at run time), because the Windows
build (``packaging/build-windows-wine.sh``) links every ``native/src`` module with
``-lpython312`` alone. Skipped where mingw-w64 is not installed. Running it on Windows
(or Wine) is not done here.
"""
from __future__ import annotations

import shutil
import subprocess
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MINGW = "x86_64-w64-mingw32-gcc"
KERNEL32 = {"GetProcAddress", "LoadLibraryW", "QueryPerformanceCounter", "QueryPerformanceFrequency"}


@pytest.fixture(scope="module")
def windows_object(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which(MINGW) is None:
        pytest.skip(f"{MINGW} is not installed (apt-get install gcc-mingw-w64-x86-64-win32)")
    headers = Path(sysconfig.get_paths()["include"])
    pyconfig = ROOT / "packaging" / "windows" / "pyconfig-mingw64.h"
    if not (headers / "Python.h").is_file() or not pyconfig.is_file():
        pytest.skip("needs CPython's headers and packaging/windows/pyconfig-mingw64.h")
    inc = tmp_path_factory.mktemp("win-netio") / "include"
    shutil.copytree(headers, inc)
    shutil.copy(pyconfig, inc / "pyconfig.h")
    obj = inc.parent / "_netio.o"
    got = subprocess.run([MINGW, "-O2", "-Wall", "-Werror", "-I", str(inc), "-c", str(ROOT / "native/src/_netio.c"),
                          "-o", str(obj)], capture_output=True, text=True)
    assert got.returncode == 0, got.stderr
    return obj


def test_the_windows_loops_need_only_python_and_kernel32(windows_object: Path) -> None:
    nm = shutil.which("x86_64-w64-mingw32-nm") or "nm"
    undefined = subprocess.run([nm, "-u", str(windows_object)], capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].removeprefix("__imp_") for line in undefined.splitlines() if line.strip()}
    foreign = {n for n in names if not n.startswith(("Py", "_Py")) and n not in KERNEL32}
    assert foreign == set()
    assert "PyInit__netio" in subprocess.run([nm, str(windows_object)], capture_output=True, text=True).stdout

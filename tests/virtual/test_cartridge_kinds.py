"""Issue 14.2 / 10: a virtual cartridge must be a regular file (or a new path).

A FIFO, /dev/null, a directory, a symbolic link or a block device is refused with one
line and exit 2, and nothing is written to it. Symbolic links are refused, not
followed: a link can point the drive at a device or at someone else's file.
"""
from __future__ import annotations

import hashlib
import os
import sys
import shutil
import subprocess
from pathlib import Path

import pytest

from native.errors import InvalidParameter
from native.virtual.cartridge import Cartridge

ROOT = Path(__file__).resolve().parents[2]
# The CLI in a process of its own, by this interpreter (not .venv/bin/tapediag: on Windows
# there is none, and under Wine that path would start the Linux one).
TAPEDIAG = [sys.executable, "-c", "import sys; from app.cli import main; sys.exit(main())"]


def _info(cartridge: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TAPEDIAG, "info", f"virtual:lto9?cartridge={cartridge}&realtime=0"],
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, cwd=ROOT)


def _assert_refused(got: subprocess.CompletedProcess[str], kind: str) -> None:
    assert got.returncode == 2, got.stderr
    lines = got.stderr.strip().splitlines()
    assert len(lines) == 1, got.stderr
    assert f"is {kind}, not a cartridge file" in lines[0]
    assert "Traceback" not in got.stderr


def _open(path: Path) -> Cartridge:
    return Cartridge.open(path, generation=9, capacity=64 << 20, worm=False, serial="S", barcode="B")


@pytest.mark.skipif(sys.platform == "win32", reason="no FIFOs on Windows (os.mkfifo is POSIX)")
def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "cart.fifo"
    os.mkfifo(fifo)
    got = _info(fifo)  # the timeout in _info fails the test if opening blocks
    _assert_refused(got, "a FIFO")
    assert fifo.is_fifo()


@pytest.mark.skipif(sys.platform == "win32", reason="/dev/null is POSIX (NUL is not a path to a device file there)")
def test_dev_null_is_refused() -> None:
    _assert_refused(_info("/dev/null"), "a character device")


def test_directory_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "dir"
    folder.mkdir()
    _assert_refused(_info(folder), "a directory")
    assert list(folder.iterdir()) == []


@pytest.mark.skipif(sys.platform == "win32", reason="creating a symbolic link needs a privilege on Windows")
def test_symlink_to_a_regular_file_is_refused_and_the_file_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.bin"
    real.write_bytes(b"someone else's bytes")
    link = tmp_path / "link.cart"
    link.symlink_to(real)
    _assert_refused(_info(link), "a symbolic link")
    assert real.read_bytes() == b"someone else's bytes"
    with pytest.raises(InvalidParameter, match="symbolic link"):
        _open(link)


def test_new_path_and_regular_file_still_work(tmp_path: Path) -> None:
    path = tmp_path / "new.cart"
    got = _info(path)
    assert got.returncode == 0, got.stderr
    assert path.is_file() and path.read_bytes().startswith(b"TDCART01")
    again = _info(path)  # the existing regular cartridge opens again
    assert again.returncode == 0, again.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="loop devices are Linux")
def test_loop_device_over_random_data_is_untouched(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to attach a loop device (runs as root in CI)")
    losetup = shutil.which("losetup")
    if losetup is None:
        pytest.skip("losetup is not installed")
    backing = tmp_path / "random.img"
    backing.write_bytes(os.urandom(4 << 20))
    before = hashlib.sha256(backing.read_bytes()).hexdigest()
    attach = subprocess.run([losetup, "--find", "--show", str(backing)], capture_output=True, text=True)
    if attach.returncode != 0:
        pytest.skip(f"no loop device support here: {attach.stderr.strip()}")
    loop = attach.stdout.strip()
    try:
        _assert_refused(_info(loop), "a block device")
        perf = subprocess.run([*TAPEDIAG, "tape-perf", f"virtual:lto9?cartridge={loop}&realtime=0",
                               "--size", "1M"], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                              cwd=ROOT)
        assert perf.returncode in (2, 3), perf.stderr
        assert "Traceback" not in perf.stderr
    finally:
        subprocess.run([losetup, "-d", loop], check=False)
    assert hashlib.sha256(backing.read_bytes()).hexdigest() == before

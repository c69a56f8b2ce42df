"""The virtual cartridge without POSIX positional I/O (Windows' Python has no pread/pwrite)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from app.drive import TapeDrive
from app.patterns import Pattern
from app.tapeperf import TapePerfParams
from native.virtual import fileio
from tests.tapeperf.conftest import run_test

MiB = 1 << 20


@pytest.mark.parametrize("mode", ["variable", "fixed"])
def test_write_and_verified_read_back_through_the_seek_and_read_fallback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str) -> None:
    def run(cart: Path) -> bytes:
        with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}&barcode=TD0001L9") as drive:
            r = run_test(drive, TapePerfParams(direction="write+read", pattern=Pattern.parse("2:1"), size=8 * MiB,
                                               io_size=MiB, block_size=(256 << 10) if mode == "fixed" else MiB, mode=mode,
                                               verify=True, seed=7))
        assert r.status == "complete" and r.phase("read").verify_errors == 0
        assert r.phase("read").bytes == 8 * MiB
        return cart.read_bytes()[64 << 10:]  # the records (the header holds dates and counters)

    with_positional = run(tmp_path / "posix.img")
    for name in ("pread", "pwrite", "preadv", "pwritev"):  # as on Windows
        monkeypatch.delattr(os, name, raising=False)  # absent already on Windows
    monkeypatch.setattr(fileio, "POSITIONAL", False)
    fallback = run(tmp_path / "fallback.img")
    assert fallback == with_positional  # the same records, byte for byte


def test_pread_and_preadv_fallbacks_stop_at_end_of_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fileio, "POSITIONAL", False)
    path = tmp_path / "f"
    path.write_bytes(b"0123456789")
    fd = os.open(path, os.O_RDWR)
    try:
        assert fileio.pread(fd, 4, 3) == b"3456" and fileio.pread(fd, 100, 8) == b"89"
        a, b = bytearray(3), bytearray(5)
        assert fileio.preadv(fd, [a, b], 4) == 6 and bytes(a) == b"456" and bytes(b[:3]) == b"789"
        assert fileio.pwritev(fd, [b"ab", memoryview(b"cd")], 12) == 4
        assert path.read_bytes() == b"0123456789\0\0abcd"
    finally:
        os.close(fd)

"""A report is claimed only when it was written whole (issue 14, item 6).

The PDF is painted, written to a hidden temporary file next to the target, checked
(size, ``%%EOF`` trailer), synced and renamed over the target. A file system that
fills up on the way must end in exit 1 with one line, no temporary file, and the
older report at that path exactly as it was. The full file system is a real 64 KiB
tmpfs, so these tests need root (mount) and are skipped elsewhere.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from app.history import History


@contextlib.contextmanager
def _tmpfs(where: Path, size: str) -> Iterator[Path]:
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (a full file system)")
    where.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                         capture_output=True, text=True,
                         check=False)
    if got.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@pytest.fixture
def tape_run(tmp_path: Path) -> int:
    assert main(["tape-perf", f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.cart'}", "--size", "16M"]) == 0
    with History.open() as hist:
        return hist.list_runs(kind="tape-perf")[0].id


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_report_on_a_full_file_system_fails_and_keeps_the_older_report(tape_run: int, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture) -> None:
    with _tmpfs(tmp_path / "small", "64k") as mnt:
        older = mnt / "r.pdf"
        # Large enough that the new report (~30-50 KB: its charts are vectors) cannot fit beside it.
        older.write_bytes(b"%PDF-1.4 an older report\n" + os.urandom(48000) + b"\n%%EOF\n")
        before = _sha(older)
        capsys.readouterr()
        assert main(["report", str(tape_run), "-o", str(older)]) == 1
        out, err = capsys.readouterr()
        assert "Report written" not in out
        assert err.count("\n") == 1 and "Traceback" not in err and str(older) in err, err
        assert "space" in err.lower(), err
        assert _sha(older) == before  # the older report is untouched
        assert sorted(p.name for p in mnt.iterdir()) == ["r.pdf"]  # no temporary file left behind


def test_report_that_fits_replaces_the_older_one_whole(tape_run: int, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture) -> None:
    with _tmpfs(tmp_path / "roomy", "8m") as mnt:
        older = mnt / "r.pdf"
        older.write_bytes(b"%PDF-1.4 an older report\n%%EOF\n")
        capsys.readouterr()
        assert main(["report", str(tape_run), "-o", str(older)]) == 0
        assert "Report written" in capsys.readouterr().out
        data = older.read_bytes()
        assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF") and len(data) > 16 * 1024
        umask = os.umask(0o022)
        os.umask(umask)
        assert older.stat().st_mode & 0o777 == 0o666 & ~umask  # an ordinary file, not the temp file's 600
        assert sorted(p.name for p in mnt.iterdir()) == ["r.pdf"]

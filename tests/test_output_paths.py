"""Every output path (issue 27 §2): tapediag replaces a regular file, or makes a new one, and nothing else.

As root, ``ticket -o /dev/full`` turned /dev/full into a zip; a FIFO or a symbolic link became a plain
file. Each writer (ticket, report PDF, export, tape-perf ``--samples``, the GUI's export) is given a
FIFO, a device node, a link to a file, a dangling link and a directory: refused in one line (exit 2),
the target as it was. A regular file is replaced only by a complete new one; a FIFO that a program
reads is where ``--samples`` streams, on purpose.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Callable

import pytest

from app.cli import EXIT_OK, EXIT_REFUSED, EXIT_USAGE, main
from native.errors import InvalidParameter

KINDS = ("fifo", "device", "link-to-file", "dangling-link", "directory")


def _dev(tmp_path: Path) -> str:
    return f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"


def _target(tmp_path: Path, kind: str) -> tuple[Path, Callable[[], object]]:
    """A hostile target and a snapshot function: the snapshot must not change."""
    path = tmp_path / f"out-{kind}.pdf"  # .pdf: the report's rule on names; the others take any name
    mine = tmp_path / "mine.txt"
    mine.write_text("the user's own file\n")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        if os.geteuid() != 0:
            pytest.skip("making a device node needs root (the harm seen was as root)")
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # what /dev/full is
    elif kind == "link-to-file":
        path.symlink_to(mine)
    elif kind == "dangling-link":
        path.symlink_to(tmp_path / "nowhere.zip")
    else:
        path.mkdir()

    def snapshot() -> object:
        st = os.lstat(path)
        return (stat.S_IFMT(st.st_mode), st.st_rdev, os.readlink(path) if path.is_symlink() else None,
                mine.read_text(), (tmp_path / "nowhere.zip").exists(), sorted(p.name for p in tmp_path.iterdir()))
    return path, snapshot


def _refused(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


def _a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["tape-perf", _dev(tmp_path), "--size", "4M", "--direction", "write", "--json"]) == EXIT_OK
    import json

    return str(json.loads(capsys.readouterr().out)["run_id"])


@pytest.mark.parametrize("kind", KINDS)
def test_ticket_report_export_and_samples_refuse_what_is_not_a_regular_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str) -> None:
    run_id = _a_run(tmp_path, capsys)
    path, snapshot = _target(tmp_path, kind)
    before = snapshot()
    for argv in (["ticket", _dev(tmp_path), "-o", str(path)], ["report", run_id, "-o", str(path)],
                 ["export", run_id, "--csv", "-o", str(path)],
                 ["tape-perf", _dev(tmp_path), "--size", "4M", "--direction", "write", "--force",
                  "--samples", str(path)]):
        code = main(argv)
        line = _refused(capsys)
        assert code == EXIT_USAGE, (argv, line)
        if kind == "directory":
            assert "directory" in line, line
        elif kind == "fifo" and argv[0] == "tape-perf":
            assert "no program is reading that pipe" in line, line  # a pipe is streamed to, once read
        else:
            assert "which tapediag does not replace; name a regular file or a new one" in line, (argv, line)
    assert snapshot() == before


def test_a_regular_file_is_replaced_whole_and_kept_on_a_refusal(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    samples = tmp_path / "s.csv"
    samples.write_text("an older CSV the user keeps\n")
    assert main(["tape-perf", _dev(tmp_path), "--size", "4M", "--direction", "write", "--samples", str(samples)]) == 0
    assert samples.read_bytes().startswith(b"phase,t_s,bytes,latency_s\r\nwrite,")
    written = samples.read_bytes()
    capsys.readouterr()
    # The cartridge now holds data: refused without --force; the CSV from before is still there, whole.
    assert main(["tape-perf", _dev(tmp_path), "--size", "4M", "--direction", "write", "--samples",
                 str(samples)]) == EXIT_REFUSED
    assert samples.read_bytes() == written
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # no temporary file left


def test_samples_stream_into_a_pipe_a_program_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The one exception, kept on purpose: a FIFO (or a shell's >(...)) another program reads gets the CSV."""
    fifo = tmp_path / "samples.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # the reading end is there before tapediag opens it
    try:
        code = main(["tape-perf", _dev(tmp_path), "--size", "4M", "--direction", "write", "--samples", str(fifo)])
        os.set_blocking(reader, True)
        got = b"".join(iter(lambda: os.read(reader, 65536), b""))  # 16 rows: within the pipe's buffer
    finally:
        os.close(reader)
    assert code == EXIT_OK and got.startswith(b"phase,t_s,bytes,latency_s\r\nwrite,"), got[:80]
    assert fifo.is_fifo()


def test_the_guis_export_refuses_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ui import engines

    run_id = int(_a_run(tmp_path, capsys))
    fifo, snapshot = _target(tmp_path, "fifo")
    before = snapshot()
    with pytest.raises(InvalidParameter, match="it is a FIFO"):
        engines.export_csv(run_id, fifo)
    assert snapshot() == before
    out = engines.export_csv(run_id, tmp_path / "s.csv")
    assert out.read_text().startswith("t_s,nbytes,latency_s,phase")

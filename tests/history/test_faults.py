"""The history under faults (issue 14, items 10-12): a damaged file, a busy or read-only
one, a data directory that cannot be made, ids and limits beyond SQLite's integers.

Each ends in one line and the documented exit code, never a traceback; a transient
lock is never called damage; a read-only data directory can still be read.
"""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.cli import main
from app.events import Sample
from app.history import History
from app.history.schema import SCHEMA_VERSION
from native.errors import TapediagError
from tests.helpers.kinds import read_data, tape_perf
from tests.helpers.unprivileged import run_unprivileged

ROOT = Path(__file__).resolve().parents[2]
TAPEDIAG = str(ROOT / ".venv" / "bin" / "tapediag")
HUGE = "9" * 20  # above 2**63: no SQLite integer holds it


def _fill(path: Path, runs: int = 3) -> list[int]:
    """A real history with a few runs and enough samples to span many pages."""
    ids = []
    with History.open(path) as hist:
        for n in range(runs):
            run_id = hist.start_run("tape-perf", "virtual:lto9", {"n": n})
            hist.add_samples(run_id, [Sample(t=(i + 1) * 0.01, nbytes=262144, latency=0.01, phase="write")
                                      for i in range(2000)])
            hist.finish_run(run_id, "complete", tape_perf(rates={"write": 26.2}))
            ids.append(run_id)
    return ids


def _one_line(err: str) -> None:
    assert "Traceback" not in err, err
    assert err.count("\n") == 1 and err.endswith("\n"), f"not one line: {err!r}"


# -- a damaged history -----------------------------------------------------------------


@pytest.fixture
def damaged(isolated_data_dir: Path) -> Path:
    """A history with a valid header and page 1 (the schema), every later page overwritten."""
    path = isolated_data_dir / "history.sqlite"
    _fill(path)
    assert not Path(f"{path}-wal").exists()  # the last close checkpointed everything into the file
    with open(path, "r+b") as f:
        f.seek(4096)
        f.write(b"\xa5" * (path.stat().st_size - 4096))
    return path


@pytest.mark.parametrize("argv", [["history"], ["show", "1"], ["export", "1", "--csv"], ["report", "1", "-o", "{tmp}/r.pdf"]],
                         ids=["history", "show", "export", "report"])
def test_a_damaged_history_is_one_line_saying_where(damaged: Path, argv: list[str], tmp_path: Path, capsys) -> None:
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 1
    err = capsys.readouterr().err
    _one_line(err)
    assert "damaged" in err and str(damaged) in err and "aside" in err, err
    assert not (tmp_path / "r.pdf").exists()


def test_a_new_run_on_a_damaged_history_is_refused_before_it_measures(damaged: Path, tmp_path: Path, capsys) -> None:
    cart = tmp_path / "c.cart"
    assert main(["tape-perf", f"virtual:lto9?realtime=0&cartridge={cart}", "--size", "8M"]) == 1
    out, err = capsys.readouterr()
    _one_line(err)
    assert "damaged" in err and str(damaged) in err and "not started" in err, err
    assert "write:" not in out + err  # nothing was measured


# -- two processes opening a new history at once ------------------------------------------

_OPENER = """
import os, sys, time
import app.catalog  # the run kinds, as every entry point installs them
from app.history import History
go = sys.argv[2]
open(sys.argv[3], "w").close()  # imports done: waiting on the go file
while not os.path.exists(go):
    time.sleep(0.0005)
with History.open(sys.argv[1]) as hist:
    hist.start_run("tape-perf", "virtual:lto9", {"pid": os.getpid()})
"""


def _until_ready(ready: list[Path], procs: list[subprocess.Popen]) -> None:
    """Until every opener has said it waits on the go file (or one of them ended)."""
    deadline = time.monotonic() + 120
    while not all(path.exists() for path in ready) and all(p.poll() is None for p in procs):
        assert time.monotonic() < deadline, "the openers never got past their imports"
        time.sleep(0.005)


def test_two_processes_opening_a_fresh_history_at_once_both_succeed(tmp_path: Path) -> None:
    failures = []
    for round_no in range(20):
        path, go = tmp_path / f"h{round_no}.sqlite", tmp_path / f"go{round_no}"
        ready = [tmp_path / f"ready{round_no}.{n}" for n in range(2)]
        procs = [subprocess.Popen([sys.executable, "-c", _OPENER, str(path), str(go), str(r)], cwd=ROOT,
                                  stderr=subprocess.PIPE, text=True) for r in ready]
        _until_ready(ready, procs)  # both are waiting on the go file, imports done
        go.touch()
        for proc in procs:
            _, err = proc.communicate(timeout=60)
            if proc.returncode != 0:
                failures.append((round_no, err.strip().splitlines()[-1:]))
        if not failures:
            with History.open(path) as hist:
                assert len(hist.list_runs()) == 2
            conn = sqlite3.connect(path)
            assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
            conn.close()
    assert not failures, failures


def test_a_locked_history_is_busy_not_damaged(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    _fill(path, runs=1)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")  # another writer, in the middle of its transaction
    try:
        with pytest.raises(TapediagError) as got, History.open(path, timeout=0.5) as hist:
            hist.start_run("tape-perf", "virtual:lto9", {})
        assert "busy" in str(got.value) and "aside" not in str(got.value) and "damaged" not in str(got.value)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    with History.open(path) as hist:  # and the history is as it was
        assert len(hist.list_runs()) == 1


# -- ids and limits beyond SQLite's integers --------------------------------------------


@pytest.mark.parametrize("argv", [["show", HUGE], ["export", HUGE, "--json"], ["report", HUGE, "-o", "{tmp}/r.pdf"],
                                  ["show", "-" + HUGE]], ids=["show", "export", "report", "show-negative"])
def test_run_ids_beyond_sqlite_integers_are_unknown_runs(argv: list[str], tmp_path: Path, capsys) -> None:
    _fill(History.open().path)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert "no run" in err, err
    assert not (tmp_path / "r.pdf").exists()


@pytest.mark.parametrize("value", [HUGE, "-1", "0"])
def test_history_limit_must_be_a_positive_sqlite_integer(value: str, capsys) -> None:
    assert main(["history", "--limit", value]) == 2
    err = capsys.readouterr().err
    _one_line(err)
    assert "--limit" in err, err


# -- the data directory ---------------------------------------------------------------------


def _cli(argv: list[str], data: Path, *, unprivileged: bool = False, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "TAPEDIAG_DATA_DIR": str(data), "QT_QPA_PLATFORM": "offscreen"}
    env.pop("DISPLAY", None)
    runner = run_unprivileged if unprivileged else subprocess.run
    return runner([TAPEDIAG, *argv], env=env, capture_output=True, text=True, timeout=120, cwd=cwd or ROOT)


def test_a_new_data_directory_is_private(tmp_path: Path) -> None:
    data = tmp_path / "new" / "data"
    got = _cli(["history"], data)
    assert got.returncode == 0, got.stderr
    assert (data.stat().st_mode & 0o777) == 0o700
    assert ((data / "history.sqlite").stat().st_mode & 0o777) == 0o600


@pytest.mark.parametrize("argv", [["history"], ["show", "1"], ["info", "virtual:lto9"],
                                  ["devices", "--no-probe", "--add-iscsi", "iscsi://127.0.0.1/iqn.2026-01.test:t/0"]],
                         ids=["history", "show", "info", "devices"])
def test_a_data_directory_that_is_a_file_is_one_line(argv: list[str], tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.write_text("not a directory\n")
    got = _cli(argv, data)
    _one_line(got.stderr)
    assert got.returncode == 1 and str(data) in got.stderr, got.stderr
    assert data.read_text() == "not a directory\n"


@pytest.mark.parametrize("how", ["chmod-555", "read-only-mount"])
@pytest.mark.parametrize("argv", [["history"], ["info", "virtual:lto9"]], ids=["history", "info"])
def test_a_data_directory_that_cannot_be_created_is_one_line(argv: list[str], how: str, tmp_path: Path) -> None:
    parent = tmp_path / "ro"
    parent.mkdir(mode=0o555)
    if how == "read-only-mount":
        if os.geteuid() != 0:
            pytest.skip("needs root to mount a read-only tmpfs")
        got = subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(parent)],
                             capture_output=True, text=True, check=False)
        if got.returncode != 0:
            pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        got = _cli(argv, parent / "data", unprivileged=how == "chmod-555")
        _one_line(got.stderr)
        assert got.returncode == 1 and str(parent / "data") in got.stderr, got.stderr
        assert not (parent / "data").exists()
    finally:
        if how == "read-only-mount":
            subprocess.run(["umount", str(parent)], check=True)


@pytest.fixture(params=["chmod-555", "read-only-mount"])
def read_only_data(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, list[int], bool]]:
    """A data directory with a history of real runs, then made read-only: mode 555 (run
    without root's file-mode capabilities), or a tmpfs remounted read-only (as root).
    Yields (directory, run ids, whether to run unprivileged)."""
    data = tmp_path / "data"
    data.mkdir()
    if request.param == "chmod-555":
        ids = _fill(data / "history.sqlite")
        data.chmod(0o555)
        yield data, ids, True
        return
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a tmpfs read-only")
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(data)], capture_output=True, text=True,
                         check=False)
    if got.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        ids = _fill(data / "history.sqlite")
        subprocess.run(["mount", "-o", "remount,ro", str(data)], check=True)
        yield data, ids, False
    finally:
        subprocess.run(["umount", str(data)], check=True)


def test_a_read_only_data_directory_can_still_be_read(read_only_data: tuple[Path, list[int], bool],
                                                      tmp_path: Path) -> None:
    data, ids, unprivileged = read_only_data
    before = sorted(os.listdir(data))
    listed = _cli(["history"], data, unprivileged=unprivileged)
    assert listed.returncode == 0, listed.stderr
    assert all(f"\n{i} " in "\n" + listed.stdout for i in ids) and "complete" in listed.stdout
    shown = _cli(["show", str(ids[0])], data, unprivileged=unprivileged)
    assert shown.returncode == 0 and "write 26.2 MB/s overall" in shown.stdout, shown.stderr
    out = tmp_path / "out"
    out.mkdir()
    exported = _cli(["export", str(ids[0]), "--csv", "-o", str(out / "s.csv")], data, unprivileged=unprivileged)
    assert exported.returncode == 0, exported.stderr
    assert len((out / "s.csv").read_text().splitlines()) == 2001
    reported = _cli(["report", str(ids[0]), "-o", str(out / "r.pdf")], data, unprivileged=unprivileged)
    assert reported.returncode == 0, reported.stderr
    assert (out / "r.pdf").read_bytes().rstrip().endswith(b"%%EOF")
    assert sorted(os.listdir(data)) == before  # nothing was created in it


@pytest.mark.parametrize("argv", [["info", "virtual:lto9?cartridge={tmp}/c.cart"], ["info", "virtual:lto9"],
                                  ["devices", "--no-probe", "--add-iscsi", "iscsi://127.0.0.1/iqn.2026-01.test:t/0"]],
                         ids=["info-own-cartridge", "info-default-cartridge", "devices-add"])
def test_a_read_only_data_directory_refuses_what_it_cannot_keep(read_only_data: tuple[Path, list[int], bool],
                                                               argv: list[str], tmp_path: Path) -> None:
    data, ids, unprivileged = read_only_data
    before = sorted(os.listdir(data))
    got = _cli([a.replace("{tmp}", str(tmp_path)) for a in argv], data, unprivileged=unprivileged)
    _one_line(got.stderr)
    assert got.returncode == 1 and str(data) in got.stderr, got.stderr
    assert sorted(os.listdir(data)) == before
    with History.open(data / "history.sqlite") as hist:
        assert [r.id for r in hist.list_runs()][::-1] == ids  # no run recorded, none half-made


def test_a_read_only_data_directory_without_a_history_lists_no_runs(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o555)
    listed = _cli(["history"], data, unprivileged=True)
    assert listed.returncode == 0 and "No runs recorded yet." in listed.stdout, listed.stderr
    shown = _cli(["show", "1"], data, unprivileged=True)
    _one_line(shown.stderr)
    assert shown.returncode == 2 and "no run 1" in shown.stderr
    assert os.listdir(data) == []


def test_an_export_that_does_not_fit_keeps_the_older_export(tmp_path: Path, capsys) -> None:
    """Like a report (issue 14.6): a full file system must not cost the older export at that path."""
    with History.open() as hist:  # ~150 KB of CSV: more than the whole file system
        run_id = hist.start_run("tape-perf", "virtual:lto9", {})
        hist.add_samples(run_id, [Sample(t=(i + 1) * 0.01, nbytes=262144, latency=0.01, phase="write")
                                  for i in range(5000)])
    if os.geteuid() != 0:
        pytest.skip("needs root to mount a small tmpfs (a full file system)")
    mnt = tmp_path / "small"
    mnt.mkdir()
    got = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, text=True,
                         check=False)
    if got.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {got.stderr.strip()}")
    try:
        older = mnt / "s.csv"
        older.write_text("t_s,nbytes\n" + "0.1,1\n" * 2000)
        before = older.read_bytes()
        for fmt in ("--csv", "--json"):
            capsys.readouterr()
            assert main(["export", str(run_id), fmt, "-o", str(older)]) == 1
            err = capsys.readouterr().err
            _one_line(err)
            assert "space" in err.lower() and str(older) in err, err
            assert older.read_bytes() == before
            assert os.listdir(mnt) == ["s.csv"]
    finally:
        subprocess.run(["umount", str(mnt)], check=True)


def test_export_to_a_pipe_is_refused_not_waited_on(tmp_path: Path) -> None:
    """-o names a file to replace (issue 27 §2): a pipe is refused at once; stdout (no -o) reaches pipes."""
    data = tmp_path / "data"
    data.mkdir()
    ids = _fill(data / "history.sqlite", runs=1)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = _cli(["export", str(ids[0]), "--json", "-o", str(fifo)], data)  # 120 s timeout: a hang fails
    _one_line(got.stderr)
    assert got.returncode == 2 and "it is a FIFO (named pipe), which tapediag does not replace" in got.stderr
    assert fifo.is_fifo()


def test_export_to_dev_null_is_refused_and_replaces_nothing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    ids = _fill(data / "history.sqlite", runs=1)
    got = _cli(["export", str(ids[0]), "--csv", "-o", os.devnull], data)
    _one_line(got.stderr)
    assert got.returncode == 2 and "it is a character device" in got.stderr, got.stderr
    assert Path(os.devnull).is_char_device()


def test_names_that_are_not_utf8_are_stored_and_found(tmp_path: Path, capsys) -> None:
    """argv and paths may hold bytes that are not UTF-8 (Python's surrogate escapes); SQLite
    stores only UTF-8. Such a device is kept readably (``\\xff``), a filter by it finds it."""
    device = "/srv/bad\udcff\udcfename"
    with History.open() as hist:
        run_id = hist.start_run("read-data", device, {"dir": device})
        hist.finish_run(run_id, "failed", {"path": device}, error=f"cannot read {device}")
        assert [r.id for r in hist.list_runs(device=device)] == [run_id]
        got = hist.get_run(run_id)
    assert got.device == "/srv/bad\\xff\\xfename" and "\\xff" in (got.error or "")
    assert got.params == {"dir": device}  # JSON keeps the escapes exactly
    assert main(["history", "--device", device]) == 0
    assert "/srv/bad\\xff\\xfename" in capsys.readouterr().out


def test_a_read_only_history_with_runs_still_in_its_wal(tmp_path: Path) -> None:
    """Runs not yet checkpointed live in ``-wal``: read through a readable ``-shm``; without
    one, say so instead of showing a history that silently lacks them (``immutable``)."""
    import shutil

    src = tmp_path / "src" / "history.sqlite"
    hist = History.open(src)
    try:
        with hist._db() as conn:
            conn.execute("PRAGMA wal_autocheckpoint=0")
        hist.start_run("tape-perf", "device-in-the-wal", {})
        for name, suffixes in (("with-shm", ("", "-wal", "-shm")), ("without-shm", ("", "-wal"))):
            (tmp_path / name).mkdir()
            for suffix in suffixes:
                shutil.copy(f"{src}{suffix}", tmp_path / name / f"history.sqlite{suffix}")
            (tmp_path / name).chmod(0o555)
    finally:
        hist.close()
    listed = _cli(["history"], tmp_path / "with-shm", unprivileged=True)
    assert listed.returncode == 0 and "device-in-the-wal" in listed.stdout, listed.stderr
    refused = _cli(["history"], tmp_path / "without-shm", unprivileged=True)
    _one_line(refused.stderr)
    assert refused.returncode == 1 and "history.sqlite-wal" in refused.stderr, refused.stderr


def test_show_and_history_print_names_that_are_not_utf8(capsys) -> None:
    """A run on a directory whose name is not UTF-8 keeps it in its parameters and results;
    printing them to a strict UTF-8 stdout (pytest's, or any UTF-8 locale's) must not fail."""
    name = "/srv/bad\udcffname"
    with History.open() as hist:
        run_id = hist.start_run("read-data", name, {"dir": name})
        hist.finish_run(run_id, "failed", read_data(1.0, target=name), error=f"cannot read {name}")
    assert main(["show", str(run_id)]) == 0
    assert capsys.readouterr().out.count("/srv/bad\\xffname") >= 3  # device, parameter, result
    assert main(["history"]) == 0
    assert "/srv/bad\\xffname" in capsys.readouterr().out

"""Bad input on every CLI command, as a technician would type it.

Each case must end in ONE clear line on stderr (no traceback, nothing on stdout), the
exit status from ``app.cli`` (2 bad input, 3 safety refusal, 1 a device that cannot be
reached), and nothing half-done: the virtual cartridge still blank, no file or
directory created or changed in the work area, no history run left ``incomplete``.

Every case runs in-process through ``app.cli.main`` (fast); one case per command
also runs through the installed ``.venv/bin/tapediag`` in a subprocess, the way a
user runs it.
"""
from __future__ import annotations

import os
import re
import subprocess
import traceback
from dataclasses import dataclass
from pathlib import Path

import pytest

from app.cli import EXIT_FAILED, EXIT_REFUSED, EXIT_USAGE, main
from app.drive import TapeDrive
from app.history import History
from tests.helpers.kinds import read_data
from tests.helpers.tgt import show_blocks, tgt_available, tgt_target  # noqa: F401  (fixture)

ROOT = Path(__file__).resolve().parents[1]
TAPEDIAG = ROOT / ".venv" / "bin" / "tapediag"
VIRTUAL = "virtual:lto9?realtime=0"  # its cartridge lives in the test's own data directory
NO_ISCSI = "iscsi://127.0.0.1:1/iqn.x/1"  # nothing listens on port 1
UNWRITABLE = "/proc/tapediag"  # cannot be created, not even by root


@dataclass(frozen=True)
class Case:
    name: str
    argv: tuple[str, ...]  # "{work}" is the test's work area, "{run}" a stored run's id
    code: int
    message: str  # a regular expression the one stderr line must contain
    tape: bool = False  # the command was about to write the virtual cartridge


CASES = (
    # A device that is not there: the device failed, exit 1.
    Case("info-missing-sg", ("info", "/dev/sg99"), EXIT_FAILED, r"/dev/sg99 does not exist"),
    Case("info-missing-iscsi", ("info", NO_ISCSI), EXIT_FAILED, r"no iSCSI target answers at 127\.0\.0\.1:1"),
    Case("tape-perf-missing-sg", ("tape-perf", "/dev/sg99"), EXIT_FAILED, r"/dev/sg99 does not exist"),
    Case("tape-perf-missing-iscsi", ("tape-perf", NO_ISCSI), EXIT_FAILED, r"no iSCSI target answers"),
    # A device string tapediag does not understand: bad input.
    Case("info-unknown-device", ("info", "bogus:thing"), EXIT_USAGE, r"'bogus:thing' is not a device"),
    Case("tape-perf-unknown-device", ("tape-perf", "ftp://host/x"), EXIT_USAGE, r"'ftp://host/x' is not a device"),
    Case("tape-perf-unknown-virtual", ("tape-perf", "virtual:lto12"), EXIT_USAGE, r"not a virtual drive"),
    Case("info-bad-virtual-option", ("info", "virtual:lto9?tapealert=99"), EXIT_USAGE, r"tapealert"),
    Case("devices-add-bad-iscsi", ("devices", "--add-iscsi", "bogus"), EXIT_USAGE, r"not an iSCSI device string"),
    Case("devices-forget-unknown", ("devices", "--forget", NO_ISCSI), EXIT_USAGE, r"not a remembered iSCSI target"),
    # Sizes the drive rejects or that do not fit together: refused before the tape moves.
    Case("tape-perf-block-above-max", ("tape-perf", VIRTUAL, "--block-size", "32M", "--size", "64M"), EXIT_USAGE,
         r"above the drive's maximum", tape=True),
    Case("tape-perf-block-zero", ("tape-perf", VIRTUAL, "--block-size", "0"), EXIT_USAGE, r"block size", tape=True),
    Case("tape-perf-io-not-multiple", ("tape-perf", VIRTUAL, "--block-size", "256K", "--io-size", "300K"), EXIT_USAGE,
         r"must be a multiple of the block size", tape=True),
    Case("tape-perf-size-below-io", ("tape-perf", VIRTUAL, "--size", "100K"), EXIT_USAGE, r"smaller than one I/O",
         tape=True),
    Case("tape-perf-bad-block-number", ("tape-perf", VIRTUAL, "--block-size", "12Q"), EXIT_USAGE,
         r"block size '12Q' is not a size", tape=True),
    Case("tape-perf-bad-size-number", ("tape-perf", VIRTUAL, "--size", "12Q"), EXIT_USAGE, r"'12Q' is not a size",
         tape=True),
    Case("tape-perf-unwritable-samples", ("tape-perf", VIRTUAL, "--size", "16M", "--samples", f"{UNWRITABLE}/s.csv"),
         EXIT_USAGE, re.escape(f"{UNWRITABLE}/s.csv"), tape=True),
    # Disk tests.
    Case("create-data-non-empty", ("create-data", "{work}/full", "--files", "10"), EXIT_REFUSED, r"is not empty"),
    Case("create-data-bad-size", ("create-data", "{work}/new", "--total-size", "12Q"), EXIT_USAGE, r"'12Q' is not a size"),
    Case("create-data-bad-count", ("create-data", "{work}/new", "--files", "12Q"), EXIT_USAGE,
         r"files: '12Q' is not a whole number"),
    Case("read-data-missing-dir", ("read-data", "{work}/nowhere"), EXIT_USAGE, r"nowhere is not a directory"),
    Case("read-data-bad-buffer", ("read-data", "{work}/full", "--buffer", "12Q"), EXIT_USAGE, r"'12Q' is not a size"),
    Case("clean-missing-dir", ("clean", "{work}/nowhere"), EXIT_USAGE, r"nowhere"),
    # History, reports, troubleshooting.
    Case("show-unknown-run", ("show", "999"), EXIT_USAGE, r"no run 999 in the history"),
    Case("show-bad-run-id", ("show", "abc"), EXIT_USAGE, r"invalid int value: 'abc'"),
    Case("export-unknown-run", ("export", "999", "--csv"), EXIT_USAGE, r"no run 999 in the history"),
    Case("export-unwritable", ("export", "{run}", "--csv", "-o", f"{UNWRITABLE}/x.csv"), EXIT_USAGE,
         r"cannot write the export to /proc/tapediag/x\.csv"),  # app.output's words, as the report's
    Case("report-unknown-run", ("report", "999", "-o", "{work}/r.pdf"), EXIT_USAGE, r"no run 999 in the history"),
    Case("report-unwritable", ("report", "{run}", "-o", f"{UNWRITABLE}/r.pdf"), EXIT_USAGE,
         r"cannot write the report to /proc/tapediag/r\.pdf"),
    Case("report-parent-is-a-file", ("report", "{run}", "-o", "{work}/full/file.txt/r.pdf"), EXIT_USAGE,
         r"file\.txt is not a directory"),
    Case("report-not-pdf", ("report", "{run}", "-o", "{work}/r.txt"), EXIT_USAGE, r"name it r\.pdf"),
    Case("troubleshoot-unknown-run", ("troubleshoot", "--tape-write-run", "999", "--backup", "10"), EXIT_USAGE,
         r"no run 999 in the history"),
    Case("troubleshoot-bad-rate", ("troubleshoot", "--tape-write", "12Q", "--backup", "10"), EXIT_USAGE,
         r"'12Q' is not a rate"),
    Case("troubleshoot-bad-block-size", ("troubleshoot", "--tape-write", "100", "--backup", "10", "--block-size", "12Q"),
         EXIT_USAGE, r"block size '12Q'"),
    Case("troubleshoot-unwritable-report", ("troubleshoot", "--tape-write", "100", "--backup", "10", "--no-interactive",
                                            "--report", f"{UNWRITABLE}/r.pdf"), EXIT_USAGE, r"cannot write the report"),
    Case("history-bad-limit", ("history", "--limit", "abc"), EXIT_USAGE, r"invalid int value: 'abc'"),
    Case("unknown-command", ("frobnicate",), EXIT_USAGE, r"invalid choice: 'frobnicate'"),
)
BY_NAME = {c.name: c for c in CASES}
# One per command, run through the installed console script.
AS_A_USER = ("info-missing-iscsi", "tape-perf-block-above-max", "tape-perf-unwritable-samples", "create-data-non-empty",
             "read-data-missing-dir", "clean-missing-dir", "show-bad-run-id", "export-unknown-run", "report-unwritable",
             "troubleshoot-bad-rate", "history-bad-limit", "devices-add-bad-iscsi")


@dataclass
class Work:
    root: Path
    cwd: Path
    run_id: int

    def argv(self, case: Case) -> list[str]:
        return [a.replace("{work}", str(self.root)).replace("{run}", str(self.run_id)) for a in case.argv]

    def snapshot(self) -> dict[str, tuple[bool, int, int]]:
        """Every path under the work area with (is_dir, size, mtime_ns): any change shows."""
        out = {}
        for p in sorted(self.root.rglob("*")):
            if p.name == "tgtd.log":  # the target's own log grows with every login; its cartridge is checked apart
                continue
            st = p.lstat()
            out[str(p.relative_to(self.root))] = (p.is_dir(), 0 if p.is_dir() else st.st_size, st.st_mtime_ns)
        return out


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Work:
    """A work area with a non-empty directory, an empty current directory and one stored run."""
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "file.txt").write_text("a user's file\n")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    with History.open() as hist:
        run_id = hist.start_run("read-data", str(tmp_path / "full"), {"streams": 1})
        hist.finish_run(run_id, "complete", read_data(50.0, target=str(tmp_path / "full")))
    return Work(tmp_path, cwd, run_id)


def _cartridge_is_blank() -> bool:
    """Read at BOT of the virtual cartridge: blank tape answers BLANK CHECK with nothing read."""
    with TapeDrive.open(VIRTUAL) as drive:
        drive.wait_ready(timeout=10, poll=0.05)
        drive.rewind()
        got = drive.read(bytearray(1 << 20))
    return got.nbytes == 0 and got.eod and not got.filemark


def _run_in_process(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        code: object = main(argv)
        tb = ""
    except SystemExit as exc:  # argparse exits itself
        code, tb = exc.code, ""
    except BaseException as exc:  # noqa: BLE001 - an escaped exception is exactly what this test looks for
        code, tb = f"uncaught {type(exc).__name__}", traceback.format_exc()
    captured = capsys.readouterr()
    return code, captured.out, captured.err + tb


def _check(case: Case, work: Work, before: dict, code: object, out: str, err: str) -> None:
    assert "Traceback" not in err, err
    assert code == case.code, f"exit {code!r}, expected {case.code}; stderr: {err!r}"
    assert err.endswith("\n") and err.count("\n") == 1 and err.startswith("tapediag"), f"not one line: {err!r}"
    assert re.search(case.message, err), err
    assert out == "", f"stdout should stay empty: {out!r}"
    assert work.snapshot() == before, "files in the work area were created or changed"
    with History.open() as hist:
        left = [(r.id, r.kind) for r in hist.list_runs() if r.status == "incomplete"]
    assert not left, f"runs left incomplete: {left}"
    if case.tape:
        assert _cartridge_is_blank(), "the cartridge was written"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_in_process(case: Case, work: Work, capsys: pytest.CaptureFixture[str]) -> None:
    before = work.snapshot()
    _check(case, work, before, *_run_in_process(work.argv(case), capsys))


@pytest.mark.parametrize("name", AS_A_USER)
def test_bad_input_as_a_user(name: str, work: Work) -> None:
    case = BY_NAME[name]
    before = work.snapshot()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    got = subprocess.run([str(TAPEDIAG), *work.argv(case)], cwd=work.cwd, env=env, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL)
    _check(case, work, before, got.returncode, got.stdout, got.stderr)


def test_broken_pipe_is_quiet(work: Work) -> None:
    """`tapediag history | head -1`: the reader leaving early is not an error."""
    with History.open() as hist:
        for _ in range(300):
            hist.finish_run(hist.start_run("read-data", "/srv"), "complete", read_data(1.0, target="/srv"))
    got = subprocess.run(f"'{TAPEDIAG}' history | head -n 1", shell=True, cwd=work.cwd, capture_output=True, text=True,
                         timeout=120)
    assert got.stdout.startswith("ID") and "Traceback" not in got.stderr and got.stderr == ""


@pytest.mark.tgt
@pytest.mark.skipif(not tgt_available(), reason="tgt is not installed")
@pytest.mark.parametrize("name", ["wrong-iqn", "wrong-lun", "block-above-tgt-max", "io-not-multiple"])
def test_bad_input_against_tgtd(name: str, tgt_target, work: Work, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    """A real iSCSI tape target: a wrong IQN or LUN, and sizes tgt's READ BLOCK LIMITS (max 1 MiB) rejects."""
    url = tgt_target.url
    host = url.rsplit("/", 2)[0]
    case = {
        "wrong-iqn": Case(name, ("info", f"{host}/iqn.2026-11.org.tapediag.wrong:x/1"), EXIT_FAILED, r"Target not found"),
        "wrong-lun": Case(name, ("info", url[:-1] + "7"), EXIT_FAILED, r"has no LUN 7 \(it has LUNs 0, 1\)"),
        "block-above-tgt-max": Case(name, ("tape-perf", url, "--block-size", "2M", "--size", "8M"), EXIT_USAGE,
                                    r"above the drive's maximum of 1048576 bytes"),
        "io-not-multiple": Case(name, ("tape-perf", url, "--block-size", "256K", "--io-size", "300K"), EXIT_USAGE,
                                r"must be a multiple of the block size"),
    }[name]
    tape_before = show_blocks(tgt_target.cartridge_path)
    before = work.snapshot()
    _check(case, work, before, *_run_in_process(work.argv(case), capsys))
    assert show_blocks(tgt_target.cartridge_path) == tape_before, "the tgt cartridge was written"


def test_output_with_characters_the_console_encoding_lacks_never_crashes(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # As on Windows (cp1252) with the output redirected to a file: UTF-8 goes out, no UnicodeEncodeError.
    import os
    import subprocess
    import sys
    from pathlib import Path

    target = tmp_path / "данные"
    env = {**os.environ, "PYTHONIOENCODING": "cp1252", "TAPEDIAG_DATA_DIR": str(tmp_path / "data")}
    got = subprocess.run([str(Path(sys.executable).with_name("tapediag")), "create-data", str(target), "--depth", "1",
                          "--breadth", "1", "--files-per-dir", "2"], env=env, capture_output=True, timeout=120)
    assert got.returncode == 0, got.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in got.stderr
    assert "данные" in got.stdout.decode("utf-8")

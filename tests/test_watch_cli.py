"""``python -m app.watch`` as a user runs it: what cannot be watched is one line and exit 2, never a traceback."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "app.watch", *args], capture_output=True, text=True, cwd=ROOT, timeout=120)


@pytest.mark.parametrize("args, words", [
    (["iscsi://127.0.0.1/iqn.2026-11.org.tapediag:x/1"], "is reached through libiscsi from user space, where the kernel "
                                                         "counts nothing"),
    (["virtual:lto9"], "is tapediag's virtual drive: the kernel keeps no statistics for it"),
    (["\\\\.\\Tape0"], "Windows keeps none that tapediag can read"),
    (["/dev/nst0", "--for", "0", "--until-idle", "0"], "the watch needs an end"),
    (["/dev/nst0", "--for", "ten minutes"], "for 'ten minutes' is not a duration"),
    (["/dev/nst0", "--query-drive", "maybe"], "query drive must be one of on, off"),
])
def test_what_cannot_be_watched_is_one_line_and_exit_2(args: list[str], words: str) -> None:
    proc = _run(*args)
    assert proc.returncode == 2, proc
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tapediag: error: ") and words in lines[0], proc.stderr


def test_a_machine_without_st_drives_is_told_so(tmp_path: Path) -> None:
    if Path("/sys/class/scsi_tape").is_dir():
        pytest.skip("this machine has st drives")
    proc = _run("/dev/nst0", "--for", "1s")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("tapediag: error: /dev/nst0: this system has no SCSI tape drives driven by the kernel's "
                                   "st driver (no /sys/class/scsi_tape) (load the st module, or name the drive's /dev/nstN)")


def test_the_options_come_from_the_parameters_declaration() -> None:
    from app.watch.params import WatchParams

    help_text = _run("--help").stdout
    for info in WatchParams.FIELDS:
        if info.name != "device":
            assert "--" + info.name.rstrip("_").replace("_", "-") in help_text, info.name

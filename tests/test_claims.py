"""One test per device (issue 27 §2): a second test on a drive or a library is refused in one line naming
the first, and the first is unharmed.

The first run is the real CLI in its own process; it stops itself (SIGSTOP) right after it has taken
its claim, so the second one runs while the first certainly holds the device, whatever the machine's
load; then it is continued and must end as it would have alone. tgtd's own command log shows what the
refused run sent: INQUIRY and nothing else.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from app.claims import DeviceInUse, claimed, identify, path_key
from app.cli import EXIT_REFUSED, main
from app.drive import TapeDrive
from tests.helpers.faults import RecordingTransport
from tests.helpers.tgt import TgtTarget
from tests.helpers.wire import CommandLog

ROOT = Path(__file__).resolve().parents[1]
#: The CLI, stopping itself once after its first claim (the test continues it).
PAUSING_CLI = """
import os, signal, sys
import app.claims as claims
real, paused = claims.take, []
def take(*args, **kwargs):
    claim = real(*args, **kwargs)
    if not paused:
        paused.append(1)
        os.kill(os.getpid(), signal.SIGSTOP)
    return claim
claims.take = take
from app.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _stopped(pid: int) -> bool:
    with open(f"/proc/{pid}/stat") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] == "T"


def start_paused(argv: list[str]) -> subprocess.Popen[str]:
    """The CLI running ``argv`` in its own process, returned once it holds its first claim and is stopped."""
    proc = subprocess.Popen([sys.executable, "-c", PAUSING_CLI, *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    while not _stopped(proc.pid):  # progress: it stops itself once it holds the claim
        if proc.poll() is not None:
            raise AssertionError(f"the first run ended before it claimed: {proc.communicate()}")
        os.sched_yield()
    return proc


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    os.kill(proc.pid, signal.SIGCONT)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out, err


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return err[0]


@pytest.mark.tgt
def test_two_assessments_on_one_tgt_drive_the_second_is_refused_and_the_first_passes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with TgtTarget(tmp_path / "tgt", size_mb=256, large_segments=True) as target:
        wire = CommandLog(target)
        first = start_paused(["assess", target.url, "--size", "32M", "--force", "--json"])
        mark = wire.mark()
        other = target.url.replace("127.0.0.1", "localhost")  # the same drive by another name
        for device in (target.url, other):
            assert main(["assess", device, "--size", "32M", "--force"]) == EXIT_REFUSED
            line = _one_line(capsys)
            assert f"is in use by tapediag assess on {target.url} (PID {first.pid}, since " in line, line
            assert line.startswith(f"tapediag: refused: {device} is in use"), line
        assert "(the same device, serial beaf11)" in line
        # The refused runs sent INQUIRY, and libiscsi's TEST UNIT READY at login; nothing else.
        assert set(wire.since(mark)) == {0x00, 0x12}
        code, out, err = finish(first)
    result = json.loads(out)
    steps = {s["name"]: s["outcome"] for s in result["steps"]}
    assert code == result["exit_code"] != 11, err
    assert steps["write, read back and verify"] == "pass", result["steps"]


@pytest.mark.tgt
def test_two_exercisers_on_one_tgt_library_the_later_is_refused_and_the_first_passes(
        tgt_library_factory, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    lib = tgt_library_factory(drives=2, slots=5)
    first = start_paused(["library-test", lib.url, "--moves", "4", "--json"])
    assert main(["library-test", lib.url, "--moves", "4"]) == EXIT_REFUSED
    line = _one_line(capsys)
    assert f"{lib.url} is in use by tapediag library-test on {lib.url} (PID {first.pid}" in line, line
    assert main(["library", lib.url, "--move", "slot:1", "drive:0"]) == EXIT_REFUSED  # a move, too
    assert "in use by tapediag library-test" in _one_line(capsys)
    assert main(["library", lib.url, "--json"]) == 0  # the inventory is a query: it needs no claim
    capsys.readouterr()
    code, out, err = finish(first)
    assert code == 0 and json.loads(out)["verdict"] == "PASS", err


def test_two_exercisers_on_one_virtual_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = f"virtual:library?dir={tmp_path / 'lib'}&realtime=0"
    first = start_paused(["library-test", dev, "--moves", "6", "--json"])
    assert main(["library-test", dev, "--moves", "6"]) == EXIT_REFUSED
    assert f"in use by tapediag library-test on {dev} (PID {first.pid}" in _one_line(capsys)
    code, out, err = finish(first)
    assert code == 0 and json.loads(out)["verdict"] == "PASS", err
    assert json.loads(out)["restored"] is True


def test_a_claim_dies_with_its_holder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SIGKILL leaves no claim behind: the operating system drops the lock with the process."""
    cart = tmp_path / "c.img"
    dev = f"virtual:lto9?realtime=0&cartridge={cart}"
    first = start_paused(["scan", dev])
    os.kill(first.pid, signal.SIGKILL)
    first.wait(timeout=30)
    assert main(["tape-perf", dev, "--size", "4M", "--direction", "write"]) == 0
    capsys.readouterr()


def test_one_process_two_runs_on_one_drive(tmp_path: Path) -> None:
    """The GUI is one process: its second run on a drive is refused like another program's."""
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"
    with TapeDrive.open(dev) as drive, claimed(drive, "tape-perf"):
        with pytest.raises(DeviceInUse, match=re.escape(f"in use by tapediag tape-perf on {dev} (PID {os.getpid()}")):
            with claimed(drive, "assess"):
                pass
    with TapeDrive.open(dev) as drive, claimed(drive, "assess"):  # released: free again
        pass


def test_sg_and_st_nodes_of_one_device_share_a_claim_when_it_reports_no_identity(tmp_path: Path) -> None:
    """Without a WWN or a serial, the key is the SCSI address both nodes lead to in sysfs."""
    sysfs = tmp_path / "sys"
    hctl = sysfs / "devices" / "pci0000:00" / "host3" / "3:0:0:0"
    hctl.mkdir(parents=True)
    for cls, name in (("scsi_generic", "sg1"), ("scsi_tape", "nst0")):
        (sysfs / "class" / cls / name).mkdir(parents=True)
        (sysfs / "class" / cls / name / "device").symlink_to(hctl)
    mute = RecordingTransport()  # answers every INQUIRY with no data: no identity reported
    one = identify(mute, "/dev/sg1", sysfs_root=sysfs)
    assert one.key == identify(mute, "/dev/nst0", sysfs_root=sysfs).key == "scsi:3:0:0:0"
    assert path_key("/dev/sg2", sysfs_root=sysfs) != one.key
    assert path_key("iscsi://u%secret@127.0.0.1/iqn.x:t/1") == path_key("iscsi://127.0.0.1:3260/IQN.X:T/1")

"""The OS pass-through on a real Linux kernel (issue 13): st/sg nodes made by the kernel's
own SCSI stack, in a guest under qemu (``tests/kernel/guest.py``).

One boot runs ``scenario.sh`` (about a minute and a half under software emulation);
each test below reads what one of its steps recorded. Nothing here is a performance
figure.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.kernel.guest import GuestRun, GuestUnavailable, check_available, run_guest

# The guest boots under software emulation: about two minutes on a quiet machine, several on a
# loaded one. The module's one boot runs in the first test's setup, so that test gets the time.
pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(1200)]

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def guest(tmp_path_factory: pytest.TempPathFactory) -> GuestRun:
    try:
        check_available()
    except GuestUnavailable as err:
        pytest.skip(str(err))
    run = run_guest(HERE / "scenario.sh", tmp_path_factory.mktemp("guest"))
    assert run.returncode == 0, f"the guest scenario did not finish:\n{run.console[-3000:]}\n{run.log()[-3000:]}"
    return run


def _step(guest: GuestRun, name: str) -> tuple[int, str, str]:
    r = guest.out / "r"
    return int((r / f"{name}.rc").read_text()), (r / f"{name}.out").read_text(), (r / f"{name}.err").read_text()


def _one_line(err: str) -> None:
    """One error line (info: lines before it are the run's own notes)."""
    assert "Traceback" not in err, err
    assert len([line for line in err.splitlines() if line.startswith("tapediag")]) == 1, f"not one line: {err!r}"


def test_devices_finds_the_st_drive_and_its_sg_node(guest: GuestRun) -> None:
    code, out, err = _step(guest, "devices")
    assert code == 0, err
    tape_sg = (guest.out / "r" / "tape_sg").read_text().strip()
    drives = {d["device"]: d for d in json.loads(out)}
    assert "/dev/nst0" in drives, drives.keys()
    assert drives["/dev/nst0"]["alternative"] == tape_sg
    assert drives["/dev/nst0"]["product"] == "VIRTUAL-TAPE" and drives["/dev/nst0"]["is_tape"]


def test_info_decodes_the_same_through_st_sg_and_iscsi(guest: GuestRun) -> None:
    decoded, paths = {}, {}
    for name in ("info_nst", "info_sg", "info_iscsi"):
        code, out, err = _step(guest, name)
        info = json.loads(out)
        assert info["health"]["verdict"] == "Not assessed", (name, info["health"])
        assert code == info["health"]["exit_code"], (name, code)
        # The path's largest transfer is the path's own (issue 13.2): the kernel's nodes report their
        # SCSI host's sysfs limits, libiscsi has none to report; every other decoded field is the drive's.
        # The history block names this run and the runs before it, so it differs run to run.
        decoded[name] = {k: v for k, v in info.items() if k not in ("device", "run_id", "max_transfer", "history")}
        paths[name] = info["max_transfer"]
    assert decoded["info_nst"] == decoded["info_sg"] == decoded["info_iscsi"]
    for name in ("info_nst", "info_sg"):
        assert paths[name]["supported"] and "SCSI host" in paths[name]["source"], paths[name]
    assert paths["info_iscsi"] == {"supported": False, "reason": "not reported by this path"}
    assert decoded["info_nst"]["identity"]["product"] == "VIRTUAL-TAPE"


def test_a_disk_lun_is_refused_and_untouched(guest: GuestRun) -> None:
    disk_sg = (guest.out / "r" / "disk_sg").read_text().strip()
    for name in ("info_disk", "perf_disk"):
        code, out, err = _step(guest, name)
        assert code == 2, (name, code, err)
        _one_line(err)
        assert f"{disk_sg} is a disk (peripheral type 0), not a tape drive" in err
    before = (guest.out / "r" / "disk.sha.before").read_text()
    assert before == (guest.out / "r" / "disk.sha.after").read_text(), "the disk LUN's backing file changed"


@pytest.mark.parametrize("step", ["perf_variable", "perf_fixed"])
def test_write_and_verified_read_back(guest: GuestRun, step: str) -> None:
    code, out, err = _step(guest, step)
    assert code == 0, err
    result = json.loads(out)
    write, read = (p for p in result["phases"])
    assert write["bytes"] == read["bytes"] == 16 * 1024 * 1024
    assert read["verify_errors"] == 0 and read["verified_blocks"] > 0, read


def test_a_fixed_mode_test_leaves_the_drive_in_variable_mode_as_found(guest: GuestRun) -> None:
    code, out, err = _step(guest, "perf_fixed")
    assert code == 0, err
    assert json.loads(out)["settings"].startswith("drive settings put back: variable-block mode"), out[-400:]
    code, out, err = _step(guest, "mode_after_fixed")
    assert json.loads(out)["media"]["block_mode"] == "variable", out[:600]


def test_a_transfer_larger_than_the_hba_takes_is_named_not_a_dead_drive(guest: GuestRun) -> None:
    code, out, err = _step(guest, "perf_too_big")
    host_limits = (guest.out / "r" / "host_limits").read_text()
    assert code == 2, (err, host_limits)
    _one_line(err)
    assert "refused a 16 MiB transfer to /dev/nst0" in err and "went away" not in err, (err, host_limits)


def test_a_tape_holding_data_is_refused_and_unchanged(guest: GuestRun) -> None:
    code, out, err = _step(guest, "perf_refused")
    assert code == 3, err
    _one_line(err)
    assert "holds data" in err
    assert (guest.out / "r" / "tape.sha.before").read_text() == (guest.out / "r" / "tape.sha.after").read_text()


def test_a_tape_group_user_reaches_the_sg_node(guest: GuestRun) -> None:
    code, out, err = _step(guest, "user_info_sg")
    assert code == 12, (code, err)  # Not assessed: tgt reports no health pages
    assert "VIRTUAL-TAPE" in out


def test_a_tape_group_user_is_offered_the_sg_node_and_told_why_st_refuses(guest: GuestRun) -> None:
    """The st driver passes SG_IO through only with CAP_SYS_RAWIO (issue 13.1)."""
    tape_sg = (guest.out / "r" / "tape_sg").read_text().strip()
    code, out, err = _step(guest, "user_devices")
    assert code == 0, err
    drive = next(d for d in json.loads(out) if d["kind"] == "passthrough")
    assert drive["device"] == tape_sg and drive["alternative"] == "/dev/nst0" and drive["reachable"], drive
    code, out, err = _step(guest, "user_info_nst")
    assert code == 1, (code, err)
    _one_line(err)
    assert "CAP_SYS_RAWIO" in err and f"use {tape_sg}" in err and "INQUIRY" in err, err


def test_a_drive_vanishing_mid_write_is_one_line(guest: GuestRun) -> None:
    code, out, err = _step(guest, "vanish")
    assert code == 1, (code, err)
    assert "Traceback" not in err
    # The error is one line: the CLI's own ("tapediag: error: ...") when the drive vanished between
    # commands, or the run's ("error: write failed after N bytes: ...") when it vanished mid-write,
    # and it says the drive went away (not a SCSI dump), with the tape-position advice.
    lines = [line for line in err.splitlines() if line.startswith(("tapediag", "error:"))]
    assert len(lines) == 1, err
    assert "went away" in lines[0] and "tape position" in lines[0], err


def test_scan_reports_the_layout_tar_and_dd_wrote_through_st_and_writes_nothing(guest: GuestRun) -> None:
    """Issue 16: a cartridge written by other programs (tar, dd) through the kernel's st driver."""
    rc, out, err = _step(guest, "scan_foreign")
    assert rc == 0, err
    result = json.loads(out)
    tar_bytes = int((guest.out / "r" / "foreign_tar_bytes").read_text())
    tar_records = -(-tar_bytes // 65536)
    layout = [(f["blocks"], f["bytes"], f["min_block"], f["max_block"]) for f in result["files"]]
    assert layout == [(tar_records, tar_bytes, 65536, 65536), (10, 10 * 32768, 32768, 32768)], layout
    assert result["verdict"] == "keep", result["reasons"]
    r = guest.out / "r"
    assert (r / "tape.sha.before_scan").read_text() == (r / "tape.sha.after_scan").read_text(), "scan changed the tape"

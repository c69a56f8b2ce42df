"""The OS pass-through on a real Linux kernel (issue 13): st/sg nodes made by the kernel's
own SCSI stack, in a guest under qemu (``tests/kernel/guest.py``).

The session's one boot (``tests/kernel/session.py``) runs ``scenario.sh`` (about ninety seconds under
software emulation on a quiet machine: some fifty tapediag runs, most forked from one warm interpreter,
``warm.py``, as a fresh one spends seconds starting); each test below reads what one of its steps recorded.
Nothing here is a performance figure.
"""
from __future__ import annotations

import json
import re
import zipfile

import pytest

from app.drive import STATE_CHANGING_OPCODES
from tests.kernel.guest import GuestRun
from tests.kernel.session import KERNEL_TIMEOUT, KernelGuest

# The session's one boot runs in the setup of the first test that asks for it, so every test may need the time.
pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(KERNEL_TIMEOUT)]


@pytest.fixture(scope="module")
def guest(kernel_guest: KernelGuest) -> GuestRun:
    run = kernel_guest.run("passthrough")
    assert run.returncode == 0, f"the guest scenario did not finish:\n{run.console[-3000:]}\n{run.log()[-3000:]}"
    return run


def _step(guest: GuestRun, name: str) -> tuple[int, str, str]:
    r = guest.out / "r"
    return int((r / f"{name}.rc").read_text()), (r / f"{name}.out").read_text(), (r / f"{name}.err").read_text()


def _one_line(err: str) -> str:
    """One error line (info: lines before it are the run's own notes); returns it."""
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("tapediag")]
    assert len(lines) == 1, f"not one line: {err!r}"
    return lines[0]


def _read(guest: GuestRun, name: str) -> str:
    return (guest.out / "r" / name).read_text()


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
    tape_sg = _read(guest, "tape_sg").strip()
    # The node's own queue (issue 27 §4): the sg node's SG_GET_SG_TABLESIZE, one page each; st a page less.
    assert paths["info_sg"]["source"].startswith(f"{tape_sg}: 2048 segments (SG_GET_SG_TABLESIZE)"), paths
    assert paths["info_nst"]["source"].startswith(f"/dev/nst0: 2048 segments (SG_GET_SG_TABLESIZE of {tape_sg}"), paths
    assert paths["info_nst"]["max_bytes"] == paths["info_sg"]["max_bytes"] - 4096, paths
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


def test_the_reported_transfer_limit_is_what_the_kernel_takes(guest: GuestRun) -> None:
    """A READ of the reported size goes out; one page more is refused by the kernel (nothing sent),
    through st and sg alike, from a buffer allocated as the tape engine allocates its own."""
    probe = json.loads(_read(guest, "transfer_probe.out"))
    tape_sg = _read(guest, "tape_sg").strip()
    reported = {name: json.loads(_read(guest, f"{name}.out"))["max_transfer"]["max_bytes"] for name in ("info_nst", "info_sg")}
    assert probe["/dev/nst0"]["limit"] == reported["info_nst"] and probe[tape_sg]["limit"] == reported["info_sg"], probe
    for node, found in probe.items():
        assert found["at_limit"].startswith("sent: status"), (node, found)
        assert found["one_page_more"].startswith("refused: the OS or the HBA refused"), (node, found)
        assert "nothing was transferred" in found["one_page_more"], (node, found)


@pytest.mark.parametrize("mib", [8, 16])
def test_a_transfer_larger_than_the_path_takes_is_refused_before_writing(guest: GuestRun, mib: int) -> None:
    """The issue's refusals of 8 and 16 MiB on /dev/nst0 advised "at most 16 MiB": now refused before
    anything is written, with a size the path takes."""
    code, out, err = _step(guest, f"perf_too_big_{mib}")
    assert code == 2, err
    line = _one_line(err)
    assert f"the I/O size ({mib << 20:,} bytes) is larger than the largest transfer this path accepts" in line, line
    assert "nothing was written" in line and "use --io-size 7936 KiB or less" in line, line
    assert "went away" not in line and "16 MiB" not in line, line
    assert _read(guest, "tape.sha.before_big") == _read(guest, "tape.sha.after_big"), "the refused test wrote"


def test_a_test_at_the_reported_limit_runs_and_verifies(guest: GuestRun) -> None:
    code, out, err = _step(guest, "perf_at_limit_sg")
    assert code == 0, err
    write, read = json.loads(out)["phases"]
    assert write["bytes"] == read["bytes"] == 16 << 20
    assert read["verify_errors"] == 0 and read["verified_blocks"] > 0, read


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


def test_a_tape_group_user_who_names_the_st_node_is_served_through_the_sg_node(guest: GuestRun) -> None:
    """The st driver passes SG_IO through only with CAP_SYS_RAWIO (issue 13.1); tapediag knows the sg
    node beside it and uses it, saying so in one line (issue 27 §4)."""
    tape_sg = _read(guest, "tape_sg").strip()
    code, out, err = _step(guest, "user_devices")
    assert code == 0, err
    drive = next(d for d in json.loads(out) if d["kind"] == "passthrough")
    assert drive["device"] == tape_sg and drive["alternative"] == "/dev/nst0" and drive["reachable"], drive
    code, out, err = _step(guest, "user_info_nst")
    assert code == 12, (code, err)  # Not assessed, as through the sg node: tgt reports no health pages
    assert "VIRTUAL-TAPE" in out and "Traceback" not in err
    notes = [line for line in err.splitlines() if tape_sg in line]
    assert notes == [f"info: /dev/nst0 is served through {tape_sg}, the same drive's sg node: the kernel's st "
                     f"driver passes SCSI commands only with CAP_SYS_RAWIO"], err
    assert not [line for line in err.splitlines() if line.startswith("tapediag")], err


def test_without_access_to_the_sg_node_st_refuses_in_one_line_naming_it(guest: GuestRun) -> None:
    tape_sg = _read(guest, "tape_sg").strip()
    code, out, err = _step(guest, "user_info_nst_no_sg")
    assert code == 1, (code, err)
    line = _one_line(err)
    assert "CAP_SYS_RAWIO" in line and "INQUIRY" in line and f"give the user access to {tape_sg}" in line, line


def _lost_line(guest: GuestRun, step: str, device: str) -> str:
    """The run's one error line for a drive lost mid-write (the fault fired once tgtd had written 8 MiB)."""
    setup = guest.out / "r" / f"{step}.setup"
    assert not setup.exists(), setup.read_text()
    assert _read(guest, f"{step}.trigger").strip() == "hit", f"the {step} test ended before its fault"
    code, out, err = _step(guest, step)
    assert code == 1, (code, err)
    assert "Traceback" not in err
    # The run's own line ("error: write failed after N bytes: ...") or, between commands, the CLI's.
    lines = [line for line in err.splitlines() if line.startswith(("tapediag", "error:"))]
    assert len(lines) == 1, err
    line = lines[0]
    assert f"the connection to the drive at {device} was lost" in line and "tape position is now unknown" in line, line
    assert "status 0x" not in line and "below SCSI" not in line and "Host_status" not in line, line
    return line


def test_a_drive_vanishing_mid_write_is_one_line(guest: GuestRun) -> None:
    """The kernel's session logs out under a running test."""
    _lost_line(guest, "vanish", "/dev/nst0")


@pytest.mark.parametrize("node", ["nst", "sg"])
def test_a_target_dying_mid_write_is_one_connection_lost_line(guest: GuestRun, node: str) -> None:
    """tgtd killed under a running test, the kernel's session left waiting for recovery (issue 27 §4: was
    "failed below SCSI (host status 0x00, driver status 0x0e)", a host byte misread as a driver status)."""
    device = _read(guest, f"dead_{node}.node").strip()
    line = _lost_line(guest, f"dead_{node}", device)
    assert re.search(r"\((DID_TRANSPORT_DISRUPTED|DID_TRANSPORT_FAILFAST|DID_NO_CONNECT|DID_BAD_TARGET)\)", line), line


_MTX_LINE = re.compile(r"^\s*(?:Data Transfer Element (?P<drive>\d+)|Storage Element (?P<slot>\d+)(?P<ie> IMPORT/EXPORT)?)"
                       r":(?P<state>Full|Empty)(?:.*?VolumeTag\s*=\s*(?P<tag>\S*))?")


def _mtx(text: str) -> dict[str, str]:
    """``mtx status`` as element name (tapediag's: drive:N from 0, slot:N from 1, ie:N from 0) -> barcode
    ("" when empty). mtx numbers storage elements from 1, the mail slots after the slots."""
    elements, ies = {}, 0
    for line in text.splitlines():
        match = _MTX_LINE.match(line)
        if match is None:
            continue
        if match["drive"] is not None:
            name = f"drive:{match['drive']}"
        elif match["ie"]:
            name, ies = f"ie:{ies}", ies + 1
        else:
            name = f"slot:{match['slot']}"
        elements[name] = (match["tag"] or "") if match["state"] == "Full" else ""
    assert elements, f"mtx printed no elements: {text!r}"
    return elements


def _tapediag_library(out: str) -> dict[str, str]:
    return {e["name"]: e["barcode"] if e["full"] else "" for e in json.loads(out)["elements"] if e["type"] != "robot"}


def test_the_changer_through_the_kernel_reads_as_mtx_reads_it_before_and_after_moves(guest: GuestRun) -> None:
    before = _mtx(_read(guest, "mtx.before"))
    assert before["slot:1"] == "TGT001L6" and before["drive:0"] == "" and len(before) == 8, before
    code, out, err = _step(guest, "library")
    assert code == 0, err
    assert _tapediag_library(out) == before
    for step in ("library_move_in", "library_move_out"):
        code, out, err = _step(guest, step)
        assert code == 0, (step, err)
    moved = _mtx(_read(guest, "mtx.after_move_in"))
    assert moved == {**before, "slot:1": "", "drive:0": "TGT001L6"}, moved
    code, out, err = _step(guest, "library_after_move_in")
    assert _tapediag_library(out) == moved
    assert _mtx(_read(guest, "mtx.after_move_out")) == before


def test_library_test_through_the_kernel_passes_and_mtx_finds_every_cartridge_home(guest: GuestRun) -> None:
    code, out, err = _step(guest, "library_test")
    result = json.loads(out)
    assert code == 0 and result["verdict"] == "PASS", (err, result["reason"])
    assert len(result["moves"]) == 4 and not any(m["error"] for m in result["moves"]), result["moves"]
    assert {m["destination"] for m in result["moves"]} & {"drive:0", "drive:1"}, result["moves"]
    assert {m["barcode"] for m in result["moves"]} <= {"TGT001L6", "TGT002L6"}, result["moves"]  # never CLN001L1
    assert _mtx(_read(guest, "mtx.after_test")) == _mtx(_read(guest, "mtx.before"))


def _dispatched(guest: GuestRun, name: str) -> list[int]:
    """The opcodes the kernel dispatched while the trace ran (``scsi:scsi_dispatch_cmd_start``), all LUNs;
    the trace must have kept every event (a lost one could have been a WRITE)."""
    if (guest.out / "r" / "trace.unavailable").exists():
        pytest.skip(_read(guest, "trace.unavailable"))
    text = _read(guest, name)
    kept = re.search(r"entries-in-buffer/entries-written: (\d+)/(\d+)", text)
    assert kept is not None and kept[1] == kept[2], "the trace lost events"
    return [int(raw, 16) for raw in re.findall(r"scsi_dispatch_cmd_start: .* raw=([0-9a-f]{2})", text)]


#: Each read-only step and its exit status: 12 (info: Not assessed on tgt), 0 (read-only commands
#: that completed), 3 (a test or move refused before anything was sent).
READ_ONLY_STEPS = {"ro_info": 12, "ro_ticket": 0, "ro_scan": 0, "ro_assess": 3, "ro_perf": 3, "ro_library": 0,
                   "ro_library_move": 3, "ro_library_test": 3, "ro_library_env": 3}


def test_a_read_only_session_dispatches_nothing_state_changing_through_the_kernel(guest: GuestRun) -> None:
    """--read-only before and after the command and TAPEDIAG_READ_ONLY=1, on the st node, the sg node and
    the changer: what the kernel itself dispatched holds no command that writes or changes state."""
    for step, expected in READ_ONLY_STEPS.items():
        code, out, err = _step(guest, step)
        assert code == expected, (step, code, err)
        assert "Traceback" not in err, (step, err)
    opcodes = _dispatched(guest, "trace.read_only")
    assert {0x08, 0xB8} <= set(opcodes), "the trace did not see the session's READ and READ ELEMENT STATUS"
    sent = {STATE_CHANGING_OPCODES[op] for op in opcodes if op in STATE_CHANGING_OPCODES}
    assert not sent, f"state-changing commands dispatched in a read-only session: {sorted(sent)}"
    assert _mtx(_read(guest, "mtx.after_read_only")) == _mtx(_read(guest, "mtx.before"))


def test_assess_and_ticket_through_the_kernel(guest: GuestRun) -> None:
    """The assessment writes, reads back and verifies through st (its trace, the read-only test's control,
    holds its WRITEs and self-test); the ticket captures the drive's pages. tgt reports no health pages
    (no TapeAlert, no error counters): 'info' says Not assessed, and so does the assessment, whose write,
    read-back and verify still pass (issue 25: one drive, one answer)."""
    code, out, err = _step(guest, "assess")
    result = json.loads(out)
    assert code == result["exit_code"] == 12 and result["verdict"] == "NOT ASSESSED", (err, result["verdict"])
    health = next(step for step in result["steps"] if step["name"] == "TapeAlert and device status")
    assert health["outcome"] == "not assessed", health
    verify = next(step for step in result["steps"] if step["name"] == "write, read back and verify")
    assert verify["outcome"] == "pass", verify
    if not (guest.out / "r" / "trace.unavailable").exists():
        assert {0x0A, 0x1D} <= set(_dispatched(guest, "trace.assess")), "the trace missed the WRITEs/SEND DIAGNOSTIC"
    code, out, err = _step(guest, "ticket")
    assert code == 0, err
    names = zipfile.ZipFile(guest.out / "r" / "ticket.zip").namelist()
    assert {"inquiry.hex", "vpd/page_80h.hex", "mode/all_pages.hex", "decoded/info.json"} <= set(names), names


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

"""Drive assessment (issue 16): a verdict per step from evidence and tests, the overall one from rules."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.assess import AssessParams, DriveAssessment, Outcome, Verdict
from app.cli import main
from app.drive import TapeDrive
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport, medium_error_write

MiB = 1 << 20


def _steps(result) -> dict[str, Outcome]:  # type: ignore[no-untyped-def]
    return {s.name: s.outcome for s in result.steps}


def test_a_healthy_drive_passes_every_step_when_the_run_streams(tmp_path: Path) -> None:
    # Real time, LTO-5 (4 MiB buffer in the model; the rate rule wants twice the rated 256 MiB written):
    # 576 MiB stream for about 4.3 s each way.
    with TapeDrive.open(f"virtual:lto5?buffer=4M&cartridge={tmp_path / 'c.img'}") as drive:
        result = DriveAssessment(drive, AssessParams(size=576 * MiB)).run()
    assert result.verdict is Verdict.PASS, result.steps
    for step in result.steps:
        # On a loaded machine the host may not keep up with the drive (a HOST note with the rate it managed),
        # or the virtual drive fall behind its model (a HOST note naming this machine; a back-hitch it made has
        # no host rate to give): never a drive warning.
        assert step.outcome is Outcome.PASS or (step.outcome is Outcome.HOST and (
            "managed" in step.reason or "this machine" in step.reason)), result.steps
    assert "log/page_00h" in result.evidence and result.next_action == "No action needed."


@pytest.mark.parametrize(("option", "verdict", "step", "code"), [
    ("selftest=fail", Verdict.FAIL, "drive self-test", 11),
    ("tapealert=3", Verdict.PASS_WITH_WARNINGS, "TapeAlert and device status", 10),
])
def test_a_failing_self_test_fails_and_a_warning_flag_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            option: str, verdict: Verdict, step: str, code: int) -> None:
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&{option}"
    assert main(["assess", dev, "--size", "8M", "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == verdict.value and out["exit_code"] == code
    assert next(s for s in out["steps"] if s["name"] == step)["outcome"] == ("fail" if code == 11 else "warn")
    if code == 11:
        assert "DIAGNOSTIC FAILURE" in next(s for s in out["steps"] if s["name"] == step)["reason"].upper()
        assert "support case" in out["next_action"]


def test_a_read_only_session_refuses_the_assessment_before_any_command(tmp_path: Path) -> None:
    from app.drive import ReadOnlyRefusal
    from tests.helpers.faults import RecordingTransport

    for no_write in (False, True):  # the self-test (SEND DIAGNOSTIC) changes state too
        transport = RecordingTransport()
        with pytest.raises(ReadOnlyRefusal, match="assessment was not started"):
            DriveAssessment(TapeDrive(transport, read_only=True), AssessParams(no_write=no_write)).run()
        assert transport.calls == []


def test_no_write_is_not_a_pass_and_a_cartridge_holding_data_is_not_written(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The verdict rests on the write, read back and verify: without it (skipped, or refused because the cartridge
    holds data) nothing passes, and the next line says what to do."""
    cart = tmp_path / "c.img"
    dev = f"virtual:lto9?realtime=0&cartridge={cart}"
    assert main(["assess", dev, "--no-write"]) == 12
    text = capsys.readouterr().out
    assert "assessment: NOT ASSESSED" in text and "[skip] write, read back and verify" in text
    assert "next: Load a scratch cartridge and assess virtual:lto9?" in text and "again with its write step" in text
    assert "--" not in text.split("next:")[1].splitlines()[0]  # words for the CLI and the GUI alike (issue 31)
    assert main(["tape-perf", dev, "--size", "4M", "--direction", "write"]) == 0  # now it holds data
    capsys.readouterr()
    before = hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest()
    assert main(["assess", dev, "--size", "8M", "--json"]) == 12
    out = json.loads(capsys.readouterr().out)
    step = next(s for s in out["steps"] if s["name"] == "write, read back and verify")
    assert out["verdict"] == "NOT ASSESSED" and out["exit_code"] == 12
    assert step["outcome"] == "not assessed" and "holds data" in step["reason"].lower() + step["action"].lower()
    assert "--start" not in json.dumps(out)  # tape-perf's option, which assess does not have
    assert out["next_action"] == "Load a scratch cartridge and run the assessment again (or --force if its data may " \
                                 "be destroyed)."
    assert hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest() == before


def test_a_tapealert_raised_mid_test_fails_it_and_the_evidence_shows_it_was_not_there_before(tmp_path: Path) -> None:
    # 04h (media) appears once 4 MiB of the 8 MiB write have gone by: after the evidence was captured.
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&alertat=4@4M"
    with TapeDrive.open(dev) as drive:
        result = DriveAssessment(drive, AssessParams(size=8 * MiB)).run()
    steps = {s.name: s for s in result.steps}
    assert steps["TapeAlert and device status"].outcome is Outcome.PASS  # the evidence, taken before the test
    assert steps["write, read back and verify"].outcome is Outcome.PASS  # the data itself came back right
    during = steps["errors and TapeAlert during the test"]
    assert during.outcome is Outcome.FAIL and "04h" in during.reason
    assert result.verdict is Verdict.FAIL and result.exit_code == 11
    assert "support case" in result.next_action and "errors and TapeAlert during the test" in result.next_action


def test_a_worn_head_passes_with_warnings_and_says_to_clean(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # wornhead=200: the drive corrects 200 errors per GB it writes or reads; the data is still right.
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&wornhead=200"
    assert main(["assess", dev, "--size", "64M", "--json"]) == 10
    out = json.loads(capsys.readouterr().out)
    steps = {s["name"]: s for s in out["steps"]}
    assert out["verdict"] == "PASS WITH WARNINGS"
    assert steps["write, read back and verify"]["outcome"] == "pass"
    during = steps["errors and TapeAlert during the test"]
    assert during["outcome"] == "warn" and "corrected errors" in during["reason"]
    assert int(during["reason"].split()[0]) == 2 * int(64 * MiB * 200 / 1e9)  # written, and read back
    assert out["next_action"].startswith("Clean the drive")
    # The same drive with a clean head: no warning from the counters.
    clean = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'd.img'}"
    assert main(["assess", clean, "--size", "64M", "--json"]) == 0
    steps = {s["name"]: s for s in json.loads(capsys.readouterr().out)["steps"]}
    assert steps["errors and TapeAlert during the test"]["outcome"] == "pass"


def test_a_medium_error_while_writing_fails_the_assessment(tmp_path: Path) -> None:
    inner = open_virtual(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}")
    faulty = FaultyTransport(inner).inject(medium_error_write(), opcode=0x0A, after=3)
    with TapeDrive(faulty) as drive:
        result = DriveAssessment(drive, AssessParams(size=16 * MiB)).run()
    assert result.verdict is Verdict.FAIL
    assert _steps(result)["write, read back and verify"] is Outcome.FAIL


def test_the_drive_is_left_in_the_block_mode_it_was_found_in(tmp_path: Path) -> None:
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}") as drive:
        drive.wait_ready(timeout=10)
        drive.set_block_size(65536)
        DriveAssessment(drive, AssessParams(size=8 * MiB)).run()
        assert drive.block_size() == 65536


@pytest.mark.tgt
def test_tgt_states_what_it_cannot_assess_and_a_disk_is_refused(tgt_factory, capsys) -> None:  # type: ignore[no-untyped-def]
    tape = tgt_factory()
    code = main(["assess", tape.url, "--size", "8M", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == out["exit_code"]
    steps = {s["name"]: s for s in out["steps"]}
    assert steps["TapeAlert and device status"]["outcome"] == "not assessed"
    assert steps["write, read back and verify"]["outcome"] == "pass"
    assert steps["errors and TapeAlert during the test"]["outcome"] == "not assessed"
    disk = tgt_factory(device_type="disk", size_mb=8)
    before = hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest()
    assert main(["assess", disk.url]) == 2
    assert "not a tape drive" in capsys.readouterr().err
    assert hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest() == before

"""Issue 25 §2-3, 27 §1: the assessment passes only on evidence, names what the host caused, and a cancel is no FAIL;
a TapeAlert flag left set by a tape test is part of its verdict. Checked in the CLI, ``show`` and page 1 of the PDF."""
from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest

from app.assess import AssessParams, DriveAssessment, Outcome, Verdict
from app.cli import main
from app.events import CancelToken, Progress
from app.assess.engine import AssessResult
from app.assess.kind import ASSESSMENT
from app.execute import execute
from app.scan.kind import MEDIA_SCAN
from app.scan.results import CartridgeVerdict, ScanResult
from tests.helpers.kinds import findings

MiB = 1 << 20


def _page_one(run_id: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    pdf = tmp_path / f"run{run_id}.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    capsys.readouterr()
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return " ".join(text.split())


def _run_id(text: str) -> int:
    return int(text.rsplit("Recorded as run ", 1)[1].split()[0])


@pytest.mark.slow
def test_a_host_that_does_not_keep_up_is_a_host_note_and_the_healthy_drive_passes(tmp_path: Path,
                                                                                   capsys) -> None:  # type: ignore[no-untyped-def]
    """A busy host: five times during the write it leaves the drive waiting 0.3 s (the progress events come
    between bursts of WRITEs). LTO-5 with a 4 MiB buffer runs dry at once and back-hitches: the host's doing, said
    with the rate it managed, not "PASS WITH WARNINGS - 5 back-hitches"."""
    busy = {"left": 5}

    def slow_host(event: object) -> None:
        if isinstance(event, Progress) and event.phase == "write" and event.done_bytes > 64 * MiB and busy["left"]:
            busy["left"] -= 1
            time.sleep(0.3)  # the host busy elsewhere, between two WRITEs: no command is outstanding

    device = f"virtual:lto5?buffer=4M&cartridge={tmp_path / 'c.img'}"
    params = AssessParams(size=576 * MiB)
    run = execute(ASSESSMENT, params, device, cancel=CancelToken(), sink=slow_host)
    run_id, result = run.run_id, run.result
    steps = {s.name: s for s in result.steps}
    assert busy["left"] == 0
    assert result.verdict is Verdict.PASS and result.exit_code == 0, result.steps
    assert not [s for s in result.steps if s.outcome in (Outcome.WARN, Outcome.FAIL)]
    # Each HOST note names who: the host, with the rate it managed, or this machine (the virtual drive fell
    # behind its own model, by the lag it measured in this same run: on a loaded machine it may have lagged
    # across the very gaps the test made, and its lag is then the first cause, app.tapeperf.results.stall_cause).
    host = [s for s in result.steps if s.outcome is Outcome.HOST]
    assert host and all("managed" in s.reason or "this machine" in s.reason for s in host), result.steps
    assert steps["back-hitches while the host kept up"].outcome is Outcome.PASS
    stalls = [s for ph in result.tape["phases"] for s in ph["stalls"]]  # type: ignore[index]
    assert stalls and all(s["cause"] in ("host", "emulator") for s in stalls if s["t"] < 5), stalls
    if any(s["cause"] == "host" for s in stalls):
        assert "the host did not keep up: it managed" in steps["back-hitches the host caused"].reason
    else:  # every stall came while the virtual drive lagged: this machine's, said so
        assert "this machine" in steps["back-hitches the host caused"].reason
    assert main(["show", str(run_id)]) == 0
    shown = capsys.readouterr().out
    assert "assessment: PASS" in shown and "[HOST]" in shown and "WARN" not in shown
    page = _page_one(run_id, tmp_path, capsys)
    assert "PASS" in page and "HOST (DURING THE ASSESSMENT)" in page
    assert "did not keep up" in page or "fell behind its own model" in page  # who, as the steps say it
    assert ("it managed" in page) == any("managed" in s.reason for s in host) and " mb/s" not in page
    assert "PASS WITH WARNINGS" not in page


def test_a_cancelled_assessment_is_not_assessed_never_fail(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    cancel = CancelToken()

    def cancel_mid_write(event: object) -> None:
        if isinstance(event, Progress) and event.phase == "write" and event.done_bytes >= 16 * MiB:
            cancel.cancel()

    device = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"
    params = AssessParams(size=256 * MiB)
    run = execute(ASSESSMENT, params, device, cancel=cancel, sink=cancel_mid_write)
    run_id, result = run.run_id, run.result
    assert result.status == "cancelled" and result.verdict is Verdict.NOT_ASSESSED and result.exit_code == 12
    assert result.step("write, read back and verify").outcome is Outcome.NOT_RUN  # type: ignore[union-attr]
    assert "support case" not in result.next_action and result.next_action.startswith("Cancelled before the end")
    from app.history import History

    with History.open() as hist:
        assert hist.get_run(run_id, samples=False).status == "cancelled"
    assert main(["show", str(run_id)]) == 0
    shown = capsys.readouterr().out
    assert "assessment: NOT ASSESSED (cancelled)" in shown and "FAIL" not in shown
    page = _page_one(run_id, tmp_path, capsys)
    assert "NOT ASSESSED (cancelled)" in page and "FAIL" not in page and "support case" not in page


def test_a_cancel_before_the_write_step_writes_nothing_and_is_not_assessed(tmp_path: Path) -> None:
    from app.drive import TapeDrive

    cart = tmp_path / "c.img"
    cancel = CancelToken()
    cancel.cancel()  # Ctrl-C while the evidence was being captured
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={cart}") as drive:
        result = DriveAssessment(drive, AssessParams(size=8 * MiB)).run(cancel=cancel)
    assert result.status == "cancelled" and result.verdict is Verdict.NOT_ASSESSED
    assert result.tape is None and result.step("drive self-test") is None


def test_tapealert_raised_mid_tape_perf_is_in_the_exit_code_show_and_page_one(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """03h hard error (Warning) and 14h cleaning required (Critical) raised 64 MiB into the test."""
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&alertat=3,20@64M"
    assert main(["tape-perf", dev, "--size", "128M"]) == 10  # Attention, as 'tapediag info' rates these flags
    text = capsys.readouterr().out
    assert "TapeAlert after the test: 03h Hard error (Warning), 14h Cleaning required (Critical): Attention" in text
    assert "what to do: The drive needs cleaning" in text
    run_id = _run_id(text)
    assert main(["show", str(run_id)]) == 0
    assert "14h Cleaning required (Critical): Attention" in capsys.readouterr().out
    page = _page_one(run_id, tmp_path, capsys)
    assert "DRIVE ALARMS DURING THE TEST" in page and "Attention: TapeAlert 03h Hard error (Warning), 14h Cleaning " \
                                                       "required (Critical)" in page
    # The same run without the flags is a clean exit.
    assert main(["tape-perf", f"virtual:lto9?realtime=0&cartridge={tmp_path / 'd.img'}", "--size", "128M"]) == 0


def test_tapealert_raised_mid_assessment_is_named_on_page_one(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}&alertat=4@4M"
    assert main(["assess", dev, "--size", "8M"]) == 11
    run_id = _run_id(capsys.readouterr().out)
    page = _page_one(run_id, tmp_path, capsys)
    assert "FAIL" in page and "TapeAlert 04h Media (Critical)" in page


def test_the_verdicts_tone_is_the_reports_in_the_gui_too() -> None:
    """One tone per verdict, in one place (the kinds' findings): what the PDF prints is what the panel colours."""
    pytest.importorskip("PySide6")
    from ui.panels.verdictpanel import TONE_SEVERITY, verdict_severity

    def assessed(verdict: Verdict, partial: bool, status: str) -> AssessResult:
        return AssessResult("virtual:lto9", {}, verdict=verdict, partial=partial, status=status)

    cases = [(assessed(Verdict.PASS, True, "complete"), "good"),  # self-test unknown
             (assessed(Verdict.NOT_ASSESSED, True, "complete"), "none"),
             (assessed(Verdict.ATTENTION, True, "complete"), "warn"),
             (assessed(Verdict.FAIL, False, "cancelled"), "none")]
    for result, tone in cases:
        assert ASSESSMENT.findings is not None and ASSESSMENT.findings(result)[0].tone == tone
        assert verdict_severity(ASSESSMENT, result) == TONE_SEVERITY[tone]
    scan = ScanResult("virtual:lto9", {}, verdict=CartridgeVerdict.CHECK_AGAIN, reasons=["seen once"])
    assert MEDIA_SCAN.findings is not None and MEDIA_SCAN.findings(scan)[0].tone == "warn"
    assert verdict_severity(MEDIA_SCAN, scan) == "warning"


@pytest.mark.tgt
def test_info_and_assess_agree_on_a_drive_that_reports_no_health_pages(tgt_factory, capsys) -> None:  # type: ignore[no-untyped-def]
    """tgt answers no LOG SENSE: 'info' says Not assessed (12), and so does 'assess --no-write', from info's rule,
    with an action for its Next line."""
    tape = tgt_factory()
    assert main(["info", tape.url]) == 12
    capsys.readouterr()
    assert main(["assess", tape.url, "--no-write", "--json"]) == 12
    out = json.loads(capsys.readouterr().out)
    health = next(s for s in out["steps"] if s["name"] == "TapeAlert and device status")
    assert out["verdict"] == "NOT ASSESSED" and health["outcome"] == "not assessed"
    assert health["reason"].startswith("'tapediag info' says Not assessed: the drive did not report TapeAlert")
    assert out["next_action"].startswith("Nothing could be read to judge the drive: load a cartridge and run "
                                         "'tapediag info' again on a path that passes log pages.")
    (finding,) = findings("assessment", out)
    assert finding.words == "NOT ASSESSED" and finding.tone == "none"

"""The library exerciser (issue 17): timed moves, the first robotics error, everything put back.

On the virtual library (its ``library.json`` is the ground truth of where each cartridge
is) and on tgt's changer (where the drive LUNs and a second inventory are). Bad input is
one line and exit 2 before a run is recorded.
"""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from app.cli import main
from app.drive import set_read_only_session
from app.events import CancelToken, Event, Message
from app.history import History
from app.libtest import LibraryTest, LibraryTestParams, Verdict
from app.library import Changer
from native.virtual.library import VirtualLibrary
from tests.helpers.tgt import show_blocks
from tests.helpers.tgt_library import TgtLibraryFactory


def _dev(tmp_path: Path, **extra: str) -> str:
    opts = {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "6", "ie": "1", "realtime": "0", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _state(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "lib" / "library.json").read_text())["contents"]


def _fresh(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["library", _dev(tmp_path)]) == 0  # a new library: 5 scratch cartridges and a cleaner
    capsys.readouterr()
    VirtualLibrary(_dev(tmp_path)).save()  # its file, to compare with (a listing writes none)
    return _state(tmp_path)


def _runs() -> list:
    with History.open() as hist:
        return hist.list_runs()


def test_a_healthy_library_passes_with_every_move_timed_and_every_cartridge_home(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    assert main(["library-test", _dev(tmp_path), "--moves", "5", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == "PASS" and res["exit_code"] == 0 and res["restored"] is True
    moves = res["moves"]
    # 5 exercised moves, then the one that puts the 3rd cartridge back; both drives used; no cleaner moved.
    assert [(m["barcode"], m["source"], m["destination"], m["returning"]) for m in moves] == [
        ("TD0000L9", "slot:1", "drive:0", False), ("TD0001L9", "slot:2", "drive:1", False),
        ("TD0000L9", "drive:0", "slot:1", False), ("TD0001L9", "drive:1", "slot:2", False),
        ("TD0002L9", "slot:3", "drive:1", False), ("TD0002L9", "drive:1", "slot:3", True)]  # round 2 starts at drive:1
    assert all(m["seconds"] is not None and m["seconds"] >= 0 and m["error"] is None for m in moves)
    stats = res["stats"]
    assert stats["min"] <= stats["median"] <= stats["max"]
    assert res["skipped"] == ["CLN005L1 in slot:6 (cleaning cartridge)"]
    assert _state(tmp_path) == before


def test_the_run_is_in_history_show_and_the_pdf_through_its_kind(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _fresh(tmp_path, capsys)
    assert main(["library-test", _dev(tmp_path), "--moves", "2", "--drives", "drive:1"]) == 0
    printed = capsys.readouterr().out
    (run,) = [r for r in _runs() if r.kind == "library-test"]
    assert main(["history"]) == 0
    assert "PASS: 2 moves, median" in capsys.readouterr().out
    assert main(["show", str(run.id)]) == 0
    shown = capsys.readouterr().out
    assert "Library exerciser on virtual:library" in shown
    assert "TD0000L9 slot:1 -> drive:1" in shown and "move time: min" in shown
    assert [ln for ln in printed.splitlines() if "->" in ln] == [ln for ln in shown.splitlines() if "->" in ln]
    pdf = tmp_path / "lib.pdf"
    assert main(["report", str(run.id), "-o", str(pdf)]) == 0
    text = " ".join(subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "Library exerciser" in text and "PASS" in text and "every cartridge back home" in text


def test_a_robot_fault_mid_run_stops_the_exercise_and_the_cartridge_in_the_drive_goes_home(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    # Move 2 (TD0001L9 into drive:1) fails while TD0000L9 sits in drive:0.
    assert main(["library-test", _dev(tmp_path, robotfault="2"), "--moves", "8", "--json"]) == 11
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == "FAIL" and res["status"] == "complete"
    assert "robotics error on move 2 (TD0001L9 slot:2 -> drive:1)" in res["reason"]
    assert "HARDWARE ERROR" in res["reason"] and "(15/01)" in res["reason"]
    moves = [(m["barcode"], m["source"], m["destination"], m["returning"], m["error"] is not None)
             for m in res["moves"]]
    assert moves == [("TD0000L9", "slot:1", "drive:0", False, False), ("TD0001L9", "slot:2", "drive:1", False, True),
                     ("TD0000L9", "drive:0", "slot:1", True, False)]  # nothing exercised after the fault
    assert res["restored"] is True and _state(tmp_path) == before


def test_a_robot_that_stays_broken_leaves_a_cartridge_in_a_drive_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    assert main(["library-test", _dev(tmp_path, robotfault="2,3"), "--moves", "8"]) == 11
    out = capsys.readouterr().out
    assert "library test: FAIL - robotics error on move 2" in out
    assert "TD0000L9 drive:0 -> slot:1 (putting back), drive unloaded first: MOVE MEDIUM: HARDWARE ERROR" in out
    assert "final inventory: TD0000L9 is in drive:0, not in its home slot:1" in out
    state = _state(tmp_path)
    assert state["500"] == "TD0000L9" and state["1000"] is None  # exactly what the report says
    assert {k: v for k, v in state.items() if k not in ("500", "1000")} == \
        {k: v for k, v in before.items() if k not in ("500", "1000")}
    (run,) = [r for r in _runs() if r.kind == "library-test"]
    assert run.status == "complete"


def test_a_cancel_puts_back_what_is_out_and_is_not_assessed(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    cancel = CancelToken()

    def sink(event: Event) -> None:
        if isinstance(event, Message) and event.text.startswith("move 1:"):
            cancel.cancel()

    with Changer.open(_dev(tmp_path)) as changer:
        result = LibraryTest(changer, LibraryTestParams(moves=10)).run(sink, cancel)
    assert result.status == "cancelled" and result.verdict is Verdict.NOT_ASSESSED and result.exit_code == 12
    assert [(m.source, m.destination, m.returning) for m in result.moves] == [("slot:1", "drive:0", False),
                                                                             ("drive:0", "slot:1", True)]
    assert result.restored and _state(tmp_path) == before


@pytest.mark.parametrize(("argv", "words"), [
    (["--slots", "slot:6"], "no cartridge to move"),  # only the cleaner chosen
    (["--slots", "slot:1"], "no empty drive to exercise"),  # after both drives were loaded below
])
def test_nothing_to_exercise_is_not_assessed(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                             words: str) -> None:
    _fresh(tmp_path, capsys)
    if "drive" in words:
        assert main(["library", _dev(tmp_path), "--move", "slot:2", "drive:0"]) == 0
        assert main(["library", _dev(tmp_path), "--move", "slot:3", "drive:1"]) == 0
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library-test", _dev(tmp_path), *argv]) == 12
    out = capsys.readouterr().out
    assert f"library test: NOT ASSESSED - {words}" in out
    assert _state(tmp_path) == before


@pytest.mark.parametrize(("argv", "words"), [
    (["--slots", "slot:2"], "slots: slot:2 (address 1001) is empty: nothing to move"),
    (["--drives", "drive:0"], "drives: drive:0 (address 500) already holds TD0000L9; the exerciser uses only "
                              "empty drives"),
    (["--slots", "4242"], "slots: element address 4242 is not in this library"),
    (["--drives", "slot:3"], "drives: slot:3 is a slot, not a drive"),
    (["--slots", "slot:99"], "slots: slot:99: the library has 6 slot elements"),
    (["--slots", "shelf"], "slots: 'shelf' names no element (use slot:N, drive:N, ie:N or an element address)"),
    (["--moves", "0"], "moves: must be between 1 and 10,000"),
    (["--moves", "ten"], "moves: 'ten' is not a whole number"),
    (["--slots", "slot:1,,slot:3"], "slots: element names separated by commas, e.g. slot:1,slot:2 or drive:0"),
])
def test_bad_input_is_one_line_exit_2_and_nothing_moves(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        argv: list[str], words: str) -> None:
    _fresh(tmp_path, capsys)
    assert main(["library", _dev(tmp_path), "--move", "slot:2", "ie:0"]) == 0  # slot:2 empty
    assert main(["library", _dev(tmp_path), "--move", "slot:1", "drive:0"]) == 0  # drive:0 full
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library-test", _dev(tmp_path), *argv]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0] == f"tapediag: error: {words}", err
    assert _state(tmp_path) == before and not [r for r in _runs() if r.kind == "library-test"]


def test_a_tape_drive_is_not_a_changer_and_gets_inquiry_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["library-test", "virtual:lto9?realtime=0"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is a tape device (peripheral type 1), not a media changer" in err[0], err
    assert not _runs()


def test_a_read_only_session_refuses_before_the_robot_moves(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    try:
        assert main(["--read-only", "library-test", _dev(tmp_path)]) == 3
    finally:
        set_read_only_session(False)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("tapediag: refused:") and "MOVE MEDIUM" in err[0], err
    assert _state(tmp_path) == before and not _runs()


# -- tgt's changer ------------------------------------------------------------------------


def _tgt_state(url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[bool, str]]:
    assert main(["library", url, "--json"]) == 0
    return {e["name"]: (e["full"], e["barcode"]) for e in json.loads(capsys.readouterr().out)["elements"]}


def test_tgt_library_passes_and_every_cartridge_is_home(tgt_library_factory: TgtLibraryFactory,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=5, ie=1, barcodes=("TGT001L6", "TGT002L6", "TGT003L6", "CLN001L1"))
    before = _tgt_state(lib.url, capsys)
    assert main(["library-test", lib.url, "--moves", "6", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == "PASS" and res["restored"] is True and res["drives"] == ["drive:0", "drive:1"]
    assert len([m for m in res["moves"] if not m["returning"]]) == 6
    assert {m["barcode"] for m in res["moves"]} == {"TGT001L6", "TGT002L6", "TGT003L6"}
    assert all(m["seconds"] > 0 for m in res["moves"]) and res["stats"]["max"] < 10
    assert _tgt_state(lib.url, capsys) == before  # a second READ ELEMENT STATUS, from another session
    for barcode in ("TGT001L6", "TGT002L6", "TGT003L6"):  # moved, never written
        assert [r.type for r in show_blocks(lib.slot_file(barcode))] == ["BOT", "EOD"]


def test_tgt_robot_fault_mid_run_is_reported_and_nothing_is_left_out(tgt_library_factory: TgtLibraryFactory,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    # GONE01L6 has no tape file: tgt's robot cannot load it and answers 04/15/01 (docs/tgt-changer.md).
    lib = tgt_library_factory(drives=2, slots=4, ie=0, barcodes=("TGT001L6", "GONE01L6", "TGT003L6"),
                              missing=("GONE01L6",))
    before = _tgt_state(lib.url, capsys)
    assert main(["library-test", lib.url, "--moves", "6", "--json"]) == 11
    res = json.loads(capsys.readouterr().out)
    assert res["verdict"] == "FAIL" and res["restored"] is True
    assert res["reason"].startswith("robotics error on move 2 (GONE01L6 slot:2 -> drive:1): MOVE MEDIUM: "
                                    "HARDWARE ERROR") and "(15/01)" in res["reason"]
    assert [(m["barcode"], m["destination"], m["returning"]) for m in res["moves"]] == [
        ("TGT001L6", "drive:0", False), ("GONE01L6", "drive:1", False), ("TGT001L6", "slot:1", True)]
    assert _tgt_state(lib.url, capsys) == before


def test_tgt_drive_lun_is_not_a_changer(tgt_library_factory: TgtLibraryFactory,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=1, slots=2, ie=0, barcodes=("TGT001L6",))
    before = _tgt_state(lib.url, capsys)
    assert main(["library-test", lib.drive_url(0)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "is a tape device (peripheral type 1), not a media changer" in err[0], err
    assert _tgt_state(lib.url, capsys) == before and not _runs()


def test_tgt_drives_named_by_serial_are_unloaded_before_each_move_out(tgt_library_factory: TgtLibraryFactory,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=3, ie=0, barcodes=("TGT001L6", "TGT002L6"))
    for url in (lib.drive_url(0), lib.drive_url(1)):  # the drives a technician has added
        assert main(["devices", "--add-iscsi", url, "--no-probe"]) == 0
    capsys.readouterr()
    before = _tgt_state(lib.url, capsys)
    assert main(["library-test", lib.url, "--moves", "4", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    # drive:0's identifier names LUN 1's serial; drive:1's is cut short by tgt (docs/tgt-changer.md): not guessed.
    assert res["drive_devices"] == {"drive:0": lib.drive_url(0)}
    assert [(m["source"], m["unloaded"]) for m in res["moves"]] == [
        ("slot:1", False), ("slot:2", False), ("drive:0", True), ("drive:1", False)]
    assert res["verdict"] == "PASS" and _tgt_state(lib.url, capsys) == before
    assert main(["library-test", lib.url, "--moves", "2", "--no-unload", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["drive_devices"] == {} and not any(m["unloaded"] for m in res["moves"])


def test_one_cartridge_still_visits_every_drive(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = _fresh(tmp_path, capsys)
    assert main(["library-test", _dev(tmp_path), "--slots", "slot:4", "--moves", "6", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert [(m["source"], m["destination"]) for m in res["moves"]] == [
        ("slot:4", "drive:0"), ("drive:0", "slot:4"), ("slot:4", "drive:1"), ("drive:1", "slot:4"),
        ("slot:4", "drive:0"), ("drive:0", "slot:4")]
    assert res["verdict"] == "PASS" and _state(tmp_path) == before


def test_a_barcode_found_twice_is_moved_from_one_slot_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _fresh(tmp_path, capsys)
    state_file = tmp_path / "lib" / "library.json"
    saved = json.loads(state_file.read_text())
    saved["contents"]["1003"] = "TD0000L9"  # slot:4 carries slot:1's label (a mislabelled cartridge)
    state_file.write_text(json.dumps(saved))
    assert main(["library-test", _dev(tmp_path), "--slots", "slot:1,slot:4", "--moves", "4", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["skipped"] == ["TD0000L9 in slot:4 (the same barcode is in another slot)"]
    assert {m["source"] for m in res["moves"] if not m["source"].startswith("drive")} == {"slot:1"}
    assert _state(tmp_path) == saved["contents"]

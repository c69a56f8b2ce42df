"""The virtual library's state (issue 27 §2, §3): one library for every process, its own file only.

``library.json`` is read by every command and changed under a lock, so two programs see one
library; a file that is not tapediag's, or that a hand edit broke, is refused in one line and
left as it was; a library opened with another layout is refused instead of forgetting where its
cartridges are; nothing is written before the first move, so a read-only session writes nothing.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_REFUSED, EXIT_USAGE, main
from app.drive import set_read_only_session
from app.library import Changer
from native.errors import IllegalRequest
from native.virtual.library_state import FORMAT
from native.scsi.smc import ElementType


def _dev(folder: Path, **extra: str) -> str:
    opts = {"dir": str(folder), "drives": "2", "slots": "6", "ie": "1", "realtime": "0", **extra}
    return "virtual:library?" + "&".join(f"{k}={v}" for k, v in opts.items())


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


@pytest.fixture(autouse=True)
def _session_reset():  # type: ignore[no-untyped-def]
    yield
    set_read_only_session(False)


def test_two_openings_of_one_library_see_one_state(tmp_path: Path) -> None:
    """Each opened library used to keep its own copy: two exercisers both put a cartridge into drive:0."""
    dev = _dev(tmp_path / "lib")
    with Changer.open(dev) as one, Changer.open(dev) as other:
        one.inventory(), other.inventory()  # both opened and read before either moves
        one.move("slot:1", "drive:0", unload=False)
        seen = other.inventory()
        assert seen.find("drive:0").full and seen.find("drive:0").barcode.strip() == "TD0000L9"
        with pytest.raises(IllegalRequest, match="3B/0D"):  # the robot itself refuses: destination full
            other.send_move(seen.find("slot:2"), seen.find("drive:0"))
    state = json.loads((tmp_path / "lib" / "library.json").read_text())
    assert state["format"] == FORMAT and state["contents"]["500"] == "TD0000L9" and state["contents"]["1001"]


def test_another_layout_is_refused_and_the_cartridges_stay_where_they_are(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "lib"
    assert main(["library", _dev(folder), "--move", "slot:3", "ie:0"]) == 0
    before = (folder / "library.json").read_bytes()
    capsys.readouterr()
    for argv in (["library", _dev(folder, slots="8")], ["library-test", _dev(folder, drives="1")],
                 ["library", _dev(folder, ie="0"), "--move", "ie:0", "slot:3"]):
        assert main(argv) == EXIT_USAGE
        line = _one_line(capsys)
        assert "has 2 drive(s), 6 slot(s) and 1 mail slot(s), not the drives=" in line, line
        assert "its cartridges stay where they are" in line
    assert (folder / "library.json").read_bytes() == before


@pytest.mark.parametrize("read_only", [False, True])
def test_a_library_json_that_is_not_tapediags_is_never_touched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], read_only: bool) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    theirs = folder / "library.json"
    theirs.write_text('{"name": "left-pad", "version": "1.3.0", "dependencies": {}}\n')
    before = theirs.read_bytes()
    dev = _dev(folder)
    extra = ["--read-only"] if read_only else []
    for argv in (["library", dev], ["library", dev, "--move", "slot:1", "drive:0"], ["library", dev, "--init"],
                 ["library-test", dev, "--moves", "2"], ["info", f"virtual:lto8?library={folder}&drive=0"]):
        assert main([*argv, *extra]) == EXIT_USAGE, argv
        line = _one_line(capsys)
        assert f"{theirs} is not a tapediag virtual library's file: tapediag neither uses nor overwrites it" in line
    assert theirs.read_bytes() == before and sorted(p.name for p in folder.iterdir()) == ["library.json"]


@pytest.mark.parametrize(("text", "what"), [
    ('{"format": "tapediag virtual library", "contents": {"500": null, "1000": "TD0000L9",', "not valid JSON"),
    ('{"format": "tapediag virtual library", "contents": {"slot1": "TD0000L9"}}', '"contents" must map'),
    ('{"format": "tapediag virtual library", "contents": {"1000": 7}}', '"contents" must map'),
    ('{"contents": {"1000": "TD0000L9"}, "threaded": "500"}', '"threaded" must be a list'),
    ('[1, 2, 3]', "not a tapediag virtual library's file"),
    ('\xff\xfe', "damaged: not UTF-8 text"),
])
def test_a_hand_edit_gone_wrong_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str,
                                            what: str) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    (folder / "library.json").write_text(text, encoding="latin-1")
    before = (folder / "library.json").read_bytes()
    for argv in (["library", _dev(folder)], ["library-run", _dev(folder), "--barcode", "TD0000L9", "--run", "assess"]):
        assert main(argv) == EXIT_USAGE
        assert what in _one_line(capsys)
    assert (folder / "library.json").read_bytes() == before


def test_a_file_from_before_the_format_marker_is_still_the_library(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "lib"
    folder.mkdir()
    contents = {"10": None, "500": None, "501": None, **{str(1000 + i): f"TD{i:04d}L9" for i in range(6)}, "0": None}
    contents["1001"], contents["10"] = None, "TD0001L9"  # where an earlier version left them
    (folder / "library.json").write_text(json.dumps({"contents": contents, "sources": {"10": 1001}, "threaded": []}))
    assert main(["library", _dev(folder), "--json"]) == 0
    inv = {e["name"]: e for e in json.loads(capsys.readouterr().out)["elements"]}
    assert inv["ie:0"]["barcode"] == "TD0001L9" and not inv["slot:2"]["full"]
    assert main(["library", _dev(folder), "--move", "ie:0", "slot:2"]) == 0
    assert json.loads((folder / "library.json").read_text())["format"] == FORMAT


@pytest.mark.parametrize("value", ["%00", "a%00b", ""])
def test_a_folder_that_cannot_be_one_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 value: str) -> None:
    assert main(["library", f"virtual:library?dir={value}"]) == EXIT_USAGE
    assert "out of range for the virtual library" in _one_line(capsys)
    afile = tmp_path / "file"
    afile.write_text("mine")
    assert main(["library", f"virtual:library?dir={afile}", "--move", "slot:1", "drive:0"]) == EXIT_USAGE
    assert f"dir={afile} is not a folder" in _one_line(capsys)
    assert afile.read_text() == "mine"


def test_a_read_only_session_writes_no_library_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "lib"
    dev = _dev(folder)
    assert main(["library", dev, "--read-only"]) == 0
    assert main(["--read-only", "library", dev, "--move", "slot:1", "drive:0"]) == EXIT_REFUSED
    assert main(["library-test", dev, "--moves", "2", "--read-only"]) == EXIT_REFUSED
    assert main(["library-run", dev, "--barcode", "TD0000L9", "--run", "tape-perf", "--read-only"]) == EXIT_REFUSED
    capsys.readouterr()
    assert not folder.exists()
    with Changer.open(dev) as changer:  # and the library is as new
        assert all(s.full for s in changer.inventory().of(ElementType.STORAGE))

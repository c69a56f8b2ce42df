"""The default virtual library's drives are named without the data directory's path (issue 31): its map,
``library-test``'s result, ``show`` and the history say ``virtual:lto9?drive=0``, a name that opens the drive."""
from __future__ import annotations

import json
import os

import pytest

from app.cli import main
from app.drive import TapeDrive

LIBRARY = "virtual:library?realtime=0"


def test_the_default_librarys_drives_are_named_by_their_element(capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = os.environ["TAPEDIAG_DATA_DIR"]
    assert main(["library", LIBRARY, "--json"]) == 0
    names = json.loads(capsys.readouterr().out)["drive_devices"]
    assert names == {"drive:0": "virtual:lto9?drive=0&realtime=0", "drive:1": "virtual:lto9?drive=1&realtime=0"}
    assert main(["library-test", LIBRARY, "--moves", "2"]) == 0
    assert main(["show", "1"]) == 0
    shown = capsys.readouterr().out
    assert "drive:0 is virtual:lto9?drive=0&realtime=0" in shown and data_dir not in shown
    with TapeDrive.open(names["drive:0"]) as drive:  # the name opens that drive of that library
        assert drive.serial_number() == "TDLIBDRV000"


def test_another_librarys_drives_still_name_its_folder(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["library", f"virtual:library?dir={tmp_path / 'lib'}&realtime=0", "--json"]) == 0
    names = json.loads(capsys.readouterr().out)["drive_devices"]
    assert names["drive:0"] == f"virtual:lto9?library={(tmp_path / 'lib').resolve()}&drive=0&realtime=0"

"""A drive without a cartridge names no cartridge (issue 31): ``info 'virtual:lto9?loaded=0'`` once showed a
volume serial and a barcode from the volume statistics page (17h) as if a cartridge were there, and the
history keyed the run by that barcode."""
from __future__ import annotations

import json

import pytest

from app.cli import main
from app.history import History

DEVICE = "virtual:lto9?realtime=0&loaded=0"


def test_an_unloaded_drive_reports_no_volume_and_info_shows_none(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", DEVICE, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["cartridge"]["supported"] is False  # no MAM: no cartridge
    volume = got["volume_statistics"]
    assert volume["page_valid"] == 0  # the drive says so (SSC-4 Page Valid), and names no volume
    assert not {"volume_serial_number", "volume_barcode", "volume_manufacturer"} & set(volume)
    assert main(["info", DEVICE]) == 0
    text = capsys.readouterr().out
    section = text.split("Volume statistics")[1].split("\n\n")[0]
    assert "Page valid" in section and "none is loaded" in section
    assert "Volume serial" not in text and "Volume barcode" not in text and "this cartridge (" not in text
    with History.open() as hist:
        keys = [hist.keys(r.id) for r in hist.list_runs(kind="drive-info")]
    assert len(keys) == 2 and all(k.drive_serial and k.barcode is None and k.mam_serial is None for k in keys)


def test_a_loaded_drive_still_names_its_volume(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "virtual:lto9?realtime=0", "--json"]) == 0
    volume = json.loads(capsys.readouterr().out)["volume_statistics"]
    assert volume["page_valid"] == 1 and volume["volume_barcode"] and volume["volume_serial_number"]

"""``tapediag devices`` lists libraries (issue 17): changers from sysfs, remembered iSCSI changer LUNs,
the virtual library, and which drive element is which tape drive, matched by serial number."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import main
from app.library_discovery import linux_changers, match_drive
from tests.helpers.tgt_library import DRIVE_FIRST, TgtLibraryFactory


def _scsi_device(sysfs: Path, hctl: str, sg: int, type_: int, vendor: str, model: str) -> Path:
    scsi_dev = sysfs / "devices" / "pci0000:00" / f"host{hctl[0]}" / hctl
    scsi_dev.mkdir(parents=True)
    (scsi_dev / "vendor").write_text(f"{vendor:<8}\n")
    (scsi_dev / "model").write_text(f"{model:<16}\n")
    (scsi_dev / "type").write_text(f"{type_}\n")
    (scsi_dev / "scsi_generic" / f"sg{sg}").mkdir(parents=True)
    sg_class = sysfs / "class" / "scsi_generic"
    sg_class.mkdir(parents=True, exist_ok=True)
    node = scsi_dev / "scsi_generic" / f"sg{sg}"
    (node / "device").symlink_to(os.path.relpath(scsi_dev, node))
    (sg_class / f"sg{sg}").symlink_to(os.path.relpath(node, sg_class))
    return scsi_dev


def test_linux_changers_by_the_ch_driver_and_by_sg_type_8(tmp_path: Path) -> None:
    sysfs, dev = tmp_path / "sys", tmp_path / "dev"
    bound = _scsi_device(sysfs, "3:0:0:1", 5, 8, "HPE", "MSL G3 Series")  # the ch driver bound: scsi_changer/ch0
    ch = bound / "scsi_changer" / "ch0"
    ch.mkdir(parents=True)
    (ch / "device").symlink_to(os.path.relpath(bound, ch))
    (sysfs / "class" / "scsi_changer").mkdir(parents=True)
    (sysfs / "class" / "scsi_changer" / "ch0").symlink_to(os.path.relpath(ch, sysfs / "class" / "scsi_changer"))
    _scsi_device(sysfs, "4:0:0:1", 11, 8, "IBM", "3573-TL")  # no ch driver: found by its type
    _scsi_device(sysfs, "3:0:0:0", 4, 1, "HPE", "Ultrium 8-SCSI")  # a tape drive: not a changer
    found = linux_changers(sysfs, dev)
    assert [(e.device, e.vendor, e.product) for e in found] == [(str(dev / "sg5"), "HPE", "MSL G3 Series"),
                                                                (str(dev / "sg11"), "IBM", "3573-TL")]
    assert "3:0:0:1" in found[0].description and all(e.kind == "passthrough" for e in found)
    assert linux_changers(tmp_path / "nothing", dev) == []


@pytest.mark.parametrize(("identifier", "expected"), [
    ("HU1234ABCD", "/dev/nst0"),  # the serial itself
    ("IBM     ULTRIUM-HH8     HU1234ABCD", "/dev/nst0"),  # T10 vendor-ID form: vendor, product, serial
    ("IBM     ULTRIUM-HH8     HU12", None),  # cut short (tgt's last element): never a guess
    ("", None),
    ("SAME", None),  # two drives report the same serial: ambiguous
])
def test_a_drive_element_names_a_drive_only_by_its_whole_serial(identifier: str, expected: str | None) -> None:
    serials = {"/dev/nst0": "HU1234ABCD", "/dev/nst1": "HU9999ZZZZ", "/dev/nst2": "SAME", "/dev/nst3": "SAME"}
    assert match_drive(identifier, serials) == expected


def test_tgt_library_in_devices_with_its_drive_elements_matched(tgt_library_factory: TgtLibraryFactory,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=3, ie=0, barcodes=("TGT001L6",))
    for url in (lib.url, lib.drive_url(0), lib.drive_url(1)):
        assert main(["devices", "--add-iscsi", url, "--no-probe"]) == 0
    capsys.readouterr()
    assert main(["devices", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    (changer,) = [e for e in listed if e.get("is_changer") and e["kind"] == "iscsi"]
    assert changer["device"] == lib.url and changer["reachable"] and changer["product"] == "VIRTUAL-CHANGER"
    assert lib.url not in [e["device"] for e in listed if not e.get("is_changer")]  # listed once, as a library
    first, last = changer["drives"]
    assert (first["element"], first["address"], first["device"]) == ("drive:0", DRIVE_FIRST, lib.drive_url(0))
    assert first["serial"] and first["identifier"].endswith(first["serial"])
    # tgt sends the last element 8 bytes short (docs/tgt-changer.md): its identifier lacks most of the serial,
    # so drive:1 is left unmatched rather than guessed.
    assert last["element"] == "drive:1" and last["device"] is None
    assert main(["devices"]) == 0
    out = capsys.readouterr().out
    assert f"  drive:0 (address {DRIVE_FIRST}): {lib.drive_url(0)} (serial {first['serial']})" in out
    assert f"  drive:1 (address {DRIVE_FIRST + 1}): no listed drive has this identifier" in out

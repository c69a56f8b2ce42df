"""A drive at work for another program (issue 27 §3): named busy, and no advice to force a move out of it.

A move out of a drive that a backup application has open used to be refused with "no listed tape
drive matches ... use --no-unload": following it pulls the tape from under the backup. Here the
drive is held by another program for real (a process holding the library drive's cartridge, as the
st driver lets one program at a time open a tape; a tapediag scan holding its claim), and on Linux
a busy drive is identified by the serial the kernel read (sysfs ``vpd_pg80``) without opening it.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app import discovery
from app.cli import EXIT_REFUSED, main
from app.discovery import DeviceEntry, linux_tape_drives
from app.library import Changer
from app.library_discovery import matched
from native.virtual.library import VirtualLibrary
from tests.test_claims import finish, start_paused
from tests.transport.test_discovery import _fake_tape

ROOT = Path(__file__).resolve().parents[1]
#: Another program with the drive open: it opens the transport, says so, and holds it until stdin closes.
HOLDER = "import sys\nfrom native import open_transport\nt = open_transport(sys.argv[1])\nprint('open', flush=True)\n" \
         "sys.stdin.read()\nt.close()\n"


def _library(tmp_path: Path) -> str:
    return f"virtual:library?dir={tmp_path / 'lib'}&drives=2&slots=6&realtime=0"


def _state(tmp_path: Path) -> dict:
    return json.loads((tmp_path / "lib" / "library.json").read_text())["contents"]


def _refusal(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0], err
    line = err[0]
    assert "--no-unload" not in line and "--allow-removal" not in line, line  # no way around it is offered
    return line


def test_a_drive_another_program_has_open_is_named_busy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _library(tmp_path)
    assert main(["library", dev, "--move", "slot:1", "drive:0"]) == 0
    drive = VirtualLibrary(dev).drive_device(0)
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, drive], cwd=ROOT, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        before = _state(tmp_path)
        capsys.readouterr()
        assert main(["library", dev, "--move", "drive:0", "slot:1"]) == EXIT_REFUSED
        line = _refusal(capsys)
        assert f"drive:0 ({drive}) is busy: " in line and "in use by another program" in line, line
        assert "the cartridge is still in drive:0, nothing moved" in line and "wait until that job has ended" in line
        assert _state(tmp_path) == before
    finally:
        holder.communicate("", timeout=30)
    assert main(["library", dev, "--move", "drive:0", "slot:1"]) == 0  # free again: unloaded and moved


def test_a_drive_another_tapediag_is_testing_is_named_busy(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _library(tmp_path)
    assert main(["library", dev, "--move", "slot:2", "drive:1"]) == 0
    drive = VirtualLibrary(dev).drive_device(1)
    scan = start_paused(["scan", drive, "--limit", "1M"])  # holds the drive (its claim and its cartridge)
    capsys.readouterr()
    assert main(["library", dev, "--move", "drive:1", "slot:2"]) == EXIT_REFUSED
    line = _refusal(capsys)
    assert f"drive:1 ({drive}) is busy" in line, line
    code, _, err = finish(scan)
    assert code == 12, err  # the scan ends as it would have: a blank cartridge, not assessed
    assert main(["library", dev, "--move", "drive:1", "slot:2"]) == 0


def test_a_busy_drive_that_cannot_be_identified_blocks_the_advice_to_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A listed drive busy and without a readable serial may be the very drive the cartridge is in."""
    dev = _library(tmp_path)
    assert main(["library", dev, "--move", "slot:3", "drive:0"]) == 0
    busy = DeviceEntry("/dev/nst0", "passthrough", "HP Ultrium 8-SCSI (SCSI 3:0:0:0)", reachable=False,
                       note=discovery.BUSY_NOTE, is_tape=True, busy=True)
    monkeypatch.setattr(discovery, "discover", lambda **_: [busy])
    import app.library_drives as library_drives

    monkeypatch.setattr(library_drives, "library_own_drives", lambda device: [])  # only /dev/nst0 is listed
    capsys.readouterr()
    assert main(["library", dev, "--move", "drive:0", "slot:3"]) == EXIT_REFUSED
    line = _refusal(capsys)
    assert "no listed tape drive matches its identifier 'TDLIBDRV000', and /dev/nst0 is busy (in use by another " \
           "program) and could not be identified, so drive:0 may be at work" in line, line
    monkeypatch.setattr(discovery, "discover", lambda **_: [])  # no busy drive listed: the operator may say so
    assert main(["library", dev, "--move", "drive:0", "slot:3"]) == EXIT_REFUSED
    assert "--no-unload" in capsys.readouterr().err


def test_a_busy_linux_drive_is_matched_by_the_serial_the_kernel_read(tmp_path: Path) -> None:
    sysfs, dev = tmp_path / "sys", tmp_path / "dev"
    dev.mkdir()
    scsi_dev = _fake_tape(sysfs, "3:0:0:0", 0, 2, "HP", "Ultrium 8-SCSI", "Q3N1")
    (scsi_dev / "vpd_pg80").write_bytes(bytes([0x01, 0x80, 0, 10]) + b"CZ12345678")
    entry = linux_tape_drives(sysfs, dev, probe=False)[0]
    assert entry.serial == "CZ12345678"
    busy = DeviceEntry(entry.device, "passthrough", entry.description, reachable=False, note=discovery.BUSY_NOTE,
                       is_tape=True, busy=True, serial=entry.serial)
    with Changer.open(_library(tmp_path)) as changer:
        inv = changer.inventory()
    element = inv.elements[-1]  # drive:1, as a library reports "HP Ultrium 8-SCSI CZ12345678"
    from dataclasses import replace

    inv = replace(inv, elements=(*inv.elements[:-1], replace(element, identifier="HP      Ultrium 8-SCSI  CZ12345678")))
    found = matched(inv, [busy])
    assert [(d.element, d.device, d.busy) for d in found.drives if d.device] == [("drive:1", entry.device, True)]
    assert found.unidentified == ()

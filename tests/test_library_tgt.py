"""tgt's medium changer as a real library (issue 17): inventory and checked moves over iSCSI on 127.0.0.1.

A move is proved by what tgt serves afterwards, not by the changer's word alone: the
cartridge moved into a drive is the tape file the drive LUN then reads (a marker record
written through the drive comes back through the other drive after the cartridge went
there), and a second READ ELEMENT STATUS shows where everything is.
"""
from __future__ import annotations

import json

import pytest

from app.cli import main
from app.drive import TapeDrive
from app.library import Changer
from native.errors import NotReady
from native.scsi.smc import ElementType
from tests.helpers.tgt import show_blocks
from tests.helpers.tgt_library import DRIVE_FIRST, SLOT_FIRST, TgtLibrary, TgtLibraryFactory


def _inventory(url: str, capsys: pytest.CaptureFixture[str]) -> dict[str, dict]:
    assert main(["library", url, "--json"]) == 0
    return {e["name"]: e for e in json.loads(capsys.readouterr().out)["elements"]}


def _slots(inv: dict[str, dict]) -> dict[str, tuple[bool, str]]:
    """What is where (a move back sets an element's source address, which a first inventory lacks)."""
    return {name: (e["full"], e["barcode"]) for name, e in inv.items()}


def _move(url: str, src: str, dst: str, capsys: pytest.CaptureFixture[str], *extra: str) -> None:
    assert main(["library", url, "--move", src, dst, *extra]) == 0, capsys.readouterr().err
    capsys.readouterr()


def _read_first_record(url: str) -> bytes:
    """The first record of the cartridge in the drive, b"" for a blank one."""
    with TapeDrive.open(url) as drive:
        drive.wait_ready(timeout=10, poll=0.05)
        drive.rewind()
        got = drive.read(65536)
        return bytes(got.data[:got.nbytes])


def test_tgt_library_inventory_barcodes_full_and_empty(tgt_library_factory: TgtLibraryFactory,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=5, ie=1)
    inv = _inventory(lib.url, capsys)
    assert [inv[f"slot:{i}"]["barcode"] for i in range(1, 6)] == ["TGT001L6", "TGT002L6", "CLN001L1", "", ""]
    assert [inv[f"slot:{i}"]["full"] for i in range(1, 6)] == [True, True, True, False, False]
    assert inv["slot:3"]["cleaning"] and not inv["slot:1"]["cleaning"]
    assert [inv[f"drive:{i}"]["address"] for i in (0, 1)] == [DRIVE_FIRST, DRIVE_FIRST + 1]
    assert not inv["drive:0"]["full"] and not inv["drive:1"]["full"] and not inv["ie:0"]["full"]
    assert inv["slot:1"]["address"] == SLOT_FIRST and inv["robot:0"]["type"] == "robot"
    # The drive's device identifier is tgt's T10 form, vendor + product + serial, and names the drive LUN.
    with TapeDrive.open(lib.drive_url(0)) as drive:
        serial = drive.serial_number()
    assert serial and inv["drive:0"]["identifier"] == f"IET     VIRTUAL-TAPE    {serial}"
    # Nothing is in a drive: the drive LUNs are offline, as an empty drive is not ready.
    with pytest.raises(NotReady):
        with TapeDrive.open(lib.drive_url(0)) as drive:
            drive.wait_ready(timeout=0.5, poll=0.1)


def test_tgt_moves_slot_drive_slot_and_the_drive_serves_that_cartridge(tgt_library_factory: TgtLibraryFactory,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=5, ie=1)
    _add_drives(lib, capsys)
    before = _inventory(lib.url, capsys)

    _move(lib.url, "slot:1", "drive:0", capsys)
    now = _inventory(lib.url, capsys)
    assert now["drive:0"]["barcode"] == "TGT001L6" and now["drive:0"]["source"] == SLOT_FIRST
    assert not now["slot:1"]["full"]
    with TapeDrive.open(lib.drive_url(0)) as drive:  # the drive LUN now serves TGT001L6's tape file
        drive.wait_ready(timeout=10, poll=0.05)
        drive.rewind()
        drive.write(b"TGT001L6 marker".ljust(512, b"."))
        drive.write_filemarks(1)
    assert [r.type for r in show_blocks(lib.slot_file("TGT001L6"))] == ["BOT", "DATA", "FILEMARK", "EOD"]

    _move(lib.url, "drive:0", "slot:1", capsys)
    with pytest.raises(NotReady):  # the cartridge left the drive: the drive LUN is empty again
        with TapeDrive.open(lib.drive_url(0)) as drive:
            drive.wait_ready(timeout=0.5, poll=0.1)

    _move(lib.url, "slot:2", "drive:0", capsys)  # another cartridge in the same drive: blank, no marker
    assert _read_first_record(lib.drive_url(0)) == b""
    _move(lib.url, "drive:0", "slot:2", capsys)

    _move(lib.url, "slot:1", "drive:1", capsys)  # the marked cartridge in the other drive: the marker follows it
    assert _read_first_record(lib.drive_url(1)).startswith(b"TGT001L6 marker")
    _move(lib.url, "drive:1", "slot:1", capsys, "--no-unload")  # drive:1's identifier is cut short by tgt

    after = _inventory(lib.url, capsys)
    assert {k: (v["full"], v["barcode"]) for k, v in after.items()} == \
        {k: (v["full"], v["barcode"]) for k, v in before.items()}


def test_tgt_refusals_are_checked_before_the_robot_and_by_it(tgt_library_factory: TgtLibraryFactory,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=1, slots=4, ie=0, barcodes=("TGT001L6", "TGT002L6", "GONE01L6"),
                              missing=("GONE01L6",))
    before = _inventory(lib.url, capsys)
    for move, words in ((("slot:4", "drive:0"), "is empty"), (("slot:1", "slot:2"), "already holds TGT002L6"),
                        (("slot:1", "999"), "element address 999 is not in this library")):
        assert main(["library", lib.url, "--move", *move]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err
    # A cartridge the robot cannot load (its tape file is missing): tgt's robot answers a HARDWARE ERROR.
    assert main(["library", lib.url, "--move", "slot:3", "drive:0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MOVE MEDIUM: HARDWARE ERROR" in err[0] and "(15/01)" in err[0], err
    assert _inventory(lib.url, capsys) == before  # nothing moved (the stale label tgt keeps is not read)
    with Changer.open(lib.url) as changer:
        assert [e.full for e in changer.inventory().of(ElementType.DATA_TRANSFER)] == [False]


def _add_drives(lib: TgtLibrary, capsys: pytest.CaptureFixture[str]) -> None:
    """The drives a technician has added: drive:0's identifier names LUN 1's serial (drive:1's is cut short by tgt)."""
    for index in range(lib.drives):
        assert main(["devices", "--add-iscsi", lib.drive_url(index), "--no-probe"]) == 0
    capsys.readouterr()


def test_tgt_move_out_of_a_drive_unloads_the_matched_drive_and_refuses_an_unmatched_one(
        tgt_library_factory: TgtLibraryFactory, capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=3, ie=0, barcodes=("TGT001L6", "TGT002L6"))
    _add_drives(lib, capsys)
    before = _inventory(lib.url, capsys)
    _move(lib.url, "slot:1", "drive:0", capsys)
    assert main(["library", lib.url, "--move", "drive:0", "slot:1"]) == 0
    out = capsys.readouterr().out
    assert f"{lib.drive_url(0)}: unloaded" in out and "moved TGT001L6" in out

    _move(lib.url, "slot:2", "drive:1", capsys)
    loaded = _inventory(lib.url, capsys)
    assert main(["library", lib.url, "--move", "drive:1", "slot:2"]) == 3  # tgt cut its identifier: no guess
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "drive:1 (address 501): no listed tape drive matches" in err[0] \
        and "still in drive:1" in err[0], err
    assert _inventory(lib.url, capsys) == loaded
    assert main(["library", lib.url, "--move", "drive:1", "slot:2", "--no-unload"]) == 0
    capsys.readouterr()
    assert _slots(_inventory(lib.url, capsys)) == _slots(before)


def test_tgt_a_busy_drive_keeps_its_cartridge(tgt_library_factory: TgtLibraryFactory,
                                              capsys: pytest.CaptureFixture[str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """TEST UNIT READY "becoming ready" (02/04/01, the drive still loading or rewinding): refused, no UNLOAD sent."""
    import app.library as library
    from native import open_transport
    from tests.helpers.faults import FaultyTransport, becoming_ready

    lib = tgt_library_factory(drives=2, slots=2, ie=0, barcodes=("TGT001L6",))  # drive:0 is named in full
    _add_drives(lib, capsys)
    _move(lib.url, "slot:1", "drive:0", capsys)
    loaded = _inventory(lib.url, capsys)
    sent: list[int] = []

    def busy_drive(device: str) -> TapeDrive:
        faulty = FaultyTransport(open_transport(device))
        faulty.inject(becoming_ready(), opcode=0x00, times=None)
        original = faulty.execute

        def recording(cdb: bytes, **kw):  # type: ignore[no-untyped-def]
            sent.append(bytes(cdb)[0])
            return original(cdb, **kw)

        faulty.execute = recording  # type: ignore[method-assign]
        return TapeDrive(faulty, device=device)

    monkeypatch.setattr(library.TapeDrive, "open", staticmethod(busy_drive))
    assert main(["library", lib.url, "--move", "drive:0", "slot:1"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "drive:0" in err[0] and "is busy" in err[0] and "(04/01)" in err[0] \
        and "still in drive:0" in err[0], err
    assert 0x1B not in sent and 0x00 in sent
    assert _inventory(lib.url, capsys) == loaded


def test_tgt_medium_removal_prevented_is_said_and_lifted_only_on_request(
        tgt_library_factory: TgtLibraryFactory, capsys: pytest.CaptureFixture[str]) -> None:
    lib = tgt_library_factory(drives=2, slots=2, ie=0, barcodes=("TGT001L6",))  # drive:0 is named in full
    _add_drives(lib, capsys)
    before = _inventory(lib.url, capsys)
    _move(lib.url, "slot:1", "drive:0", capsys)
    with TapeDrive.open(lib.drive_url(0)) as backup:  # what a backup application does while it holds the tape
        backup.wait_ready(timeout=10, poll=0.05)
        backup.prevent_medium_removal(True)
        loaded = _inventory(lib.url, capsys)
        assert main(["library", lib.url, "--move", "drive:0", "slot:1"]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "medium removal prevented (05/53/02)" in err[0] and "backup software" in err[0] \
            and "--allow-removal" in err[0], err
        assert _inventory(lib.url, capsys) == loaded
        # ALLOW from tapediag's own session does not lift another session's PREVENT (per I_T nexus, SPC-4 6.15).
        assert main(["library", lib.url, "--move", "drive:0", "slot:1", "--allow-removal"]) == 3
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "still prevented (05/53/02) after ALLOW MEDIUM REMOVAL" in err[0], err
        assert _inventory(lib.url, capsys) == loaded
        backup.prevent_medium_removal(False)  # the backup application releases the tape
    assert main(["library", lib.url, "--move", "drive:0", "slot:1"]) == 0
    assert f"{lib.drive_url(0)}: unloaded" in capsys.readouterr().out
    assert _slots(_inventory(lib.url, capsys)) == _slots(before)


def test_tgt_init_and_mail_slot_moves(tgt_library_factory: TgtLibraryFactory,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    """INITIALIZE ELEMENT STATUS is accepted (tgt does nothing with it); slot -> mail slot -> slot moves the
    cartridge there and back; tgt's changer refuses PREVENT MEDIUM REMOVAL (05/20/00), so the move is made
    without the lock, said in one line, and no ALLOW follows (docs/tgt-changer.md)."""
    lib = tgt_library_factory(drives=1, slots=3, ie=1, barcodes=("TGT001L6", "TGT002L6"))
    before = _inventory(lib.url, capsys)
    assert main(["library", lib.url, "--init"]) == 0
    assert "INITIALIZE ELEMENT STATUS done" in capsys.readouterr().out
    assert _inventory(lib.url, capsys) == before
    assert main(["library", lib.url, "--move", "slot:2", "ie:0"]) == 0
    out = capsys.readouterr().out
    assert "does not support PREVENT MEDIUM REMOVAL" in out and "moved TGT002L6 from slot:2" in out, out
    now = _inventory(lib.url, capsys)
    assert now["ie:0"]["full"] and now["ie:0"]["barcode"] == "TGT002L6" and not now["slot:2"]["full"]
    assert main(["library", lib.url, "--move", "ie:0", "slot:2", "--json"]) == 0
    moved = json.loads(capsys.readouterr().out)["moved"]
    assert moved["mail_slot_locked"] is False and moved["source"] == "ie:0"
    assert main(["library", lib.url, "--move", "ie:0", "slot:2"]) == 2  # the mail slot is empty again
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ie:0 (address 10) is empty" in err[0], err
    assert _slots(_inventory(lib.url, capsys)) == _slots(before)

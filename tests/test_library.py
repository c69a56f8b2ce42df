"""Tape libraries (issue 17, first part): the virtual library's robot, inventory, checked moves."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import main
from app.drive import set_read_only_session
from app.library import Changer, NotAChanger
from native.scsi.smc import ElementType, parse_element_status, read_element_status
from native.errors import ParseError
from native.virtual.library import VirtualLibrary
from tests.helpers.faults import RecordingTransport


def _dev(tmp_path: Path, **extra: str) -> str:
    opts = "&".join(f"{k}={v}" for k, v in {"dir": str(tmp_path / "lib"), "drives": "2", "slots": "6", "ie": "1",
                                             "realtime": "0", **extra}.items())
    return f"virtual:library?{opts}"


def _state(tmp_path: Path) -> dict:
    path = tmp_path / "lib" / "library.json"
    if not path.exists():  # nothing moved yet: a new library, as it reports itself (it writes no file to be read)
        return {str(k): v for k, v in VirtualLibrary(_dev(tmp_path)).contents.items()}
    return json.loads(path.read_text())["contents"]


def test_inventory_names_every_element_with_barcodes_cleaners_and_drive_identifiers(tmp_path: Path) -> None:
    with Changer.open(_dev(tmp_path)) as changer:
        inv = changer.inventory()
    assert [len(inv.of(t)) for t in ElementType] == [1, 6, 1, 2]
    slots = inv.of(ElementType.STORAGE)
    assert all(s.full for s in slots) and slots[0].barcode == "TD0000L9" and slots[-1].cleaning
    assert [d.identifier for d in inv.of(ElementType.DATA_TRANSFER)] == ["TDLIBDRV000", "TDLIBDRV001"]
    assert inv.find("slot:1") is slots[0] and inv.find("drive:1").address == 501 and inv.find("10").type.word == "ie"


def test_a_cartridge_goes_to_a_drive_and_back_to_where_it_was(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dev = _dev(tmp_path)
    before = _state(tmp_path) if (tmp_path / "lib").exists() else None
    assert main(["library", dev, "--move", "slot:3", "drive:0"]) == 0
    out = capsys.readouterr().out
    assert "moved TD0002L9 from slot:3 (address 1002) to drive:0 (address 500)" in out
    after = _state(tmp_path)
    assert after["500"] == "TD0002L9" and after["1002"] is None
    assert main(["library", dev, "--move", "drive:0", "slot:3", "--json"]) == 0  # drive:0 unloaded first
    inv = json.loads(capsys.readouterr().out)
    slot3 = next(e for e in inv["elements"] if e["name"] == "slot:3")
    assert slot3["barcode"] == "TD0002L9" and slot3["source"] == 1002  # home again, and it knows where from
    assert before is None or _state(tmp_path) == before


@pytest.mark.parametrize(("move", "words"), [
    (("drive:0", "slot:1"), "drive:0 (address 500) is empty"),
    (("slot:1", "slot:2"), "slot:2 (address 1001) already holds TD0001L9"),
    (("slot:1", "slot:99"), "the library has 6 slot elements"),  # plural written out (issue 12), not "(s)"
    (("slot:1", "4242"), "element address 4242 is not in this library"),
    (("slot:1", "shelf"), "names no element"),
])
def test_an_impossible_move_is_one_line_and_nothing_moves(tmp_path: Path, capsys, move, words) -> None:  # type: ignore[no-untyped-def]
    dev = _dev(tmp_path)
    assert main(["library", dev]) == 0
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library", dev, "--move", *move]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0], err
    assert _state(tmp_path) == before


def test_a_robot_fault_mid_move_is_reported_and_nothing_moved(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dev = _dev(tmp_path, robotfault="1")
    assert main(["library", dev]) == 0
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library", dev, "--move", "slot:1", "drive:0"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "HARDWARE ERROR" in err[0].upper()
    assert _state(tmp_path) == before


def test_a_read_only_session_refuses_moves_but_reads_the_inventory(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    dev = _dev(tmp_path)
    assert main(["library", dev]) == 0
    before = _state(tmp_path)
    try:
        assert main(["--read-only", "library", dev, "--move", "slot:1", "drive:0"]) == 3
        assert main(["--read-only", "library", dev, "--init"]) == 3  # INITIALIZE ELEMENT STATUS changes state
        assert main(["--read-only", "library", dev, "--move", "slot:1", "ie:0"]) == 3
        assert main(["--read-only", "library", dev]) == 0
    finally:
        set_read_only_session(False)
    assert _state(tmp_path) == before


def test_changer_commands_go_only_to_a_changer() -> None:
    tape = RecordingTransport(responses={0x12: bytes([0x01, 0x80, 6, 2, 91]) + bytes(3) + b"HPE     Ultrium 9-SCSI      V9A0"},
                              scripted_peripheral_type=None)
    with pytest.raises(NotAChanger, match="not a media changer"):
        Changer(tape).inventory()
    assert [c[0][0] for c in tape.calls] == [0x12]  # INQUIRY and nothing else


def test_element_status_parser_reads_the_library_and_survives_garbage(tmp_path: Path) -> None:
    lib = VirtualLibrary(_dev(tmp_path))
    lib.execute(bytes(6))  # the power-on unit attention
    data = bytes(lib.execute(read_element_status(), data_in=0xFFFF).data)
    assert len(parse_element_status(data)) == 10
    rng = __import__("random").Random(7)
    for _ in range(500):
        cut = data[: rng.randrange(len(data))]
        noisy = bytearray(cut)
        for _ in range(rng.randrange(4)):
            if noisy:
                noisy[rng.randrange(len(noisy))] = rng.randrange(256)
        try:
            parse_element_status(bytes(noisy))
        except ParseError:
            pass
    assert not os.path.exists(tmp_path / "lib")  # reading a new library writes nothing (library_state.py)


def test_inventory_asks_one_element_type_at_a_time_and_skips_absent_ones(tmp_path: Path) -> None:
    """Per type, from the element map (tgt garbles the all-types answer: docs/tgt-changer.md); no mail slot, no request."""
    lib = VirtualLibrary(_dev(tmp_path, ie="0"))
    sent: list[bytes] = []
    real = lib.execute

    def recording(cdb: bytes, **kw):  # type: ignore[no-untyped-def]
        sent.append(bytes(cdb))
        return real(cdb, **kw)

    lib.execute = recording  # type: ignore[method-assign]
    inv = Changer(lib, device="virtual:library").inventory()
    assert [len(inv.of(t)) for t in ElementType] == [1, 6, 0, 2]
    assert [c[1] & 0x0F for c in sent if c[0] == 0xB8] == [1, 2, 4]


def test_a_last_descriptor_cut_short_still_gives_its_address_state_and_barcode(tmp_path: Path) -> None:
    lib = VirtualLibrary(_dev(tmp_path))
    lib.execute(bytes(6))
    data = bytes(lib.execute(read_element_status(element_type=2), data_in=0xFFFF).data)
    elements = parse_element_status(data[:-8])  # tgt's answers are 8 bytes short
    assert len(elements) == 6 and elements[-1].address == 1005 and elements[-1].barcode == "CLN005L1"


def test_a_move_out_of_a_drive_no_tape_drive_matches_is_refused_unless_the_operator_unloaded_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Never guess a drive: no listed tape drive names drive:0, so nothing is checked or unloaded, nothing moves."""
    import app.library_drives as discovery  # the matching, below app.library

    monkeypatch.setattr(discovery, "drive_matches", lambda inv, addresses=None: discovery.DriveMatch(()))
    dev = _dev(tmp_path)
    assert main(["library", dev, "--move", "slot:2", "drive:0"]) == 0
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library", dev, "--move", "drive:0", "slot:2"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no listed tape drive matches its identifier 'TDLIBDRV000'" in err[0] \
        and "still in drive:0" in err[0] and "--no-unload" in err[0], err
    assert _state(tmp_path) == before
    from app.drive import TapeDrive
    from native.virtual.library import VirtualLibrary

    with TapeDrive.open(VirtualLibrary(dev).drive_device(0)) as drive:  # the operator unloads it
        drive.unload()
    assert main(["library", dev, "--move", "drive:0", "slot:2", "--no-unload"]) == 0
    assert _state(tmp_path)["1001"] == "TD0001L9"


def test_the_library_drives_are_virtual_lto_drives_holding_the_slot_cartridges(tmp_path: Path,
                                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """slot -> drive loads that cartridge into the drive the inventory names; what is written stays with the cartridge."""
    from app.drive import TapeDrive
    from native.errors import NotReady

    dev = _dev(tmp_path, realtime="0")
    assert main(["library", dev, "--move", "slot:2", "drive:0", "--json"]) == 0
    inv = json.loads(capsys.readouterr().out)
    drive0, drive1 = inv["drive_devices"]["drive:0"], inv["drive_devices"]["drive:1"]
    assert drive0.startswith("virtual:lto9?library=") and drive0.endswith("&drive=0&realtime=0")
    with TapeDrive.open(drive0) as drive:
        assert drive.serial_number() == "TDLIBDRV000" and drive.read_attributes().barcode == "TD0001L9"
        drive.write(b"TD0001L9 marker".ljust(512, b"."))
        drive.write_filemarks(1)
    with TapeDrive.open(drive1) as drive:  # nothing in drive:1: no cartridge to load
        with pytest.raises(NotReady, match="3A/00"):
            drive.load()
    assert main(["library", dev, "--move", "drive:0", "slot:2"]) == 0  # unloaded through drive0, then moved
    assert f"{drive0}: unloaded" in capsys.readouterr().out
    assert main(["library", dev, "--move", "slot:2", "drive:1"]) == 0
    capsys.readouterr()
    with TapeDrive.open(drive1) as drive:
        drive.rewind()
        got = drive.read(65536)
        assert bytes(got.data[:got.nbytes]).startswith(b"TD0001L9 marker")
    assert main(["library", dev, "--move", "drive:1", "slot:2"]) == 0
    assert _state(tmp_path)["1001"] == "TD0001L9" and _state(tmp_path)["501"] is None


def test_the_virtual_library_refuses_to_pull_a_threaded_tape_as_real_ones_do(tmp_path: Path,
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--no-unload is the operator's word; when it is wrong the robot says 05/3B/90 and nothing moves."""
    dev = _dev(tmp_path, realtime="0")
    assert main(["library", dev, "--move", "slot:1", "drive:0"]) == 0
    before = _state(tmp_path)
    capsys.readouterr()
    assert main(["library", dev, "--move", "drive:0", "slot:1", "--no-unload"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "MOVE MEDIUM: ILLEGAL REQUEST" in err[0] and "(3B/90)" in err[0], err
    assert _state(tmp_path) == before
    assert main(["library", dev, "--move", "drive:0", "slot:1"]) == 0
    assert _state(tmp_path)["1000"] == "TD0000L9"


def test_a_library_drive_refuses_a_label_that_would_leave_the_cartridge_folder(tmp_path: Path) -> None:
    """library.json is a user-editable file: a label is a file name only when it is a plain word."""
    from native.errors import InvalidParameter as Invalid
    from native.virtual.library import VirtualLibrary

    lib = VirtualLibrary(_dev(tmp_path))
    lib.save()
    state = json.loads(lib.state_path.read_text())
    state["contents"]["500"] = "../../escape"
    lib.state_path.write_text(json.dumps(state))
    with pytest.raises(Invalid, match="cannot name a cartridge file"):
        from native import open_transport

        open_transport(lib.drive_device(0))
    assert not (tmp_path / "escape.cart").exists()


def test_init_sends_initialize_element_status_only_on_request_and_finds_what_changed_by_hand(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """INITIALIZE ELEMENT STATUS (07h) with a long timeout, only with --init; the virtual library's scan re-reads
    library.json, as a real library's finds cartridges an operator moved behind the door."""
    from native.transport import Transport

    sent: list[tuple[int, float]] = []
    real = VirtualLibrary.execute

    def recording(self: Transport, cdb: bytes, **kw):  # type: ignore[no-untyped-def]
        sent.append((bytes(cdb)[0], kw.get("timeout", 0.0)))
        return real(self, cdb, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(VirtualLibrary, "execute", recording)
    dev = _dev(tmp_path)
    assert main(["library", dev]) == 0 and main(["library", dev, "--move", "slot:1", "slot:1"]) == 2
    assert 0x07 not in [op for op, _ in sent]
    VirtualLibrary(dev).save()  # its file, for the operator's hand edit
    state = json.loads((tmp_path / "lib" / "library.json").read_text())
    state["contents"]["1000"], state["contents"]["10"] = None, "TD0000L9"  # an operator put it in the mail slot
    (tmp_path / "lib" / "library.json").write_text(json.dumps(state))
    capsys.readouterr()
    assert main(["library", dev, "--init", "--json"]) == 0
    inv = {e["name"]: e for e in json.loads(capsys.readouterr().out)["elements"]}
    assert inv["ie:0"]["barcode"] == "TD0000L9" and not inv["slot:1"]["full"]
    assert {t for op, t in sent if op == 0x07} == {3600.0}  # (sent again after the power-on unit attention)


def test_mail_slot_moves_lock_it_for_the_move_and_release_only_tapediags_own_lock(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from native.transport import Transport

    sent: list[bytes] = []
    real = VirtualLibrary.execute

    def recording(self: Transport, cdb: bytes, **kw):  # type: ignore[no-untyped-def]
        sent.append(bytes(cdb))
        return real(self, cdb, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(VirtualLibrary, "execute", recording)
    dev = _dev(tmp_path)
    assert main(["library", dev, "--move", "slot:2", "ie:0"]) == 0
    out = capsys.readouterr().out
    assert "mail slot locked during the move (PREVENT MEDIUM REMOVAL), then released (ALLOW)" in out
    assert "moved TD0001L9 from slot:2 (address 1001) to ie:0 (address 10)" in out
    lock = [(c[0], c[4] & 1 if c[0] == 0x1E else None) for c in sent if c[0] in (0x1E, 0xA5)]
    assert lock == [(0x1E, 1), (0xA5, None), (0x1E, 0)]
    assert _state(tmp_path)["10"] == "TD0001L9"
    sent.clear()
    assert main(["library", dev, "--move", "ie:0", "slot:2", "--json"]) == 0
    moved = json.loads(capsys.readouterr().out)["moved"]
    assert moved == {"source": "ie:0", "destination": "slot:2", "barcode": "TD0001L9", "drive": None,
                     "unloaded": False, "allow_removal_sent": False, "mail_slot_locked": True}
    assert [(c[0], c[4] & 1 if c[0] == 0x1E else None) for c in sent if c[0] in (0x1E, 0xA5)] == [(0x1E, 1), (0xA5, None), (0x1E, 0)]
    sent.clear()
    # A slot to a drive touches no mail slot: no PREVENT, no ALLOW.
    assert main(["library", dev, "--move", "slot:2", "drive:0"]) == 0
    assert not [c for c in sent if c[0] == 0x1E]
    # A mail slot another host locked: one line, nothing moved, and the robot's failure still releases tapediag's lock.
    locked = _dev(tmp_path, ielocked="1")
    before = _state(tmp_path)
    capsys.readouterr()
    sent.clear()
    assert main(["library", locked, "--move", "slot:1", "ie:0"]) == 3
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "ie:0: medium removal prevented by the library (05/53/02)" in err[0] \
        and "nothing moved" in err[0], err
    assert [(c[0], c[4] & 1 if c[0] == 0x1E else None) for c in sent if c[0] in (0x1E, 0xA5)] == [(0x1E, 1), (0xA5, None), (0x1E, 0)]
    assert _state(tmp_path) == before


def test_a_library_without_prevent_gets_no_allow(tmp_path: Path) -> None:
    """PREVENT refused as unsupported (tgt's changer: 05/20/00): the move goes on and ALLOW is never sent."""
    from native.transport import CommandResult
    from native.virtual.sense import fixed_sense

    lib = VirtualLibrary(_dev(tmp_path))
    real = lib.execute
    sent: list[int] = []

    def no_prevent(cdb: bytes, **kw):  # type: ignore[no-untyped-def]
        sent.append(bytes(cdb)[0])
        if bytes(cdb)[0] == 0x1E:
            return CommandResult(2, fixed_sense(0x5, 0x20, 0x00), memoryview(bytearray()), 0)
        return real(cdb, **kw)

    lib.execute = no_prevent  # type: ignore[method-assign]
    moved = Changer(lib, device="virtual:library").move("slot:1", "ie:0")
    assert moved.mail_slot_locked is False and sent.count(0x1E) == 1 and sent.count(0xA5) == 1


def test_the_robot_takes_its_time_in_real_time_farther_moves_slower(tmp_path: Path) -> None:
    """realtime=1: the move-time model (shortened from a real robot's); realtime=0 moves at once."""
    lib = VirtualLibrary(_dev(tmp_path, realtime="1", slots="24"))
    near, far = lib._robot_time(1000, 1001), lib._robot_time(10, 1023)  # slot to slot, mail slot to the last slot
    assert 0.3 <= near < far <= 2.0
    changer = Changer(lib, device="virtual:library")
    inv = changer.inventory()
    seconds = changer.send_move(inv.find("slot:24"), inv.find("ie:0"))
    assert seconds >= lib._robot_time(1023, 10) - 0.01  # the same move number: the same scatter


def test_element_rows_say_an_exception_decoded_and_where_a_cartridge_came_from() -> None:
    from app.library import Inventory
    from app.library_view import element_rows
    from native.scsi.smc import Element

    inv = Inventory("lib", "ACME", "L1", (Element(ElementType.STORAGE, 1000, False),
                                          Element(ElementType.DATA_TRANSFER, 500, True, "AB0001L8", (0x15, 0x01), 1000,
                                                  "ACME LTO8 SN123")))
    rows = {r.name: r for r in element_rows(inv, {"drive:0": None})}
    drive = rows["drive:0"]
    assert drive.exception == "15/01: Mechanical positioning error"
    assert drive.notes == "from slot:1, drive ACME LTO8 SN123, exception 15/01: Mechanical positioning error"
    assert rows["slot:1"].contents == "empty" and drive.drive_device is None

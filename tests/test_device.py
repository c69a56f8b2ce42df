"""``TapeDrive`` and ``Changer`` share one base (``app.device.ScsiDevice``): one policy for statuses,
the type gate, the read-only gate, opening with a CHAP secret. Each test runs on both, on the
virtual drive and the virtual library, with faults injected by ``tests/helpers/faults.py``."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from app.device import ReadOnlyRefusal, ScsiDevice
from app.drive import NotATapeDrive, TapeDrive
from app.library import Changer, NotAChanger
from native import open_transport
from native.errors import CheckCondition, HardwareError, InvalidParameter, ScsiStatusError, UnitAttention
from native.scsi import cdb as C
from native.transport import Transport
from tests.helpers.faults import FaultyTransport, busy, check_condition, hardware_error, power_on_reset

Opened = tuple[type[ScsiDevice], Callable[[Path], Transport]]

DRIVE: Opened = (TapeDrive, lambda tmp: open_transport(f"virtual:lto9?realtime=0&cartridge={tmp / 'c.cart'}"))
CHANGER: Opened = (Changer, lambda tmp: open_transport(f"virtual:library?realtime=0&dir={tmp / 'lib'}"))
BOTH = pytest.mark.parametrize("kind", [DRIVE, CHANGER], ids=["drive", "changer"])


def _device(kind: Opened, tmp_path: Path, **kwargs: object) -> tuple[ScsiDevice, FaultyTransport]:
    cls, opener = kind
    faulty = FaultyTransport(opener(tmp_path))
    device = cls(faulty, device="dev", **kwargs)  # type: ignore[arg-type]
    device.require_type()
    device._execute(C.test_unit_ready())  # the library's power-on unit attention consumed
    return device, faulty


@BOTH
def test_a_check_condition_is_the_exception_of_its_sense_key_with_the_same_line(kind: Opened, tmp_path: Path) -> None:
    device, faulty = _device(kind, tmp_path)
    faulty.inject(hardware_error(), opcode=C.INQUIRY)
    with pytest.raises(HardwareError) as err:
        device.serial_number()
    assert str(err.value).startswith("INQUIRY: HARDWARE ERROR: ") and err.value.sense.asc == 0x44
    assert device.last_sense is not None and device.last_sense.key == 0x4


@BOTH
def test_another_status_is_a_status_error_naming_it(kind: Opened, tmp_path: Path) -> None:
    device, faulty = _device(kind, tmp_path)
    faulty.inject(busy(), opcode=C.INQUIRY)
    with pytest.raises(ScsiStatusError, match="INQUIRY: the device returned BUSY") as err:
        device.serial_number()
    assert err.value.hint is not None and "busy with another host" in err.value.hint


@BOTH
def test_a_recovered_error_is_a_success(kind: Opened, tmp_path: Path) -> None:
    device, faulty = _device(kind, tmp_path)
    faulty.inject(check_condition(0x1, 0x17, 0x01), opcode=C.TEST_UNIT_READY)
    device._command(C.test_unit_ready())
    assert faulty.fired, "the fault was not reached"


@BOTH
def test_undecodable_sense_is_one_check_condition_line(kind: Opened, tmp_path: Path) -> None:
    from tests.helpers.faults import Fault

    device, faulty = _device(kind, tmp_path)
    faulty.inject(Fault("garbage sense", sense=b"\x01\x02"), opcode=C.INQUIRY)
    with pytest.raises(CheckCondition, match="undecodable sense data"):
        device.serial_number()


@BOTH
def test_a_read_only_device_refuses_every_state_changing_command_before_sending(kind: Opened, tmp_path: Path) -> None:
    device, faulty = _device(kind, tmp_path, read_only=True)
    sent = len(faulty.calls)
    for cdb in (C.prevent_allow_medium_removal(prevent=True), bytes([C.MOVE_MEDIUM]) + bytes(11), C.write6(0)):
        with pytest.raises(ReadOnlyRefusal):
            device._command(cdb)
    with pytest.raises(ReadOnlyRefusal, match="MOVE MEDIUM was not sent"):
        device.require_writable(C.MOVE_MEDIUM)
    assert len(faulty.calls) == sent


@pytest.mark.parametrize("kind, other, refusal", [(DRIVE, CHANGER, NotATapeDrive), (CHANGER, DRIVE, NotAChanger)],
                         ids=["a drive object on a changer", "a changer object on a drive"])
def test_the_type_gate_sends_only_inquiry_to_another_device_type(kind: Opened, other: Opened,
                                                                 refusal: type[InvalidParameter], tmp_path: Path) -> None:
    cls, _ = kind
    faulty = FaultyTransport(other[1](tmp_path))
    device = cls(faulty, device="dev")
    with pytest.raises(refusal):
        device._command(C.test_unit_ready())
    assert [cdb[0] for cdb in faulty.calls] == [C.INQUIRY]


def test_the_changer_sends_a_command_again_after_a_unit_attention_and_gives_up_after_three(tmp_path: Path) -> None:
    device, faulty = _device(CHANGER, tmp_path)
    faulty.inject(power_on_reset(), opcode=C.MODE_SENSE_6, times=2)
    assert isinstance(device, Changer) and device.element_map() is not None
    faulty.inject(power_on_reset(), opcode=C.MODE_SENSE_6, times=3)
    with pytest.raises(UnitAttention):
        device._ask(C.mode_sense6(0x1D, dbd=True), 255)


@BOTH
def test_open_uses_the_remembered_chap_secret(kind: Opened, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """``open`` goes through ``app.targets.open_device``: the one place a device is opened with its secret."""
    import app.targets

    cls, opener = kind
    opened: list[str] = []

    def fake_open_device(device: str) -> Transport:
        opened.append(device)
        return opener(tmp_path)

    monkeypatch.setattr(app.targets, "open_device", fake_open_device)
    with cls.open("iscsi://user%secret@127.0.0.1/iqn.x/0") as device:
        assert device.device == "iscsi://user@127.0.0.1/iqn.x/0"  # the shown form: no secret
    assert opened == ["iscsi://user%secret@127.0.0.1/iqn.x/0"]

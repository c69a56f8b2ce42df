"""The host side (app.drive.TapeDrive) against the virtual drive: the two halves agree."""
from __future__ import annotations

import os

import pytest

from app.drive import TapeDrive
from native.errors import DataProtect, NotReady


@pytest.fixture
def tape(open_drive):
    def _open(**opts: object) -> TapeDrive:
        return TapeDrive(open_drive(**opts))
    return _open


def test_identity_limits_and_generation(tape) -> None:
    d = tape(gen=8)
    inq = d.inquiry()
    assert (inq.vendor, inq.product, inq.removable, inq.device_type) == ("HPE", "Ultrium 8-SCSI", True, 1)
    assert d.generation() == 8
    assert d.serial_number() == d.transport.serial
    assert d.read_block_limits().max_length == 0xFFFFFF
    assert d.block_size() == 0 and not d.is_write_protected()


def test_write_read_outcomes(tape) -> None:
    d = tape()
    payload = os.urandom(70_000)
    assert not d.write(payload).eom_warning
    d.write_filemarks(1)
    d.rewind()
    out = d.read(100_000)
    assert out.nbytes == 70_000 and bytes(out.data) == payload and out.ili
    assert d.read(100_000).filemark
    assert d.read(100_000).eod
    pos = d.read_position_long()
    assert (pos.logical_object, pos.logical_file) == (2, 1)


def test_compression_switch_changes_what_tape_is_charged(tape) -> None:
    d = tape()
    text = b"abcdefgh" * 32768
    d.write(text)
    compressed = d.transport.cart.tape_used()
    assert d.set_compression(False).enabled is False
    d.write(text)
    assert d.transport.cart.tape_used() - compressed == len(text) > 10 * compressed


def test_tapealert_mam_and_protection_through_the_app(tape) -> None:
    d = tape(tapealert="4,31")
    page = d.tapealert()  # one read: reading clears the flags
    assert {flag.code for flag in page.active} == {4, 31}
    assert d.tapealert().active == ()
    mam = d.read_attributes()
    assert mam.density_code == 0x60 and mam.barcode == d.transport.cart.meta.barcode
    assert mam.medium_type is not None and "worm" not in mam.medium_type.lower()
    d.close()
    d = tape(wp=1)
    assert d.is_write_protected()
    with pytest.raises(DataProtect):
        d.write(b"x")
    d.unload()
    with pytest.raises(NotReady):
        d.test_unit_ready()


def test_safety_probe_sees_worm_and_data(tape) -> None:
    from app.tapeperf import safety

    d = tape(worm=1, cart="worm.cart")
    assert safety.probe(d, at_bot=True).worm
    d.close()
    d = tape(cart="data.cart")
    d.write(b"customer data")
    d.write_filemarks(1)
    state = safety.probe(d, at_bot=True)
    assert state.holds_data and "block at BOT of 13 bytes" in state.found

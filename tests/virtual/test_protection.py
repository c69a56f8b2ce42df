"""Write-protect tab and WORM media: refusals with DATA PROTECT and the right ASC."""
from __future__ import annotations

import struct

from tests.virtual.conftest import cdb6, decode_sense, filemarks, rewind, sense_fields, write


def test_write_protected_cartridge_refuses_every_change(open_drive) -> None:
    d = open_drive()
    write(d, b"keep me")
    d.close()
    d = open_drive(wp=1)
    for r in (write(d, b"x"), filemarks(d), d.execute(cdb6(0x19, 1))):
        assert sense_fields(r.sense)[:3] == (7, 0x27, 0)
        assert "Write protected" in decode_sense(r.sense)
    header = d.execute(bytes([0x1A, 0, 0x3F, 0, 255, 0]), data_in=255)
    assert header.data[2] & 0x80  # WP bit in the mode parameter header
    assert d.cart.count == 1
    d.close()
    d = open_drive(wp=0)  # the tab slid back
    assert write(d, b"now it works").good


def test_worm_appends_but_refuses_overwrite(open_drive) -> None:
    d = open_drive(worm=1)
    assert write(d, b"first").good
    assert filemarks(d).good
    rewind(d)
    r = write(d, b"overwrite")
    assert sense_fields(r.sense)[:3] == (7, 0x30, 0x0C)
    assert "WORM medium - overwrite attempted" in decode_sense(r.sense)
    assert sense_fields(d.execute(cdb6(0x19, 0)).sense)[:3] == (7, 0x30, 0x0C)
    # Overwriting the trailing filemark is allowed (SSC): append after the data.
    d.execute(bytes([0x11, 0, 0, 0, 1, 0]))
    assert write(d, b"appended").good
    mam = d.execute(bytes([0x8C, 0, 0, 0, 0, 0, 0, 0, 0x04, 0x08, 0, 0, 1, 0, 0, 0]), data_in=256)
    assert mam.good and mam.data[4:9] == bytes([0x04, 0x08, 0x80, 0x00, 0x01]) and mam.data[9] == 0x80


def test_older_generation_is_read_only(open_drive) -> None:
    d = open_drive(gen=5, cart="lto5.cart")
    assert write(d, b"written by an LTO-5 drive").good
    d.close()
    d = open_drive(gen=7, cart="lto5.cart")  # LTO-7 reads LTO-5 but cannot write it
    rewind(d)
    assert d.execute(cdb6(0x08, 0, 100), data_in=100).transferred == 25
    r = write(d, b"x")
    assert sense_fields(r.sense)[:3] == (7, 0x30, 0x05)
    assert "Cannot write medium - incompatible format" in decode_sense(r.sense)


def test_refused_write_raises_tapealert_write_protect(open_drive) -> None:
    d = open_drive(wp=1)
    write(d, b"x")
    page = bytes(d.execute(bytes([0x4D, 0, 0x6E, 0, 0, 0, 0, 0x01, 0x80, 0]), data_in=384).data)
    flags = {struct.unpack_from(">H", page, 4 + 5 * i)[0] for i in range(64) if page[4 + 5 * i + 4]}
    assert flags == {9}


def test_a_cartridge_is_in_one_drive_at_a_time(open_drive) -> None:
    import pytest

    from native.errors import TransportError

    open_drive()
    with pytest.raises(TransportError, match="in use"):
        open_drive()

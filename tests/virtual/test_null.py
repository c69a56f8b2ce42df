"""virtual:null: answers the pre-checks, swallows writes, reads hit EOD at once."""
from __future__ import annotations

import struct

from native import open_transport
from native.null import NullTransport
from tests.virtual.conftest import cdb6, sense_fields


def test_null_device_pre_checks_and_writes() -> None:
    d = open_transport("virtual:null")
    assert isinstance(d, NullTransport)
    inq = d.execute(bytes([0x12, 0, 0, 0, 96, 0]), data_in=96)
    assert inq.good and inq.data[0] == 0x01 and bytes(inq.data[8:16]) == b"TAPEDIAG"
    assert d.execute(cdb6(0x00)).good
    assert bytes(d.execute(cdb6(0x05), data_in=6).data) == bytes([0, 0xFF, 0xFF, 0xFF, 0, 1])
    select = bytes([0, 0, 0x10, 8, 0, 0, 0, 0, 0]) + (4096).to_bytes(3, "big")
    assert d.execute(cdb6(0x15, 0x10, len(select)), data_out=select).good
    ms = d.execute(bytes([0x1A, 0, 0x0F, 0, 255, 0]), data_in=255)
    assert ms.good and int.from_bytes(ms.data[9:12], "big") == 4096 and ms.data[4 + 8] == 0x0F
    for _ in range(3):
        assert d.execute(cdb6(0x0A, 1, 256), data_out=bytes(256 * 4096)).good
    assert d.execute(cdb6(0x10, 0, 1)).good
    pos = d.execute(bytes([0x34, 0]) + bytes(8), data_in=20)
    assert struct.unpack_from(">I", pos.data, 4)[0] == 769 and pos.transferred == 20
    assert d.execute(cdb6(0x01)).good
    r = d.execute(cdb6(0x08, 0, 1 << 20), data_in=1 << 20)
    assert sense_fields(r.sense)[:3] == (8, 0, 5) and r.transferred == 0
    assert sense_fields(d.execute(bytes([0x4D]) + bytes(9), data_in=64).sense)[:3] == (5, 0x20, 0)
    assert d.bytes_written == 3 * 256 * 4096
    d.close()


def test_null_device_refusals_are_check_conditions_with_their_sense() -> None:
    """Every refusal comes back as CHECK CONDITION with its own sense, never as data."""
    d = open_transport("virtual:null")
    vpd83 = d.execute(bytes([0x12, 0x01, 0x83, 0, 96, 0]), data_in=96)
    assert vpd83.status == 0x02 and sense_fields(vpd83.sense)[:3] == (5, 0x24, 0) and vpd83.transferred == 0
    past_eod = d.execute(bytes([0x2B, 0, 0]) + (10).to_bytes(4, "big") + bytes(3))
    assert past_eod.status == 0x02 and sense_fields(past_eod.sense)[:3] == (8, 0, 5)
    unknown_mode_page = d.execute(bytes([0x1A, 0, 0x1C, 0, 255, 0]), data_in=255)
    assert unknown_mode_page.status == 0x02 and sense_fields(unknown_mode_page.sense)[:3] == (5, 0x24, 0)
    d.close()

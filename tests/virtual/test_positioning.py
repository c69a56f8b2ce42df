"""SPACE / LOCATE / READ POSITION against SSC's rules for filemarks, BOT and EOD."""
from __future__ import annotations

import struct

from tests.virtual.conftest import decode_sense, filemarks, position, read, rewind, sense_fields, space, write


def _layout(d) -> None:
    """Objects: 0 b0, 1 b1, 2 FM, 3 b3, 4 b4, 5 b5, 6 FM, 7 b7; EOD at 8."""
    for i in (0, 1):
        write(d, bytes([i]) * 10)
    filemarks(d)
    for i in (3, 4, 5):
        write(d, bytes([i]) * 10)
    filemarks(d)
    write(d, bytes([7]) * 10)


def test_space_blocks_forward_stops_after_a_filemark(open_drive) -> None:
    d = open_drive()
    _layout(d)
    rewind(d)
    assert space(d, 0, 1).good and position(d)[1] == 1
    r = space(d, 0, 5)  # one block, then the filemark
    assert sense_fields(r.sense) == (0, 0, 1, 4, True, False, False)
    assert "Filemark detected" in decode_sense(r.sense)
    assert position(d)[1:] == (3, 1)  # EOP side of the filemark
    assert bytes(read(d, 10).data) == bytes([3]) * 10


def test_space_blocks_reverse_stops_before_a_filemark_and_at_bot(open_drive) -> None:
    d = open_drive()
    _layout(d)
    space(d, 3, 0)  # EOD
    assert position(d)[1:] == (8, 2)
    r = space(d, 0, -3)  # b7, then the filemark at 6
    assert sense_fields(r.sense) == (0, 0, 1, 2, True, False, False)
    assert position(d)[1] == 6  # BOP side of the filemark
    rewind(d)
    space(d, 0, 1)
    r = space(d, 0, -4)
    assert sense_fields(r.sense) == (0, 0, 4, 3, False, True, False)
    assert "Beginning-of-partition/medium detected" in decode_sense(r.sense)
    flags, obj, _ = position(d)
    assert obj == 0 and flags & 0x80  # BOP


def test_space_filemarks_both_ways_and_eod(open_drive) -> None:
    d = open_drive()
    _layout(d)
    rewind(d)
    assert space(d, 1, 2).good and position(d)[1:] == (7, 2)
    assert space(d, 1, -1).good and position(d)[1] == 6
    r = space(d, 1, 3)  # crosses the filemark at 6, then EOD: residual 2
    assert sense_fields(r.sense)[:4] == (8, 0, 5, 2)
    assert position(d)[1] == 8
    r = space(d, 1, -5)
    assert sense_fields(r.sense) == (0, 0, 4, 3, False, True, False) and position(d)[1] == 0
    r = space(d, 0, 20)
    assert sense_fields(r.sense)[:4] == (0, 0, 1, 18)


def test_space_blocks_into_eod_is_blank_check(open_drive) -> None:
    d = open_drive()
    _layout(d)
    rewind(d)
    space(d, 1, 2)
    r = space(d, 0, 5)
    assert sense_fields(r.sense) == (8, 0, 5, 4, False, False, False)
    assert position(d)[1] == 8


def test_locate_and_read_position_forms(open_drive) -> None:
    d = open_drive()
    _layout(d)
    assert d.execute(bytes([0x2B, 0, 0]) + struct.pack(">I", 4) + bytes(3)).good
    r = d.execute(bytes([0x34, 0]) + bytes(8), data_in=20)
    flags, _p, first, last = struct.unpack_from(">BBxxII", bytes(r.data))
    assert (flags & 0x80, first, last, r.transferred) == (0, 4, 4, 20)
    assert bytes(read(d, 10).data) == bytes([4]) * 10
    # LOCATE(16) to logical file 2: just after the second filemark.
    assert d.execute(bytes([0x92, 1 << 3, 0, 0]) + struct.pack(">Q", 2) + bytes(4)).good
    assert position(d)[1:] == (7, 2)
    r = d.execute(bytes([0x34, 0x08]) + bytes(5) + struct.pack(">H", 32) + b"\x00", data_in=32)
    assert struct.unpack_from(">Q", r.data, 8)[0] == 7
    r = d.execute(bytes([0x2B, 0, 0]) + struct.pack(">I", 99) + bytes(3))
    assert sense_fields(r.sense)[:3] == (8, 0, 5) and position(d)[1] == 8

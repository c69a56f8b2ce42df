"""CDB builders against hand-assembled bytes from SPC-4 / SSC-4 field layouts."""
from __future__ import annotations

import pytest

from native.scsi import cdb as C
from native.errors import InvalidParameter


@pytest.mark.parametrize(
    "built, expected",
    [
        (C.test_unit_ready(), "00 00 00 00 00 00"),
        (C.rewind(), "01 00 00 00 00 00"),
        (C.rewind(immed=True), "01 01 00 00 00 00"),
        (C.request_sense(252), "03 00 00 00 fc 00"),
        (C.read_block_limits(), "05 00 00 00 00 00"),
        (C.read6(0x040000), "08 00 04 00 00 00"),
        (C.read6(64, fixed=True), "08 01 00 00 40 00"),
        (C.read6(512, sili=True), "08 02 00 02 00 00"),
        (C.write6(0xFFFFFF), "0a 00 ff ff ff 00"),
        (C.write6(8, fixed=True), "0a 01 00 00 08 00"),
        (C.write_filemarks(2), "10 00 00 00 02 00"),
        (C.write_filemarks(1, immed=True), "10 01 00 00 01 00"),
        (C.space(1, C.SpaceCode.FILEMARKS), "11 01 00 00 01 00"),
        (C.space(-1, C.SpaceCode.FILEMARKS), "11 01 ff ff ff 00"),
        (C.space(0, C.SpaceCode.END_OF_DATA), "11 03 00 00 00 00"),
        (C.space(-(1 << 23)), "11 00 80 00 00 00"),
        (C.inquiry(96), "12 00 00 00 60 00"),
        (C.inquiry(0xFFFC, evpd=True, page=0x83), "12 01 83 ff fc 00"),
        (C.mode_select6(12), "15 10 00 00 0c 00"),
        (C.mode_select6(28, sp=True), "15 11 00 00 1c 00"),
        (C.erase(), "19 00 00 00 00 00"),
        (C.erase(long=True, immed=True), "19 03 00 00 00 00"),
        (C.mode_sense6(0x0F), "1a 00 0f 00 ff 00"),
        (C.mode_sense6(0x3F, pc=C.PageControl.CHANGEABLE, dbd=True, alloc=64), "1a 08 7f 00 40 00"),
        (C.load_unload(), "1b 00 00 00 01 00"),
        (C.load_unload(load=False, immed=True), "1b 01 00 00 00 00"),
        (C.load_unload(retension=True, eot=True), "1b 00 00 00 07 00"),
        (C.locate10(0x01020304), "2b 00 00 01 02 03 04 00 00 00"),
        (C.locate10(5, partition=1, immed=True), "2b 03 00 00 00 00 05 00 01 00"),
        (C.read_position(), "34 00 00 00 00 00 00 00 00 00"),
        (C.read_position(C.PositionForm.LONG), "34 06 00 00 00 00 00 00 00 00"),
        (C.report_density_support(media=True, alloc=0x2000), "44 01 00 00 00 00 00 20 00 00"),
        (C.log_sense(0x2E), "4d 00 6e 00 00 00 00 ff fc 00"),
        (C.log_sense(0x02, pc=C.LogPageControl.CURRENT_THRESHOLD, pointer=5, alloc=0x100), "4d 00 02 00 00 00 05 01 00 00"),
        (C.mode_select10(300), "55 10 00 00 00 00 00 01 2c 00"),
        (C.mode_sense10(0x10, alloc=0x1000), "5a 00 10 00 00 00 00 10 00 00"),
        (C.read_attribute(), "8c 00 00 00 00 00 00 00 00 00 00 00 20 00 00 00"),
        (C.read_attribute(C.AttributeAction.LIST, first=0x400, alloc=0x100, partition=1, cache=True),
         "8c 01 00 00 00 00 00 01 04 00 00 00 01 00 01 00"),
        (C.locate16(1 << 40, partition=2, dest_type=1), "92 0a 00 02 00 00 01 00 00 00 00 00 00 00 00 00"),
    ],
)
def test_builder_bytes(built: bytes, expected: str) -> None:
    assert built == bytes.fromhex(expected)
    assert len(built) in (6, 10, 16)


@pytest.mark.parametrize(
    "call",
    [
        lambda: C.read6(1 << 24),
        lambda: C.write6(-1),
        lambda: C.space(1 << 23),
        lambda: C.read6(1, fixed=True, sili=True),
        lambda: C.mode_sense6(0x40),
        lambda: C.inquiry(page=0x80),
        lambda: C.locate10(1 << 32),
        lambda: C.request_sense(256),
    ],
)
def test_out_of_range_fields_are_refused(call) -> None:
    with pytest.raises(InvalidParameter):
        call()


def test_opcode_names() -> None:
    assert C.opcode_name(C.READ_6) == "READ(6)"
    assert C.opcode_name(0xEE) == "opcode 0xEE"

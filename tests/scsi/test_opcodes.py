"""REPORT SUPPORTED OPERATION CODES: the CDB, the all_commands parser, and its round trip (SPC-4)."""
from __future__ import annotations

import pytest

from native.errors import ParseError
from native.scsi import cdb as C
from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands

SAMPLE = SupportedCommands((
    CommandDescriptor(0x01, None, 6, CommandTimeouts(nominal=120, recommended=780)),
    CommandDescriptor(0xA3, 0x0C, 12, CommandTimeouts(nominal=0, recommended=20, command_specific=3)),
    CommandDescriptor(0x08, None, 6, None),
    CommandDescriptor(0x19, None, 6, CommandTimeouts(nominal=0, recommended=0)),
), needed=0)


def test_cdb_all_commands_with_timeouts() -> None:
    cdb = C.report_supported_opcodes()
    assert cdb == bytes.fromhex("a30c8000000000002000" "0000")
    assert len(cdb) == 12
    assert C.report_supported_opcodes(timeouts=False, alloc=0x10000)[2] == 0x00
    assert C.report_supported_opcodes(alloc=0x10000)[6:10] == b"\x00\x01\x00\x00"


def test_round_trip() -> None:
    raw = SAMPLE.to_bytes()
    parsed = SupportedCommands.parse(raw)
    assert parsed.commands == SAMPLE.commands
    assert parsed.needed == len(raw)
    # 3 descriptors with timeouts (20 bytes) + 1 without (8), behind the 4-byte header
    assert len(raw) == 4 + 3 * 20 + 8
    assert parsed.to_bytes() == raw


def test_layout_bytes() -> None:
    raw = SupportedCommands((CommandDescriptor(0x01, None, 6, CommandTimeouts(120, 780)),), 0).to_bytes()
    assert raw == bytes.fromhex("00000014" "01000000" "0002" "0006" "000a0000" "00000078" "0000030c")


def test_find_by_opcode_and_service_action() -> None:
    parsed = SupportedCommands.parse(SAMPLE.to_bytes())
    rewind = parsed.find(0x01)
    assert rewind is not None and rewind.timeouts == CommandTimeouts(120, 780)
    assert parsed.find(0xA3, 0x0C) is not None
    assert parsed.find(0xA3, 0x0D) is None
    assert parsed.find(0x0A) is None


def test_allocation_cut_keeps_whole_descriptors_and_says_how_much_is_needed() -> None:
    raw = SAMPLE.to_bytes()
    cut = SupportedCommands.parse(raw[:4 + 20 + 10])
    assert [c.opcode for c in cut.commands] == [0x01]
    assert cut.needed == len(raw)


def test_header_only_and_empty_list() -> None:
    assert SupportedCommands.parse(b"\x00\x00\x00\x00").commands == ()
    with pytest.raises(ParseError):
        SupportedCommands.parse(b"\x00\x00")


def test_bad_timeouts_descriptor_length_is_a_parse_error() -> None:
    raw = bytearray(SupportedCommands((CommandDescriptor(0x01, None, 6, CommandTimeouts(1, 2)),), 0).to_bytes())
    raw[4 + 8 + 1] = 0x08
    with pytest.raises(ParseError, match="timeouts descriptor length"):
        SupportedCommands.parse(bytes(raw))

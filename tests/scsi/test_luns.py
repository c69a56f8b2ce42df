"""REPORT LUNS: the CDB, and a response parsed back to the LUNs it lists (round trip), as a target sends it."""
from __future__ import annotations

import pytest

from native.errors import ParseError
from native.scsi.luns import REPORT_LUNS, luns_response, parse_luns, report_luns


def test_the_cdb_asks_for_every_lun_the_target_can_address() -> None:
    cdb = report_luns(4096)
    assert len(cdb) == 12 and cdb[0] == REPORT_LUNS == 0xA0 and cdb[2] == 0  # SELECT REPORT 00h
    assert int.from_bytes(cdb[6:10], "big") == 4096
    with pytest.raises(ValueError):
        report_luns(8)


@pytest.mark.parametrize("luns", [(0,), (0, 1, 2), (0, 255, 256, 16383)])
def test_a_response_round_trips(luns: tuple[int, ...]) -> None:
    data = luns_response(luns)
    assert int.from_bytes(data[:4], "big") == 8 * len(luns)
    assert parse_luns(data) == luns


def test_a_list_cut_by_the_allocation_length_gives_the_luns_that_came() -> None:
    assert parse_luns(luns_response((0, 1, 2, 3))[:8 + 16]) == (0, 1)


def test_units_no_device_string_can_address_are_left_out_and_bad_lists_refused() -> None:
    extended = bytes([0xC0, 1]) + bytes(6)  # the extended addressing method
    data = (16).to_bytes(4, "big") + bytes(4) + luns_response((3,))[8:] + extended
    assert parse_luns(data) == (3,)
    with pytest.raises(ParseError):
        parse_luns(b"\x00\x00")
    with pytest.raises(ParseError):
        parse_luns((7).to_bytes(4, "big") + bytes(4))

"""Every declared CDB layout (``native.scsi.layout``) round-trips: ``parse(build(x)) == x``, one case per
command with every field set away from its default, so a field the builder writes where the emulator
does not read it (or over another field) fails here. The byte-exact checks against SPC-4 / SSC-4 / SMC-3
are ``test_cdb.py``'s."""
from __future__ import annotations

import dataclasses

import pytest

from native.errors import InvalidParameter, ParseError
from native.scsi import cdb as C
from native.scsi import smc
from native.scsi.layout import Cdb, at

CASES: list[Cdb] = [
    C.TestUnitReady(),
    C.Rewind(immed=True),
    C.RequestSense(desc=True, allocation_length=252),
    C.ReadBlockLimits(mloc=True),
    C.Inquiry(evpd=True, page_code=0x83, allocation_length=0xFFFC),
    C.Read6(sili=True, fixed=False, transfer_length=0x123456),
    C.Read6(fixed=True, transfer_length=0xFFFFFF),
    C.Write6(fixed=True, transfer_length=0xABCDEF),
    C.WriteFilemarks6(setmarks=True, immed=True, count=0x010203),
    C.Space6(code=3, count=-(1 << 23)),
    C.Space6(code=1, count=(1 << 23) - 1),
    C.Space16(code=1, count=-5),
    C.ModeSense6(dbd=True, pc=3, page_code=0x3F, subpage_code=0xFF, allocation_length=0xFF),
    C.ModeSense10(dbd=True, pc=1, page_code=0x0F, subpage_code=0x01, allocation_length=0x1000),
    C.ModeSelect6(pf=True, sp=True, parameter_list_length=28),
    C.ModeSelect10(pf=True, sp=True, parameter_list_length=300),
    C.Erase6(immed=True, long=True),
    C.LoadUnload(immed=True, hold=True, eot=True, retension=True, load=True),
    C.SendDiagnostic(self_test_code=5, pf=True, self_test=True, devoffl=True, unitoffl=True, parameter_list_length=8),
    C.PreventAllowMediumRemoval(prevent=1),
    C.Locate10(cp=True, immed=True, block_address=0xFFFFFFFF, partition=2),
    C.Locate16(dest_type=3, cp=True, immed=True, partition=1, logical_identifier=1 << 40),
    C.ReadPosition(service_action=C.PositionForm.EXTENDED, allocation_length=32),
    C.ReadBuffer(mode=C.BufferMode.ERROR_HISTORY, buffer_id=0x10, offset=0x12345, allocation_length=0x10000),
    C.ReportDensitySupport(medium_type=True, media=True, allocation_length=0x2000),
    C.LogSense(sp=True, pc=1, page_code=0x2E, subpage_code=0xFF, parameter_pointer=5, allocation_length=0xFFFC),
    C.ReadAttribute(service_action=1, volume=2, partition=1, first_attribute=0x400, allocation_length=0x10000, cache=True),
    C.WriteAttribute(write_through=True, volume=1, partition=1, parameter_list_length=0x10004),
    C.FormatMedium(verify=True, immed=True, format=2, transfer_length=0x1234),
    C.SecurityProtocolIn(security_protocol=0x20, protocol_specific=0x0020, inc_512=True, allocation_length=0x2000),
    C.ReportSupportedOpcodes(rctd=True, reporting_options=2, requested_opcode=0x08, requested_service_action=1,
                             allocation_length=0x2000),
    smc.ReadElementStatus(voltag=True, element_type=4, start=500, count=16, dvcid=True, allocation_length=0x10000),
    smc.MoveMedium(transport=1, source=1000, destination=500, invert=True),
    smc.InitializeElementStatus(),
]


def _all_layouts(cls: type = Cdb) -> set[type]:
    out = set()
    for sub in cls.__subclasses__():
        out |= {sub} | _all_layouts(sub)
    return out


@pytest.mark.parametrize("command", CASES, ids=lambda c: type(c).__name__)
def test_every_command_round_trips(command: Cdb) -> None:
    raw = command.build()
    assert len(raw) == command.LENGTH and raw[0] == command.OPCODE
    assert type(command).parse(raw) == command


def test_every_declared_command_has_a_round_trip_case() -> None:
    declared = {cls for cls in _all_layouts() if cls.__module__.startswith("native.scsi")}
    assert declared == {type(c) for c in CASES}


@pytest.mark.parametrize("command", CASES, ids=lambda c: type(c).__name__)
def test_every_field_is_read_back_alone(command: Cdb) -> None:
    """Each field by itself (the others at their defaults): a field that leaks into a neighbour shows here."""
    cls = type(command)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        alone = cls(**{f.name: getattr(command, f.name)})
        parsed = cls.parse(alone.build())
        assert parsed == alone, f.name


def test_one_field_is_read_from_the_same_place_as_parse_reads_it() -> None:
    for command in CASES:
        for f in dataclasses.fields(command):  # type: ignore[arg-type]
            assert type(command).reader(f.name)(command.build()) == int(getattr(command, f.name)), f.name
    with pytest.raises(KeyError):
        C.Write6.reader("no such field")


def test_the_service_action_of_report_supported_opcodes_is_declared_with_the_command() -> None:
    assert C.ReportSupportedOpcodes().build()[1] == C.SA_REPORT_SUPPORTED_OPCODES
    assert C.ReportSupportedOpcodes.parse(C.report_supported_opcodes()).rctd


def test_a_cdb_of_another_command_or_too_short_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        C.Read6.parse(C.write6(8))
    with pytest.raises(ParseError):
        C.Locate16.parse(C.locate16(1)[:10])


def test_a_value_that_does_not_fit_its_field_is_refused_when_built() -> None:
    with pytest.raises(InvalidParameter, match="transfer length 16777216 is out of range"):
        C.Write6(transfer_length=1 << 24).build()
    with pytest.raises(InvalidParameter, match="space count"):
        C.Space6(count=1 << 23).build()
    with pytest.raises(InvalidParameter, match="destination address"):
        smc.MoveMedium(destination=1 << 16).build()


def test_a_layout_with_overlapping_fields_is_a_bug_said_at_once() -> None:
    @dataclasses.dataclass(frozen=True)
    class Broken(Cdb):
        OPCODE, LENGTH = 0xEE, 6
        a: int = at(2, 0xFFFF)
        b: bool = at(3, 0x01)

    with pytest.raises(TypeError, match="overlaps"):
        Broken().build()

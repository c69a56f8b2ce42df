"""The SPC-4 / SSC-4 commands tapediag sends, each declared once as a layout, and their builders.

Every command is a ``native.scsi.layout.Cdb``: a frozen dataclass whose fields say where they sit in
the CDB (SPC-4: INQUIRY, MODE, LOG, REQUEST SENSE, READ ATTRIBUTE, SECURITY PROTOCOL IN, REPORT
SUPPORTED OPERATION CODES; SSC-4: the sequential-access commands). The builder functions below are
what tapediag's callers use; the emulators read the same classes back (``Read6.parse(cdb)``), so the
sender and the receiver of a command cannot disagree about a field. Nothing here does I/O. Values that
do not fit their field raise ``InvalidParameter`` rather than being silently truncated, since a
wrapped-around transfer length on a tape drive writes the wrong amount of data.

The commands that act (move the tape, transfer data, change the drive's or the cartridge's state) are
stored in ``native.scsi.cdb_actions``, and the queries neither ``info`` nor ``devices`` sends (REQUEST SENSE,
MODE SENSE(6), READ POSITION, READ BUFFER, REPORT DENSITY SUPPORT) in ``native.scsi.cdb_more``; both are named
here all the same (``cdb.Read6``, ``cdb.rewind()``, ``cdb.read_position()``) and loaded when one is first used
(PEP 562), since each layout is a dataclass built at import (issue 32 §3).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from native.errors import InvalidParameter
from native.scsi.layout import ALLOC, Cdb, at

if TYPE_CHECKING:
    from native.scsi.cdb_actions import (  # noqa: F401 - named here, stored there (see the docstring)
        Erase6, FormatMedium, LoadUnload, Locate10, Locate16, ModeSelect6, ModeSelect10, PreventAllowMediumRemoval,
        Read6, Rewind, SendDiagnostic, Space6, Space16, Write6, WriteAttribute, WriteFilemarks6, erase, format_medium,
        load_unload, locate10, locate16, mode_select6, mode_select10, prevent_allow_medium_removal, read6, rewind,
        send_diagnostic_self_test, space, write6, write_attribute, write_filemarks,
    )
    from native.scsi.cdb_more import (  # noqa: F401 - named here, stored there (see the docstring)
        ModeSense6, ReadBuffer, ReadPosition, ReportDensitySupport, RequestSense, mode_sense6, read_buffer,
        read_position, report_density_support, request_sense,
    )

from native.scsi.cdb_codes import (  # named through this module (cdb.READ_6): see cdb_codes' docstring
    TEST_UNIT_READY as TEST_UNIT_READY, REWIND as REWIND, REQUEST_SENSE as REQUEST_SENSE,
    FORMAT_MEDIUM as FORMAT_MEDIUM, READ_BLOCK_LIMITS as READ_BLOCK_LIMITS,
    INITIALIZE_ELEMENT_STATUS as INITIALIZE_ELEMENT_STATUS, READ_6 as READ_6, WRITE_6 as WRITE_6,
    SET_CAPACITY as SET_CAPACITY, WRITE_FILEMARKS_6 as WRITE_FILEMARKS_6, SPACE_6 as SPACE_6, INQUIRY as INQUIRY,
    MODE_SELECT_6 as MODE_SELECT_6, RESERVE_6 as RESERVE_6, RELEASE_6 as RELEASE_6, ERASE_6 as ERASE_6,
    MODE_SENSE_6 as MODE_SENSE_6, LOAD_UNLOAD as LOAD_UNLOAD, SEND_DIAGNOSTIC as SEND_DIAGNOSTIC,
    PREVENT_ALLOW_MEDIUM_REMOVAL as PREVENT_ALLOW_MEDIUM_REMOVAL, LOCATE_10 as LOCATE_10,
    READ_POSITION as READ_POSITION, INITIALIZE_ELEMENT_STATUS_WITH_RANGE as INITIALIZE_ELEMENT_STATUS_WITH_RANGE,
    WRITE_BUFFER as WRITE_BUFFER, READ_BUFFER as READ_BUFFER, REPORT_DENSITY_SUPPORT as REPORT_DENSITY_SUPPORT,
    LOG_SELECT as LOG_SELECT, LOG_SENSE as LOG_SENSE, MODE_SELECT_10 as MODE_SELECT_10,
    MODE_SENSE_10 as MODE_SENSE_10, PERSISTENT_RESERVE_OUT as PERSISTENT_RESERVE_OUT,
    WRITE_FILEMARKS_16 as WRITE_FILEMARKS_16, ALLOW_OVERWRITE as ALLOW_OVERWRITE, READ_16 as READ_16,
    WRITE_16 as WRITE_16, READ_ATTRIBUTE as READ_ATTRIBUTE, WRITE_ATTRIBUTE as WRITE_ATTRIBUTE, SPACE_16 as SPACE_16,
    LOCATE_16 as LOCATE_16, ERASE_16 as ERASE_16, REPORT_LUNS as REPORT_LUNS,
    SECURITY_PROTOCOL_IN as SECURITY_PROTOCOL_IN, MAINTENANCE_IN as MAINTENANCE_IN,
    MAINTENANCE_OUT as MAINTENANCE_OUT, MOVE_MEDIUM as MOVE_MEDIUM, EXCHANGE_MEDIUM as EXCHANGE_MEDIUM,
    SECURITY_PROTOCOL_OUT as SECURITY_PROTOCOL_OUT, READ_ELEMENT_STATUS as READ_ELEMENT_STATUS,
    SpaceCode as SpaceCode, PageControl as PageControl, PositionForm as PositionForm, BufferMode as BufferMode,
)

#: Every command's name, as messages, the read-only list and the command watch say it: the one table.
OPCODE_NAMES = {
    TEST_UNIT_READY: "TEST UNIT READY",
    REWIND: "REWIND",
    REQUEST_SENSE: "REQUEST SENSE",
    FORMAT_MEDIUM: "FORMAT MEDIUM",
    READ_BLOCK_LIMITS: "READ BLOCK LIMITS",
    INITIALIZE_ELEMENT_STATUS: "INITIALIZE ELEMENT STATUS",
    READ_6: "READ(6)",
    WRITE_6: "WRITE(6)",
    SET_CAPACITY: "SET CAPACITY",
    WRITE_FILEMARKS_6: "WRITE FILEMARKS(6)",
    SPACE_6: "SPACE(6)",
    INQUIRY: "INQUIRY",
    MODE_SELECT_6: "MODE SELECT(6)",
    RESERVE_6: "RESERVE(6)",
    RELEASE_6: "RELEASE(6)",
    ERASE_6: "ERASE(6)",
    MODE_SENSE_6: "MODE SENSE(6)",
    LOAD_UNLOAD: "LOAD UNLOAD",
    SEND_DIAGNOSTIC: "SEND DIAGNOSTIC",
    PREVENT_ALLOW_MEDIUM_REMOVAL: "PREVENT ALLOW MEDIUM REMOVAL",
    LOCATE_10: "LOCATE(10)",
    READ_POSITION: "READ POSITION",
    INITIALIZE_ELEMENT_STATUS_WITH_RANGE: "INITIALIZE ELEMENT STATUS WITH RANGE",
    WRITE_BUFFER: "WRITE BUFFER",
    READ_BUFFER: "READ BUFFER",
    REPORT_DENSITY_SUPPORT: "REPORT DENSITY SUPPORT",
    LOG_SELECT: "LOG SELECT",
    LOG_SENSE: "LOG SENSE",
    MODE_SELECT_10: "MODE SELECT(10)",
    MODE_SENSE_10: "MODE SENSE(10)",
    PERSISTENT_RESERVE_OUT: "PERSISTENT RESERVE OUT",
    WRITE_FILEMARKS_16: "WRITE FILEMARKS(16)",
    ALLOW_OVERWRITE: "ALLOW OVERWRITE",
    READ_16: "READ(16)",
    WRITE_16: "WRITE(16)",
    READ_ATTRIBUTE: "READ ATTRIBUTE",
    WRITE_ATTRIBUTE: "WRITE ATTRIBUTE",
    SPACE_16: "SPACE(16)",
    LOCATE_16: "LOCATE(16)",
    ERASE_16: "ERASE(16)",
    REPORT_LUNS: "REPORT LUNS",
    SECURITY_PROTOCOL_IN: "SECURITY PROTOCOL IN",
    MAINTENANCE_IN: "REPORT SUPPORTED OPERATION CODES",  # the only MAINTENANCE IN service action tapediag sends
    MAINTENANCE_OUT: "MAINTENANCE OUT",
    MOVE_MEDIUM: "MOVE MEDIUM",  # SMC-3, changers only (native/scsi/smc.py)
    EXCHANGE_MEDIUM: "EXCHANGE MEDIUM",
    SECURITY_PROTOCOL_OUT: "SECURITY PROTOCOL OUT",
    READ_ELEMENT_STATUS: "READ ELEMENT STATUS",
}

#: CDB length by the opcode's group code (SAM-5: group 0 six bytes, 1-2 ten, 4 sixteen, 5 twelve).
_GROUP_LENGTH = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}

def opcode_name(opcode: int) -> str:
    return OPCODE_NAMES.get(opcode, f"opcode 0x{opcode:02X}")


def cdb_length(opcode: int) -> int:
    """The CDB length its opcode's group code gives (6 for the groups SAM-5 leaves reserved or vendor)."""
    return _GROUP_LENGTH.get(opcode >> 5, 6)




class LogPageControl(enum.IntEnum):
    """LOG SENSE page control: which set of values the page reports."""

    CURRENT_THRESHOLD = 0
    CUMULATIVE = 1
    DEFAULT_THRESHOLD = 2
    DEFAULT_CUMULATIVE = 3


class AttributeAction(enum.IntEnum):
    VALUES = 0x00
    LIST = 0x01
    VOLUME_LIST = 0x02
    PARTITION_LIST = 0x03


#: Security protocol 20h: tape data encryption (SSC-4 8.5, SPC-4 SECURITY PROTOCOL IN).
PROTOCOL_TAPE_ENCRYPTION = 0x20
#: MAINTENANCE IN service action REPORT SUPPORTED OPERATION CODES (SPC-4).
SA_REPORT_SUPPORTED_OPCODES = 0x0C



# -- the layouts (SPC-4 / SSC-4 field positions) -------------------------------------------------

@dataclass(frozen=True)
class TestUnitReady(Cdb):
    """TEST UNIT READY (SPC-4): is the device ready for a medium-access command? It moves nothing."""

    __test__ = False  # not a pytest test class
    OPCODE, LENGTH = TEST_UNIT_READY, 6


@dataclass(frozen=True)
class ReadBlockLimits(Cdb):
    """READ BLOCK LIMITS (SSC-4): the block sizes the drive takes (its answer: ``native.scsi.tape.BlockLimits``)."""

    OPCODE, LENGTH = READ_BLOCK_LIMITS, 6
    mloc: bool = at(1, 0x01)  # SSC-5: the maximum logical object identifier instead of the block limits


@dataclass(frozen=True)
class Inquiry(Cdb):
    """INQUIRY the command (its answer is ``native.scsi.inquiry.Inquiry``)."""

    OPCODE, LENGTH = INQUIRY, 6
    evpd: bool = at(1, 0x01)
    page_code: int = at(2, what="VPD page")
    allocation_length: int = at(3, 0xFFFF, what=ALLOC)


@dataclass(frozen=True)
class ModeSense10(Cdb):
    """MODE SENSE(10) (SPC-4): a mode page with the 8-byte header; the form tapediag asks first."""

    OPCODE, LENGTH = MODE_SENSE_10, 10
    dbd: bool = at(1, 0x08)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="mode page")
    subpage_code: int = at(3, what="subpage")
    allocation_length: int = at(7, 0xFFFF, what=ALLOC)


@dataclass(frozen=True)
class LogSense(Cdb):
    """LOG SENSE (SPC-4): a log page (its answer: ``native.scsi.logpages``)."""

    OPCODE, LENGTH = LOG_SENSE, 10
    sp: bool = at(1, 0x01)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="log page")
    subpage_code: int = at(3, what="subpage")
    parameter_pointer: int = at(5, 0xFFFF, what="parameter pointer")
    allocation_length: int = at(7, 0xFFFF, what=ALLOC)


@dataclass(frozen=True)
class ReadAttribute(Cdb):
    """READ ATTRIBUTE (SPC-4): the cartridge memory's attributes (MAM; the answer: ``native.scsi.mam``)."""

    OPCODE, LENGTH = READ_ATTRIBUTE, 16
    service_action: int = at(1, 0x1F, what="service action")
    volume: int = at(5, what="volume")
    partition: int = at(7, what="partition")
    first_attribute: int = at(8, 0xFFFF, what="first attribute")
    allocation_length: int = at(10, 0xFFFF_FFFF, what=ALLOC)
    cache: bool = at(14, 0x01)


@dataclass(frozen=True)
class SecurityProtocolIn(Cdb):
    """SECURITY PROTOCOL IN (12 bytes): reads a security page; it changes nothing on the drive or the tape."""

    OPCODE, LENGTH = SECURITY_PROTOCOL_IN, 12
    security_protocol: int = at(1, what="security protocol")
    protocol_specific: int = at(2, 0xFFFF, what="protocol specific")
    inc_512: bool = at(4, 0x80)
    allocation_length: int = at(6, 0xFFFF_FFFF, what=ALLOC)


@dataclass(frozen=True)
class ReportSupportedOpcodes(Cdb):
    """REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN A3h, service action 0Ch, SPC-4)."""

    OPCODE, LENGTH = MAINTENANCE_IN, 12
    service_action: int = at(1, 0x1F, default=SA_REPORT_SUPPORTED_OPCODES)
    rctd: bool = at(2, 0x80)  # return command timeouts descriptors
    reporting_options: int = at(2, 0x07)
    requested_opcode: int = at(3)
    requested_service_action: int = at(4, 0xFFFF)
    allocation_length: int = at(6, 0xFFFF_FFFF, what=ALLOC)


# -- the builders tapediag's callers use -------------------------------------------------------------

def test_unit_ready() -> bytes:
    return TestUnitReady().build()


def read_block_limits() -> bytes:
    return ReadBlockLimits().build()


def inquiry(alloc: int = 96, *, evpd: bool = False, page: int = 0) -> bytes:
    if page and not evpd:
        raise InvalidParameter("an INQUIRY page code needs EVPD")
    return Inquiry(evpd=evpd, page_code=page, allocation_length=alloc).build()


def mode_sense10(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 4096) -> bytes:
    return ModeSense10(dbd=dbd, pc=int(pc), page_code=page, subpage_code=subpage, allocation_length=alloc).build()


def log_sense(page: int, subpage: int = 0, *, pc: LogPageControl | int = LogPageControl.CUMULATIVE, pointer: int = 0,
              alloc: int = 0xFFFC, sp: bool = False) -> bytes:
    """LOG SENSE. PC 1 (cumulative values) is what diagnostics want, so it is the default."""
    return LogSense(sp=sp, pc=int(pc), page_code=page, subpage_code=subpage, parameter_pointer=pointer,
                    allocation_length=alloc).build()


def read_attribute(action: AttributeAction | int = AttributeAction.VALUES, *, first: int = 0, alloc: int = 0x2000,
                   volume: int = 0, partition: int = 0, cache: bool = False) -> bytes:
    return ReadAttribute(service_action=int(action), volume=volume, partition=partition, first_attribute=first,
                         allocation_length=alloc, cache=cache).build()


def security_protocol_in(protocol: int, specific: int, *, alloc: int = 0x2000) -> bytes:
    """SECURITY PROTOCOL IN (12 bytes): reads a security page; it changes nothing on the drive or the tape."""
    return SecurityProtocolIn(security_protocol=protocol, protocol_specific=specific, allocation_length=alloc).build()


def report_supported_opcodes(*, timeouts: bool = True, alloc: int = 0x2000) -> bytes:
    """REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN A3h/0Ch, 12 bytes, SPC-4), reporting options 000b:
    every command the device supports, with RCTD=1 each one's command timeouts descriptor. A query: it
    changes nothing on the device, so a read-only session may send it."""
    return ReportSupportedOpcodes(rctd=timeouts, allocation_length=alloc).build()


#: What ``native.scsi.cdb_actions`` holds: layouts and builders of the commands that act (see the docstring).
_ACTIONS = frozenset({
    "Erase6", "FormatMedium", "LoadUnload", "Locate10", "Locate16", "ModeSelect6", "ModeSelect10",
    "PreventAllowMediumRemoval", "Read6", "Rewind", "SendDiagnostic", "Space6", "Space16", "Write6", "WriteAttribute",
    "WriteFilemarks6", "erase", "format_medium", "load_unload", "locate10", "locate16", "mode_select6", "mode_select10",
    "prevent_allow_medium_removal", "read6", "rewind", "send_diagnostic_self_test", "space", "write6",
    "write_attribute", "write_filemarks",
})
#: What ``native.scsi.cdb_more`` holds: the queries ``info`` and ``devices`` do not send (see the docstring).
_MORE = frozenset({
    "ModeSense6", "ReadBuffer", "ReadPosition", "ReportDensitySupport", "RequestSense", "mode_sense6", "read_buffer",
    "read_position", "report_density_support", "request_sense",
})

if not TYPE_CHECKING:  # hidden from mypy, which checks each name against the imports above
    def __getattr__(name: str) -> Any:
        if name in _ACTIONS:
            from native.scsi import cdb_actions as stored
            names = _ACTIONS
        elif name in _MORE:
            from native.scsi import cdb_more as stored
            names = _MORE
        else:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        # Bound here at once: later lookups (the emulators parse every READ and WRITE) are plain ones.
        globals().update({n: getattr(stored, n) for n in names})
        return globals()[name]

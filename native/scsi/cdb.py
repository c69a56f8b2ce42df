"""The SPC-4 / SSC-4 commands tapediag sends, each declared once as a layout, and their builders.

Every command is a ``native.scsi.layout.Cdb``: a frozen dataclass whose fields say where they sit in
the CDB (SPC-4: INQUIRY, MODE, LOG, REQUEST SENSE, READ ATTRIBUTE, SECURITY PROTOCOL IN, REPORT
SUPPORTED OPERATION CODES; SSC-4: the sequential-access commands). The builder functions below are
what tapediag's callers use; the emulators read the same classes back (``Read6.parse(cdb)``), so the
sender and the receiver of a command cannot disagree about a field. Nothing here does I/O. Values that
do not fit their field raise ``InvalidParameter`` rather than being silently truncated, since a
wrapped-around transfer length on a tape drive writes the wrong amount of data.

The commands that act (move the tape, transfer data, change the drive's or the cartridge's state) are
stored in ``native.scsi.cdb_actions`` and named here all the same (``cdb.Read6``, ``cdb.rewind()``):
they are loaded when one is first used (PEP 562), since each layout is a dataclass built at import and
``info`` or ``devices`` send queries only (issue 32 §3).
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from native.errors import InvalidParameter
from native.scsi.layout import Cdb, at

if TYPE_CHECKING:
    from native.scsi.cdb_actions import (  # noqa: F401 - named here, stored there (see the docstring)
        Erase6, FormatMedium, LoadUnload, Locate10, Locate16, ModeSelect6, ModeSelect10, PreventAllowMediumRemoval,
        Read6, Rewind, SendDiagnostic, Space6, Space16, Write6, WriteAttribute, WriteFilemarks6, erase, format_medium,
        load_unload, locate10, locate16, mode_select6, mode_select10, prevent_allow_medium_removal, read6, rewind,
        send_diagnostic_self_test, space, write6, write_attribute, write_filemarks,
    )

# Operation codes (SPC-5, SSC-5, SMC-3): every command tapediag sends, answers in its emulators or names.
TEST_UNIT_READY = 0x00
REWIND = 0x01
REQUEST_SENSE = 0x03
FORMAT_MEDIUM = 0x04
READ_BLOCK_LIMITS = 0x05
INITIALIZE_ELEMENT_STATUS = 0x07
READ_6 = 0x08
WRITE_6 = 0x0A
SET_CAPACITY = 0x0B
WRITE_FILEMARKS_6 = 0x10
SPACE_6 = 0x11
INQUIRY = 0x12
MODE_SELECT_6 = 0x15
RESERVE_6 = 0x16
RELEASE_6 = 0x17
ERASE_6 = 0x19
MODE_SENSE_6 = 0x1A
LOAD_UNLOAD = 0x1B
SEND_DIAGNOSTIC = 0x1D
PREVENT_ALLOW_MEDIUM_REMOVAL = 0x1E
LOCATE_10 = 0x2B
READ_POSITION = 0x34
INITIALIZE_ELEMENT_STATUS_WITH_RANGE = 0x37
WRITE_BUFFER = 0x3B
READ_BUFFER = 0x3C
REPORT_DENSITY_SUPPORT = 0x44
LOG_SELECT = 0x4C
LOG_SENSE = 0x4D
MODE_SELECT_10 = 0x55
MODE_SENSE_10 = 0x5A
PERSISTENT_RESERVE_OUT = 0x5F
WRITE_FILEMARKS_16 = 0x80
ALLOW_OVERWRITE = 0x82
READ_16 = 0x88
WRITE_16 = 0x8A
READ_ATTRIBUTE = 0x8C
WRITE_ATTRIBUTE = 0x8D
SPACE_16 = 0x91
LOCATE_16 = 0x92
ERASE_16 = 0x93
REPORT_LUNS = 0xA0
SECURITY_PROTOCOL_IN = 0xA2
MAINTENANCE_IN = 0xA3
MAINTENANCE_OUT = 0xA4
MOVE_MEDIUM = 0xA5
EXCHANGE_MEDIUM = 0xA6
SECURITY_PROTOCOL_OUT = 0xB5
READ_ELEMENT_STATUS = 0xB8

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


class SpaceCode(enum.IntEnum):
    """SPACE(6) code field (SSC-4 table 'Code field definition')."""

    BLOCKS = 0
    FILEMARKS = 1
    SEQUENTIAL_FILEMARKS = 2
    END_OF_DATA = 3


class PageControl(enum.IntEnum):
    """MODE SENSE / LOG SENSE page control (PC) field."""

    CURRENT = 0
    CHANGEABLE = 1
    DEFAULT = 2
    SAVED = 3


class LogPageControl(enum.IntEnum):
    """LOG SENSE page control: which set of values the page reports."""

    CURRENT_THRESHOLD = 0
    CUMULATIVE = 1
    DEFAULT_THRESHOLD = 2
    DEFAULT_CUMULATIVE = 3


class PositionForm(enum.IntEnum):
    SHORT = 0x00
    SHORT_VENDOR = 0x01
    LONG = 0x06
    EXTENDED = 0x08


class BufferMode(enum.IntEnum):
    """READ BUFFER modes tapediag sends (SPC-4 READ BUFFER, "MODE field")."""

    DATA = 0x02  # the buffer's bytes from the offset on
    DESCRIPTOR = 0x03  # four bytes: offset boundary, buffer capacity
    ERROR_HISTORY = 0x1C  # the error history: buffer 00h its directory, 10h-EFh its data buffers


class AttributeAction(enum.IntEnum):
    VALUES = 0x00
    LIST = 0x01
    VOLUME_LIST = 0x02
    PARTITION_LIST = 0x03


#: Security protocol 20h: tape data encryption (SSC-4 8.5, SPC-4 SECURITY PROTOCOL IN).
PROTOCOL_TAPE_ENCRYPTION = 0x20
#: MAINTENANCE IN service action REPORT SUPPORTED OPERATION CODES (SPC-4).
SA_REPORT_SUPPORTED_OPCODES = 0x0C

_ALLOC = "allocation length"


# -- the layouts (SPC-4 / SSC-4 field positions) -------------------------------------------------

@dataclass(frozen=True)
class TestUnitReady(Cdb):
    __test__ = False  # not a pytest test class
    OPCODE, LENGTH = TEST_UNIT_READY, 6


@dataclass(frozen=True)
class RequestSense(Cdb):
    OPCODE, LENGTH = REQUEST_SENSE, 6
    desc: bool = at(1, 0x01)
    allocation_length: int = at(4, what=_ALLOC)


@dataclass(frozen=True)
class ReadBlockLimits(Cdb):
    OPCODE, LENGTH = READ_BLOCK_LIMITS, 6
    mloc: bool = at(1, 0x01)  # SSC-5: the maximum logical object identifier instead of the block limits


@dataclass(frozen=True)
class Inquiry(Cdb):
    """INQUIRY the command (its answer is ``native.scsi.inquiry.Inquiry``)."""

    OPCODE, LENGTH = INQUIRY, 6
    evpd: bool = at(1, 0x01)
    page_code: int = at(2, what="VPD page")
    allocation_length: int = at(3, 0xFFFF, what=_ALLOC)


@dataclass(frozen=True)
class ModeSense6(Cdb):
    OPCODE, LENGTH = MODE_SENSE_6, 6
    dbd: bool = at(1, 0x08)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="mode page")
    subpage_code: int = at(3, what="subpage")
    allocation_length: int = at(4, what=_ALLOC)


@dataclass(frozen=True)
class ModeSense10(Cdb):
    OPCODE, LENGTH = MODE_SENSE_10, 10
    dbd: bool = at(1, 0x08)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="mode page")
    subpage_code: int = at(3, what="subpage")
    allocation_length: int = at(7, 0xFFFF, what=_ALLOC)


@dataclass(frozen=True)
class ReadPosition(Cdb):
    """READ POSITION; the allocation length is only meaningful for the extended form."""

    OPCODE, LENGTH = READ_POSITION, 10
    service_action: int = at(1, 0x1F, what="service action")
    allocation_length: int = at(7, 0xFFFF, what=_ALLOC)


@dataclass(frozen=True)
class ReadBuffer(Cdb):
    """READ BUFFER(10) (SPC-4): a buffer of the device, from ``offset``."""

    OPCODE, LENGTH = READ_BUFFER, 10
    mode: int = at(1, 0x1F, what="buffer mode")
    buffer_id: int = at(2, what="buffer ID")
    offset: int = at(3, 0xFFFFFF, what="buffer offset")
    allocation_length: int = at(6, 0xFFFFFF, what=_ALLOC)


@dataclass(frozen=True)
class ReportDensitySupport(Cdb):
    OPCODE, LENGTH = REPORT_DENSITY_SUPPORT, 10
    medium_type: bool = at(1, 0x02)
    media: bool = at(1, 0x01)
    allocation_length: int = at(7, 0xFFFF, what=_ALLOC)


@dataclass(frozen=True)
class LogSense(Cdb):
    OPCODE, LENGTH = LOG_SENSE, 10
    sp: bool = at(1, 0x01)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="log page")
    subpage_code: int = at(3, what="subpage")
    parameter_pointer: int = at(5, 0xFFFF, what="parameter pointer")
    allocation_length: int = at(7, 0xFFFF, what=_ALLOC)


@dataclass(frozen=True)
class ReadAttribute(Cdb):
    OPCODE, LENGTH = READ_ATTRIBUTE, 16
    service_action: int = at(1, 0x1F, what="service action")
    volume: int = at(5, what="volume")
    partition: int = at(7, what="partition")
    first_attribute: int = at(8, 0xFFFF, what="first attribute")
    allocation_length: int = at(10, 0xFFFF_FFFF, what=_ALLOC)
    cache: bool = at(14, 0x01)


@dataclass(frozen=True)
class SecurityProtocolIn(Cdb):
    """SECURITY PROTOCOL IN (12 bytes): reads a security page; it changes nothing on the drive or the tape."""

    OPCODE, LENGTH = SECURITY_PROTOCOL_IN, 12
    security_protocol: int = at(1, what="security protocol")
    protocol_specific: int = at(2, 0xFFFF, what="protocol specific")
    inc_512: bool = at(4, 0x80)
    allocation_length: int = at(6, 0xFFFF_FFFF, what=_ALLOC)


@dataclass(frozen=True)
class ReportSupportedOpcodes(Cdb):
    """REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN A3h, service action 0Ch, SPC-4)."""

    OPCODE, LENGTH = MAINTENANCE_IN, 12
    service_action: int = at(1, 0x1F, default=SA_REPORT_SUPPORTED_OPCODES)
    rctd: bool = at(2, 0x80)  # return command timeouts descriptors
    reporting_options: int = at(2, 0x07)
    requested_opcode: int = at(3)
    requested_service_action: int = at(4, 0xFFFF)
    allocation_length: int = at(6, 0xFFFF_FFFF, what=_ALLOC)


# -- the builders tapediag's callers use -------------------------------------------------------------

def test_unit_ready() -> bytes:
    return TestUnitReady().build()


def request_sense(alloc: int = 252, *, desc: bool = False) -> bytes:
    return RequestSense(desc=desc, allocation_length=alloc).build()


def read_block_limits() -> bytes:
    return ReadBlockLimits().build()


def inquiry(alloc: int = 96, *, evpd: bool = False, page: int = 0) -> bytes:
    if page and not evpd:
        raise InvalidParameter("an INQUIRY page code needs EVPD")
    return Inquiry(evpd=evpd, page_code=page, allocation_length=alloc).build()


def mode_sense6(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 255) -> bytes:
    return ModeSense6(dbd=dbd, pc=int(pc), page_code=page, subpage_code=subpage, allocation_length=alloc).build()


def mode_sense10(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 4096) -> bytes:
    return ModeSense10(dbd=dbd, pc=int(pc), page_code=page, subpage_code=subpage, allocation_length=alloc).build()


def read_position(form: PositionForm | int = PositionForm.SHORT, alloc: int = 0) -> bytes:
    """READ POSITION; the allocation length is only meaningful for the extended form."""
    return ReadPosition(service_action=int(form), allocation_length=alloc).build()


def report_density_support(*, media: bool = False, medium_type: bool = False, alloc: int = 8192) -> bytes:
    return ReportDensitySupport(medium_type=medium_type, media=media, allocation_length=alloc).build()


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


def read_buffer(mode: BufferMode | int, buffer_id: int, *, offset: int = 0, alloc: int) -> bytes:
    """READ BUFFER(10) (SPC-4): reads a buffer of the device. Which buffer IDs are safe to read is not this
    builder's business: ``app.device.state_changing`` names the forms that clear or snapshot something."""
    return ReadBuffer(mode=int(mode), buffer_id=buffer_id, offset=offset, allocation_length=alloc).build()


#: What ``native.scsi.cdb_actions`` holds: layouts and builders of the commands that act (see the docstring).
_ACTIONS = frozenset({
    "Erase6", "FormatMedium", "LoadUnload", "Locate10", "Locate16", "ModeSelect6", "ModeSelect10",
    "PreventAllowMediumRemoval", "Read6", "Rewind", "SendDiagnostic", "Space6", "Space16", "Write6", "WriteAttribute",
    "WriteFilemarks6", "erase", "format_medium", "load_unload", "locate10", "locate16", "mode_select6", "mode_select10",
    "prevent_allow_medium_removal", "read6", "rewind", "send_diagnostic_self_test", "space", "write6",
    "write_attribute", "write_filemarks",
})

if not TYPE_CHECKING:  # hidden from mypy, which checks each name against the imports above
    def __getattr__(name: str) -> Any:
        if name not in _ACTIONS:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from native.scsi import cdb_actions

        # Bound here at once: later lookups (the emulators parse every READ and WRITE) are plain ones.
        globals().update({n: getattr(cdb_actions, n) for n in _ACTIONS})
        return globals()[name]

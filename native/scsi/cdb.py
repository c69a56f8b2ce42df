"""CDB builders for the SPC-4 / SSC-4 commands tapediag sends.

Each function returns the command descriptor block as ``bytes``; nothing here does
I/O. Field layouts follow SPC-4 (INQUIRY, MODE, LOG, REQUEST SENSE, READ ATTRIBUTE)
and SSC-4 (the sequential-access commands). Values that do not fit their field raise
``InvalidParameter`` rather than being silently truncated, since a wrapped-around
transfer length on a tape drive writes the wrong amount of data.
"""
from __future__ import annotations

import enum

from native.errors import InvalidParameter

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

MAX_24 = 0xFFFFFF


def opcode_name(opcode: int) -> str:
    return OPCODE_NAMES.get(opcode, f"opcode 0x{opcode:02X}")


def cdb_length(opcode: int) -> int:
    """The CDB length its opcode's group code gives (6 for the groups SAM-5 leaves reserved or vendor)."""
    return _GROUP_LENGTH.get(opcode >> 5, 6)


def _check(value: int, lo: int, hi: int, what: str) -> int:
    if not lo <= value <= hi:
        raise InvalidParameter(f"{what} {value} is out of range ({lo}..{hi})")
    return value


def _u(value: int, size: int, what: str) -> bytes:
    _check(value, 0, (1 << (8 * size)) - 1, what)
    return value.to_bytes(size, "big")


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


def test_unit_ready() -> bytes:
    return bytes(6)


def rewind(*, immed: bool = False) -> bytes:
    return bytes([REWIND, int(immed), 0, 0, 0, 0])


def request_sense(alloc: int = 252, *, desc: bool = False) -> bytes:
    return bytes([REQUEST_SENSE, int(desc), 0, 0, _check(alloc, 0, 255, "allocation length"), 0])


def read_block_limits() -> bytes:
    return bytes([READ_BLOCK_LIMITS, 0, 0, 0, 0, 0])


def inquiry(alloc: int = 96, *, evpd: bool = False, page: int = 0) -> bytes:
    if page and not evpd:
        raise InvalidParameter("an INQUIRY page code needs EVPD")
    return bytes([INQUIRY, int(evpd), _check(page, 0, 255, "VPD page")]) + _u(alloc, 2, "allocation length") + b"\x00"


def _transfer(opcode: int, length: int, fixed: bool, sili: bool = False) -> bytes:
    """READ(6)/WRITE(6): length counts blocks when FIXED is set, bytes otherwise."""
    flags = int(fixed) | (int(sili) << 1)
    return bytes([opcode, flags]) + _u(length, 3, "transfer length") + b"\x00"


def send_diagnostic_self_test() -> bytes:
    """SEND DIAGNOSTIC with SELFTEST=1 (SPC-5 6.42): the device's default self-test, no parameter data.
    GOOD means it passed; a failure is a CHECK CONDITION (typically HARDWARE ERROR, ASC 40h)."""
    return bytes([SEND_DIAGNOSTIC, 0x04, 0, 0, 0, 0])


def read6(length: int, *, fixed: bool = False, sili: bool = False) -> bytes:
    if fixed and sili:
        raise InvalidParameter("READ(6) with both FIXED and SILI set is an illegal request")
    return _transfer(READ_6, length, fixed, sili)


def write6(length: int, *, fixed: bool = False) -> bytes:
    return _transfer(WRITE_6, length, fixed)


def write_filemarks(count: int = 1, *, immed: bool = False, setmarks: bool = False) -> bytes:
    return bytes([WRITE_FILEMARKS_6, int(immed) | (int(setmarks) << 1)]) + _u(count, 3, "filemark count") + b"\x00"


def space(count: int, code: SpaceCode | int = SpaceCode.BLOCKS) -> bytes:
    """SPACE(6): a signed 24-bit count; negative moves toward BOP."""
    _check(count, -(1 << 23), (1 << 23) - 1, "space count")
    return bytes([SPACE_6, int(code) & 0x0F]) + count.to_bytes(3, "big", signed=True) + b"\x00"


def mode_sense6(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 255) -> bytes:
    return bytes([
        MODE_SENSE_6,
        int(dbd) << 3,
        (int(pc) << 6) | _check(page, 0, 0x3F, "mode page"),
        _check(subpage, 0, 255, "subpage"),
        _check(alloc, 0, 255, "allocation length"),
        0,
    ])


def mode_sense10(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 4096) -> bytes:
    return (
        bytes([
            MODE_SENSE_10,
            int(dbd) << 3,
            (int(pc) << 6) | _check(page, 0, 0x3F, "mode page"),
            _check(subpage, 0, 255, "subpage"),
            0, 0, 0,
        ])
        + _u(alloc, 2, "allocation length")
        + b"\x00"
    )


def mode_select6(length: int, *, pf: bool = True, sp: bool = False) -> bytes:
    return bytes([MODE_SELECT_6, (int(pf) << 4) | int(sp), 0, 0, _check(length, 0, 255, "parameter list length"), 0])


def mode_select10(length: int, *, pf: bool = True, sp: bool = False) -> bytes:
    return bytes([MODE_SELECT_10, (int(pf) << 4) | int(sp), 0, 0, 0, 0, 0]) + _u(length, 2, "parameter list length") + b"\x00"


def erase(*, long: bool = False, immed: bool = False) -> bytes:
    return bytes([ERASE_6, int(long) | (int(immed) << 1), 0, 0, 0, 0])


def load_unload(*, load: bool = True, immed: bool = False, retension: bool = False, eot: bool = False, hold: bool = False) -> bytes:
    return bytes([LOAD_UNLOAD, int(immed), 0, 0, int(load) | (int(retension) << 1) | (int(eot) << 2) | (int(hold) << 3), 0])


def prevent_allow_medium_removal(*, prevent: bool) -> bytes:
    """PREVENT ALLOW MEDIUM REMOVAL (SPC-4 6.15): PREVENT field 01b (prevent) or 00b (allow)."""
    return bytes([PREVENT_ALLOW_MEDIUM_REMOVAL, 0, 0, 0, int(prevent), 0])


def locate10(block: int, *, partition: int | None = None, immed: bool = False) -> bytes:
    """LOCATE(10) to a logical object identifier; CP set only when a partition is given."""
    cp = partition is not None
    return (
        bytes([LOCATE_10, (int(cp) << 1) | int(immed), 0])
        + _u(block, 4, "block address")
        + bytes([0, _check(partition or 0, 0, 255, "partition"), 0])
    )


def locate16(identifier: int, *, partition: int | None = None, dest_type: int = 0, immed: bool = False) -> bytes:
    """LOCATE(16); ``dest_type`` 0 = logical object, 1 = logical file, 3 = end of data."""
    cp = partition is not None
    return (
        bytes([LOCATE_16, (_check(dest_type, 0, 7, "destination type") << 3) | (int(cp) << 1) | int(immed), 0,
               _check(partition or 0, 0, 255, "partition")])
        + _u(identifier, 8, "logical identifier")
        + bytes(4)
    )


class PositionForm(enum.IntEnum):
    SHORT = 0x00
    SHORT_VENDOR = 0x01
    LONG = 0x06
    EXTENDED = 0x08


def read_position(form: PositionForm | int = PositionForm.SHORT, alloc: int = 0) -> bytes:
    """READ POSITION; the allocation length is only meaningful for the extended form."""
    return bytes([READ_POSITION, _check(int(form), 0, 0x1F, "service action"), 0, 0, 0, 0, 0]) + _u(alloc, 2, "allocation length") + b"\x00"


def report_density_support(*, media: bool = False, medium_type: bool = False, alloc: int = 8192) -> bytes:
    return bytes([REPORT_DENSITY_SUPPORT, int(media) | (int(medium_type) << 1), 0, 0, 0, 0, 0]) + _u(alloc, 2, "allocation length") + b"\x00"


def log_sense(page: int, subpage: int = 0, *, pc: LogPageControl | int = LogPageControl.CUMULATIVE, pointer: int = 0,
              alloc: int = 0xFFFC, sp: bool = False) -> bytes:
    """LOG SENSE. PC 1 (cumulative values) is what diagnostics want, so it is the default."""
    return (
        bytes([LOG_SENSE, int(sp), (int(pc) << 6) | _check(page, 0, 0x3F, "log page"), _check(subpage, 0, 255, "subpage"), 0])
        + _u(pointer, 2, "parameter pointer")
        + _u(alloc, 2, "allocation length")
        + b"\x00"
    )


class AttributeAction(enum.IntEnum):
    VALUES = 0x00
    LIST = 0x01
    VOLUME_LIST = 0x02
    PARTITION_LIST = 0x03


def read_attribute(action: AttributeAction | int = AttributeAction.VALUES, *, first: int = 0, alloc: int = 0x2000,
                   volume: int = 0, partition: int = 0, cache: bool = False) -> bytes:
    return (
        bytes([READ_ATTRIBUTE, _check(int(action), 0, 0x1F, "service action"), 0, 0, 0,
               _check(volume, 0, 255, "volume"), 0, _check(partition, 0, 255, "partition")])
        + _u(first, 2, "first attribute")
        + _u(alloc, 4, "allocation length")
        + bytes([int(cache), 0])
    )


#: Security protocol 20h: tape data encryption (SSC-4 8.5, SPC-4 SECURITY PROTOCOL IN).
PROTOCOL_TAPE_ENCRYPTION = 0x20


def security_protocol_in(protocol: int, specific: int, *, alloc: int = 0x2000) -> bytes:
    """SECURITY PROTOCOL IN (12 bytes): reads a security page; it changes nothing on the drive or the tape."""
    return (bytes([SECURITY_PROTOCOL_IN, _check(protocol, 0, 255, "security protocol")]) + _u(specific, 2, "protocol specific")
            + bytes([0, 0]) + _u(alloc, 4, "allocation length") + bytes([0, 0]))


#: MAINTENANCE IN service action REPORT SUPPORTED OPERATION CODES (SPC-4).
SA_REPORT_SUPPORTED_OPCODES = 0x0C


def report_supported_opcodes(*, timeouts: bool = True, alloc: int = 0x2000) -> bytes:
    """REPORT SUPPORTED OPERATION CODES (MAINTENANCE IN A3h/0Ch, 12 bytes, SPC-4), reporting options 000b:
    every command the device supports, with RCTD=1 each one's command timeouts descriptor. A query: it
    changes nothing on the device, so a read-only session may send it."""
    return (bytes([MAINTENANCE_IN, SA_REPORT_SUPPORTED_OPCODES, int(timeouts) << 7, 0, 0, 0])
            + _u(alloc, 4, "allocation length") + bytes([0, 0]))

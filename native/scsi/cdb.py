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

# Operation codes.
TEST_UNIT_READY = 0x00
REWIND = 0x01
REQUEST_SENSE = 0x03
READ_BLOCK_LIMITS = 0x05
READ_6 = 0x08
WRITE_6 = 0x0A
WRITE_FILEMARKS_6 = 0x10
SPACE_6 = 0x11
INQUIRY = 0x12
MODE_SELECT_6 = 0x15
ERASE_6 = 0x19
MODE_SENSE_6 = 0x1A
LOAD_UNLOAD = 0x1B
LOCATE_10 = 0x2B
READ_POSITION = 0x34
READ_BUFFER = 0x3C
REPORT_DENSITY_SUPPORT = 0x44
LOG_SENSE = 0x4D
MODE_SELECT_10 = 0x55
MODE_SENSE_10 = 0x5A
READ_ATTRIBUTE = 0x8C
WRITE_ATTRIBUTE = 0x8D
FORMAT_MEDIUM = 0x04
LOCATE_16 = 0x92
SECURITY_PROTOCOL_IN = 0xA2
MAINTENANCE_IN = 0xA3

OPCODE_NAMES = {
    TEST_UNIT_READY: "TEST UNIT READY",
    REWIND: "REWIND",
    REQUEST_SENSE: "REQUEST SENSE",
    READ_BLOCK_LIMITS: "READ BLOCK LIMITS",
    READ_6: "READ(6)",
    WRITE_6: "WRITE(6)",
    WRITE_FILEMARKS_6: "WRITE FILEMARKS(6)",
    SPACE_6: "SPACE(6)",
    INQUIRY: "INQUIRY",
    MODE_SELECT_6: "MODE SELECT(6)",
    ERASE_6: "ERASE(6)",
    MODE_SENSE_6: "MODE SENSE(6)",
    LOAD_UNLOAD: "LOAD UNLOAD",
    LOCATE_10: "LOCATE(10)",
    READ_POSITION: "READ POSITION",
    READ_BUFFER: "READ BUFFER",
    REPORT_DENSITY_SUPPORT: "REPORT DENSITY SUPPORT",
    LOG_SENSE: "LOG SENSE",
    MODE_SELECT_10: "MODE SELECT(10)",
    MODE_SENSE_10: "MODE SENSE(10)",
    READ_ATTRIBUTE: "READ ATTRIBUTE",
    LOCATE_16: "LOCATE(16)",
    SECURITY_PROTOCOL_IN: "SECURITY PROTOCOL IN",
    FORMAT_MEDIUM: "FORMAT MEDIUM",
    WRITE_ATTRIBUTE: "WRITE ATTRIBUTE",
    0xA5: "MOVE MEDIUM",  # SMC-3, changers only (native/scsi/smc.py)
    0xB8: "READ ELEMENT STATUS",
    MAINTENANCE_IN: "REPORT SUPPORTED OPERATION CODES",  # the only MAINTENANCE IN service action tapediag sends
}

MAX_24 = 0xFFFFFF


def opcode_name(opcode: int) -> str:
    return OPCODE_NAMES.get(opcode, f"opcode 0x{opcode:02X}")


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


SEND_DIAGNOSTIC = 0x1D


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
    return bytes([0x1E, 0, 0, 0, int(prevent), 0])


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


def write_attribute(length: int, *, partition: int = 0, volume: int = 0, write_through: bool = False) -> bytes:
    """WRITE ATTRIBUTE (SPC-4 6.40): ``length`` bytes of parameter data (a 4-byte length, then attributes)."""
    return (
        bytes([WRITE_ATTRIBUTE, int(write_through), 0, 0, 0, _check(volume, 0, 255, "volume"), 0,
               _check(partition, 0, 255, "partition"), 0, 0])
        + _u(length, 4, "parameter list length")
        + bytes([0, 0])
    )


def format_medium(fmt: int = 0, *, immed: bool = False) -> bytes:
    """FORMAT MEDIUM (SSC-5 7.3): FORMAT 0h default, 1h partition the medium, 2h default then partition."""
    return bytes([FORMAT_MEDIUM, int(immed), _check(fmt, 0, 0x0F, "format"), 0, 0, 0])


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


class BufferMode(enum.IntEnum):
    """READ BUFFER modes tapediag sends (SPC-4 READ BUFFER, "MODE field")."""

    DATA = 0x02  # the buffer's bytes from the offset on
    DESCRIPTOR = 0x03  # four bytes: offset boundary, buffer capacity
    ERROR_HISTORY = 0x1C  # the error history: buffer 00h its directory, 10h-EFh its data buffers


def read_buffer(mode: BufferMode | int, buffer_id: int, *, offset: int = 0, alloc: int) -> bytes:
    """READ BUFFER(10) (SPC-4): reads a buffer of the device. Which buffer IDs are safe to read is not this
    builder's business: ``app.drive.state_changing`` names the forms that clear or snapshot something."""
    return (bytes([READ_BUFFER, _check(int(mode), 0, 0x1F, "buffer mode"), _check(buffer_id, 0, 255, "buffer ID")])
            + _u(offset, 3, "buffer offset") + _u(alloc, 3, "allocation length") + b"\x00")

"""The operation codes of every command tapediag sends, answers in its emulators or names, and the CDB
fields' enumerations that both halves of ``native.scsi.cdb`` use.

Named through ``native.scsi.cdb`` (``cdb.READ_6``), as before; stored here, at the bottom, so that
``native.scsi.cdb_actions`` and ``native.scsi.cdb_more`` (the layouts ``cdb`` loads on first use, issue 32 §3)
take them from below instead of from the module that loads it.
"""
from __future__ import annotations

import enum

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

"""The sense keys (SPC-5 table 49): the one table of their codes and names.

A leaf module (it imports nothing) so that ``native.errors`` (one exception class per key), the
sense decoder (``native.scsi.sense``) and the emulators (``native.virtual``) all spell them from here.
"""
from __future__ import annotations

NO_SENSE = 0x0
RECOVERED_ERROR = 0x1
NOT_READY = 0x2
MEDIUM_ERROR = 0x3
HARDWARE_ERROR = 0x4
ILLEGAL_REQUEST = 0x5
UNIT_ATTENTION = 0x6
DATA_PROTECT = 0x7
BLANK_CHECK = 0x8
VENDOR_SPECIFIC = 0x9
COPY_ABORTED = 0xA
ABORTED_COMMAND = 0xB
VOLUME_OVERFLOW = 0xD
MISCOMPARE = 0xE
COMPLETED = 0xF

SENSE_KEY_NAMES = (
    "NO SENSE",
    "RECOVERED ERROR",
    "NOT READY",
    "MEDIUM ERROR",
    "HARDWARE ERROR",
    "ILLEGAL REQUEST",
    "UNIT ATTENTION",
    "DATA PROTECT",
    "BLANK CHECK",
    "VENDOR SPECIFIC",
    "COPY ABORTED",
    "ABORTED COMMAND",
    "EQUAL",
    "VOLUME OVERFLOW",
    "MISCOMPARE",
    "COMPLETED",
)


def sense_key_name(key: int) -> str:
    return SENSE_KEY_NAMES[key & 0x0F]

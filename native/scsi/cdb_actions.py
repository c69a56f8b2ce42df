"""The CDB layouts and builders of the commands that act: move the tape, transfer data, or change the
drive's or the cartridge's state (SSC-4: READ, WRITE, WRITE FILEMARKS, SPACE, LOCATE, REWIND, ERASE,
LOAD UNLOAD, FORMAT MEDIUM; SPC-4: MODE SELECT, SEND DIAGNOSTIC, PREVENT ALLOW MEDIUM REMOVAL, WRITE
ATTRIBUTE).

Part of ``native.scsi.cdb``, which names every one of them (``cdb.Read6``, ``cdb.rewind()``) and loads
this module when one is first used (PEP 562): ``tapediag info`` and ``devices`` only ask (INQUIRY, MODE
SENSE, LOG SENSE, ...), and each layout is a frozen dataclass that costs its share of every start-up to
build (issue 32 §3). Import them from ``native.scsi.cdb``, as before: this module is how it is stored.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.errors import InvalidParameter
from native.scsi.cdb_codes import (
    ERASE_6, FORMAT_MEDIUM, LOAD_UNLOAD, LOCATE_10, LOCATE_16, MODE_SELECT_10, MODE_SELECT_6,
    PREVENT_ALLOW_MEDIUM_REMOVAL, READ_6, REWIND, SEND_DIAGNOSTIC, SPACE_16, SPACE_6, WRITE_6, WRITE_ATTRIBUTE,
    WRITE_FILEMARKS_6, SpaceCode,
)
from native.scsi.layout import Cdb, at

# -- the layouts (SPC-4 / SSC-4 field positions) -------------------------------------------------

@dataclass(frozen=True)
class Rewind(Cdb):
    OPCODE, LENGTH = REWIND, 6
    immed: bool = at(1, 0x01)


@dataclass(frozen=True)
class Read6(Cdb):
    """READ(6): ``transfer_length`` counts blocks with FIXED, bytes without."""

    OPCODE, LENGTH = READ_6, 6
    sili: bool = at(1, 0x02)
    fixed: bool = at(1, 0x01)
    transfer_length: int = at(2, 0xFFFFFF, what="transfer length")


@dataclass(frozen=True)
class Write6(Cdb):
    OPCODE, LENGTH = WRITE_6, 6
    fixed: bool = at(1, 0x01)
    transfer_length: int = at(2, 0xFFFFFF, what="transfer length")


@dataclass(frozen=True)
class WriteFilemarks6(Cdb):
    OPCODE, LENGTH = WRITE_FILEMARKS_6, 6
    setmarks: bool = at(1, 0x02)  # WSMK
    immed: bool = at(1, 0x01)
    count: int = at(2, 0xFFFFFF, what="filemark count")


@dataclass(frozen=True)
class Space6(Cdb):
    """SPACE(6): a signed 24-bit count; negative moves toward BOP."""

    OPCODE, LENGTH = SPACE_6, 6
    code: int = at(1, 0x0F)
    count: int = at(2, 0xFFFFFF, signed=True, what="space count")


@dataclass(frozen=True)
class Space16(Cdb):
    OPCODE, LENGTH = SPACE_16, 16
    code: int = at(1, 0x0F)
    count: int = at(4, 0xFFFF_FFFF_FFFF_FFFF, signed=True, what="space count")


@dataclass(frozen=True)
class ModeSelect6(Cdb):
    OPCODE, LENGTH = MODE_SELECT_6, 6
    pf: bool = at(1, 0x10)
    sp: bool = at(1, 0x01)
    parameter_list_length: int = at(4, what="parameter list length")


@dataclass(frozen=True)
class ModeSelect10(Cdb):
    OPCODE, LENGTH = MODE_SELECT_10, 10
    pf: bool = at(1, 0x10)
    sp: bool = at(1, 0x01)
    parameter_list_length: int = at(7, 0xFFFF, what="parameter list length")


@dataclass(frozen=True)
class Erase6(Cdb):
    OPCODE, LENGTH = ERASE_6, 6
    immed: bool = at(1, 0x02)
    long: bool = at(1, 0x01)


@dataclass(frozen=True)
class LoadUnload(Cdb):
    OPCODE, LENGTH = LOAD_UNLOAD, 6
    immed: bool = at(1, 0x01)
    hold: bool = at(4, 0x08)
    eot: bool = at(4, 0x04)
    retension: bool = at(4, 0x02)
    load: bool = at(4, 0x01)


@dataclass(frozen=True)
class SendDiagnostic(Cdb):
    """SEND DIAGNOSTIC (SPC-5 6.42); SELFTEST=1 with no parameter data is the default self-test."""

    OPCODE, LENGTH = SEND_DIAGNOSTIC, 6
    self_test_code: int = at(1, 0xE0)
    pf: bool = at(1, 0x10)
    self_test: bool = at(1, 0x04)
    devoffl: bool = at(1, 0x02)
    unitoffl: bool = at(1, 0x01)
    parameter_list_length: int = at(3, 0xFFFF, what="parameter list length")


@dataclass(frozen=True)
class PreventAllowMediumRemoval(Cdb):
    """PREVENT ALLOW MEDIUM REMOVAL (SPC-4 6.15): PREVENT field 01b (prevent) or 00b (allow)."""

    OPCODE, LENGTH = PREVENT_ALLOW_MEDIUM_REMOVAL, 6
    prevent: int = at(4, 0x03)


@dataclass(frozen=True)
class Locate10(Cdb):
    OPCODE, LENGTH = LOCATE_10, 10
    cp: bool = at(1, 0x02)  # change partition
    immed: bool = at(1, 0x01)
    block_address: int = at(3, 0xFFFF_FFFF, what="block address")
    partition: int = at(8, what="partition")


@dataclass(frozen=True)
class Locate16(Cdb):
    """LOCATE(16); ``dest_type`` 0 = logical object, 1 = logical file, 3 = end of data."""

    OPCODE, LENGTH = LOCATE_16, 16
    dest_type: int = at(1, 0x38, what="destination type")
    cp: bool = at(1, 0x02)
    immed: bool = at(1, 0x01)
    partition: int = at(3, what="partition")
    logical_identifier: int = at(4, 0xFFFF_FFFF_FFFF_FFFF, what="logical identifier")


@dataclass(frozen=True)
class WriteAttribute(Cdb):
    """WRITE ATTRIBUTE (SPC-4 6.40): ``parameter_list_length`` bytes of data (a 4-byte length, then attributes)."""

    OPCODE, LENGTH = WRITE_ATTRIBUTE, 16
    write_through: bool = at(1, 0x01)  # WTC
    volume: int = at(5, what="volume")
    partition: int = at(7, what="partition")
    parameter_list_length: int = at(10, 0xFFFF_FFFF, what="parameter list length")


@dataclass(frozen=True)
class FormatMedium(Cdb):
    """FORMAT MEDIUM (SSC-5 7.3): FORMAT 0h default, 1h partition the medium, 2h default then partition."""

    OPCODE, LENGTH = FORMAT_MEDIUM, 6
    verify: bool = at(1, 0x02)
    immed: bool = at(1, 0x01)
    format: int = at(2, 0x0F, what="format")
    transfer_length: int = at(3, 0xFFFF, what="transfer length")


# -- the builders tapediag's callers use -------------------------------------------------------------

def rewind(*, immed: bool = False) -> bytes:
    return Rewind(immed=immed).build()


def send_diagnostic_self_test() -> bytes:
    """SEND DIAGNOSTIC with SELFTEST=1 (SPC-5 6.42): the device's default self-test, no parameter data.
    GOOD means it passed; a failure is a CHECK CONDITION (typically HARDWARE ERROR, ASC 40h)."""
    return SendDiagnostic(self_test=True).build()


def read6(length: int, *, fixed: bool = False, sili: bool = False) -> bytes:
    if fixed and sili:
        raise InvalidParameter("READ(6) with both FIXED and SILI set is an illegal request")
    return Read6(sili=sili, fixed=fixed, transfer_length=length).build()


def write6(length: int, *, fixed: bool = False) -> bytes:
    return Write6(fixed=fixed, transfer_length=length).build()


def write_filemarks(count: int = 1, *, immed: bool = False, setmarks: bool = False) -> bytes:
    return WriteFilemarks6(setmarks=setmarks, immed=immed, count=count).build()


def space(count: int, code: SpaceCode | int = SpaceCode.BLOCKS) -> bytes:
    """SPACE(6): a signed 24-bit count; negative moves toward BOP."""
    return Space6(code=int(code) & 0x0F, count=count).build()


def mode_select6(length: int, *, pf: bool = True, sp: bool = False) -> bytes:
    return ModeSelect6(pf=pf, sp=sp, parameter_list_length=length).build()


def mode_select10(length: int, *, pf: bool = True, sp: bool = False) -> bytes:
    return ModeSelect10(pf=pf, sp=sp, parameter_list_length=length).build()


def erase(*, long: bool = False, immed: bool = False) -> bytes:
    return Erase6(immed=immed, long=long).build()


def load_unload(*, load: bool = True, immed: bool = False, retension: bool = False, eot: bool = False, hold: bool = False) -> bytes:
    return LoadUnload(immed=immed, hold=hold, eot=eot, retension=retension, load=load).build()


def prevent_allow_medium_removal(*, prevent: bool) -> bytes:
    """PREVENT ALLOW MEDIUM REMOVAL (SPC-4 6.15): PREVENT field 01b (prevent) or 00b (allow)."""
    return PreventAllowMediumRemoval(prevent=int(prevent)).build()


def locate10(block: int, *, partition: int | None = None, immed: bool = False) -> bytes:
    """LOCATE(10) to a logical object identifier; CP set only when a partition is given."""
    return Locate10(cp=partition is not None, immed=immed, block_address=block, partition=partition or 0).build()


def locate16(identifier: int, *, partition: int | None = None, dest_type: int = 0, immed: bool = False) -> bytes:
    """LOCATE(16); ``dest_type`` 0 = logical object, 1 = logical file, 3 = end of data."""
    return Locate16(dest_type=dest_type, cp=partition is not None, immed=immed, partition=partition or 0,
                    logical_identifier=identifier).build()


def write_attribute(length: int, *, partition: int = 0, volume: int = 0, write_through: bool = False) -> bytes:
    """WRITE ATTRIBUTE (SPC-4 6.40): ``length`` bytes of parameter data (a 4-byte length, then attributes)."""
    return WriteAttribute(write_through=write_through, volume=volume, partition=partition,
                          parameter_list_length=length).build()


def format_medium(fmt: int = 0, *, immed: bool = False) -> bytes:
    """FORMAT MEDIUM (SSC-5 7.3): FORMAT 0h default, 1h partition the medium, 2h default then partition."""
    return FormatMedium(immed=immed, format=fmt).build()

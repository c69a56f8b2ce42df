"""The CDB layouts and builders of the queries that neither ``info`` nor ``devices`` sends: REQUEST SENSE,
MODE SENSE(6), READ POSITION, READ BUFFER and REPORT DENSITY SUPPORT (SPC-4, SSC-4).

Part of ``native.scsi.cdb``, which names every one of them (``cdb.ReadPosition``, ``cdb.read_buffer()``) and
loads this module when one is first used (PEP 562), as it does ``native.scsi.cdb_actions``: each layout is a
frozen dataclass that costs its share of every start-up to build, and ``info`` asks a drive with MODE
SENSE(10), LOG SENSE, INQUIRY, READ BLOCK LIMITS, READ ATTRIBUTE, SECURITY PROTOCOL IN and REPORT SUPPORTED
OPERATION CODES only (issue 32 §3). Import them from ``native.scsi.cdb``, as before: this module is how they
are stored.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi.cdb_codes import (
    MODE_SENSE_6, READ_BUFFER, READ_POSITION, REPORT_DENSITY_SUPPORT, REQUEST_SENSE, BufferMode, PageControl,
    PositionForm,
)
from native.scsi.layout import ALLOC, Cdb, at


# -- the layouts (SPC-4 / SSC-4 field positions) -------------------------------------------------

@dataclass(frozen=True)
class RequestSense(Cdb):
    OPCODE, LENGTH = REQUEST_SENSE, 6
    desc: bool = at(1, 0x01)
    allocation_length: int = at(4, what=ALLOC)


@dataclass(frozen=True)
class ModeSense6(Cdb):
    OPCODE, LENGTH = MODE_SENSE_6, 6
    dbd: bool = at(1, 0x08)
    pc: int = at(2, 0xC0)
    page_code: int = at(2, 0x3F, what="mode page")
    subpage_code: int = at(3, what="subpage")
    allocation_length: int = at(4, what=ALLOC)


@dataclass(frozen=True)
class ReadPosition(Cdb):
    """READ POSITION; the allocation length is only meaningful for the extended form."""

    OPCODE, LENGTH = READ_POSITION, 10
    service_action: int = at(1, 0x1F, what="service action")
    allocation_length: int = at(7, 0xFFFF, what=ALLOC)


@dataclass(frozen=True)
class ReadBuffer(Cdb):
    """READ BUFFER(10) (SPC-4): a buffer of the device, from ``offset``."""

    OPCODE, LENGTH = READ_BUFFER, 10
    mode: int = at(1, 0x1F, what="buffer mode")
    buffer_id: int = at(2, what="buffer ID")
    offset: int = at(3, 0xFFFFFF, what="buffer offset")
    allocation_length: int = at(6, 0xFFFFFF, what=ALLOC)


@dataclass(frozen=True)
class ReportDensitySupport(Cdb):
    OPCODE, LENGTH = REPORT_DENSITY_SUPPORT, 10
    medium_type: bool = at(1, 0x02)
    media: bool = at(1, 0x01)
    allocation_length: int = at(7, 0xFFFF, what=ALLOC)


# -- the builders tapediag's callers use -------------------------------------------------------------

def request_sense(alloc: int = 252, *, desc: bool = False) -> bytes:
    return RequestSense(desc=desc, allocation_length=alloc).build()


def mode_sense6(page: int, subpage: int = 0, *, pc: PageControl | int = 0, dbd: bool = False, alloc: int = 255) -> bytes:
    return ModeSense6(dbd=dbd, pc=int(pc), page_code=page, subpage_code=subpage, allocation_length=alloc).build()


def read_position(form: PositionForm | int = PositionForm.SHORT, alloc: int = 0) -> bytes:
    """READ POSITION; the allocation length is only meaningful for the extended form."""
    return ReadPosition(service_action=int(form), allocation_length=alloc).build()


def report_density_support(*, media: bool = False, medium_type: bool = False, alloc: int = 8192) -> bytes:
    return ReportDensitySupport(medium_type=medium_type, media=media, allocation_length=alloc).build()


def read_buffer(mode: BufferMode | int, buffer_id: int, *, offset: int = 0, alloc: int) -> bytes:
    """READ BUFFER(10) (SPC-4): reads a buffer of the device. Which buffer IDs are safe to read is not this
    builder's business: ``app.device.state_changing`` names the forms that clear or snapshot something."""
    return ReadBuffer(mode=int(mode), buffer_id=buffer_id, offset=offset, allocation_length=alloc).build()

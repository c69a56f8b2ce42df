"""A tape drive's queries: VPD pages, REQUEST SENSE, READ BLOCK LIMITS, log pages, TapeAlert, density
support, the cartridge memory (MAM) and the encryption status. None of them changes anything on the
drive or moves the tape; each is decoded by its typed parser in ``native.scsi``. Beside them the one
command that writes the cartridge memory's host attributes (WRITE ATTRIBUTE: a read-only session refuses it)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.drive.gate import TapeGate
from native.errors import ParseError
from native.scsi import cdb as C
from native.scsi.encryption import PAGE_CAPABILITIES as PAGE_ENCRYPTION_CAPABILITIES
from native.scsi.encryption import PAGE_STATUS as PAGE_ENCRYPTION_STATUS
from native.scsi.encryption import PAGE_NEXT_BLOCK as PAGE_ENCRYPTION_NEXT_BLOCK
from native.scsi.encryption import EncryptionCapabilities, EncryptionStatus, NextBlockStatus
from native.scsi.inquiry import VPD_PARSERS, DeviceIdentification, SupportedVpdPages, UnitSerialNumber
from native.scsi.logpages import LogPage, SupportedPages, TapeAlertPage
from native.scsi.logparse import parse_log_page
from native.scsi.mam import Attribute, Mam, parse_attribute_list
from native.scsi.tape import BlockLimits

if TYPE_CHECKING:  # the sense decoder (and its ASC table) loads when sense is read, not at import (issue 32 §3)
    from native.scsi.density_support import DensitySupport  # ... and REPORT DENSITY SUPPORT's answer when asked
    from native.scsi.sense import Sense


class Queries(TapeGate):
    """Identity, logs, density, cartridge memory and encryption of a ``TapeDrive``: read-only."""

    def vpd(self, page: int) -> SupportedVpdPages | UnitSerialNumber | DeviceIdentification | bytes:
        """A VPD page: the typed dataclass for 0x00/0x80/0x83, raw bytes for others."""
        data = self._data_in(C.inquiry(0xFFFC, evpd=True, page=page), 0xFFFC)
        parser = VPD_PARSERS.get(page)
        return parser.parse(data) if parser else data

    def request_sense(self) -> Sense:
        from native.scsi.sense import Sense

        return Sense.parse(self._data_in(C.request_sense(252), 252))

    def read_block_limits(self) -> BlockLimits:
        return BlockLimits.parse(self._data_in(C.read_block_limits(), 6))

    def report_density_support(self, *, media: bool = True) -> DensitySupport:
        from native.scsi.density_support import DensitySupport

        return DensitySupport.parse(self._data_in(C.report_density_support(media=media), 8192), media=media)

    def log_sense(self, page: int, subpage: int = 0, *, pc: int = C.LogPageControl.CUMULATIVE) -> LogPage:
        """A log page, typed when tapediag knows it (see ``native.scsi.logpages``)."""
        return parse_log_page(self._data_in(C.log_sense(page, subpage, pc=pc), 0xFFFC))

    def encryption_capabilities(self) -> EncryptionCapabilities:
        """SECURITY PROTOCOL IN 20h/0010h: which encryption algorithms the drive offers (read-only)."""
        alloc = 0x2000
        return EncryptionCapabilities.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_CAPABILITIES, alloc=alloc), alloc))

    def encryption_status(self) -> EncryptionStatus:
        """SECURITY PROTOCOL IN 20h/0020h: encryption mode now, whether the volume holds encrypted blocks and the
        key-associated data of the key in use. Read-only and positionless: the tape does not move."""
        alloc = 0x2000
        return EncryptionStatus.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_STATUS, alloc=alloc), alloc))

    def next_block_encryption_status(self) -> NextBlockStatus:
        """SECURITY PROTOCOL IN 20h/0021h: the block at the current position, as far as the drive knows it
        without moving the tape ("not yet read" until it has read there); nothing is moved to learn more."""
        alloc = 0x2000
        return NextBlockStatus.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_NEXT_BLOCK, alloc=alloc), alloc))

    def supported_log_pages(self) -> tuple[int, ...]:
        page = self.log_sense(0x00)
        assert isinstance(page, SupportedPages)
        return page.pages

    def tapealert(self) -> TapeAlertPage:
        """The TapeAlert page. Reading it clears the flags: call once and keep the result."""
        page = self.log_sense(0x2E)
        if not isinstance(page, TapeAlertPage):
            raise ParseError("LOG SENSE 0x2E did not return a TapeAlert page")
        return page

    def read_attributes(self, *, partition: int = 0) -> Mam:
        """All readable MAM attributes of the loaded cartridge."""
        alloc = 0x2000
        data = self._data_in(C.read_attribute(C.AttributeAction.VALUES, alloc=alloc, partition=partition), alloc)
        if len(data) >= 4 and int.from_bytes(data[:4], "big") + 4 > alloc:
            alloc = min(0xFFFFFF, int.from_bytes(data[:4], "big") + 4)
            data = self._data_in(C.read_attribute(C.AttributeAction.VALUES, alloc=alloc, partition=partition), alloc)
        return Mam.parse(data)

    def write_attributes(self, attributes: "tuple[Attribute, ...]", *, partition: int = 0) -> None:
        """WRITE ATTRIBUTE of host attributes (an attribute of length 0 clears it, SPC-4). Changes the
        cartridge memory, so a read-only session refuses it (``STATE_CHANGING_OPCODES``)."""
        body = b"".join(a.build() for a in attributes)
        data = len(body).to_bytes(4, "big") + body
        self._command(C.write_attribute(len(data), partition=partition), data_out=data)

    def attribute_list(self, *, partition: int = 0) -> tuple[int, ...]:
        data = self._data_in(C.read_attribute(C.AttributeAction.LIST, alloc=0x1000, partition=partition), 0x1000)
        return parse_attribute_list(data)

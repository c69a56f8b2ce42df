"""A tape drive's mode pages: MODE SENSE (10, falling back to 6) and MODE SELECT (6 where it fits, as
tgt rejects 10), the header's density, block size and write protect, and hardware compression.

A change is made only through these, and ``set_block_size``/``set_compression`` keep every other
field as the drive reported it (the run that changes them puts them back, ``app.tapeperf.safety``)."""
from __future__ import annotations

from dataclasses import dataclass, replace

from app.drive.answers import is_not_supported
from app.drive.gate import TapeGate
from native.errors import IllegalRequest
from native.scsi import cdb as C
from native.scsi.mode import PAGE_ALL, PAGE_DATA_COMPRESSION, PAGE_DEVICE_CONFIGURATION, CompressionPage, ModeData
from native.transport import Transport


@dataclass(frozen=True)
class CompressionChange:
    """Result of ``set_compression``: truthy when applied, else ``reason`` says why not."""

    applied: bool
    enabled: bool | None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.applied


class ModePages(TapeGate):
    """The mode pages of a ``TapeDrive``; remembers which MODE SENSE size the drive takes."""

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        super().__init__(transport, device=device, read_only=read_only)
        self._mode_ten: bool | None = None  # which MODE SENSE size works, once known

    def mode_sense(self, page: int = PAGE_ALL, subpage: int = 0, *, pc: int = 0) -> ModeData:
        """MODE SENSE(10), falling back to (6) when rejected (and remembering which works)."""
        order = [True, False] if self._mode_ten in (None, True) else [False, True]
        last: IllegalRequest | None = None
        for ten in order:
            cdb = C.mode_sense10(page, subpage, pc=pc) if ten else C.mode_sense6(page, subpage, pc=pc)
            try:
                data = self._data_in(cdb, 4096 if ten else 255)
            except IllegalRequest as err:
                if not (err.sense is not None and err.sense.asc == 0x20) or self._mode_ten is not None:
                    raise
                last = err
                continue
            self._mode_ten = ten
            return ModeData.parse(data, ten=ten)
        assert last is not None
        raise last

    def mode_select(self, data: ModeData, *, save: bool = False) -> None:
        """MODE SELECT(6) when the list fits (tgt rejects (10)), else (10)."""
        six = data.select_data(ten=False) if len(data.block_descriptors) <= 31 else None
        if six is not None and len(six) <= 255:
            try:
                self._command(C.mode_select6(len(six), sp=save), data_out=six)
                return
            except IllegalRequest as err:
                if err.sense is None or err.sense.asc != 0x20:
                    raise
        ten = data.select_data(ten=True)
        self._command(C.mode_select10(len(ten), sp=save), data_out=ten)

    def mode_header(self) -> ModeData:
        """MODE SENSE for the header and block descriptor (density, block size, WP, buffering)."""
        try:
            return self.mode_sense(PAGE_DEVICE_CONFIGURATION)
        except IllegalRequest as err:
            if not is_not_supported(err):
                raise
            return self.mode_sense(PAGE_ALL)

    def block_size(self) -> int | None:
        """Current block length (0 = variable), None if the drive has no block descriptor."""
        return self.mode_header().block_length

    def set_block_size(self, size: int) -> None:
        """Switch to fixed-block mode of ``size`` bytes, or variable mode for 0."""
        current = self.mode_header()
        self.mode_select(current.without_pages().with_block_length(size))

    def is_write_protected(self) -> bool:
        return self.mode_header().write_protected

    def compression(self) -> CompressionPage | None:
        """The data compression page, or None when the drive has none."""
        md = self.mode_sense(PAGE_DATA_COMPRESSION)
        page = md.page(PAGE_DATA_COMPRESSION)
        return CompressionPage.from_page(page) if page is not None else None

    def set_compression(self, enabled: bool) -> CompressionChange:
        """Turn hardware compression on/off. A drive that refuses is not an error."""
        try:
            md = self.mode_sense(PAGE_DATA_COMPRESSION)
        except IllegalRequest as err:
            return CompressionChange(False, None, f"the drive has no data compression page ({err.sense.describe() if err.sense else 'rejected'})")
        page = md.page(PAGE_DATA_COMPRESSION)
        if page is None:
            return CompressionChange(False, None, "the drive returned no data compression page")
        current = CompressionPage.from_page(page)
        if not current.dcc:
            return CompressionChange(False, current.dce, "the drive reports it is not compression capable (DCC=0)")
        wanted = replace(current, dce=enabled, dde=True if enabled else current.dde)
        descriptors = tuple(replace(d, blocks=0) for d in md.block_descriptors)
        try:
            self.mode_select(replace(md, block_descriptors=descriptors, pages=(wanted.to_page(),)))
        except IllegalRequest as err:
            return CompressionChange(False, current.dce, f"the drive refused the change ({err.sense.describe() if err.sense else 'rejected'})")
        return CompressionChange(True, enabled)

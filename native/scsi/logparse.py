"""Any LOG SENSE page decoded into the class tapediag has for it: the one table of page code to class.

The page classes live beside their kin (``native.scsi.logpages``: the data path's pages;
``native.scsi.devicelogs``: the drive-wide pages, which build on the former). This module sits above
both, so neither needs to know the other's pages and the two import no circle: the table was once
filled by ``devicelogs`` registering itself into ``logpages``, which then had to import it back.
"""
from __future__ import annotations

from native.scsi._bytes import bit, need
from native.scsi.devicelogs import (PAGE_DEVICE_STATISTICS, PAGE_DT_DEVICE_STATUS, PAGE_NON_MEDIUM_ERRORS,
                                    PAGE_POWER_CONDITIONS, PAGE_PROTOCOL_PORT, PAGE_TAPE_DIAGNOSTIC,
                                    PAGE_TAPEALERT_RESPONSE, PAGE_TEMPERATURE, DeviceStatistics, DeviceStatus,
                                    NonMediumErrors, PowerConditions, ProtocolPort, TapeAlertResponse,
                                    TapeDiagnostic, Temperature)
from native.scsi.logpages import (PAGE_DATA_COMPRESSION, PAGE_READ_ERRORS, PAGE_SEQUENTIAL_ACCESS, PAGE_SUPPORTED,
                                  PAGE_TAPEALERT, PAGE_VOLUME_STATISTICS, PAGE_WRITE_ERRORS, CompressionStatistics,
                                  ErrorCounters, LogPage, SequentialAccess, SupportedPages, TapeAlertPage,
                                  VolumeStatistics)

__all__ = ["TYPED", "parse_log_page"]

#: Page code (subpage 0) -> the class that reads it. Vendor pages (30h-3Eh) are not here: page 34h is HP's
#: performance page but IBM's read-forward errors, so only a caller who knows the vendor types it.
TYPED: dict[int, type[LogPage]] = {
    PAGE_WRITE_ERRORS: ErrorCounters,
    PAGE_READ_ERRORS: ErrorCounters,
    PAGE_SEQUENTIAL_ACCESS: SequentialAccess,
    PAGE_VOLUME_STATISTICS: VolumeStatistics,
    PAGE_DATA_COMPRESSION: CompressionStatistics,
    PAGE_TAPEALERT: TapeAlertPage,
    PAGE_NON_MEDIUM_ERRORS: NonMediumErrors,
    PAGE_TEMPERATURE: Temperature,
    PAGE_DT_DEVICE_STATUS: DeviceStatus,
    PAGE_TAPEALERT_RESPONSE: TapeAlertResponse,
    PAGE_DEVICE_STATISTICS: DeviceStatistics,
    PAGE_TAPE_DIAGNOSTIC: TapeDiagnostic,
    PAGE_PROTOCOL_PORT: ProtocolPort,
    PAGE_POWER_CONDITIONS: PowerConditions,
}


def parse_log_page(data: bytes) -> LogPage:
    """Decode any log page; the typed subclass when tapediag knows the page."""
    data = bytes(data)
    need(data, 4, "log page header")
    code, subpage, spf = data[0] & 0x3F, data[1], bit(data[0], 6)
    if code == PAGE_SUPPORTED and not spf:
        return SupportedPages.parse(data)
    generic = LogPage.parse(data)
    cls = TYPED.get(code) if subpage == 0 else None
    if cls is None:
        return generic
    return cls(page_code=generic.page_code, subpage=generic.subpage, ds=generic.ds, spf=generic.spf,
               parameters=generic.parameters)

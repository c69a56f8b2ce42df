"""The largest SCSI pass-through transfer a Windows storage adapter takes: the twin of Linux's sysfs limits.

Why: an HBA that caps a single transfer below the I/O size fails the command (Linux: EINVAL/EIO,
Windows: ERROR_INVALID_PARAMETER / ERROR_IO_DEVICE) and can look like a dead drive; ``info``
shows the path's maximum transfer and the refusal message names it (issue 13.2). On Linux it
comes from the node's queue (``native.sglimit``); on Windows the port driver answers
IOCTL_STORAGE_QUERY_PROPERTY for StorageAdapterProperty with a STORAGE_ADAPTER_DESCRIPTOR
(winioctl.h / ntddstor.h, documented on learn.microsoft.com):

    offset  0  DWORD   Version
            4  DWORD   Size
            8  DWORD   MaximumTransferLength   bytes in one transfer
           12  DWORD   MaximumPhysicalPages    scatter/gather elements (discontiguous pages)
           16  DWORD   AlignmentMask
           20  BOOLEAN AdapterUsesPio, AdapterScansDown, CommandQueueing, AcceleratedTransfer
           24  BYTE    BusType
           26  WORD    BusMajorVersion
           28  WORD    BusMinorVersion
           30  BYTE    SrbType
           31  BYTE    AddressType              (32 bytes)

The query (STORAGE_PROPERTY_QUERY: PropertyId, QueryType, AdditionalParameters[1]; 12 bytes) needs
no access rights (FILE_ANY_ACCESS), so the device is opened with access 0: nothing is sent to
the drive. The usable limit is min(MaximumTransferLength, (MaximumPhysicalPages - 1) x page size):
a buffer that does not start on a page boundary spans one page more than its length, so one
scatter/gather element is kept in reserve, as Microsoft's SPTI sample does.

NOT RUN ON WINDOWS: no Windows machine is available to this project's tests. The structure
layout is checked against the documented offsets and sizes above, and the query and the decision
with a fake kernel32 (``_kernel32``, ``_get_last_error``), as ``native.winio`` is; nothing here
has issued the IOCTL to a real adapter.
"""
from __future__ import annotations

import ctypes
import mmap
from dataclasses import dataclass
from typing import Any

from native.kernel32 import kernel32

#: CTL_CODE(IOCTL_STORAGE_BASE 0x2D, 0x0500, METHOD_BUFFERED, FILE_ANY_ACCESS) (winioctl.h).
IOCTL_STORAGE_QUERY_PROPERTY = (0x2D << 16) | (0 << 14) | (0x0500 << 2) | 0
STORAGE_ADAPTER_PROPERTY = 1  # STORAGE_PROPERTY_ID StorageAdapterProperty
PROPERTY_STANDARD_QUERY = 0  # STORAGE_QUERY_TYPE PropertyStandardQuery

FILE_SHARE_READ_WRITE = 0x1 | 0x2
OPEN_EXISTING = 3
INVALID_HANDLE = ctypes.c_void_p(-1).value


class StoragePropertyQuery(ctypes.Structure):
    """STORAGE_PROPERTY_QUERY (winioctl.h): 4 + 4 + 1 bytes, padded to 12."""

    _fields_ = [("PropertyId", ctypes.c_int32), ("QueryType", ctypes.c_int32), ("AdditionalParameters", ctypes.c_ubyte * 1)]


class StorageAdapterDescriptor(ctypes.Structure):
    """STORAGE_ADAPTER_DESCRIPTOR (winioctl.h), 32 bytes; offsets in the module docstring."""

    # Fixed-width types, not ``wintypes.DWORD``: that is a C ``unsigned long``, 64 bits off Windows,
    # and the layout must be the documented one wherever it is checked.
    _fields_ = [
        ("Version", ctypes.c_uint32), ("Size", ctypes.c_uint32),
        ("MaximumTransferLength", ctypes.c_uint32), ("MaximumPhysicalPages", ctypes.c_uint32),
        ("AlignmentMask", ctypes.c_uint32),
        ("AdapterUsesPio", ctypes.c_ubyte), ("AdapterScansDown", ctypes.c_ubyte),
        ("CommandQueueing", ctypes.c_ubyte), ("AcceleratedTransfer", ctypes.c_ubyte),
        ("BusType", ctypes.c_ubyte), ("BusMajorVersion", ctypes.c_uint16), ("BusMinorVersion", ctypes.c_uint16),
        ("SrbType", ctypes.c_ubyte), ("AddressType", ctypes.c_ubyte),
    ]


@dataclass(frozen=True)
class AdapterLimits:
    """What the adapter reported and the limit tapediag derives from it (None: nothing usable)."""

    max_transfer_length: int
    max_physical_pages: int
    page_size: int
    limit: int | None

    def describe(self) -> str:
        return (f"storage adapter: MaximumTransferLength {self.max_transfer_length:,} bytes, "
                f"MaximumPhysicalPages {self.max_physical_pages:,} x {self.page_size // 1024} KiB pages")


def usable_transfer(max_transfer_length: int, max_physical_pages: int, page_size: int) -> int | None:
    """min(MaximumTransferLength, (MaximumPhysicalPages - 1) x page size); a field of 0 (or a single
    page) says nothing and is left out; None when neither says anything."""
    limits = []
    if max_transfer_length > 0:
        limits.append(max_transfer_length)
    if max_physical_pages > 1:
        limits.append((max_physical_pages - 1) * page_size)
    return min(limits) if limits else None


_kernel32: Any = None  # a test's fake; None: the shared kernel32(), which caches itself


def _k32() -> Any:
    return _kernel32 if _kernel32 is not None else kernel32()


def adapter_limits(device: str, page_size: int = mmap.PAGESIZE) -> AdapterLimits | None:
    """Ask the storage adapter behind ``device`` (``\\\\.\\Tape0``) for its limits; None when it cannot be
    opened or does not answer (the limit is then unknown, not zero)."""
    k32 = _k32()
    handle = k32.CreateFileW(device, 0, FILE_SHARE_READ_WRITE, None, OPEN_EXISTING, 0, None)
    if handle is None or handle == INVALID_HANDLE:
        return None
    try:
        query = StoragePropertyQuery(STORAGE_ADAPTER_PROPERTY, PROPERTY_STANDARD_QUERY)
        desc = StorageAdapterDescriptor()
        returned = ctypes.c_uint32()  # a DWORD on Windows
        ok = k32.DeviceIoControl(handle, IOCTL_STORAGE_QUERY_PROPERTY, ctypes.byref(query), ctypes.sizeof(query),
                                 ctypes.byref(desc), ctypes.sizeof(desc), ctypes.byref(returned), None)
        # MaximumPhysicalPages ends at byte 16: an answer shorter than that carries no limit.
        if not ok or returned.value < StorageAdapterDescriptor.MaximumPhysicalPages.offset + 4:
            return None
    finally:
        k32.CloseHandle(handle)
    return AdapterLimits(desc.MaximumTransferLength, desc.MaximumPhysicalPages, page_size,
                         usable_transfer(desc.MaximumTransferLength, desc.MaximumPhysicalPages, page_size))


def host_transfer_limit(device: str) -> int | None:
    """The largest transfer the adapter behind ``device`` accepts (the Windows twin of
    ``native.sgpt.host_transfer_limit``), None if unknown."""
    limits = adapter_limits(device)
    return limits.limit if limits is not None else None

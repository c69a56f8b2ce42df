"""The Windows twin of the host transfer limit (``native.winstorage``), without Windows.

No Windows machine runs these tests: the structures are checked against the offsets and sizes
documented for winioctl.h, and the query and the decision with a fake kernel32 whose
DeviceIoControl fills a STORAGE_ADAPTER_DESCRIPTOR as a port driver would.
"""
from __future__ import annotations

import ctypes
import struct
import sys

import pytest

from native import winstorage as W

PAGE = 4096


def test_storage_adapter_descriptor_layout_matches_the_documented_offsets() -> None:
    D = W.StorageAdapterDescriptor
    offsets = {name: getattr(D, name).offset for name, *_ in D._fields_}
    assert offsets == {
        "Version": 0, "Size": 4, "MaximumTransferLength": 8, "MaximumPhysicalPages": 12, "AlignmentMask": 16,
        "AdapterUsesPio": 20, "AdapterScansDown": 21, "CommandQueueing": 22, "AcceleratedTransfer": 23,
        "BusType": 24, "BusMajorVersion": 26, "BusMinorVersion": 28, "SrbType": 30, "AddressType": 31,
    }
    assert ctypes.sizeof(D) == 32


def test_storage_property_query_layout_and_ioctl_code() -> None:
    Q = W.StoragePropertyQuery
    assert (Q.PropertyId.offset, Q.QueryType.offset, Q.AdditionalParameters.offset, ctypes.sizeof(Q)) == (0, 4, 8, 12)
    assert W.IOCTL_STORAGE_QUERY_PROPERTY == 0x002D1400  # CTL_CODE(0x2D, 0x500, METHOD_BUFFERED, FILE_ANY_ACCESS)
    assert (W.STORAGE_ADAPTER_PROPERTY, W.PROPERTY_STANDARD_QUERY) == (1, 0)


@pytest.mark.parametrize("max_len, pages, expected", [
    (2 << 20, 513, 2 << 20),  # 512 usable pages = 2 MiB: both agree
    (2 << 20, 129, 512 << 10),  # scatter/gather is the limit: 128 pages
    (64 << 10, 0x1000, 64 << 10),  # MaximumTransferLength is the limit
    (0, 257, 1 << 20),  # no transfer length given: the pages alone
    (1 << 20, 0, 1 << 20),  # no page count given: the length alone
    (1 << 20, 1, 1 << 20),  # one page leaves nothing in reserve: ignored
    (0, 0, None),  # the adapter says nothing usable
])
def test_usable_transfer_is_the_smaller_of_length_and_pages_minus_one(max_len: int, pages: int, expected: int | None) -> None:
    assert W.usable_transfer(max_len, pages, PAGE) == expected


class FakeKernel32:
    """CreateFileW / DeviceIoControl / CloseHandle as the tape class driver answers the adapter query."""

    def __init__(self, descriptor: bytes | None, *, open_ok: bool = True, returned: int | None = None) -> None:
        self.descriptor = descriptor
        self.open_ok = open_ok
        self.returned = returned
        self.opened: list[tuple[str, int]] = []
        self.ioctls: list[tuple[int, int, int, bytes]] = []
        self.closed: list[int] = []

    def CreateFileW(self, path, access, share, security, disposition, flags, template):  # type: ignore[no-untyped-def]  # noqa: N802
        self.opened.append((path, access))
        return 0x44 if self.open_ok else W.INVALID_HANDLE

    def DeviceIoControl(self, handle, code, inbuf, inlen, outbuf, outlen, returned, overlapped):  # type: ignore[no-untyped-def]  # noqa: N802
        query = ctypes.string_at(ctypes.addressof(inbuf._obj), inlen)
        self.ioctls.append((handle, code, outlen, query))
        if self.descriptor is None:
            return 0
        n = min(outlen, len(self.descriptor))
        ctypes.memmove(ctypes.addressof(outbuf._obj), self.descriptor, n)
        returned._obj.value = n if self.returned is None else self.returned
        return 1

    def CloseHandle(self, handle):  # type: ignore[no-untyped-def]  # noqa: N802
        self.closed.append(handle)
        return 1


def descriptor(max_len: int, pages: int) -> bytes:
    # Version, Size, MaximumTransferLength, MaximumPhysicalPages, AlignmentMask, 4 BOOLEANs, BusType (SAS = 0x0A),
    # pad, BusMajor, BusMinor, SrbType, AddressType: packed by hand from the documented layout.
    return struct.pack("<IIIIIBBBBBxHHBB", 32, 32, max_len, pages, 3, 0, 0, 1, 1, 0x0A, 0, 0, 1, 0)


def test_the_query_opens_with_no_access_asks_for_the_adapter_and_closes(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeKernel32(descriptor(0x200000, 129))
    monkeypatch.setattr(W, "_kernel32", fake)
    limits = W.adapter_limits("\\\\.\\Tape0", page_size=PAGE)
    assert limits == W.AdapterLimits(0x200000, 129, PAGE, 128 * PAGE)
    assert fake.opened == [("\\\\.\\Tape0", 0)]  # FILE_ANY_ACCESS: nothing that could reach the drive
    handle, code, outlen, query = fake.ioctls[0]
    assert (handle, code, outlen) == (0x44, W.IOCTL_STORAGE_QUERY_PROPERTY, 32)
    assert query == struct.pack("<iiB3x", W.STORAGE_ADAPTER_PROPERTY, W.PROPERTY_STANDARD_QUERY, 0)
    assert fake.closed == [0x44]
    assert W.host_transfer_limit("\\\\.\\Tape0") == min(0x200000, 128 * W.mmap.PAGESIZE)
    assert "MaximumTransferLength 2,097,152 bytes" in limits.describe()


@pytest.mark.parametrize("fake", [
    FakeKernel32(None),  # DeviceIoControl fails
    FakeKernel32(descriptor(1 << 20, 257), returned=8),  # an answer that stops before MaximumPhysicalPages
    FakeKernel32(descriptor(1 << 20, 257), open_ok=False),  # the device cannot be opened
], ids=["ioctl-fails", "short-answer", "no-device"])
def test_no_usable_answer_means_unknown_not_zero(monkeypatch: pytest.MonkeyPatch, fake: FakeKernel32) -> None:
    monkeypatch.setattr(W, "_kernel32", fake)
    assert W.adapter_limits("\\\\.\\Tape0") is None
    assert W.host_transfer_limit("\\\\.\\Tape0") is None
    assert fake.closed == ([] if not fake.open_ok else [0x44, 0x44])  # every handle opened is closed


def test_the_pass_through_transport_asks_the_adapter_on_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    from native.sgpt import PassThroughTransport

    transport = object.__new__(PassThroughTransport)  # no libsgutils2 handle: only the limit is asked
    transport.device = "\\\\.\\Tape3"
    monkeypatch.setattr(W, "_kernel32", FakeKernel32(descriptor(64 << 10, 0x100)))
    monkeypatch.setattr(sys, "platform", "win32")
    limit = transport.transfer_limit()
    assert limit is not None and limit.max_bytes == 64 << 10 and limit.source.startswith("storage adapter:")

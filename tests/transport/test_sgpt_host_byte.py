"""What the Linux pass-through makes of a failure below SCSI, and of a path's largest transfer (issue 27 §4).

libsgutils2's ``get_scsi_pt_transport_err`` returns the host byte alone since 1.43 (``host << 8 | driver``
only in 1.42 and earlier built without bsg: ``lib/sg_pt_linux.c``); the driver status is given only by
``get_scsi_pt_transport_err_str``. The first tests drive this machine's libsgutils2 itself: a transport
error stored in a real pass-through object the way ``do_scsi_pt`` stores the kernel's host byte.
"""

from __future__ import annotations

import ctypes
import errno
import os
from pathlib import Path

import pytest

from native.errors import ConnectionLost, InvalidParameter, TransportError, TransportUnavailable
from native.sgpt import LinuxStatus, PassThroughTransport, load, transfer_refused, transport_failure
from native.transport import TransferLimit


@pytest.fixture
def stored_transport_error() -> object:
    """A PassThroughTransport whose libsgutils2 object holds a transport error, set as ``do_scsi_pt`` sets
    it from the kernel's host byte (``set_scsi_pt_transport_err``); no device is opened (``_fd`` -1)."""
    try:
        sg = load()
    except TransportUnavailable as err:
        pytest.skip(str(err))
    lib = sg.lib
    lib.construct_scsi_pt_obj.restype = ctypes.c_void_p
    lib.set_scsi_pt_transport_err.argtypes = [ctypes.c_void_p, ctypes.c_int]
    transport = PassThroughTransport.__new__(PassThroughTransport)
    transport.device, transport._sg, transport._fd = "/dev/sg1", sg, -1
    transport._obj = lib.construct_scsi_pt_obj()

    def store(host_byte: int) -> PassThroughTransport:
        lib.set_scsi_pt_transport_err(transport._obj, host_byte)
        return transport

    yield store
    lib.destruct_scsi_pt_obj(transport._obj)
    transport._obj = None


def test_this_libsgutils2_returns_the_host_byte_alone_and_the_string_holds_both(stored_transport_error) -> None:
    transport = stored_transport_error(0x0E)
    lib, obj = transport._sg.lib, transport._obj
    assert lib.get_scsi_pt_transport_err(obj) == 0x0E  # not 0x0E00: splitting it read "driver status 0x0e"
    buf = ctypes.create_string_buffer(512)
    text = lib.get_scsi_pt_transport_err_str(obj, len(buf), buf).decode()
    assert "Host_status=0x0e" in text and "Driver_status=0x00" in text, text
    assert LinuxStatus.parse(text) == LinuxStatus(0x0E, 0x00)


@pytest.mark.parametrize(("host", "name"), [
    (0x01, "DID_NO_CONNECT"), (0x04, "DID_BAD_TARGET"),
    (0x0E, "DID_TRANSPORT_DISRUPTED"), (0x0F, "DID_TRANSPORT_FAILFAST"),
])
def test_a_lost_path_through_the_real_library_is_one_connection_lost_line(stored_transport_error, host, name) -> None:
    err = stored_transport_error(host)._transport_error()
    assert isinstance(err, ConnectionLost)
    assert err.message.startswith("the connection to the drive at /dev/sg1 was lost: ") and err.message.endswith(f"({name})")
    assert "tape position is now unknown" in str(err) and "\n" not in str(err)
    assert "status 0x" not in str(err) and "Host_status" not in str(err)


def test_the_status_string_of_old_and_new_libsgutils2_reads_the_same() -> None:
    # 1.37 (v3 only): both lines, the driver's suggestion in brackets; 1.46: no host line when it is 0.
    assert LinuxStatus.parse("Host_status=0x07 [DID_ERROR]\nDriver_status=0x08 [DRIVER_SENSE, SUGGEST_OK]\n") == \
        LinuxStatus(0x07, 0x08)
    assert LinuxStatus.parse("Driver_status=0x06 [DRIVER_TIMEOUT]\n") == LinuxStatus(0x00, 0x06)
    assert LinuxStatus.parse("The request is not supported.") is None  # Windows: an error message


def test_did_error_is_connection_lost_only_once_the_node_left_sysfs() -> None:
    gone = transport_failure("/dev/nst0", LinuxStatus(0x07, 0x00), node_present=False)
    assert isinstance(gone, ConnectionLost)
    assert gone.message == "the connection to the drive at /dev/nst0 was lost: the kernel removed the device (DID_ERROR)"
    still_there = transport_failure("/dev/nst0", LinuxStatus(0x07, 0x00), node_present=True)
    assert type(still_there) is TransportError
    assert still_there.message == "the command to /dev/nst0 failed below SCSI (DID_ERROR, DRIVER_OK)"


def test_other_failures_stay_plain_transport_errors_on_one_line() -> None:
    err = transport_failure("/dev/sg2", LinuxStatus(0x03, 0x06), node_present=True)
    assert type(err) is TransportError
    assert err.message == "the command to /dev/sg2 failed below SCSI (DID_TIME_OUT, DRIVER_TIMEOUT)"
    unknown = transport_failure("/dev/sg2", LinuxStatus(0x7F, 0x00), node_present=True)
    assert type(unknown) is TransportError and "host status 0x7f" in unknown.message
    assert isinstance(transport_failure("/dev/sg2", LinuxStatus(0x00, 0x07), node_present=False), ConnectionLost)


def test_cap_sys_rawio_is_read_from_the_effective_set(tmp_path) -> None:
    from native.sgpt import has_cap_sys_rawio

    status = tmp_path / "status"
    status.write_text("Name:\tx\nCapEff:\t000001ffffffffff\n")
    assert has_cap_sys_rawio(str(status))
    status.write_text("Name:\tx\nCapEff:\t0000000000000000\n")
    assert not has_cap_sys_rawio(str(status))
    status.write_text("Name:\tx\nCapEff:\t0000000000020000\n")  # bit 17 alone
    assert has_cap_sys_rawio(str(status))


def test_the_sg_node_beside_an_st_node_comes_from_sysfs(tmp_path) -> None:
    from native.sgpt import sg_node_beside

    (tmp_path / "class" / "scsi_tape" / "nst0" / "device" / "scsi_generic" / "sg1").mkdir(parents=True)
    assert sg_node_beside("/dev/nst0", str(tmp_path), "/dev") == "/dev/sg1"
    assert sg_node_beside("/dev/nst5", str(tmp_path), "/dev") is None


def _sysfs_device(root: Path, *, sg_tablesize: int | None = 4096) -> Path:
    """A SCSI device under an iSCSI host, as sysfs lays it out (the kernel 6.1 host has no max_sectors)."""
    host = root / "devices" / "platform" / "host3"
    device = host / "session1" / "target3:0:0" / "3:0:0:1"
    (device / "scsi_generic" / "sg9").mkdir(parents=True)
    (host / "scsi_host" / "host3").mkdir(parents=True)
    if sg_tablesize is not None:
        (host / "scsi_host" / "host3" / "sg_tablesize").write_text(f"{sg_tablesize}\n")
    return device


def test_without_the_sg_ioctl_the_host_segments_are_capped_as_the_kernel_caps_them(tmp_path) -> None:
    """The guest's figures: sg_tablesize 4096, the queue 2048 segments: 8 MiB on sg, a page less on st."""
    from native.sglimit import node_limit

    device = _sysfs_device(tmp_path)
    with open(tmp_path / "plain", "wb") as f:  # a file: SG_GET_SG_TABLESIZE fails, as on a node without it
        sg = node_limit(f.fileno(), device, st_node=False, node="/dev/sg9", dev_root=str(tmp_path / "dev"))
        st = node_limit(f.fileno(), device, st_node=True, node="/dev/nst9", dev_root=str(tmp_path / "dev"))
    page = os.sysconf("SC_PAGE_SIZE")
    assert sg is not None and sg.max_bytes == 2048 * page
    assert sg.source.startswith("/dev/sg9: 2048 segments (SCSI host host3: sg_tablesize 4096, the kernel's queue takes at most 2048)")
    assert st is not None and st.max_bytes == 2047 * page
    assert "less one page (st maps the caller's buffer" in st.source


def test_a_reported_max_hw_sectors_caps_the_limit(tmp_path) -> None:
    from native.sglimit import node_limit

    device = _sysfs_device(tmp_path, sg_tablesize=128)
    (device / "block" / "sdz" / "queue").mkdir(parents=True)
    (device / "block" / "sdz" / "queue" / "max_hw_sectors_kb").write_text("256\n")
    with open(tmp_path / "plain", "wb") as f:
        limit = node_limit(f.fileno(), device, st_node=False, node="/dev/sg9", dev_root=str(tmp_path / "dev"))
    assert limit is not None and limit.max_bytes == 256 << 10
    assert limit.source.endswith("sdz max_hw_sectors_kb 256")
    with open(tmp_path / "plain", "wb") as f:
        unknown = node_limit(f.fileno(), _sysfs_device(tmp_path / "other", sg_tablesize=None), st_node=False,
                             node="/dev/sg9", dev_root=str(tmp_path / "dev"))
    assert unknown is None


def test_a_large_transfer_the_os_refuses_is_named_and_never_advised_again() -> None:
    limit = TransferLimit(8 << 20, "/dev/sg1: 2048 segments (SG_GET_SG_TABLESIZE) of one 4 KiB page")
    refused = transfer_refused("/dev/sg1", errno.EINVAL, 16 << 20, True, limit)
    assert isinstance(refused, InvalidParameter)
    assert "refused a 16 MiB transfer to /dev/sg1" in refused.message
    assert refused.hint == ("use a smaller --io-size / --block-size: at most 8 MiB per transfer here "
                            "(/dev/sg1: 2048 segments (SG_GET_SG_TABLESIZE) of one 4 KiB page)")
    # A limit the kernel has just broken is no advice: 8 MiB refused under a reported 16 MiB.
    wrong = transfer_refused("/dev/nst0", errno.EINVAL, 8 << 20, True, TransferLimit(16 << 20, "a wrong figure"))
    assert isinstance(wrong, InvalidParameter) and "8 MiB transfer" in wrong.message
    assert "16 MiB" not in str(wrong) and "8 MiB per" not in str(wrong) and "1 MiB" in (wrong.hint or "")
    # A small transfer, or EIO once the device is gone, stays what it was (not a size problem).
    assert transfer_refused("/dev/nst0", errno.EINVAL, 64 << 10, True, limit) is None
    assert transfer_refused("/dev/nst0", errno.EIO, 16 << 20, False, limit) is None

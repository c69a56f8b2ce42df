"""Decoding of the Linux SCSI host byte from a pass-through transport error (issue 13 item 3).

A real kernel with a vanishing drive is not available here, so this tests the mapping the
pass-through applies to ``get_scsi_pt_transport_err`` (``host_status << 8 | driver_status``).
"""

from __future__ import annotations

import pytest

from native.errors import ConnectionLost, TransportError
from native.sgpt import transport_failure


@pytest.mark.parametrize(("host", "name"), [
    (0x01, "DID_NO_CONNECT"), (0x04, "DID_BAD_TARGET"),
    (0x0E, "DID_TRANSPORT_DISRUPTED"), (0x0F, "DID_TRANSPORT_FAILFAST"),
])
def test_lost_path_host_bytes_are_connection_lost(host: int, name: str) -> None:
    err = transport_failure("/dev/sg1", (host << 8) | 0x00, node_present=True)
    assert isinstance(err, ConnectionLost)
    assert err.args[0] == f"/dev/sg1 went away ({name})"
    assert "\n" not in err.args[0]
    assert "Host_status" not in str(err) and "Driver_status" not in str(err)


def test_did_error_is_connection_lost_only_once_the_node_left_sysfs() -> None:
    gone = transport_failure("/dev/nst0", (0x07 << 8) | 0x08, node_present=False)
    assert isinstance(gone, ConnectionLost)
    assert "DID_ERROR" in gone.args[0]
    still_there = transport_failure("/dev/nst0", (0x07 << 8) | 0x08, node_present=True)
    assert type(still_there) is TransportError
    assert "DID_ERROR" in still_there.args[0] and "0x08" in still_there.args[0]


def test_other_host_bytes_stay_plain_transport_errors_on_one_line() -> None:
    err = transport_failure("/dev/sg2", (0x03 << 8) | 0x06, node_present=False)
    assert type(err) is TransportError
    assert "DID_TIME_OUT" in err.args[0] and "\n" not in err.args[0]
    unknown = transport_failure("/dev/sg2", 0x7F << 8, node_present=True)
    assert type(unknown) is TransportError and "0x7f" in unknown.args[0]


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


def test_a_large_transfer_the_os_refuses_is_named_with_its_size(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import errno

    from native.errors import InvalidParameter
    from native.sgpt import host_transfer_limit, transfer_refused

    host = tmp_path / "devices" / "platform" / "host3"
    device = host / "session1" / "target3:0:0" / "3:0:0:1"
    device.mkdir(parents=True)
    (host / "scsi_host" / "host3").mkdir(parents=True)
    (host / "scsi_host" / "host3" / "max_sectors").write_text("16384\n")  # 8 MiB
    (host / "scsi_host" / "host3" / "sg_tablesize").write_text("2048\n")  # 2048 pages
    limit = host_transfer_limit(device)
    assert limit == min(16384 * 512, 2048 * 4096)

    refused = transfer_refused("/dev/nst0", errno.EINVAL, 16 << 20, True, limit)
    assert isinstance(refused, InvalidParameter)
    assert "refused a 16 MiB transfer to /dev/nst0" in str(refused) and "at most 8 MiB" in (refused.hint or "")
    # A small transfer, or EIO once the device is gone, stays what it was (not a size problem).
    assert transfer_refused("/dev/nst0", errno.EINVAL, 64 << 10, True, limit) is None
    assert transfer_refused("/dev/nst0", errno.EIO, 16 << 20, False, limit) is None
    assert host_transfer_limit(tmp_path / "nowhere") is None


def test_a_hard_driver_status_once_the_node_is_gone_is_a_vanished_drive() -> None:
    from native.errors import ConnectionLost, TransportError
    from native.sgpt import transport_failure

    # An iSCSI logout mid-write, seen in the real-kernel test: DID_OK with driver status 07h.
    assert isinstance(transport_failure("/dev/nst0", 0x0007, node_present=False), ConnectionLost)
    still_there = transport_failure("/dev/nst0", 0x0007, node_present=True)
    assert isinstance(still_there, TransportError) and not isinstance(still_there, ConnectionLost)


def test_the_host_limit_names_the_sysfs_values_it_came_from(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from native.sgpt import host_limits

    host = tmp_path / "devices" / "pci0000:00" / "host2"
    device = host / "target2:0:0" / "2:0:0:0"
    device.mkdir(parents=True)
    (host / "scsi_host" / "host2").mkdir(parents=True)
    (host / "scsi_host" / "host2" / "max_sectors").write_text("1024\n")  # 512 KiB
    (host / "scsi_host" / "host2" / "sg_tablesize").write_text("not a number\n")  # unreadable: left out
    limit = host_limits(device)
    assert limit is not None and limit.max_bytes == 512 << 10
    assert limit.source == "SCSI host host2: max_sectors 1024 (512 KiB)"

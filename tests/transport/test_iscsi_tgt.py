"""IscsiTransport against a real tgtd tape LUN on 127.0.0.1, with raw CDBs."""
from __future__ import annotations

import os
import signal
import threading
import time

import numpy
import pytest

from native import open_transport
from native.errors import CommandTimeout, ConnectionLost, DeviceNotFound
from native.iscsi import IscsiTransport
from native.transport import CHECK_CONDITION, GOOD
from tests.helpers.tgt import TapeRecord, TgtTarget
from tests.transport._cdb import (
    READ_BLOCK_LIMITS,
    REWIND,
    TEST_UNIT_READY,
    FixedSense,
    inquiry,
    read6,
    write6,
    write_filemarks,
)

pytestmark = pytest.mark.tgt

NO_SENSE, BLANK_CHECK = 0x0, 0x8


@pytest.fixture
def drive(tgt_target: TgtTarget):
    transport = IscsiTransport(tgt_target.url)
    yield transport
    transport.close()


def test_open_transport_chooses_iscsi(tgt_target: TgtTarget) -> None:
    with open_transport(tgt_target.url) as transport:
        assert isinstance(transport, IscsiTransport)
        assert transport.execute(TEST_UNIT_READY).status == GOOD


def test_test_unit_ready(drive: IscsiTransport) -> None:
    result = drive.execute(TEST_UNIT_READY)
    assert result.good and result.sense == b"" and result.transferred == 0


def test_inquiry(drive: IscsiTransport) -> None:
    result = drive.execute(inquiry(96), data_in=96)
    assert result.good
    data = bytes(result.data)
    assert data[0] & 0x1F == 1  # sequential-access device
    assert data[8:16].decode().strip() == "IET"
    assert data[16:32].decode().strip() == "VIRTUAL-TAPE"
    assert result.transferred == len(data) == data[4] + 5  # underflow: alloc - residual


def test_read_block_limits(drive: IscsiTransport) -> None:
    result = drive.execute(READ_BLOCK_LIMITS, data_in=6)
    assert result.good and result.transferred == 6
    max_len = int.from_bytes(result.data[1:4], "big")
    min_len = int.from_bytes(result.data[4:6], "big")
    assert max_len >= 65536 and 1 <= min_len <= max_len


def _write(drive: IscsiTransport, block: bytes) -> None:
    result = drive.execute(write6(len(block)), data_out=block)
    assert result.good, result.sense.hex()
    assert result.transferred == len(block)


def test_tape_write_read_sense(drive: IscsiTransport, tgt_target: TgtTarget) -> None:
    blocks = [os.urandom(n) for n in (512, 1000, 65536, 4096)]
    for block in blocks:
        _write(drive, block)
    assert drive.execute(write_filemarks(1)).good
    assert drive.execute(REWIND).good

    buf = bytearray(128 * 1024)
    for block in blocks[:3]:  # exact-length reads
        result = drive.execute(read6(len(block)), data_in=buf)
        assert result.good and bytes(result.data) == block

    # Overlength block: the block (4096) is longer than asked (1000): ILI with a
    # negative INFO. (tgt sends no data at all here, unlike a real drive, which
    # transfers the 1000 bytes; the data-kept case is the next test.)
    result = drive.execute(read6(1000), data_in=buf)
    assert result.status == CHECK_CONDITION
    sense = FixedSense.parse(result.sense)
    assert sense.ili and sense.valid and sense.info == 1000 - 4096

    # Into the filemark: NO SENSE + FILEMARK, ASC 00/01, INFO = requested length.
    result = drive.execute(read6(2000), data_in=buf)
    assert result.status == CHECK_CONDITION
    sense = FixedSense.parse(result.sense)
    assert (sense.key, sense.filemark, sense.asc, sense.ascq) == (NO_SENSE, True, 0x00, 0x01)
    assert sense.info == 2000

    # At end of data: BLANK CHECK with EOM.
    result = drive.execute(read6(2000), data_in=buf)
    assert result.status == CHECK_CONDITION
    sense = FixedSense.parse(result.sense)
    assert sense.key == BLANK_CHECK and sense.eom

    # The cartridge file agrees with what was written.
    assert tgt_target.data_blocks() == [TapeRecord("DATA", len(b)) for b in blocks] + [TapeRecord("FILEMARK", 0)]


def test_shorter_block_keeps_its_data_on_check_condition(drive: IscsiTransport) -> None:
    """Underlength block: ILI, positive INFO, and the block's bytes survive in our buffer."""
    block = os.urandom(700)
    _write(drive, block)
    assert drive.execute(REWIND).good
    buf = bytearray(b"\xAA" * 4096)
    result = drive.execute(read6(4096), data_in=buf)
    assert result.status == CHECK_CONDITION
    sense = FixedSense.parse(result.sense)
    assert sense.ili and sense.info == 4096 - 700
    assert bytes(buf[:700]) == block  # (what tgt puts after the block is its own business)


@pytest.mark.parametrize("kind", ["bytes", "bytearray", "readonly_view", "numpy"])
def test_data_out_buffer_kinds(drive: IscsiTransport, kind: str) -> None:
    payload = os.urandom(10_000)
    source = {
        "bytes": payload,
        "bytearray": bytearray(payload),
        "readonly_view": memoryview(payload)[:],
        "numpy": numpy.frombuffer(payload, dtype=numpy.uint8).copy(),
    }[kind]
    assert drive.execute(write6(len(payload)), data_out=source).good
    assert drive.execute(REWIND).good
    result = drive.execute(read6(len(payload)), data_in=len(payload))
    assert result.good and bytes(result.data) == payload


def test_big_write_1mib(tgt_factory) -> None:
    target = tgt_factory(large_segments=True)
    block = os.urandom(1 << 20)
    with IscsiTransport(target.url) as drive:
        _write(drive, block)
        assert drive.execute(REWIND).good
        buf = bytearray(1 << 20)
        result = drive.execute(read6(1 << 20), data_in=buf)
        assert result.good and result.transferred == 1 << 20 and buf == block
    assert target.data_blocks() == [TapeRecord("DATA", 1 << 20)]


def test_swapped_cartridge_is_readable(tgt_target: TgtTarget, tgt_cartridge_factory) -> None:
    with IscsiTransport(tgt_target.url) as drive:
        _write(drive, b"first cartridge".ljust(512, b"."))
    second = tgt_cartridge_factory("second.img")
    tgt_target.swap_cartridge(second)
    with IscsiTransport(tgt_target.url) as drive:
        assert drive.execute(TEST_UNIT_READY).good
        assert drive.execute(REWIND).good
        result = drive.execute(read6(512), data_in=512)
        assert FixedSense.parse(result.sense).key == BLANK_CHECK  # the new one is blank


def test_connection_loss_raises_not_hangs(tgt_target: TgtTarget) -> None:
    drive = IscsiTransport(tgt_target.url)
    assert drive.execute(TEST_UNIT_READY).good
    tgt_target.kill()
    started = time.monotonic()
    with pytest.raises(ConnectionLost):
        drive.execute(write6(4096), data_out=bytes(4096), timeout=20)
    assert time.monotonic() - started < 15
    with pytest.raises(ConnectionLost):  # and it stays lost: no silent reconnect
        drive.execute(TEST_UNIT_READY)
    drive.close()


def test_kill_mid_transfer_raises_connection_lost(tgt_factory) -> None:
    target = tgt_factory(large_segments=True)
    drive = IscsiTransport(target.url)
    block = bytes(1 << 20)
    killer = threading.Timer(0.3, target.kill)
    killer.start()
    try:
        with pytest.raises(ConnectionLost):
            for _ in range(100_000):
                drive.execute(write6(len(block)), data_out=block, timeout=20)
    finally:
        killer.join()
        drive.close()


def test_stuck_target_gives_command_timeout_then_the_session_is_abandoned(tgt_target: TgtTarget) -> None:
    """A target that stops answering costs one timeout, not one per command (issue 14.9).

    After the timeout nothing more is sent on that session: a LOG SENSE after a stuck
    WRITE used to wait out its own timeout again, holding a run for 17 minutes.
    """
    drive = IscsiTransport(tgt_target.url)
    os.kill(tgt_target.pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        with pytest.raises(CommandTimeout):
            drive.execute(TEST_UNIT_READY, timeout=1)
        assert time.monotonic() - started < 5
        started = time.monotonic()
        with pytest.raises(ConnectionLost) as info:
            drive.execute(inquiry(96), data_in=96, timeout=60)
        assert time.monotonic() - started < 0.5  # at once, not after another timeout
        assert "did not complete within 1 s" in str(info.value)
    finally:
        os.kill(tgt_target.pid, signal.SIGCONT)
    drive.close()
    # The target itself is fine once it answers again: a new session works.
    fresh = IscsiTransport(tgt_target.url)
    assert fresh.execute(TEST_UNIT_READY, timeout=10).good
    fresh.close()


def test_unknown_target_is_device_not_found(tgt_target: TgtTarget) -> None:
    url = tgt_target.url.replace(tgt_target.iqn, tgt_target.iqn + "-nope")
    with pytest.raises(DeviceNotFound) as info:
        IscsiTransport(url)
    assert "login" in str(info.value).lower() and "\n" not in str(info.value)


def test_unknown_lun_is_device_not_found(tgt_target: TgtTarget) -> None:
    with pytest.raises(DeviceNotFound, match="LUN 7"):
        IscsiTransport(tgt_target.url[: -len("/1")] + "/7")


def test_a_lun_the_target_lacks_is_named_with_the_luns_it_has(tgt_factory) -> None:
    """Not a failed login with raw sense ("SENSE KEY:ILLEGAL_REQUEST(5) ASCQ:LOGICAL_UNIT_NOT_SUPPORTED"):
    the login worked, the target has no such LUN, and REPORT LUNS says which it has (issue 31)."""
    target = tgt_factory(luns=2)
    with pytest.raises(DeviceNotFound) as info:
        IscsiTransport(target.url[: -len("/1")] + "/7")
    text = str(info.value)
    assert f"the iSCSI target {target.iqn} at 127.0.0.1:{target.port} has no LUN 7 (it has LUNs 0, 1, 2)" in text
    assert "SENSE" not in text and "login" not in text.lower() and "\n" not in text
    assert "one of the target's LUNs" in (info.value.hint or "")


def test_wrong_port_is_a_clear_error(tgt_target: TgtTarget) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = tgt_target.url.replace(f":{tgt_target.port}/", f":{port}/")
    with pytest.raises(DeviceNotFound) as info:
        IscsiTransport(url)
    message = str(info.value)
    assert f"127.0.0.1:{port}" in message and "refused" in message.lower()

"""Watching a transport that waits in one uninterruptible OS call (SG_IO, SPTI): ``native.waiting``.

No SCSI device is on this machine (the kernel's SG_IO is exercised under qemu, tests/kernel), so the
transport below blocks in a real OS call of the same kind: ``read()`` on a pipe nobody writes to,
with the GIL released, until the test writes the answer. What is checked is the waiting: signal
handlers run while it lasts, the watch is asked, a command given up is no longer waited for, and
nothing more is sent behind it.
"""
from __future__ import annotations

import os
import signal
import threading
import time
from array import array

import pytest

from app import stop
from app.commandwatch import CommandWatch
from app.drive import TapeDrive
from app.events import CancelToken
from native.errors import CommandLeftRunning, ConnectionLost
from native.iscsi import IscsiTransport
from native.transport import DEFAULT_TIMEOUT, CommandResult, Transport
from native.waiting import ThreadedWaits, watched

TUR = bytes(6)
WRITE6 = bytes([0x0A, 0, 0, 2, 0, 0])


class BlockingTransport(Transport):
    """Every command waits in read() on a pipe until ``answer()`` writes a byte (or for ever)."""

    waits_in_os = True
    device = "/dev/sg-standin"

    def __init__(self) -> None:
        self.rfd, self.wfd = os.pipe()
        self.sent: list[int] = []
        self.closed = False

    def execute(self, cdb: bytes, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        self.sent.append(cdb[0])
        os.read(self.rfd, 1)
        return CommandResult(0, b"", memoryview(b""), 0)

    def answer(self, n: int = 1) -> None:
        os.write(self.wfd, b"x" * n)

    def close(self) -> None:
        self.closed = True


def _given_up_after(seconds: float):  # type: ignore[no-untyped-def]
    return lambda _op, waited: waited >= seconds


def test_a_command_that_ends_comes_back_as_it_would() -> None:
    inner = BlockingTransport()
    transport = watched(inner, _given_up_after(60))
    assert isinstance(transport, ThreadedWaits)
    threading.Timer(0.5, inner.answer).start()
    assert transport.execute(TUR).status == 0
    transport.close()
    assert inner.closed


def test_a_command_given_up_is_no_longer_waited_for_and_nothing_is_sent_behind_it() -> None:
    inner = BlockingTransport()
    transport = watched(inner, _given_up_after(1.0))
    began = time.monotonic()
    with pytest.raises(CommandLeftRunning, match="WRITE\\(6\\).*still in the operating system"):
        transport.execute(WRITE6, data_out=bytes(512))
    assert 1.0 <= time.monotonic() - began < 5.0
    with pytest.raises(ConnectionLost, match="still outstanding"):
        transport.execute(TUR)
    assert inner.sent == [0x0A]  # the TUR never reached the device
    transport.close()
    assert not inner.closed  # its handle still belongs to the call in the kernel
    inner.answer()


def test_a_burst_given_up_stops_its_loop_after_the_command_in_flight() -> None:
    inner = BlockingTransport()
    transport = watched(inner, _given_up_after(0.5))
    starts, ends = array("d", bytes(8 * 8)), array("d", bytes(8 * 8))
    got = transport.repeat(WRITE6, data_out=bytearray(512), count=8, until=time.perf_counter() + 60, starts=starts,
                           ends=ends)
    assert got.clean == 0 and isinstance(got.error, CommandLeftRunning)
    inner.answer(8)  # the kernel finally answers: the inner loop must not send the next WRITE
    time.sleep(0.5)
    assert inner.sent == [0x0A]


def test_a_signal_while_a_command_waits_cancels_the_run_and_the_command_is_let_go() -> None:
    """The whole chain in one process: the CLI's policy, a run's token, the drive's watch, the wait."""
    inner = BlockingTransport()
    with stop.installed(), stop.cancelling() as cancel:
        drive = TapeDrive(inner, device=inner.device)
        drive.watch_commands(cancel)
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
        began = time.monotonic()
        with pytest.raises(CommandLeftRunning):
            drive.transport.execute(WRITE6, data_out=bytes(512))
        took = time.monotonic() - began
    assert cancel.cancelled and 2.0 <= took < 6.0, took  # the signal at 0.5 s, then the grace
    inner.answer()


def test_a_transport_that_watches_itself_or_runs_in_process_is_not_wrapped(tgt_target) -> None:  # type: ignore[no-untyped-def]
    from native.virtual import open_virtual

    watch = CommandWatch(CancelToken())
    iscsi = IscsiTransport(tgt_target.url)
    try:
        assert watched(iscsi, watch) is iscsi and iscsi.watch is watch
    finally:
        iscsi.close()
    virtual = open_virtual("virtual:lto9?realtime=0")
    assert watched(virtual, watch) is virtual

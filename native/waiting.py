"""Watching the commands of a transport that waits in one OS call (SG_IO on Linux, SPTI on Windows).

Why: such a call cannot be interrupted. A signal handler runs only when it returns, and nothing
can abort the command from user space; a drive that stops answering held a Ctrl-C until the
command's timeout (issue 27). What can honestly be done is to stop *waiting*: while a run watches
the drive (``Transport.watch``), each command runs on one helper thread of the transport and the
caller waits for it in ``WATCH_SLICE`` slices, so signal handlers run and ``watch`` is asked as
for iSCSI. A command given up keeps running in the kernel until the drive answers or the kernel's
own timeout ends it (the SG_IO timeout is the command's); the transport then refuses every later
command (``CommandLeftRunning``: a second command could not be ordered behind it), and its handle
is not closed under the pending call (the pass-through object is the call's). At exit the kernel
orphans the request and completes it alone.

Cost: one thread hand-off per ``execute`` (tens of microseconds) and one per ``repeat`` burst, only
while a run watches the drive.
"""
from __future__ import annotations

import math
import signal
import sys
import threading
import time
from array import array
from typing import TYPE_CHECKING, Any, Callable

from native.errors import CommandLeftRunning
from native.scsi.cdb import opcode_name
from native.transport import (
    DEFAULT_TIMEOUT,
    WATCH_SLICE,
    Buffer,
    CommandResult,
    Fill,
    Repeated,
    TransferLimit,
    Transport,
    Watch,
    WritableBuffer,
)

if TYPE_CHECKING:
    import queue

_CANCEL_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


class _Call:
    """One command handed to the helper thread: its function, then its result or exception."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn = fn
        self.done = threading.Event()
        self.result: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.result = self.fn()
        except BaseException as err:  # handed back to the caller's thread, which raises it
            self.error = err
        finally:
            self.done.set()


class ThreadedWaits(Transport):
    """``inner``'s commands on a helper thread, waited for in slices and watched (see the module)."""

    watches = True

    def __init__(self, inner: Transport, watch: Watch | None) -> None:
        import queue  # only a transport waiting in the OS is wrapped: info on a virtual drive needs none (issue 32 §3)

        self.inner = inner
        self.device = inner.device
        self.watch = watch
        self._calls: "queue.SimpleQueue[_Call | None]" = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._left: str | None = None  # the command given up, still in the kernel
        self._stop_bursts = False  # a burst given up: its loop sends nothing more

    # -- the helper thread --------------------------------------------------------------

    def _serve(self) -> None:
        if sys.platform != "win32":  # the cancel signals go to the caller's thread, never interrupt the call
            signal.pthread_sigmask(signal.SIG_BLOCK, _CANCEL_SIGNALS)
        while True:
            call = self._calls.get()
            if call is None:
                return
            call.run()

    def _wait(self, cdb: bytes, fn: Callable[[], Any]) -> Any:
        if self._left is not None:
            raise self._still_running()
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=f"commands {self.device}", daemon=True)
            self._thread.start()
        call = _Call(fn)
        self._calls.put(call)
        waited = 0.0
        while not call.done.wait(WATCH_SLICE):  # a signal's handler runs between two slices
            waited += WATCH_SLICE
            if self.watch is not None and self.watch(cdb[0], waited):
                self._left = opcode_name(cdb[0])
                self._stop_bursts = True
                raise self._given_up(waited)
        if call.error is not None:
            raise call.error
        return call.result

    def _given_up(self, waited: float) -> CommandLeftRunning:
        return CommandLeftRunning(
            f"the drive did not answer {self._left} after the cancel ({math.ceil(waited)} s): tapediag stopped "
            f"waiting, but the command is still in the operating system, which cannot abort it from here; the "
            f"drive may still execute it, and it stays in use until it ends or its timeout runs out",
            device=self.device, hint="check the drive before the next run")

    def _still_running(self) -> CommandLeftRunning:
        return CommandLeftRunning(f"{self._left}, given up after a cancel, is still outstanding in the operating "
                                  "system: nothing more can be sent to this drive until it ends", device=self.device)

    # -- the transport ----------------------------------------------------------------------

    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        return self._wait(cdb, lambda: self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout))

    def repeat(self, cdb: bytes, *, data_out: bytearray | None = None, data_in: memoryview | None = None,
               timeout: float = DEFAULT_TIMEOUT, count: int, until: float, starts: "array[float]",
               ends: "array[float]", fill: Fill | None = None, first: int = 0, step: int = 1,
               spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Repeated:
        """The inner burst on the helper thread, one hand-off per burst. Given up, the burst's own loop
        sends nothing more (its clock reads past ``until`` from then on)."""
        def stoppable() -> float:
            return math.inf if self._stop_bursts else clock()

        try:
            return self._wait(cdb, lambda: self.inner.repeat(
                cdb, data_out=data_out, data_in=data_in, timeout=timeout, count=count, until=until, starts=starts,
                ends=ends, fill=fill, first=first, step=step, spare=spare, clock=stoppable))
        except CommandLeftRunning as err:
            return Repeated(0, error=err)

    def transfer_limit(self) -> TransferLimit | None:
        return self.inner.transfer_limit()

    @property
    def emulator_lag(self) -> float | None:
        return self.inner.emulator_lag

    @property
    def emulator_storage(self) -> tuple[int, float] | None:
        return self.inner.emulator_storage

    def close(self) -> None:
        """Close the inner transport, unless a command given up still runs in it (see the module)."""
        if self._thread is not None:
            self._calls.put(None)
        if self._left is None:
            self.inner.close()

    def __getattr__(self, name: str) -> Any:  # what else the inner transport offers (its node, its limits)
        return getattr(self.inner, name)


def watched(transport: Transport, watch: Watch | None) -> Transport:
    """``transport`` with its commands watched by ``watch``: itself when it watches them (iSCSI) or never
    waits in the OS (the virtual drive runs in this process, where handlers run between its steps);
    else (``waits_in_os``) a ``ThreadedWaits`` around it, made once."""
    if isinstance(transport, ThreadedWaits) or transport.watches or not transport.waits_in_os:
        transport.watch = watch
        return transport
    return ThreadedWaits(transport, watch)


__all__ = ["ThreadedWaits", "watched"]

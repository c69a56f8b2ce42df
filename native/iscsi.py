"""iSCSI transport: raw CDBs to a LUN over libiscsi (ctypes), no kernel initiator.

Device string: ``iscsi://[user[%password]@]host[:port]/target-iqn/lun`` — libiscsi's
own URL syntax, target names URL-encoded (``%3A`` for ``:``). Port defaults to 3260.
A CHAP secret in the string is accepted but never shown: ``display_device`` gives the
form without it, and the transport's ``device`` is that form. The app layer can also
hand the secret in separately (``chap_secret=``), so it need not be on a command line.

Decisions that matter for a tape drive (each checked against libiscsi 1.19 + tgtd):

* **Auto-reconnect is off** (``iscsi_set_noautoreconnect``). libiscsi's reconnect
  re-issues the commands that were in flight; a repeated WRITE(6) writes a block
  twice and silently corrupts the tape. With it off, a dropped session cancels the
  command and we raise ``ConnectionLost``; the transport is then dead, and the
  caller decides what is safe (re-open, re-position, re-verify).
* **We always supply the data-in buffer** (``scsi_task_add_data_in_buffer``): Data-In
  PDUs land straight in the caller's memory, nothing is copied, and the bytes a
  READ delivered before a CHECK CONDITION survive (libiscsi's own buffer is
  dropped on CHECK CONDITION).
* **Raw sense from ``task->datain``.** On CHECK CONDITION libiscsi stores the SCSI
  Response data segment there: a 2-byte big-endian SenseLength, then the sense
  bytes. Its parsed ``task->sense`` lacks FILEMARK/EOM/ILI and INFO (1.19), which
  tape code needs, so we return the raw fixed-format bytes.
* **Data-out is not copied**: the caller's buffer address goes straight to
  ``scsi_task_add_data_out_buffer``.
* **One C call per command** (``native._iscsi_cmd``, bound in ``_iscsi_lib``): task,
  buffer, ``iscsi_scsi_command_sync`` with the GIL released, status and raw sense,
  free. The same steps through ctypes cost several times libiscsi's own work, and
  on a two-core box with the target on the other core that is throughput.
* Transferred length: allocation − residual on underflow, the allocation otherwise.
  tgt's residual is wrong on tape errors; tape code uses the sense INFO field.
* **A command is never waited for blindly** (issue 27): the runner drives the socket itself
  in short slices; a signal's handler runs and ``watch`` is asked while a command is
  outstanding, and a command given up is aborted at the target (ABORT TASK) or, when the
  target does not answer that either, its session is dropped (``CommandAborted``,
  ``SessionDropped``). Login and logout (libiscsi's own loops, bounded by their timeouts)
  keep the cancel signals pending instead, since an interrupted poll() fails them.
"""
from __future__ import annotations

import math
from array import array
import os
import signal
import socket
import sys
import time
from contextlib import contextmanager
from dataclasses import replace
from typing import Callable, Iterator, cast

from native import _iscsi_lib
# The device-string part lives in ``native.iscsi_url`` (no libiscsi binding, cheap to import); re-exported here.
from native.iscsi_url import DEFAULT_PORT as DEFAULT_PORT
from native.iscsi_url import IscsiUrl as IscsiUrl
from native.iscsi_url import display_device as display_device
from native.errors import (
    CommandAborted,
    CommandTimeout,
    ConnectionLost,
    DeviceNotFound,
    InvalidParameter,
    SessionDropped,
    TapediagError,
    TransportError,
)
from native.scsi.cdb import READ_6, Read6, opcode_name
from native.scsi.luns import ALLOCATION, parse_luns, report_luns
from native.transport import (
    DEFAULT_TIMEOUT,
    Buffer,
    CommandResult,
    Fill,
    Repeated,
    Transport,
    WritableBuffer,
    make_data_in,
)

LOGIN_TIMEOUT = 10  # seconds, for connect + login
#: How libiscsi words the sense of a LUN the target does not have (05/25/00, LOGICAL UNIT NOT SUPPORTED).
NO_SUCH_LUN = "LOGICAL_UNIT_NOT_SUPPORTED"
#: What libiscsi's own synchronous loops (login, logout) must not see: an interrupted poll() fails them.
_CANCEL_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_EMPTY = memoryview(b"")
_read6_fixed, _read6_length = Read6.reader("fixed"), Read6.reader("transfer_length")
_NO_VIEW = object()  # no GOOD read result kept yet


def _read6_allocation(cdb: bytes, view: memoryview, length: int) -> tuple[memoryview, int]:
    """The data-in area of a command: for a variable-block READ(6) into a larger caller buffer,
    the CDB's length, not the buffer's, as iSCSI intends. tgt reports no residual on a GOOD tape
    read, so otherwise a 512-byte block read into a 256 KiB buffer would claim 256 KiB."""
    if cdb[0] == READ_6 and len(cdb) == Read6.LENGTH and not _read6_fixed(cdb):
        want = _read6_length(cdb)
        if want < length:
            return view[:want], want
    return view, length


def initiator_name() -> str:
    """``iqn.2026-11.org.tapediag:<hostname>``: stable per machine, so target ACLs work."""
    host = "".join(ch if ch.isalnum() or ch in "-." else "-" for ch in socket.gethostname().lower())
    return f"iqn.2026-11.org.tapediag:{host or 'localhost'}"


@contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT/SIGTERM/SIGHUP kept pending in this thread while libiscsi's own loop runs (login, logout:
    bounded by their timeouts); a handler then runs as soon as the call returns."""
    if sys.platform == "win32" or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _CANCEL_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class IscsiTransport(Transport):
    """One normal iSCSI session to one LUN. Not thread-safe (one worker per drive)."""

    watches = True  # the runner asks ``watch`` while a command is outstanding and can give it up

    def __init__(self, device: str, *, login_timeout: int = LOGIN_TIMEOUT, chap_secret: str | None = None,
                 lun: int | None = None) -> None:
        #: What may be shown of the device (no CHAP secret); the secret lives only in ``url``.
        self.device = display_device(device)
        url = IscsiUrl.parse(device)
        if chap_secret is not None:
            url = replace(url, password=chap_secret)
        if url.user and not url.password:
            raise InvalidParameter(f"{self.device}: no CHAP secret for user '{url.user}'",
                                   hint="set TAPEDIAG_CHAP_SECRET, use --chap-secret-file, or remember the target")
        self.url = url
        self._given = device  # kept only to ask the target for its LUNs (``_no_such_lun``); never shown
        self._binding = _iscsi_lib.load()
        self._lib = self._binding.lib
        self._lun = self.url.lun if lun is None else lun
        self._run = self._binding.runner.run  # type: ignore[attr-defined]
        self._repeat = self._binding.runner.repeat  # type: ignore[attr-defined]
        self._timeout_arg: float | None = None
        self._good: dict[int, CommandResult] = {}  # GOOD results without data-in, by data-out length
        # The last GOOD read's result into a caller's whole memoryview, and that view: returned again
        # while the caller reads into the same view (the reference keeps the view, and its buffer,
        # alive until another view is read into or the transport is closed).
        self._good_in_view: object = _NO_VIEW
        self._good_in = CommandResult(0, b"", _EMPTY, 0)
        self._ctx: int | None = None
        self._timeout_set = -1
        self._dead: str | None = None
        # The runner's state byte: how a command given up ended (_iscsi_lib.STATE_*), read after each call.
        self._state = bytearray(1)
        self._connect(login_timeout)

    # -- session -----------------------------------------------------------------

    def _connect(self, login_timeout: int) -> None:
        lib, url = self._lib, self.url
        ctx = lib.iscsi_create_context(initiator_name().encode())
        if not ctx:
            raise TransportError("libiscsi could not create a context", device=self.device)
        self._ctx = ctx
        lib.iscsi_set_targetname(ctx, url.target.encode())
        lib.iscsi_set_session_type(ctx, _iscsi_lib.SESSION_NORMAL)
        lib.iscsi_set_header_digest(ctx, _iscsi_lib.HEADER_DIGEST_NONE)
        lib.iscsi_set_noautoreconnect(ctx, 1)
        lib.iscsi_set_tcp_syncnt(ctx, 2)  # an unreachable host fails in seconds, not minutes
        if url.user:
            lib.iscsi_set_initiator_username_pwd(ctx, url.user.encode(), (url.password or "").encode())
        self._set_timeout(login_timeout)
        with _signals_held():
            connected = lib.iscsi_full_connect_sync(ctx, url.portal.encode(), self._lun) == 0
        if not connected:
            reason = self._error()
            self._destroy()
            raise self._connect_error(reason, login_timeout)

    def _connect_error(self, reason: str, login_timeout: int) -> Exception:
        """Login-phase failures name the target; TCP failures get the OS's own words.

        libiscsi reports a refused TCP connect as "iscsi_service_reconnect_if_loggedin.
        Can not reconnect right now", which helps nobody, so on a non-login failure we
        ask the OS once more with a plain connect to learn why (refused, unreachable,
        timed out).
        """
        portal = self.url.portal
        low = reason.lower()
        if NO_SUCH_LUN in reason and self._lun == self.url.lun:  # logged in; the LUN's first command was refused
            return self._no_such_lun(login_timeout)
        if "log in" in low or "login" in low or "sense key" in low:
            return DeviceNotFound(
                f"iSCSI login to {self.url.target} (LUN {self.url.lun}) at {portal} failed: {reason}",
                device=self.device,
                hint="check the target name (IQN), the LUN and the target's access list",
            )
        if "timed out" in low:
            return DeviceNotFound(
                f"no iSCSI answer from {portal} within {login_timeout} s",
                device=self.device,
                hint="something may listen there that is not an iSCSI target, or the network drops packets",
            )
        why = reason
        try:
            with socket.create_connection((self.url.host, self.url.port), timeout=login_timeout):
                pass
        except TimeoutError:
            why = "timed out"
        except OSError as err:
            why = err.strerror or str(err)
        return DeviceNotFound(
            f"no iSCSI target answers at {portal}: {why}",
            device=self.device,
            hint="check the address and port, and that the target service is running",
        )

    def _no_such_lun(self, login_timeout: int) -> DeviceNotFound:
        """The login worked and the target answered the LUN's first command with LOGICAL UNIT NOT SUPPORTED
        (05/25/00): say so, with the LUNs it has (REPORT LUNS to its LUN 0, which SAM-5 requires, over a
        session of its own), instead of a failed login with libiscsi's sense text."""
        luns = self._target_luns(login_timeout)
        has = f" (it has LUN{'s' if len(luns) != 1 else ''} {', '.join(map(str, luns))})" if luns else ""
        return DeviceNotFound(f"the iSCSI target {self.url.target} at {self.url.portal} has no LUN {self.url.lun}{has}",
                              device=self.device, hint="give one of the target's LUNs at the end of the device string")

    def _target_luns(self, login_timeout: int) -> tuple[int, ...]:
        """The target's LUNs, or () when it cannot say (no LUN 0, REPORT LUNS refused): read-only, one command."""
        try:
            probe = IscsiTransport(self._given, login_timeout=login_timeout, chap_secret=self.url.password, lun=0)
        except TapediagError:
            return ()
        try:
            got = probe.execute(report_luns(), data_in=ALLOCATION, timeout=float(login_timeout))
            return parse_luns(bytes(got.data)) if got.status == 0 else ()
        except TapediagError:
            return ()
        finally:
            probe.close()

    def _error(self) -> str:
        if not self._ctx:
            return "no session"
        msg = self._lib.iscsi_get_error(self._ctx)
        return (msg or b"unknown error").decode(errors="replace").strip()

    def _set_timeout(self, seconds: float) -> None:
        value = 0 if seconds is None or seconds <= 0 else max(1, math.ceil(seconds))
        if value != self._timeout_set:
            self._lib.iscsi_set_timeout(self._ctx, value)
            self._timeout_set = value

    # -- commands ----------------------------------------------------------------

    def execute(
        self,
        cdb: bytes,
        *,
        data_out: Buffer | None = None,
        data_in: int | WritableBuffer = 0,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> CommandResult:
        if self._ctx is None or self._dead:
            raise ConnectionLost(
                f"the iSCSI session to {self.url.portal} is {'closed' if self._ctx is None else 'lost'}"
                + (f" ({self._dead})" if self._dead else ""),
                device=self.device,
                hint="re-open the device; check where the tape is before writing again",
            )
        if data_out is None:
            out_len = 0
        elif type(data_out) is bytes or type(data_out) is bytearray:
            out_len = len(data_out)
        else:
            out_len = memoryview(data_out).nbytes
        in_view: memoryview
        if data_in is self._good_in_view:  # the hot read loop, passing the same view again
            in_view = cast(memoryview, data_in)
            in_len = in_view.nbytes
        elif type(data_in) is memoryview and not data_in.readonly and data_in.format == "B" and data_in.ndim == 1:
            in_view = data_in  # the caller's own view, as it is: a GOOD read into it can be answered shared
            in_len = in_view.nbytes
        elif type(data_in) is bytearray:  # the caller's buffer, filled in place
            in_view = memoryview(data_in)
            in_len = len(data_in)
        elif type(data_in) is int and not data_in:
            in_view, in_len = _EMPTY, 0
        else:
            in_view = make_data_in(data_in)
            in_len = in_view.nbytes
        if in_len:
            in_view, in_len = _read6_allocation(cdb, in_view, in_len)
        if out_len:
            if in_len:
                raise InvalidParameter("a command has data-out or data-in, not both")
            direction, buffer, length = _iscsi_lib.XFER_WRITE, data_out, out_len
        elif in_len:
            direction, buffer, length = _iscsi_lib.XFER_READ, in_view, in_len
        else:
            direction, buffer, length = _iscsi_lib.XFER_NONE, None, 0
        self._use_timeout(timeout)
        try:
            # One C call: task, buffer, command (GIL released while the target works), free.
            done = self._run(self._ctx, self._lun, cdb, direction, buffer, length, self.watch, self._state)
        except BufferError:
            raise InvalidParameter("data_out buffer must be contiguous") from None
        except MemoryError:
            raise self._no_task() from None
        finally:
            if self._state[0]:  # a command given up (rare): settle the session
                self._settle(cdb)
        if done is None:
            raise self._not_ended(cdb)
        status, residual_status, residual, sense = done
        if not status and not residual_status:
            if in_len:  # a GOOD read: all of the view was transferred
                if in_view is data_in:
                    # The caller's own view, whole: the result is the same every time it comes back
                    # GOOD, so the hot read loop (one view, reused) gets one shared, immutable result,
                    # as the write loop does (a frozen dataclass costs ~1 us to build; issue 19).
                    if in_view is not self._good_in_view or self._good_in.transferred != in_len:
                        self._good_in_view = in_view
                        self._good_in = CommandResult(0, b"", in_view, in_len)
                    return self._good_in
                return CommandResult(0, sense, in_view, in_len)
            # The hot write loop: a GOOD command without data-in is one shared result.
            good = self._good.get(out_len)
            if good is None:
                good = self._good[out_len] = CommandResult(status=0, sense=b"", data=_EMPTY, transferred=out_len)
            return good
        return self._result(status, residual_status, residual, sense, in_view, in_len, out_len, timeout)

    def repeat(self, cdb: bytes, *, data_out: bytearray | None = None, data_in: memoryview | None = None,
               timeout: float = DEFAULT_TIMEOUT, count: int, until: float, starts: "array[float]",
               ends: "array[float]", fill: Fill | None = None, first: int = 0, step: int = 1,
               spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Repeated:
        """``Transport.repeat`` as one C call (``native._iscsi_cmd.Runner.repeat``): no Python between
        commands and the GIL released but for ``fill``, so a stream costs what libiscsi costs and
        several drives' threads stream at once (issue 19). Another clock than ``perf_counter``
        (the C loop's time base) takes the generic loop. With ``spare`` and a ``fill``, the C loop
        writes from the two buffers in turn and fills the next while a WRITE is in flight."""
        if clock is not time.perf_counter or self._ctx is None or self._dead:
            return super().repeat(cdb, data_out=data_out, data_in=data_in, timeout=timeout, count=count, until=until,
                                  starts=starts, ends=ends, fill=fill, first=first, step=step, spare=spare,
                                  clock=clock)
        in_view, in_len, out_len = _EMPTY, 0, 0
        buffer: object = None
        if data_out is not None:
            direction, buffer, out_len = _iscsi_lib.XFER_WRITE, data_out, len(data_out)
        elif data_in is not None:
            in_view = make_data_in(data_in)
            in_view, in_len = _read6_allocation(cdb, in_view, in_view.nbytes)
            direction, buffer = _iscsi_lib.XFER_READ, in_view
        else:
            direction = _iscsi_lib.XFER_NONE
        self._use_timeout(timeout)
        try:
            clean, tail = self._repeat(self._ctx, self._lun, cdb, direction, buffer, in_len or out_len, count, until,
                                       starts, ends, fill, first, step, spare, self.watch, self._state)
        except BufferError:
            raise InvalidParameter("the data buffer must be contiguous (and writable for a read)") from None
        except MemoryError:
            return Repeated(0, error=self._no_task())
        finally:
            if self._state[0]:
                self._settle(cdb)
        if tail is None:
            return Repeated(clean)
        if tail is False:  # the command did not end at the target: the session failed, or it was given up
            return Repeated(clean, error=self._not_ended(cdb))
        try:
            status, residual_status, residual, sense = tail
            return Repeated(clean, tail=self._result(status, residual_status, residual, sense, in_view, in_len,
                                                     out_len, timeout))
        except TransportError as err:
            return Repeated(clean, error=err)

    def _use_timeout(self, timeout: float) -> None:
        if timeout != self._timeout_arg:
            self._set_timeout(timeout)
            self._timeout_arg = timeout

    def _no_task(self) -> TransportError:
        return TransportError("libiscsi could not allocate a task", device=self.device)

    def _settle(self, cdb: bytes) -> None:
        """After every runner call, also one a signal handler's exception ends: a session dropped under
        a command given up is abandoned at once (its task may still sit in the context)."""
        if self._state[0] == _iscsi_lib.STATE_DROPPED and not self._dead:
            self._abandon(f"{opcode_name(cdb[0])} was given up and the target did not answer the abort")

    def _not_ended(self, cdb: bytes) -> TransportError:
        """The error for a command that did not end at the target: given up (aborted, or the session
        dropped), or the session failed under it. The message says what the drive may be doing."""
        name = opcode_name(cdb[0])
        state = self._state[0]
        if state == _iscsi_lib.STATE_ABORTED:
            return CommandAborted(
                f"{name} was given up after the cancel and the drive aborted it (ABORT TASK): it may have "
                "carried out part of the command, and the tape position is where it stopped", device=self.device)
        if state == _iscsi_lib.STATE_DROPPED:
            return SessionDropped(
                f"the drive answered neither {name} nor the request to abort it after the cancel: the iSCSI "
                f"session to {self.url.portal} was dropped; the drive may still be executing {name}, its tape "
                "position is unknown and nothing more could be sent to it", device=self.device,
                hint="check the drive and its iSCSI target before the next run")
        return self._session_failed()

    def _session_failed(self) -> ConnectionLost:
        """libiscsi's event loop failed with our task possibly still queued inside the context:
        freeing it (or the context) could let libiscsi write into freed memory later. The
        runner left the task alone; the context is abandoned too."""
        self._abandon(self._error())
        return ConnectionLost(f"the iSCSI session to {self.url.portal} failed: {self._dead}", device=self.device)

    def _result(self, status: int, residual_status: int, residual: int, sense: bytes, in_view: memoryview,
                in_len: int, out_len: int, timeout: float) -> CommandResult:
        if status == _iscsi_lib.STATUS_TIMEOUT:
            # The target stopped answering. Another command on the same session would wait
            # out its own timeout again (LOG SENSE after a stuck WRITE held a run for 17
            # minutes): abandon the session, so every later command fails at once.
            self._abandon(f"a command did not complete within {timeout:g} s")
            raise CommandTimeout(
                f"the command did not complete within {timeout:g} s", device=self.device,
                hint="the drive or the network may be stuck; the tape position is now unknown",
            )
        if status in (_iscsi_lib.STATUS_CANCELLED, _iscsi_lib.STATUS_ERROR):
            # libiscsi keeps its last error string until the next one; when the
            # session drops quietly it can still be about an old command (e.g. the
            # login's UNIT ATTENTION), so only a socket-level message is quoted.
            reason = self._error()
            if not any(word in reason.lower() for word in ("socket", "connection", "pollhup", "pollerr", "eof", "closed")):
                reason = "the target closed the session"
            self._dead = reason
            raise ConnectionLost(
                f"the iSCSI connection to {self.url.portal} was lost: {reason}", device=self.device,
                hint="re-open the device; check where the tape is before writing again",
            )
        if status > 0xFF:
            raise TransportError(f"libiscsi returned status {status:#x}: {self._error()}", device=self.device)
        expected = in_len or out_len
        transferred = expected
        if residual_status == _iscsi_lib.RESIDUAL_UNDERFLOW:
            transferred = max(0, expected - residual)
        data = in_view[:transferred] if in_len else _EMPTY
        return CommandResult(status=status, sense=sense, data=data, transferred=transferred)

    # -- teardown ----------------------------------------------------------------

    def _abandon(self, reason: str) -> None:
        self._dead = reason or "connection failed"
        if self._ctx:
            fd = self._lib.iscsi_get_fd(self._ctx)
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._ctx = None  # deliberately leaked, see execute()

    def _destroy(self) -> None:
        self._good_in_view, self._good_in = _NO_VIEW, CommandResult(0, b"", _EMPTY, 0)  # let the caller's buffer go
        if self._ctx:
            self._lib.iscsi_destroy_context(self._ctx)
            self._ctx = None

    def close(self) -> None:
        """Log out (if still logged in) and release the session."""
        if self._ctx is None:
            return
        if not self._dead and self._lib.iscsi_is_logged_in(self._ctx):
            self._set_timeout(5)
            with _signals_held():
                self._lib.iscsi_logout_sync(self._ctx)
        self._destroy()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: nothing sensible left to do
            pass

    def __repr__(self) -> str:
        return f"IscsiTransport({self.device!r}, libiscsi layout {self._binding.layout})"

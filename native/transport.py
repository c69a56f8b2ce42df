"""The one pass-through interface every way of reaching a drive implements.

Modelled on sg3_utils' ``sg_pt.h``: hand over a CDB, an optional data-out buffer or a
data-in allocation, and a timeout; get back the SCSI status, the raw sense bytes, the
data and a transferred length. Layers of failure stay apart:

* below SCSI (OS error, HBA/network failure, timeout) -> ``TransportError`` family,
  raised by the transport itself;
* any SCSI status, CHECK CONDITION included -> returned in ``CommandResult``; the app
  core (``app.drive``) turns non-GOOD statuses into the same exceptions whatever the
  transport, so every transport fails identically.
"""
from __future__ import annotations

import abc
from array import array
import time
from dataclasses import dataclass
from typing import Callable, Union

from native.errors import TransportError

# SCSI status codes (SAM-5).
GOOD = 0x00
CHECK_CONDITION = 0x02
CONDITION_MET = 0x04
BUSY = 0x08
RESERVATION_CONFLICT = 0x18
TASK_SET_FULL = 0x28
ACA_ACTIVE = 0x30
TASK_ABORTED = 0x40

STATUS_NAMES = {
    GOOD: "GOOD",
    CHECK_CONDITION: "CHECK CONDITION",
    CONDITION_MET: "CONDITION MET",
    BUSY: "BUSY",
    RESERVATION_CONFLICT: "RESERVATION CONFLICT",
    TASK_SET_FULL: "TASK SET FULL",
    ACA_ACTIVE: "ACA ACTIVE",
    TASK_ABORTED: "TASK ABORTED",
}

Buffer = Union[bytes, bytearray, memoryview]
WritableBuffer = Union[bytearray, memoryview]

DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class TransferLimit:
    """The largest single data transfer the path to a device accepts (OS and HBA), and where the
    figure comes from ("SCSI host host2: max_sectors ..."), so ``info`` can show both: a host that
    caps transfers below the block size is a classic hidden bottleneck."""

    max_bytes: int
    source: str


@dataclass(frozen=True)
class CommandResult:
    """What came back from one command.

    ``data`` is the data-in bytes actually transferred (a view of the caller's buffer
    when one was supplied, so the hot read loop copies nothing). ``transferred`` is the
    transport's count; on tape errors some targets get it wrong, which is why tape
    code trusts the sense INFO field instead (see ``app.drive``).
    """

    status: int
    sense: bytes
    data: memoryview
    transferred: int

    @property
    def good(self) -> bool:
        return self.status == GOOD


@dataclass(frozen=True)
class Repeated:
    """What ``Transport.repeat`` did.

    ``clean`` commands completed GOOD with the whole transfer. The first that did not
    ended the run: ``tail`` is its result, or ``error`` the failure below SCSI under it
    (returned, not raised, so the caller still counts the clean ones before it). Neither:
    the run stopped at its count or its time limit.
    """

    clean: int
    tail: CommandResult | None = None
    error: TransportError | None = None

    @property
    def executed(self) -> int:
        """Commands sent, the tail or the failed one included (their times are in ``starts``/``ends``)."""
        return self.clean + (self.tail is not None or self.error is not None)


#: ``fill(buffer, index)``: refills a data-out buffer before each repeated command.
Fill = Callable[[bytearray, int], object]

#: ``watch(opcode, seconds)``: asked by the thread waiting for a command that has been outstanding
#: ``seconds`` (about every ``WATCH_SLICE``, never for a command that ends sooner); True gives the
#: command up (``native.errors.CommandAbandoned``). It may also tell the user the drive is not
#: answering. The app's policy: ``app.commandwatch.CommandWatch``.
Watch = Callable[[int, float], bool]

#: Seconds between two looks at an outstanding command (``native/src/_iscsi_cmd.c`` has its own copy).
WATCH_SLICE = 0.2


#: Who hears a transport's one-line notices (``notice``): the CLI prints them on stderr.
_notice_listener: Callable[[str], object] | None = None


def set_notice_listener(listener: Callable[[str], object] | None) -> None:
    """Route transports' notices (how a device string was served, ...) to ``listener`` (None: nowhere)."""
    global _notice_listener
    _notice_listener = listener


def notice(text: str) -> None:
    """One line a front end should show the technician now (the transport keeps it too, e.g. ``route``)."""
    if _notice_listener is not None:
        _notice_listener(text)


class Transport(abc.ABC):
    """A route to one device. Not thread-safe: one worker per device uses it."""

    #: The device string this transport was opened with (``virtual:lto9``, ``iscsi://...``).
    device: str = ""
    #: How the device string is served when not as named, in one line (an st node served through its
    #: sg node for a user without CAP_SYS_RAWIO); None: as named.
    route: str | None = None
    #: Asked while a command is outstanding (``Watch``); None: commands are waited for until they end.
    #: Only a transport whose ``watches`` is True asks it; ``native.waiting.watched`` gives any other
    #: transport that waits in the OS the same behaviour.
    watch: "Watch | None" = None
    #: This transport asks ``watch`` itself (iSCSI: in its own wait loop) and can give a command up.
    watches: bool = False
    #: This transport waits for a command in one OS call (SG_IO, SPTI) that neither a signal handler nor
    #: ``watch`` can interrupt: ``native.waiting`` runs its commands on a helper thread when watched.
    waits_in_os: bool = False

    @abc.abstractmethod
    def execute(
        self,
        cdb: bytes,
        *,
        data_out: Buffer | None = None,
        data_in: int | WritableBuffer = 0,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> CommandResult:
        """Run one command.

        ``data_out``: bytes to send (a WRITE). ``data_in``: either an allocation length
        (a buffer is allocated) or a writable buffer to fill in place. At most one of
        the two is non-empty. Raises only ``TransportError`` subclasses (or
        ``DeviceNotFound`` / ``DevicePermissionDenied`` at open time).
        """

    def repeat(self, cdb: bytes, *, data_out: bytearray | None = None, data_in: memoryview | None = None,
               timeout: float = DEFAULT_TIMEOUT, count: int, until: float, starts: "array[float]",
               ends: "array[float]", fill: Fill | None = None, first: int = 0, step: int = 1,
               spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Repeated:
        """The same command up to ``count`` times: a tape test's stream of WRITEs or READs.

        Before each command: stop once ``clock()`` has reached ``until``; for a write,
        ``fill(data_out, first + i * step)`` refills the buffer. ``starts[i]``/``ends[i]``
        (arrays of doubles, ``count`` long) receive each command's clock readings. Stops
        after the first command that is not GOOD with the whole transfer (see ``Repeated``).
        ``spare``, a second buffer as long as ``data_out``, lets a transport that can fill one
        buffer while a WRITE from the other is in flight do so (iSCSI); this loop needs none.

        This loop is the contract; a transport with a faster path (iSCSI: the whole loop in
        C, GIL released) must behave the same. Raises only for bad arguments.
        """
        length = len(data_out) if data_out is not None else data_in.nbytes if data_in is not None else 0
        for i in range(count):
            if fill is not None and data_out is not None:
                fill(data_out, first + i * step)
            a = clock()
            if a >= until:
                return Repeated(i)
            try:
                result = self.execute(cdb, data_out=data_out, data_in=0 if data_in is None else data_in, timeout=timeout)
            except TransportError as err:
                starts[i], ends[i] = a, clock()
                return Repeated(i, error=err)
            starts[i], ends[i] = a, clock()
            if result.status != GOOD or (data_in is not None and result.transferred != length):
                return Repeated(i, tail=result)  # (a GOOD WRITE took it all: transports need not count data-out)
        return Repeated(count)

    def transfer_limit(self) -> TransferLimit | None:
        """The path's maximum transfer, where the OS reports one; None: this path reports none."""
        return None

    @property
    def emulator_lag(self) -> float | None:
        """Seconds an emulated drive is behind its own timing model because this machine could
        not keep up, at the last command's return (None for a real device: its time is its own).

        Read it at two moments between commands: the difference is the wall time this machine
        added to that window over the model's own time for it, so the window's time minus it is
        what the drive it models would have taken with the same host (``native/virtual/lag.py``).
        It can fall (the emulator caught up, a window's figure then negative), so it is not a
        running total of delays."""
        return None

    @property
    def emulator_storage(self) -> tuple[int, float] | None:
        """Bytes an emulated drive has moved to and from its backing file, and the seconds that
        took (None for a real device): what tells this machine's storage from its CPU when the
        emulator falls behind."""
        return None

    def close(self) -> None:  # noqa: B027 -- a transport without resources needs no close of its own
        """Release the device; further ``execute`` calls are an error."""

    def __enter__(self) -> "Transport":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_data_in(data_in: int | WritableBuffer) -> memoryview:
    """The writable buffer a transport fills: the caller's, or a fresh one."""
    if isinstance(data_in, int):
        return memoryview(bytearray(data_in))
    view = memoryview(data_in)
    if view.readonly:
        raise TypeError("data_in buffer must be writable")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view

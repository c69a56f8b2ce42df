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
from dataclasses import dataclass
from typing import Union

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


class Transport(abc.ABC):
    """A route to one device. Not thread-safe: one worker per device uses it."""

    #: The device string this transport was opened with (``virtual:lto9``, ``iscsi://...``).
    device: str = ""

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

    def transfer_limit(self) -> TransferLimit | None:
        """The path's maximum transfer, where the OS reports one; None: this path reports none."""
        return None

    @property
    def emulator_lag(self) -> float | None:
        """Seconds an emulated drive has fallen behind its own timing model because this
        machine could not keep up (None for a real device: its time is its own)."""
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

"""The one exception tree of tapediag.

It lives in the lowest layer so that every layer (native transports, the app core,
the CLI and the GUI) raises and catches the same types. Every error carries a
``message`` written for a technician (what happened, and where it helps, what to do);
user-facing code prints ``str(error)`` and never a traceback.

    TapediagError
    ├── InvalidParameter        bad user input, rejected before anything is touched
    ├── ParseError              a device answered with bytes we cannot decode
    ├── DamagedResult           a stored run's results do not fit its kind's result (app.runs.typed)
    ├── SafetyRefusal           a write that would destroy data, refused until confirmed
    ├── Cancelled               the user cancelled a running test
    ├── DiskTestError           file-system side failures of the disk tests
    │   ├── TargetNotEmpty
    │   └── NoSpace
    ├── NetTestError            the network test could not start or its connection broke
    │   ├── NetRefused          the server refused the session (token, busy, limits, version)
    │   └── ProtocolError       the peer is not a tapediag network test peer, or broke the protocol
    └── DeviceError             anything between us and the drive
        ├── DeviceNotFound
        ├── DevicePermissionDenied
        ├── TransportUnavailable   the library a transport needs is missing
        ├── TransportError         below SCSI: the command did not complete
        │   ├── CommandTimeout
        │   ├── ConnectionLost
        │   ├── DeviceBusy         another program has the device open
        │   └── CommandAbandoned   given up after a cancel (also a Cancelled)
        │       ├── CommandAborted      the target aborted it; the path stands
        │       ├── SessionDropped      no answer to the abort: the session dropped (a ConnectionLost)
        │       └── CommandLeftRunning  an OS call that cannot be aborted: no longer waited for (a ConnectionLost)
        ├── ScsiStatusError        a SCSI status other than GOOD / CHECK CONDITION
        └── CheckCondition         CHECK CONDITION, with the decoded sense
            ├── NotReady           (sense key 2)
            ├── MediumError        (3)
            ├── HardwareError      (4)
            ├── IllegalRequest     (5)
            ├── UnitAttention      (6)
            ├── DataProtect        (7)
            ├── BlankCheck         (8)
            └── AbortedCommand     (0xB)
"""
from __future__ import annotations

from typing import Any

from native.scsi import sensekeys as K


class TapediagError(Exception):
    """Root of every error tapediag raises on purpose.

    ``message`` is the one clear sentence a user sees; ``hint`` optionally says how
    to fix it (install a package, run as root, insert a cartridge...).
    """

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class InvalidParameter(TapediagError):
    """User input that cannot work: rejected before any device or file is touched."""


class ParseError(TapediagError):
    """A response, page or sense buffer that is malformed or truncated."""


class DamagedResult(TapediagError):
    """A stored run's results cannot be read back into its kind's result: a value of the wrong type, a
    required figure missing (a damaged record, a hand edit, a renderer's bug). Said in one line naming the
    run, never shown as an empty figure."""


class SafetyRefusal(TapediagError):
    """A write refused because it would destroy data (or cannot succeed: WP, WORM).

    ``reason`` says what was found on the cartridge; ``overridable`` tells whether an
    explicit confirmation (``--force`` / the GUI dialog) may lift the refusal.
    """

    def __init__(self, message: str, *, reason: str, overridable: bool, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.reason = reason
        self.overridable = overridable


class Cancelled(TapediagError):
    """The user cancelled; partial results are kept by whoever catches this."""


class DiskTestError(TapediagError):
    """A file-system failure of the disk tests (create data / read data)."""


class TargetNotEmpty(DiskTestError):
    """The create-data target holds files we did not create."""


class NoSpace(DiskTestError):
    """Not enough free space, before the run or mid-run (ENOSPC)."""


class NetTestError(TapediagError):
    """The network test (``app.nettest``) could not start, or its connection broke mid-test."""


class NetRefused(NetTestError):
    """The server refused the session; ``code`` is the protocol's refusal code (``app.nettest.protocol``)."""

    def __init__(self, message: str, *, code: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.code = code


class ProtocolError(NetTestError):
    """Bytes from the peer that are not the network test's protocol (garbage, another program, a cut message)."""


class WatchUnavailable(InvalidParameter):
    """``watch`` cannot observe this drive: nothing keeps per-drive tape statistics for it (Windows, an iSCSI
    drive reached through libiscsi, the virtual drive, a kernel or node without the st driver's statistics).
    Refused before anything is read, like bad input."""


class DeviceError(TapediagError):
    """Anything that goes wrong between tapediag and a drive. ``device`` names it."""

    def __init__(self, message: str, *, device: str = "", hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.device = device


class DeviceNotFound(DeviceError):
    """The device string names nothing that exists or answers."""


class DevicePermissionDenied(DeviceError):
    """The OS refused access to the device node."""


class TransportUnavailable(DeviceError):
    """The library a transport needs (libsgutils2, libiscsi) is not installed."""


class TransportError(DeviceError):
    """The command did not complete below the SCSI layer (OS, HBA, network)."""


class CommandTimeout(TransportError):
    """The command did not complete within its timeout."""


class ConnectionLost(TransportError):
    """The iSCSI session or the device went away mid-command."""


class DeviceBusy(TransportError):
    """The OS refused to open the device because another program has it open (EBUSY: the st
    driver lets one program at a time open a tape). That program is probably the backup
    application: what tapediag advises must never be to take the drive from it."""


class CommandAbandoned(TransportError, Cancelled):
    """A command still outstanding when the run was cancelled, given up because the drive did not
    answer it soon after (issue 27: a frozen target held a Ctrl-C for 15 minutes). Also a
    ``Cancelled``: whoever lets it propagate records the run as cancelled, not failed. The message
    says what state the drive may be in; the subclass says whether the path can still be used."""


class CommandAborted(CommandAbandoned):
    """The target aborted the command on request (ABORT TASK): the session and the drive still answer."""


class SessionDropped(CommandAbandoned, ConnectionLost):
    """The target answered neither the command nor the request to abort it: the session was dropped,
    and nothing more can be sent on it."""


class CommandLeftRunning(CommandAbandoned, ConnectionLost):
    """The command runs in an OS call that cannot be aborted from here (SG_IO): tapediag stopped waiting
    for it, and the device cannot be used by this process until the call returns."""


class ScsiStatusError(DeviceError):
    """A SCSI status other than GOOD or CHECK CONDITION (BUSY, RESERVATION CONFLICT...)."""

    def __init__(self, message: str, *, status: int, device: str = "", hint: str | None = None) -> None:
        super().__init__(message, device=device, hint=hint)
        self.status = status


class CheckCondition(DeviceError):
    """CHECK CONDITION. ``sense`` is the decoded sense (``native.scsi.sense.Sense``).

    The subclass is chosen by sense key (see ``for_sense_key``) so callers can write
    ``except IllegalRequest`` for "not supported by this device".
    """

    sense_key: int | None = None

    def __init__(self, message: str, *, sense: Any, device: str = "", hint: str | None = None) -> None:
        super().__init__(message, device=device, hint=hint)
        self.sense = sense


class NotReady(CheckCondition):
    sense_key = K.NOT_READY


class MediumError(CheckCondition):
    sense_key = K.MEDIUM_ERROR


class HardwareError(CheckCondition):
    sense_key = K.HARDWARE_ERROR


class IllegalRequest(CheckCondition):
    sense_key = K.ILLEGAL_REQUEST


class UnitAttention(CheckCondition):
    sense_key = K.UNIT_ATTENTION


class DataProtect(CheckCondition):
    sense_key = K.DATA_PROTECT


class BlankCheck(CheckCondition):
    sense_key = K.BLANK_CHECK


class AbortedCommand(CheckCondition):
    sense_key = K.ABORTED_COMMAND


_BY_SENSE_KEY: dict[int, type[CheckCondition]] = {
    cls.sense_key: cls
    for cls in (NotReady, MediumError, HardwareError, IllegalRequest, UnitAttention, DataProtect, BlankCheck, AbortedCommand)
    if cls.sense_key is not None
}


def check_condition_class(sense_key: int) -> type[CheckCondition]:
    """The CheckCondition subclass for a sense key (CheckCondition itself if none fits)."""
    return _BY_SENSE_KEY.get(sense_key, CheckCondition)

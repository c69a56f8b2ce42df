"""``ScsiDevice``: the one base of the devices tapediag sends SCSI commands to (``TapeDrive``, ``Changer``).

Why one base: a tape drive and a library's robot are reached the same way and must fail the same way,
so the policies they share are written once, here:

* **opening**: ``open(device)`` opens the transport with the device's CHAP secret (``app.targets.open_device``);
  only the shown form of the device string (no secret) is kept (``device``) for everything that prints
  or records it;
* **the type gate**: commands go only to the device type the class is for (a tape to a tape, a changer
  command to a changer). Before INQUIRY has shown the type only INQUIRY, REQUEST SENSE and REPORT LUNS
  are sent: every device type understands them and they change nothing;
* **the read-only gate**: in a read-only session (``--read-only``, the GUI's toggle, ``TAPEDIAG_READ_ONLY=1``)
  no command of ``STATE_CHANGING_OPCODES`` is sent (``ReadOnlyRefusal``, exit 3);
* **statuses become exceptions**, identically for every transport: CHECK CONDITION -> the ``CheckCondition``
  subclass for the sense key with the decoded ``Sense``; BUSY & co -> ``ScsiStatusError``; RECOVERED ERROR
  is a success. A caller that treats some conditions as outcomes (a tape read's filemark) uses ``_execute``;
* **the command watch** (``watch_commands``, issue 27): a device that stops answering is named, and a
  cancel gives up a command it does not answer (``app.commandwatch``);
* **the claim**: ``app.claims.claimed(device, command)`` takes any of them (their ``transport`` and ``device``).
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, ClassVar, NoReturn, TypeVar

from app.commandwatch import CommandWatch, default_watch
from app.cancel import CancelToken
from app.sink import discard
from app.timeouts import notice_after
from native.errors import Cancelled, CheckCondition, InvalidParameter, ParseError, SafetyRefusal, ScsiStatusError, \
    check_condition_class
from native.iscsi_url import display_device
from native.scsi import cdb as C
from native.scsi.inquiry import Inquiry, UnitSerialNumber
from native.scsi.sensekeys import RECOVERED_ERROR
from native.transport import CHECK_CONDITION, CONDITION_MET, DEFAULT_TIMEOUT, GOOD, STATUS_NAMES, CommandResult, \
    Transport, WritableBuffer

if TYPE_CHECKING:  # the sense decoder (and its ASC table) loads with the first CHECK CONDITION (issue 32 §3)
    from app.events import EventSink  # in annotations only: the events' classes are not needed to send commands
    from native.scsi.sense import Sense

#: Commands that write data or change a state the backup application relies on (SPC-5, SSC-5, SMC-3
#: opcodes; their names are ``native.scsi.cdb.OPCODE_NAMES``'). In a read-only session none of them is sent;
#: positioning (REWIND, SPACE, LOCATE) and every query remain allowed.
STATE_CHANGING_OPCODES: dict[int, str] = {op: C.opcode_name(op) for op in (
    C.FORMAT_MEDIUM, C.INITIALIZE_ELEMENT_STATUS, C.WRITE_6, C.SET_CAPACITY, C.WRITE_FILEMARKS_6, C.MODE_SELECT_6,
    C.ERASE_6, C.LOAD_UNLOAD, C.SEND_DIAGNOSTIC, C.PREVENT_ALLOW_MEDIUM_REMOVAL,
    C.INITIALIZE_ELEMENT_STATUS_WITH_RANGE, C.WRITE_BUFFER, C.LOG_SELECT, C.MODE_SELECT_10,
    C.PERSISTENT_RESERVE_OUT, C.WRITE_FILEMARKS_16, C.ALLOW_OVERWRITE, C.WRITE_16, C.WRITE_ATTRIBUTE, C.ERASE_16,
    C.MAINTENANCE_OUT, C.MOVE_MEDIUM, C.EXCHANGE_MEDIUM, C.SECURITY_PROTOCOL_OUT)}

#: READ BUFFER's error-history mode (1Ch, SPC-4) reads only with buffer ID 00h (the directory) and 10h-EFh
#: (the data buffers); 01h-03h create a snapshot or take the history over to this I_T nexus, FEh/FFh clear it.
_ERROR_HISTORY_READS = frozenset({0x00, *range(0x10, 0xF0)})


def state_changing(cdb: bytes) -> str | None:
    """What ``cdb`` would write or change, in words, or None for a command that only reads: every opcode of
    ``STATE_CHANGING_OPCODES``, and the READ BUFFER error-history IDs that snapshot or clear (the one rule the
    read-only gate and the tests' guards apply)."""
    if not cdb:
        return None
    if cdb[0] in STATE_CHANGING_OPCODES:
        return STATE_CHANGING_OPCODES[cdb[0]]
    if cdb[0] == C.READ_BUFFER and len(cdb) >= C.ReadBuffer.LENGTH:
        command = C.ReadBuffer.parse(cdb)
        if command.mode == C.BufferMode.ERROR_HISTORY and command.buffer_id not in _ERROR_HISTORY_READS:
            return (f"READ BUFFER error history buffer ID {command.buffer_id:02X}h (it snapshots or clears the "
                    "drive's error history)")
    return None


# Commands every SCSI device type understands and that change nothing: the only ones sent
# before INQUIRY has shown the device's type.
ANY_DEVICE_OPCODES = frozenset({C.INQUIRY, C.REQUEST_SENSE, C.REPORT_LUNS})

_read_only_session = False


def set_read_only_session(on: bool) -> None:
    """Make every device opened from now on read-only (the CLI's ``--read-only``, the GUI's toggle)."""
    global _read_only_session
    _read_only_session = on


def read_only_session() -> bool:
    """Whether this session is read-only: set by the front end, or ``TAPEDIAG_READ_ONLY=1``."""
    return _read_only_session or os.environ.get("TAPEDIAG_READ_ONLY", "") not in ("", "0")


class ReadOnlyRefusal(SafetyRefusal):
    """A command (or a whole test) that writes or changes state, refused in a read-only session (exit 3)."""

    def __init__(self, device: str, what: str) -> None:
        super().__init__(f"read-only session: {what} on {device}", reason="read-only session",
                         overridable=False, hint="run without --read-only to allow it")

    @classmethod
    def command(cls, device: str, opcode: int) -> "ReadOnlyRefusal":
        return cls.named(device, C.opcode_name(opcode))

    @classmethod
    def named(cls, device: str, what: str) -> "ReadOnlyRefusal":
        return cls(device, f"{what} was not sent (it writes to a tape or changes the device's state)")


D = TypeVar("D", bound="ScsiDevice")


class ScsiDevice:
    """SCSI semantics over a transport, for one device type (``PERIPHERAL``). Not thread-safe: one worker per device."""

    #: The peripheral device type (INQUIRY byte 0) this class sends its commands to.
    PERIPHERAL: ClassVar[int]
    #: What the device is called in a message ("the drive is busy ...").
    KIND: ClassVar[str] = "device"

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        self.transport = transport
        #: Refuse every command in ``STATE_CHANGING_OPCODES`` (default: the session's setting when opened).
        self.read_only = read_only_session() if read_only is None else read_only
        # Only the shown form (no CHAP secret): everything that prints or records a
        # device (CLI, GUI, history, reports) takes it from here; the secret stays in the transport.
        self._device = display_device(device if device is not None else (getattr(transport, "device", "") or ""))
        self._inquiry: Inquiry | None = None
        self.last_sense: Sense | None = None
        #: What the transport asks while a command is outstanding (``app.commandwatch``): the run's, once
        #: one attaches it (``watch_commands``), else the process's default (the CLI's), or none.
        self.watch: CommandWatch | None = None
        default = default_watch(self._device, self._notice_after, self._timeout_of)
        if default is not None:
            self._use_watch(default)

    @classmethod
    def open(cls: type[D], device: str) -> D:
        """The device behind ``device``, opened with its CHAP secret (``app.targets.open_device``)."""
        from app.targets import open_device

        return cls(open_device(device), device=device)

    @property
    def device(self) -> str:
        return self._device

    def close(self) -> None:
        self.transport.close()

    def __enter__(self: D) -> D:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- watching commands (issue 27): a stuck device is named, a cancel is not held -------------

    def watch_commands(self, cancel: CancelToken | None, sink: EventSink = discard) -> None:
        """Watch this device's commands for a run: the run's ``cancel`` gives up a command the device does
        not answer, and ``sink`` is told when it is not answering (``app.commandwatch``); a wait between
        two polls (``_pause``) stops at a cancel."""
        self._use_watch(CommandWatch(cancel, sink, device=self._device, notice_after=self._notice_after,
                                     timeout_of=self._timeout_of))

    def _use_watch(self, watch: CommandWatch) -> None:
        from native.waiting import watched

        self.watch = watch
        self.transport = watched(self.transport, watch)

    def _notice_after(self, opcode: int) -> float:
        """Seconds before the user is told the device is not answering ``opcode`` (``app.timeouts``)."""
        return notice_after(opcode)

    def _timeout_of(self, opcode: int) -> float:
        """The timeout ``opcode`` is sent with (said in that notice)."""
        return DEFAULT_TIMEOUT

    def _pause(self, seconds: float) -> None:
        """Sleep between two polls of the device; a cancel of the watching run ends it (``Cancelled``)."""
        cancel = self.watch.cancel if self.watch is not None else None
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise Cancelled(f"cancelled while waiting for the {self.KIND} to become ready")

    # -- the gates: the device's own type, and a read-only session -----------------------------------

    def _require_type_for(self, cdb: bytes) -> None:
        """Refuse any command but INQUIRY/REQUEST SENSE/REPORT LUNS to another device type (``require_type``).

        Why here: every command of every engine passes through this object, so one check covers
        everything added later. A disk that accepts opcode 01h would take REWIND, and the next WRITE(6)
        would overwrite the customer's LBAs. INQUIRY is sent first if no caller has asked yet, so the
        refusal comes before any other command.
        """
        if cdb[0] not in ANY_DEVICE_OPCODES:
            self.require_type()

    def require_type(self) -> None:
        """Raise (``_wrong_type``) unless INQUIRY reports this class's peripheral type."""
        inquiry = self._inquiry or self.inquiry()
        if inquiry.device_type != self.PERIPHERAL:
            raise self._wrong_type(inquiry)

    def _wrong_type(self, inquiry: Inquiry) -> InvalidParameter:
        """The one-line refusal for a device of another type (exit 2): nothing but INQUIRY was sent to it."""
        raise NotImplementedError

    def _require_writable_for(self, cdb: bytes) -> None:
        """In a read-only session, refuse a command that writes or changes state (``state_changing``), before
        it is sent."""
        what = state_changing(cdb) if self.read_only else None
        if what is not None:
            raise ReadOnlyRefusal.named(self.device, what)

    def require_writable(self, opcode: int) -> None:
        """``ReadOnlyRefusal`` now when this device is read-only: a run that will send ``opcode`` (a WRITE,
        a MOVE MEDIUM) is refused before it asks the device anything."""
        if self.read_only:
            raise ReadOnlyRefusal.command(self.device, opcode)

    # -- the one place statuses become exceptions -----------------------------------------------

    def _execute(self, cdb: bytes, *, data_in: int | WritableBuffer = 0,
                 data_out: bytes | bytearray | memoryview | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> tuple[CommandResult, Sense | None]:
        """Run a command through both gates; raise for statuses other than GOOD / CHECK CONDITION.

        Returns the result and, for CHECK CONDITION, the decoded sense (None when the target sent
        none). Callers that treat some conditions as outcomes use this; everything else ``_command``.
        """
        self._require_type_for(cdb)
        self._require_writable_for(cdb)
        result = self.transport.execute(cdb, data_in=data_in, data_out=data_out, timeout=timeout)
        if result.status in (GOOD, CONDITION_MET):
            return result, None
        return self._not_good(cdb, result)

    def _not_good(self, cdb: bytes, result: CommandResult) -> tuple[CommandResult, Sense | None]:
        """``_execute``'s path for any status but GOOD / CONDITION MET."""
        if result.status != CHECK_CONDITION:
            name = STATUS_NAMES.get(result.status, f"status 0x{result.status:02X}")
            hint = f"the {self.KIND} is busy with another host or operation; retry later" if name == "BUSY" else None
            raise ScsiStatusError(f"{C.opcode_name(cdb[0])}: the device returned {name}", status=result.status,
                                  device=self.device, hint=hint)
        sense = self._decode_sense(result.sense, cdb)
        self.last_sense = sense
        return result, sense

    def _decode_sense(self, raw: bytes, cdb: bytes) -> Sense | None:
        if not raw:
            return None
        from native.scsi.sense import Sense

        try:
            return Sense.parse(raw)
        except ParseError:
            raise CheckCondition(f"{C.opcode_name(cdb[0])}: CHECK CONDITION with undecodable sense data "
                                 f"({bytes(raw[:18]).hex()})", sense=None, device=self.device) from None

    def _raise(self, cdb: bytes, sense: Sense | None) -> NoReturn:
        op = C.opcode_name(cdb[0])
        if sense is None:
            raise CheckCondition(f"{op}: CHECK CONDITION without sense data", sense=None, device=self.device)
        cls = check_condition_class(sense.key)
        raise cls(f"{op}: {sense.describe()}", sense=sense, device=self.device)

    def _command(self, cdb: bytes, *, data_in: int | WritableBuffer = 0,
                 data_out: bytes | bytearray | memoryview | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        """Run a command that must succeed; RECOVERED ERROR counts as success."""
        result, sense = self._execute(cdb, data_in=data_in, data_out=data_out, timeout=timeout)
        if sense is not None and sense.key == RECOVERED_ERROR:
            return result
        if result.status == CHECK_CONDITION:
            self._raise(cdb, sense)
        return result

    def _data_in(self, cdb: bytes, alloc: int, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        return bytes(self._command(cdb, data_in=alloc, timeout=timeout).data)

    # -- identity: asked of any device type -----------------------------------------------------

    def inquiry(self) -> Inquiry:
        """Standard INQUIRY, sent again each time (it is what the type gate remembers)."""
        self._inquiry = Inquiry.parse(self._data_in(C.inquiry(96), 96))
        return self._inquiry

    @property
    def peripheral_type(self) -> int:
        """INQUIRY's peripheral device type; sends INQUIRY once if needed."""
        return (self._inquiry or self.inquiry()).device_type

    def serial_number(self) -> str:
        """The device's serial number (INQUIRY VPD 80h), read-only."""
        return UnitSerialNumber.parse(self._data_in(C.inquiry(0xFFFC, evpd=True, page=0x80), 0xFFFC)).serial


__all__ = ["ANY_DEVICE_OPCODES", "ReadOnlyRefusal", "STATE_CHANGING_OPCODES", "ScsiDevice", "read_only_session",
           "set_read_only_session", "state_changing"]

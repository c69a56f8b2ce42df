"""``TapeDrive``: the one object every tape test and panel talks to a drive through.

It takes any ``native.transport.Transport`` (pass-through, iSCSI, the virtual drive,
a fault-injecting wrapper in tests) and adds SCSI semantics on top:

* every non-GOOD status becomes the same exception whatever the transport:
  CHECK CONDITION -> the ``CheckCondition`` subclass for the sense key, carrying the
  decoded ``Sense`` and a one-line message; BUSY & co -> ``ScsiStatusError``;
* the tape conditions SSC reports through CHECK CONDITION but which are *outcomes*
  of a read or write (filemark, end of data, short block, early warning) are
  returned as flags, never raised, and byte counts come from the sense INFO field,
  not from the transport residual (tgt gets the residual wrong on these errors);
* the long commands (REWIND, SPACE, LOCATE, LOAD/UNLOAD, ERASE, WRITE FILEMARKS, READ/WRITE,
  SEND DIAGNOSTIC) wait as long as the drive itself recommends (REPORT SUPPORTED OPERATION
  CODES, asked once), never less than tapediag's defaults (``app.timeouts``).
"""
from __future__ import annotations

import os
from array import array
import re
import time
from dataclasses import dataclass, replace
from typing import Callable, Generic, NoReturn, TypeVar, Union

from native.scsi import cdb as C
from native.scsi.density import DensitySupport, lto_generation
from native.scsi.inquiry import VPD_PARSERS, device_type_name, DeviceIdentification, Inquiry, SupportedVpdPages, UnitSerialNumber
from native.scsi.encryption import PAGE_CAPABILITIES as PAGE_ENCRYPTION_CAPABILITIES
from native.scsi.encryption import PAGE_STATUS as PAGE_ENCRYPTION_STATUS
from native.scsi.encryption import PAGE_NEXT_BLOCK as PAGE_ENCRYPTION_NEXT_BLOCK
from native.scsi.encryption import EncryptionCapabilities, EncryptionStatus, NextBlockStatus
from native.scsi.logpages import LogPage, SupportedPages, TapeAlertPage, parse_log_page
from native.scsi.mam import Attribute, Mam, parse_attribute_list
from native.scsi.opcodes import SupportedCommands
from native.scsi.mode import (
    PAGE_ALL,
    PAGE_DATA_COMPRESSION,
    PAGE_DEVICE_CONFIGURATION,
    CompressionPage,
    ModeData,
)
from native.scsi.sense import (
    BLANK_CHECK,
    NO_SENSE,
    RECOVERED_ERROR,
    Sense,
)
from native.scsi.tape import BlockLimits, LongPosition, Position
from native.errors import (
    Cancelled,
    DeviceError,
    CheckCondition,
    IllegalRequest,
    InvalidParameter,
    NotReady,
    ParseError,
    SafetyRefusal,
    ScsiStatusError,
    UnitAttention,
    check_condition_class,
)
from native.iscsi_url import display_device
from native.transport import (
    CHECK_CONDITION,
    CONDITION_MET,
    DEFAULT_TIMEOUT,
    GOOD,
    STATUS_NAMES,
    CommandResult,
    Fill,
    Repeated,
    TransferLimit,
    Transport,
    WritableBuffer,
)
from app.commandwatch import CommandWatch, default_watch
from app.events import CancelToken, EventSink, discard
from app.timeouts import (ERASE_LONG_TIMEOUT, LONG_COMMANDS, MOTION_TIMEOUT, Timeouts, nominal_times, notice_after,
                          resolve)

T = TypeVar("T")


# ASCs meaning "the device does not implement this" (invalid opcode, invalid
# field in CDB / parameter list).
_NOT_SUPPORTED_ASC = (0x20, 0x24, 0x26)

NOT_SUPPORTED = "not supported by this device"

# Commands every SCSI device type understands and that change nothing: the only ones
# sent before INQUIRY has shown the device is a tape (INQUIRY, REQUEST SENSE, REPORT LUNS).
_ANY_DEVICE_OPCODES = frozenset({0x12, 0x03, 0xA0})
PERIPHERAL_TAPE = 0x01

#: Commands that write data or change a state the backup application relies on (SPC-5,
#: SSC-5, SMC-3 opcodes). In a read-only session (``--read-only``, the GUI's toggle) none
#: of them is sent; positioning (REWIND, SPACE, LOCATE) and every query remain allowed.
STATE_CHANGING_OPCODES: dict[int, str] = {
    0x04: "FORMAT MEDIUM", 0x07: "INITIALIZE ELEMENT STATUS", 0x0A: "WRITE(6)", 0x0B: "SET CAPACITY",
    0x10: "WRITE FILEMARKS(6)", 0x15: "MODE SELECT(6)", 0x19: "ERASE(6)", 0x1B: "LOAD UNLOAD",
    0x1D: "SEND DIAGNOSTIC", 0x1E: "PREVENT ALLOW MEDIUM REMOVAL", 0x37: "INITIALIZE ELEMENT STATUS WITH RANGE",
    0x3B: "WRITE BUFFER", 0x4C: "LOG SELECT", 0x55: "MODE SELECT(10)", 0x5F: "PERSISTENT RESERVE OUT",
    0x80: "WRITE FILEMARKS(16)", 0x82: "ALLOW OVERWRITE", 0x8A: "WRITE(16)", 0x8D: "WRITE ATTRIBUTE",
    0x93: "ERASE(16)", 0xA4: "MAINTENANCE OUT", 0xA5: "MOVE MEDIUM", 0xA6: "EXCHANGE MEDIUM",
    0xB5: "SECURITY PROTOCOL OUT",
}

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
    if cdb[0] == C.READ_BUFFER and len(cdb) > 2 and cdb[1] & 0x1F == C.BufferMode.ERROR_HISTORY \
            and cdb[2] not in _ERROR_HISTORY_READS:
        return f"READ BUFFER error history buffer ID {cdb[2]:02X}h (it snapshots or clears the drive's error history)"
    return None


_read_only_session = False


def set_read_only_session(on: bool) -> None:
    """Make every drive opened from now on read-only (the CLI's ``--read-only``, the GUI's toggle)."""
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
        return cls.named(device, STATE_CHANGING_OPCODES.get(opcode, f"opcode {opcode:02X}h"))

    @classmethod
    def named(cls, device: str, what: str) -> "ReadOnlyRefusal":
        return cls(device, f"{what} was not sent (it writes to a tape or changes the device's state)")


class NotATapeDrive(InvalidParameter):
    """The device is not sequential-access: no tape command was sent to it (exit 2)."""

    def __init__(self, device: str, device_type: int, type_name: str) -> None:
        article = "an" if type_name[:1].lower() in "aeiou" else "a"
        super().__init__(f"{device or 'the device'} is {article} {type_name} (peripheral type {device_type}), not a tape drive",
                         hint="choose a tape drive; 'tapediag devices' lists them")
        self.device = device
        self.device_type = device_type


def is_not_supported(err: BaseException) -> bool:
    """True for the ILLEGAL REQUEST a device gives for a command or field it lacks."""
    if not isinstance(err, IllegalRequest):
        return False
    sense = err.sense
    return sense is None or sense.asc in _NOT_SUPPORTED_ASC


@dataclass(frozen=True)
class Supported(Generic[T]):
    """A value the device provided."""

    value: T
    supported: bool = True

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class Unsupported:
    """Marker for "the device does not implement this"; ``reason`` is shown to the user."""

    reason: str = NOT_SUPPORTED
    supported: bool = False
    value: None = None

    def __bool__(self) -> bool:
        return False


Maybe = Union[Supported[T], Unsupported]


def supported(fn: Callable[..., T], *args: object, **kwargs: object) -> "Maybe[T]":
    """Call ``fn``; an ILLEGAL REQUEST 20/xx or 24/xx becomes ``Unsupported``.

    Other errors propagate: a medium error is not "unsupported".
    """
    try:
        return Supported(fn(*args, **kwargs))
    except IllegalRequest as err:
        if is_not_supported(err):
            return Unsupported()
        raise


@dataclass(frozen=True)
class WriteOutcome:
    """A completed WRITE. ``eom_warning``: the early-warning zone was reached; write
    the remaining data (e.g. a trailer, a filemark) soon. ``residual`` counts
    blocks (fixed) or bytes (variable) the drive did not take, normally 0."""

    eom_warning: bool = False
    residual: int = 0


@dataclass(frozen=True)
class ReadOutcome:
    """One READ, per SSC: conditions that end a read are flags, not exceptions.

    ``nbytes`` bytes of the buffer are valid. ``residual`` is the signed sense INFO
    value (requested minus actual, in blocks in fixed mode); negative with ``ili``
    means the block on tape was longer than the request and was truncated.
    """

    nbytes: int
    filemark: bool = False
    eom: bool = False
    eod: bool = False
    ili: bool = False
    residual: int = 0
    data: memoryview | None = None

    @property
    def stopped(self) -> bool:
        """True when the read hit something other than data (filemark, EOD, EOM)."""
        return self.filemark or self.eod or self.eom


O = TypeVar("O", ReadOutcome, WriteOutcome)


@dataclass(frozen=True)
class Burst(Generic[O]):
    """A run of the same READ or WRITE (``TapeDrive.read_burst``/``write_burst``).

    ``clean`` I/Os moved the whole buffer with GOOD status. What ended the run, if
    anything, is the next I/O's ``tail`` (an outcome as ``read``/``write`` return it: a
    filemark, EOD, the early warning, a short block) or its ``error`` (what ``read``/
    ``write`` would have raised), kept as a value so the caller records the clean I/Os
    before it. Neither: the run stopped at its count or its time limit.
    """

    clean: int
    tail: O | None = None
    error: DeviceError | None = None


@dataclass(frozen=True)
class SpaceOutcome:
    """A SPACE. ``residual`` is how many of the requested units were not spaced."""

    residual: int = 0
    filemark: bool = False
    eod: bool = False
    bop: bool = False
    eom: bool = False


@dataclass(frozen=True)
class CompressionChange:
    """Result of ``set_compression``: truthy when applied, else ``reason`` says why not."""

    applied: bool
    enabled: bool | None
    reason: str = ""

    def __bool__(self) -> bool:
        return self.applied


_WRITTEN = WriteOutcome()  # frozen: one instance serves every GOOD WRITE


class TapeDrive:
    """SCSI semantics over a transport. Not thread-safe: one worker per drive."""

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        self.transport = transport
        #: Refuse every command in ``STATE_CHANGING_OPCODES`` (default: the session's setting).
        self.read_only = read_only_session() if read_only is None else read_only
        # Only the shown form (no CHAP secret): everything that prints or records a
        # device (CLI, GUI, history, reports) takes it from here; the secret stays in the transport.
        self._device = display_device(device if device is not None else (getattr(transport, "device", "") or ""))
        self._mode_ten: bool | None = None  # which MODE SENSE size works, once known
        self._inquiry: Inquiry | None = None
        self.last_sense: Sense | None = None
        self._write_cdbs: dict[tuple[int, int | None], bytes] = {}
        self._read_cdbs: dict[tuple[int, int | None], tuple[bytes, int, int]] = {}
        self._good_read: tuple[CommandResult | None, ReadOutcome | None] = (None, None)  # see ``read``
        # The long commands' timeouts: the defaults until the drive has been asked (``command_timeouts``).
        self._timeouts: Timeouts | None = None
        self._seconds: dict[int, float] = {op: default for op, (_, default) in LONG_COMMANDS.items()}
        self._nominal: dict[int, int] = {}  # the drive's nominal time per opcode, where it states one
        #: What the transport asks while a command is outstanding (``app.commandwatch``): the run's, once
        #: one attaches it (``watch_commands``), else the process's default (the CLI's), or none.
        self.watch: CommandWatch | None = None
        default = default_watch(self._device, self._notice_after, self._timeout_of)
        if default is not None:
            self._use_watch(default)

    @classmethod
    def open(cls, device: str) -> "TapeDrive":
        from app.targets import chap_secret_for
        from native import open_transport

        return cls(open_transport(device, chap_secret=chap_secret_for(device)), device=device)

    @property
    def device(self) -> str:
        return self._device

    # -- watching commands (issue 27): a stuck drive is named, a cancel is not held ----------------

    def watch_commands(self, cancel: CancelToken | None, sink: EventSink = discard) -> None:
        """Watch this drive's commands for a run: the run's ``cancel`` gives up a command the drive does
        not answer, and ``sink`` is told when the drive is not answering (``app.commandwatch``);
        ``wait_ready`` stops waiting at a cancel."""
        self._use_watch(CommandWatch(cancel, sink, device=self._device, notice_after=self._notice_after,
                                     timeout_of=self._timeout_of))

    def _use_watch(self, watch: CommandWatch) -> None:
        from native.waiting import watched

        self.watch = watch
        self.transport = watched(self.transport, watch)

    def _notice_after(self, opcode: int) -> float:
        return notice_after(opcode, self._nominal.get(opcode))

    def _timeout_of(self, opcode: int) -> float:
        return self._seconds.get(opcode, DEFAULT_TIMEOUT)

    def _pause(self, seconds: float) -> None:
        """Sleep between two polls of the drive; a cancel of the watching run ends it (``Cancelled``)."""
        cancel = self.watch.cancel if self.watch is not None else None
        if cancel is None:
            time.sleep(seconds)
        elif cancel.wait(seconds):
            raise Cancelled("cancelled while waiting for the drive to become ready")

    def close(self) -> None:
        self.transport.close()

    def __enter__(self) -> "TapeDrive":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the one place statuses become exceptions -------------------------------

    def _execute(self, cdb: bytes, *, data_in: int | WritableBuffer = 0, data_out: bytes | bytearray | memoryview | None = None,
                 timeout: float = DEFAULT_TIMEOUT) -> tuple[CommandResult, Sense | None]:
        """Run a command; raise for statuses other than GOOD / CHECK CONDITION.

        Returns the result and, for CHECK CONDITION, the decoded sense (None when the
        target sent none). Callers that treat some conditions as outcomes use this;
        everything else goes through ``_command``.
        """
        self._require_tape_for(cdb)
        self._require_writable_for(cdb)
        result = self.transport.execute(cdb, data_in=data_in, data_out=data_out, timeout=timeout)
        if result.status in (GOOD, CONDITION_MET):
            return result, None
        return self._not_good(cdb, result)

    # -- the one gate: tape commands go only to a tape (peripheral type 01h) ----------

    def _require_tape_for(self, cdb: bytes) -> None:
        """Refuse any command but INQUIRY/REQUEST SENSE/REPORT LUNS to a non-tape.

        Why here: every command of every engine passes through this object, so one
        check covers ``info``, ``tape-perf`` (with or without --force), cleaning and
        anything added later. A disk that accepts opcode 01h would take REWIND, and the
        next WRITE(6) would overwrite the customer's LBAs. INQUIRY is sent first if no
        caller has asked yet, so the refusal comes before any other command.
        """
        if cdb[0] in _ANY_DEVICE_OPCODES:
            return
        self.require_tape()

    def _require_writable_for(self, cdb: bytes) -> None:
        """In a read-only session, refuse a command that writes or changes state, before it is sent.

        Why here: every command but the cached WRITE passes ``_execute``, and the WRITE's CDB
        is checked when it is built (``_write_cdb``), so one list guards every engine.
        """
        what = state_changing(cdb) if self.read_only else None
        if what is not None:
            raise ReadOnlyRefusal.named(self.device, what)

    def require_tape(self) -> None:
        """Raise ``NotATapeDrive`` unless INQUIRY reports peripheral type 01h.

        Only a scripted unit-test transport (``tests/helpers/faults.py``) declares the
        type it emulates (``scripted_peripheral_type``); every real transport is asked.
        """
        if self._inquiry is None:
            scripted = getattr(self.transport, "scripted_peripheral_type", None)
            if scripted == PERIPHERAL_TAPE:
                return
        inquiry = self._inquiry or self.inquiry()
        if inquiry.device_type != PERIPHERAL_TAPE:
            raise NotATapeDrive(self.device, inquiry.device_type, device_type_name(inquiry.device_type))
        if self._timeouts is None:
            self._learn_timeouts(inquiry.product)

    # -- command timeouts: learned once, right after INQUIRY has shown a tape -----------

    def command_timeouts(self) -> Timeouts:
        """The long commands' timeouts and where they came from (shown by ``info``).

        Learned once per drive object, as soon as the tape gate has seen a tape, so every long
        command, the first included, gets them. A scripted unit-test transport (no INQUIRY) is
        not asked and keeps the defaults.
        """
        if self._timeouts is None:
            self.require_tape()
        if self._timeouts is None:
            self._timeouts = resolve(None, None, "not asked")
        return self._timeouts

    def _learn_timeouts(self, product: str) -> None:
        """REPORT SUPPORTED OPERATION CODES with RCTD=1 (read-only, sent only to a tape); an ILLEGAL
        REQUEST or an undecodable answer means the generation's defaults. A pending UNIT ATTENTION
        is consumed and the query repeated (as TEST UNIT READY would), and the sense it leaves is
        not kept as ``last_sense``: this query is tapediag's, not the caller's."""
        generation = generation_from_product(product)
        self._timeouts = resolve(None, generation)  # first: the query below passes the tape gate again
        saved = self.last_sense
        report: SupportedCommands | None = None
        why_not = ""
        try:
            for _ in range(4):
                try:
                    report = self.supported_commands()
                    break
                except UnitAttention:
                    continue
            else:
                why_not = "the drive kept reporting UNIT ATTENTION"
        except IllegalRequest:
            why_not = "the drive does not support REPORT SUPPORTED OPERATION CODES"
        except CheckCondition as err:
            why_not = f"REPORT SUPPORTED OPERATION CODES failed: {err.message}"
        except ParseError as err:
            why_not = f"its REPORT SUPPORTED OPERATION CODES answer could not be decoded: {err.message}"
        finally:
            self.last_sense = saved
        self._timeouts = resolve(report, generation, why_not)
        self._seconds = self._timeouts.by_opcode()
        self._nominal = nominal_times(report)

    def transfer_limit(self) -> TransferLimit | None:
        """The largest single transfer the OS/HBA path accepts, where the transport can tell (no command is sent)."""
        return self.transport.transfer_limit()

    def supported_commands(self) -> SupportedCommands:
        """REPORT SUPPORTED OPERATION CODES, all commands, with their timeouts (asked again with a bigger
        allocation when the list does not fit)."""
        alloc = 0x2000
        report = SupportedCommands.parse(self._data_in(C.report_supported_opcodes(alloc=alloc), alloc))
        if report.needed > alloc:
            alloc = min(report.needed, 0x10000)
            report = SupportedCommands.parse(self._data_in(C.report_supported_opcodes(alloc=alloc), alloc))
        return report

    @property
    def peripheral_type(self) -> int:
        """INQUIRY's peripheral device type (01h = tape); sends INQUIRY once if needed."""
        return (self._inquiry or self.inquiry()).device_type

    def _not_good(self, cdb: bytes, result: CommandResult) -> tuple[CommandResult, Sense | None]:
        """``_execute``'s path for any status but GOOD / CONDITION MET."""
        if result.status != CHECK_CONDITION:
            name = STATUS_NAMES.get(result.status, f"status 0x{result.status:02X}")
            hint = "the drive is busy with another host or operation; retry later" if name == "BUSY" else None
            raise ScsiStatusError(f"{C.opcode_name(cdb[0])}: the device returned {name}", status=result.status,
                                  device=self.device, hint=hint)
        sense = self._decode_sense(result.sense, cdb)
        self.last_sense = sense
        return result, sense

    def _decode_sense(self, raw: bytes, cdb: bytes) -> Sense | None:
        if not raw:
            return None
        try:
            return Sense.parse(raw)
        except ParseError:
            raise CheckCondition(f"{C.opcode_name(cdb[0])}: CHECK CONDITION with undecodable sense data ({bytes(raw[:18]).hex()})",
                                 sense=None, device=self.device) from None

    def _raise(self, cdb: bytes, sense: Sense | None) -> NoReturn:
        op = C.opcode_name(cdb[0])
        if sense is None:
            raise CheckCondition(f"{op}: CHECK CONDITION without sense data", sense=None, device=self.device)
        cls = check_condition_class(sense.key)
        raise cls(f"{op}: {sense.describe()}", sense=sense, device=self.device)

    def _command(self, cdb: bytes, *, data_in: int | WritableBuffer = 0, data_out: bytes | bytearray | memoryview | None = None,
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

    def query_raw(self, cdb: bytes, alloc: int, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        """A query's answer as the drive sent it (the support ticket keeps raw pages). Goes through
        both gates: nothing reaches a non-tape, nothing that changes state in a read-only session."""
        return self._data_in(cdb, alloc, timeout)

    # -- identity -----------------------------------------------------------------

    def inquiry(self) -> Inquiry:
        self._inquiry = Inquiry.parse(self._data_in(C.inquiry(96), 96))
        return self._inquiry

    def vpd(self, page: int) -> SupportedVpdPages | UnitSerialNumber | DeviceIdentification | bytes:
        """A VPD page: the typed dataclass for 0x00/0x80/0x83, raw bytes for others."""
        data = self._data_in(C.inquiry(0xFFFC, evpd=True, page=page), 0xFFFC)
        parser = VPD_PARSERS.get(page)
        return parser.parse(data) if parser else data

    def serial_number(self) -> str:
        return UnitSerialNumber.parse(self._data_in(C.inquiry(0xFFFC, evpd=True, page=0x80), 0xFFFC)).serial

    # -- readiness ----------------------------------------------------------------

    def test_unit_ready(self) -> None:
        self._command(C.test_unit_ready(), timeout=60.0)

    def wait_ready(self, timeout: float = 300.0, *, poll: float = 1.0,
                   sleep: Callable[[float], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """Wait until TEST UNIT READY succeeds.

        UNIT ATTENTION (after a load or reset) is consumed by the failing TUR itself,
        so it is simply retried; NOT READY "becoming ready" (04/01, 04/07...) is polled
        until ``timeout``. NOT READY for any other reason (no medium 3A/xx, manual
        intervention 04/03) cannot cure itself and is raised at once.
        """
        deadline = clock() + timeout
        attentions = 0
        while True:
            try:
                self.test_unit_ready()
                return
            except UnitAttention:
                attentions += 1
                if attentions > 16:  # a device that never stops reporting: give up
                    raise
                continue
            except NotReady as err:
                sense = err.sense
                transient = sense is not None and sense.asc == 0x04 and sense.ascq in (0x00, 0x01, 0x07, 0x0C, 0x13)
                if not transient or clock() >= deadline:
                    raise
                (sleep or self._pause)(poll)

    def request_sense(self) -> Sense:
        return Sense.parse(self._data_in(C.request_sense(252), 252))

    # -- mode pages -----------------------------------------------------------------

    def read_block_limits(self) -> BlockLimits:
        return BlockLimits.parse(self._data_in(C.read_block_limits(), 6))

    def mode_sense(self, page: int = PAGE_ALL, subpage: int = 0, *, pc: int = 0) -> ModeData:
        """MODE SENSE(10), falling back to (6) when rejected (and remembering which works)."""
        order = [True, False] if self._mode_ten in (None, True) else [False, True]
        last: IllegalRequest | None = None
        for ten in order:
            cdb = C.mode_sense10(page, subpage, pc=pc) if ten else C.mode_sense6(page, subpage, pc=pc)
            try:
                data = self._data_in(cdb, 4096 if ten else 255)
            except IllegalRequest as err:
                if not (err.sense is not None and err.sense.asc == 0x20) or self._mode_ten is not None:
                    raise
                last = err
                continue
            self._mode_ten = ten
            return ModeData.parse(data, ten=ten)
        assert last is not None
        raise last

    def mode_select(self, data: ModeData, *, save: bool = False) -> None:
        """MODE SELECT(6) when the list fits (tgt rejects (10)), else (10)."""
        six = data.select_data(ten=False) if len(data.block_descriptors) <= 31 else None
        if six is not None and len(six) <= 255:
            try:
                self._command(C.mode_select6(len(six), sp=save), data_out=six)
                return
            except IllegalRequest as err:
                if err.sense is None or err.sense.asc != 0x20:
                    raise
        ten = data.select_data(ten=True)
        self._command(C.mode_select10(len(ten), sp=save), data_out=ten)

    def mode_header(self) -> ModeData:
        """MODE SENSE for the header and block descriptor (density, block size, WP, buffering)."""
        try:
            return self.mode_sense(PAGE_DEVICE_CONFIGURATION)
        except IllegalRequest as err:
            if not is_not_supported(err):
                raise
            return self.mode_sense(PAGE_ALL)

    def block_size(self) -> int | None:
        """Current block length (0 = variable), None if the drive has no block descriptor."""
        return self.mode_header().block_length

    def set_block_size(self, size: int) -> None:
        """Switch to fixed-block mode of ``size`` bytes, or variable mode for 0."""
        current = self.mode_header()
        self.mode_select(current.without_pages().with_block_length(size))

    def is_write_protected(self) -> bool:
        return self.mode_header().write_protected

    def compression(self) -> CompressionPage | None:
        """The data compression page, or None when the drive has none."""
        md = self.mode_sense(PAGE_DATA_COMPRESSION)
        page = md.page(PAGE_DATA_COMPRESSION)
        return CompressionPage.from_page(page) if page is not None else None

    def set_compression(self, enabled: bool) -> CompressionChange:
        """Turn hardware compression on/off. A drive that refuses is not an error."""
        try:
            md = self.mode_sense(PAGE_DATA_COMPRESSION)
        except IllegalRequest as err:
            return CompressionChange(False, None, f"the drive has no data compression page ({err.sense.describe() if err.sense else 'rejected'})")
        page = md.page(PAGE_DATA_COMPRESSION)
        if page is None:
            return CompressionChange(False, None, "the drive returned no data compression page")
        current = CompressionPage.from_page(page)
        if not current.dcc:
            return CompressionChange(False, current.dce, "the drive reports it is not compression capable (DCC=0)")
        wanted = replace(current, dce=enabled, dde=True if enabled else current.dde)
        descriptors = tuple(replace(d, blocks=0) for d in md.block_descriptors)
        try:
            self.mode_select(replace(md, block_descriptors=descriptors, pages=(wanted.to_page(),)))
        except IllegalRequest as err:
            return CompressionChange(False, current.dce, f"the drive refused the change ({err.sense.describe() if err.sense else 'rejected'})")
        return CompressionChange(True, enabled)

    # -- data transfer ------------------------------------------------------------

    def write(self, buf: bytes | bytearray | memoryview, *, block_size: int | None = None, timeout: float | None = None) -> WriteOutcome:
        """WRITE(6): one variable block of ``len(buf)`` bytes, or fixed blocks.

        With ``block_size`` the drive must already be in fixed mode of that size
        (``set_block_size``) and ``len(buf)`` must be a multiple of it.
        """
        size = len(buf) if not isinstance(buf, memoryview) else buf.nbytes
        cdb = self._write_cdbs.get((size, block_size)) or self._write_cdb(size, block_size)
        # The hot path of every write test: a GOOD WRITE is one call and a shared outcome.
        result = self.transport.execute(cdb, data_out=buf, timeout=self._seconds[C.WRITE_6] if timeout is None else timeout)
        if result.status == GOOD:
            return _WRITTEN
        return self._write_outcome(cdb, result)

    def _write_outcome(self, cdb: bytes, result: CommandResult) -> WriteOutcome:
        """What a WRITE's result means: written, the early warning (with what was not taken), or an error."""
        if result.status == GOOD:
            return _WRITTEN
        result, sense = self._not_good(cdb, result) if result.status != CONDITION_MET else (result, None)
        if sense is None:
            if result.status == CHECK_CONDITION:
                self._raise(cdb, sense)
            return WriteOutcome()
        if sense.key == RECOVERED_ERROR:
            return WriteOutcome()
        if sense.key == NO_SENSE and (sense.eom or (sense.asc, sense.ascq) == (0x00, 0x02)):
            return WriteOutcome(eom_warning=True, residual=sense.info if sense.valid else 0)
        self._raise(cdb, sense)

    def write_burst(self, buf: bytearray, *, block_size: int | None = None, count: int, until: float,
                    starts: "array[float]", ends: "array[float]", fill: Fill, first: int = 0, step: int = 1,
                    spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Burst[WriteOutcome]:
        """Up to ``count`` WRITEs of ``buf``, each refilled first by ``fill(buf, first + i * step)``,
        until ``clock()`` reaches ``until`` or a WRITE is not clean (``Burst``; times per WRITE in
        ``starts``/``ends``). The same CDB, gate and timeout as ``write``: a write test's stream in
        one transport call (``Transport.repeat``; ``spare``: a second buffer, for a transport that
        fills one while the other is written)."""
        size = len(buf)
        cdb = self._write_cdbs.get((size, block_size)) or self._write_cdb(size, block_size)
        done = self.transport.repeat(cdb, data_out=buf, timeout=self._seconds[C.WRITE_6], count=count, until=until,
                                     starts=starts, ends=ends, fill=fill, first=first, step=step, spare=spare,
                                     clock=clock)
        return self._burst(done, lambda result: self._write_outcome(cdb, result))

    def read_burst(self, view: memoryview, *, block_size: int | None = None, count: int, until: float,
                   starts: "array[float]", ends: "array[float]",
                   clock: Callable[[], float] = time.perf_counter) -> Burst[ReadOutcome]:
        """Up to ``count`` READs into ``view`` (each overwriting the last) until ``clock()`` reaches
        ``until`` or a READ is not clean: a filemark, EOD or a short block ends the burst as its
        ``tail``, decoded as ``read`` decodes it. Only for a caller that needs no look at each
        block's data (a verifying read reads one at a time)."""
        size = view.nbytes
        shape = self._read_cdbs.get((size, block_size)) or self._read_shape(size, block_size)
        cdb = shape[0]
        done = self.transport.repeat(cdb, data_in=view, timeout=self._read_timeout(cdb), count=count, until=until,
                                     starts=starts, ends=ends, clock=clock)
        return self._burst(done, lambda result: self._read_outcome(result, view, view, size, shape))

    @staticmethod
    def _burst(done: Repeated, decode: Callable[[CommandResult], O]) -> Burst[O]:
        if done.error is not None:
            return Burst(done.clean, error=done.error)
        if done.tail is None:
            return Burst(done.clean)
        try:
            return Burst(done.clean, tail=decode(done.tail))
        except DeviceError as err:
            return Burst(done.clean, error=err)

    def _write_cdb(self, size: int, block_size: int | None) -> bytes:
        """WRITE(6) for ``size`` bytes, remembered: a test sends the same CDB millions of times. The
        tape gate runs here, so it costs nothing per write after the first."""
        self.require_tape()
        self._require_writable_for(bytes([C.WRITE_6]))
        if block_size:
            if size % block_size:
                raise InvalidParameter(f"{size} bytes is not a multiple of the {block_size}-byte block size")
            cdb = C.write6(size // block_size, fixed=True)
        else:
            cdb = C.write6(size)
        if len(self._write_cdbs) >= 8:
            self._write_cdbs.clear()
        self._write_cdbs[(size, block_size)] = cdb
        return cdb

    def read(self, buffer_or_length: int | WritableBuffer, *, block_size: int | None = None, timeout: float | None = None) -> ReadOutcome:
        """READ(6) into a buffer (filled in place) or a new one of the given length.

        The hot path of every read test, kept as lean as the write's (issue 19: 256 KiB reads
        ran at 0.82 of a bare C loop): the CDB is built, checked and passed through the tape
        gate once per (size, block size), a bytearray goes to the transport as it is (no
        view of our own), and a GOOD read is one call and one outcome built positionally.
        """
        buf = bytearray(buffer_or_length) if isinstance(buffer_or_length, int) else buffer_or_length
        view: memoryview | None = None
        if type(buf) is bytearray:
            size = len(buf)
        else:
            view = buf if type(buf) is memoryview else memoryview(buf)  # the caller's own view goes through as it is
            if view.format != "B" or view.ndim != 1:
                view = view.cast("B")
            size = view.nbytes
        shape = self._read_cdbs.get((size, block_size)) or self._read_shape(size, block_size)
        cdb = shape[0]
        if timeout is None:
            timeout = self._read_timeout(cdb)
        result = self.transport.execute(cdb, data_in=buf if view is None else view, timeout=timeout)
        good_result, good_outcome = self._good_read
        if result is good_result and good_outcome is not None:  # the transport's shared GOOD result again
            return good_outcome
        return self._read_outcome(result, buf, view, size, shape)

    def _read_outcome(self, result: CommandResult, buf: WritableBuffer, view: memoryview | None, size: int,
                      shape: tuple[bytes, int, int]) -> ReadOutcome:
        """What a READ's result means for a tape read (SSC): data, a filemark, EOD, EOM, a short block."""
        cdb, requested, unit = shape
        status = result.status
        if status == GOOD or status == CONDITION_MET:
            data = result.data
            if result.transferred == size and data.nbytes == size:
                outcome = ReadOutcome(size, False, False, False, False, 0, data)
                if data is view:
                    # Kept only for the caller's own view (the caller holds it anyway; a bytearray
                    # is never kept locked against resizing): a transport that answers every GOOD
                    # read into that view with one shared result (iSCSI's hot loop) gets one shared
                    # outcome back. Both are frozen and describe the same bytes.
                    self._good_read = (result, outcome)
                return outcome
            return ReadOutcome(nbytes=size, data=self._view(buf)[:size])
        result, sense = self._not_good(cdb, result)
        if view is None:
            view = self._view(buf)
        if sense is None:
            self._raise(cdb, sense)  # CHECK CONDITION without sense data
        if sense.key == RECOVERED_ERROR:
            return ReadOutcome(nbytes=size, data=view[:size])
        info = sense.info if sense.valid else 0
        if sense.key == BLANK_CHECK:
            # End of data: 08/00/05 on a real drive, 08/00/00 with EOM on tgt.
            done = max(0, requested - info) * unit if sense.valid else 0
            done = min(done, size)
            return ReadOutcome(nbytes=done, eod=True, eom=sense.eom, residual=info, data=view[:done])
        if sense.key == NO_SENSE and (sense.filemark or sense.ili or sense.eom or sense.asc == 0x00):
            if sense.ili and info < 0:
                done = size  # the block was longer than asked for: truncated to the buffer
            else:
                done = min(size, max(0, requested - info) * unit)
            eod = (sense.asc, sense.ascq) == (0x00, 0x05)
            return ReadOutcome(nbytes=done, filemark=sense.filemark or (sense.asc, sense.ascq) == (0x00, 0x01),
                               eom=sense.eom or (sense.asc, sense.ascq) == (0x00, 0x02), eod=eod,
                               ili=sense.ili, residual=info, data=view[:done])
        self._raise(cdb, sense)

    @staticmethod
    def _view(buf: WritableBuffer) -> memoryview:
        view = memoryview(buf)
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view

    def _read_timeout(self, cdb: bytes) -> float:
        """READ(6)'s timeout: learned at the first command that passed the tape gate (``_read_shape``)."""
        return self._seconds[C.READ_6] if self._timeouts is not None else self._long(cdb)

    def _read_shape(self, size: int, block_size: int | None) -> tuple[bytes, int, int]:
        """READ(6) for a ``size``-byte buffer: (CDB, transfer length, bytes per unit), remembered.

        The tape gate runs here, as for the cached WRITE: a test sends the same READ millions of
        times, and a drive object's device type does not change. READ is not state-changing, so
        a read-only session needs no check.
        """
        if block_size:
            if size % block_size:
                raise InvalidParameter(f"a {size}-byte buffer is not a multiple of the {block_size}-byte block size")
            requested, unit = size // block_size, block_size
            cdb = C.read6(requested, fixed=True)
        else:
            requested, unit = size, 1
            cdb = C.read6(size)
        self._require_tape_for(cdb)
        if len(self._read_cdbs) >= 8:
            self._read_cdbs.clear()
        shape = self._read_cdbs[(size, block_size)] = (cdb, requested, unit)
        return shape

    def write_filemarks(self, count: int = 1, *, immed: bool = False) -> WriteOutcome:
        cdb = C.write_filemarks(count, immed=immed)
        result, sense = self._execute(cdb, timeout=self._long(cdb))
        if sense is None and result.status != CHECK_CONDITION:
            return WriteOutcome()
        if sense is not None and sense.key == RECOVERED_ERROR:
            return WriteOutcome()
        if sense is not None and sense.key == NO_SENSE and (sense.eom or (sense.asc, sense.ascq) == (0x00, 0x02)):
            return WriteOutcome(eom_warning=True, residual=sense.info if sense.valid else 0)
        self._raise(cdb, sense)

    # -- positioning ----------------------------------------------------------------

    def _long(self, cdb: bytes, floor: float | None = None) -> float:
        """A long command's timeout. Read after the tape gate has run for this command: the first
        long command of a drive object learns the drive's timeouts there (``command_timeouts``)."""
        self.require_tape()
        seconds = self._seconds.get(cdb[0], MOTION_TIMEOUT)
        return max(seconds, floor) if floor is not None else seconds

    def rewind(self, *, immed: bool = False) -> None:
        cdb = C.rewind(immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def space(self, count: int, kind: C.SpaceCode | int = C.SpaceCode.BLOCKS) -> SpaceOutcome:
        """SPACE; hitting a filemark, BOP or EOD early is an outcome with a residual."""
        cdb = C.space(count, kind)
        result, sense = self._execute(cdb, timeout=self._long(cdb))
        if sense is None and result.status != CHECK_CONDITION:
            return SpaceOutcome()
        if sense is not None and sense.key in (NO_SENSE, BLANK_CHECK, RECOVERED_ERROR):
            aa = (sense.asc, sense.ascq)
            return SpaceOutcome(
                residual=sense.info if sense.valid else 0,
                filemark=sense.filemark or aa == (0x00, 0x01),
                eod=sense.key == BLANK_CHECK or aa == (0x00, 0x05),
                bop=aa == (0x00, 0x04),
                eom=sense.eom,
            )
        self._raise(cdb, sense)

    def read_position(self) -> Position:
        return Position.parse(self._data_in(C.read_position(), 20))

    def read_position_long(self) -> LongPosition:
        return LongPosition.parse(self._data_in(C.read_position(C.PositionForm.LONG), 32))

    def locate(self, block: int, *, partition: int | None = None) -> None:
        cdb = C.locate10(block, partition=partition) if block <= 0xFFFFFFFF else C.locate16(block, partition=partition)
        self._command(cdb, timeout=self._long(cdb))

    def load(self, *, immed: bool = False) -> None:
        cdb = C.load_unload(load=True, immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def unload(self, *, immed: bool = False) -> None:
        cdb = C.load_unload(load=False, immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def prevent_medium_removal(self, prevent: bool) -> None:
        """PREVENT (True) or ALLOW (False) MEDIUM REMOVAL: a backup application prevents it while it holds
        the tape; a library then refuses to move the cartridge out (05/53/02)."""
        self._command(C.prevent_allow_medium_removal(prevent=prevent))

    def self_test(self, timeout: float | None = None) -> None:
        """The drive's default self-test (SEND DIAGNOSTIC, SELFTEST=1); raises with the drive's sense if it
        fails. The drive must be idle; it does not write to the tape. Minutes on some drives, hence the
        timeout: the drive's recommendation, at least ``app.timeouts.SELF_TEST_TIMEOUT``."""
        cdb = C.send_diagnostic_self_test()
        self._command(cdb, timeout=self._long(cdb) if timeout is None else timeout)

    def erase(self, *, long: bool = False, immed: bool = False) -> None:
        cdb = C.erase(long=long, immed=immed)
        self._command(cdb, timeout=self._long(cdb, ERASE_LONG_TIMEOUT if long else None))

    # -- logs, density, cartridge memory -----------------------------------------------

    def report_density_support(self, *, media: bool = True) -> DensitySupport:
        return DensitySupport.parse(self._data_in(C.report_density_support(media=media), 8192), media=media)

    def log_sense(self, page: int, subpage: int = 0, *, pc: int = C.LogPageControl.CUMULATIVE) -> LogPage:
        """A log page, typed when tapediag knows it (see ``native.scsi.logpages``)."""
        return parse_log_page(self._data_in(C.log_sense(page, subpage, pc=pc), 0xFFFC))

    def encryption_capabilities(self) -> EncryptionCapabilities:
        """SECURITY PROTOCOL IN 20h/0010h: which encryption algorithms the drive offers (read-only)."""
        alloc = 0x2000
        return EncryptionCapabilities.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_CAPABILITIES, alloc=alloc), alloc))

    def encryption_status(self) -> EncryptionStatus:
        """SECURITY PROTOCOL IN 20h/0020h: encryption mode now, whether the volume holds encrypted blocks and the
        key-associated data of the key in use. Read-only and positionless: the tape does not move."""
        alloc = 0x2000
        return EncryptionStatus.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_STATUS, alloc=alloc), alloc))

    def next_block_encryption_status(self) -> NextBlockStatus:
        """SECURITY PROTOCOL IN 20h/0021h: the block at the current position, as far as the drive knows it
        without moving the tape ("not yet read" until it has read there); nothing is moved to learn more."""
        alloc = 0x2000
        return NextBlockStatus.parse(self._data_in(
            C.security_protocol_in(C.PROTOCOL_TAPE_ENCRYPTION, PAGE_ENCRYPTION_NEXT_BLOCK, alloc=alloc), alloc))

    def supported_log_pages(self) -> tuple[int, ...]:
        page = self.log_sense(0x00)
        assert isinstance(page, SupportedPages)
        return page.pages

    def tapealert(self) -> TapeAlertPage:
        """The TapeAlert page. Reading it clears the flags: call once and keep the result."""
        page = self.log_sense(0x2E)
        if not isinstance(page, TapeAlertPage):
            raise ParseError("LOG SENSE 0x2E did not return a TapeAlert page")
        return page

    def read_attributes(self, *, partition: int = 0) -> Mam:
        """All readable MAM attributes of the loaded cartridge."""
        alloc = 0x2000
        data = self._data_in(C.read_attribute(C.AttributeAction.VALUES, alloc=alloc, partition=partition), alloc)
        if len(data) >= 4 and int.from_bytes(data[:4], "big") + 4 > alloc:
            alloc = min(0xFFFFFF, int.from_bytes(data[:4], "big") + 4)
            data = self._data_in(C.read_attribute(C.AttributeAction.VALUES, alloc=alloc, partition=partition), alloc)
        return Mam.parse(data)

    def write_attributes(self, attributes: "tuple[Attribute, ...]", *, partition: int = 0) -> None:
        """WRITE ATTRIBUTE of host attributes (an attribute of length 0 clears it, SPC-4). Changes the
        cartridge memory, so a read-only session refuses it (``STATE_CHANGING_OPCODES``)."""
        body = b"".join(a.build() for a in attributes)
        data = len(body).to_bytes(4, "big") + body
        self._command(C.write_attribute(len(data), partition=partition), data_out=data)

    def attribute_list(self, *, partition: int = 0) -> tuple[int, ...]:
        data = self._data_in(C.read_attribute(C.AttributeAction.LIST, alloc=0x1000, partition=partition), 0x1000)
        return parse_attribute_list(data)

    def generation(self) -> int | None:
        """LTO generation from the current density code, else from the product name."""
        try:
            density = self.mode_header().density_code
        except CheckCondition:
            density = None
        gen = lto_generation(density) if density else None
        if gen is not None:
            return gen
        inq = self._inquiry or self.inquiry()
        return generation_from_product(inq.product)


_PRODUCT_GEN = (
    re.compile(r"ULTRIUM[ -]?(?:HH|TD|FH)?(\d{1,2})", re.IGNORECASE),  # HP "Ultrium 6-SCSI", HPE "Ultrium 10-SCSI", Quantum "ULTRIUM-HH8"
    re.compile(r"ULT3580-(?:HH|TD)(\d{1,2})", re.IGNORECASE),  # IBM "ULT3580-TD9"
    re.compile(r"\bLTO[ -]?(\d{1,2})", re.IGNORECASE),
)
# IBM names generation 10 with a letter: "ULT3580-TDA" / "ULTRIUM-TDA" (full height) and
# "ULT3580-HHA" / "ULTRIUM-HHA" (half height). Sources: IBM Documentation "Performance
# specifications for LTO tape drives" (ibm.com/docs/en/dtl/2.12.3, Inquiry row "ULT3580-TDA,
# ULTRIUM-TDA" under LTO-10); LTFS src/tape_drivers/ibm_tape.c ("IBM Ultrium Gen A").
# Only the letter IBM has published is mapped: a guessed "B" would be a claim.
_IBM_LETTER_GEN = re.compile(r"(?:ULT3580|ULTRIUM)-(?:HH|TD)([A-Z])\b", re.IGNORECASE)
_LETTER_GENERATIONS = {"A": 10}


def generation_from_product(product: str) -> int | None:
    """LTO generation from an INQUIRY product name ("Ultrium 9-SCSI", "ULT3580-TDA"), None if unknown."""
    letter = _IBM_LETTER_GEN.search(product)
    if letter:
        return _LETTER_GENERATIONS.get(letter.group(1).upper())
    for pattern in _PRODUCT_GEN:
        m = pattern.search(product)
        if m:
            gen = int(m.group(1))
            if 1 <= gen <= 12:
                return gen
    return None

"""The tape gate and the long commands' timeouts: what every command of a ``TapeDrive`` passes first.

Tape commands go only to a tape: INQUIRY is asked before any other command, and a device of another
type (a disk that would take REWIND and then a WRITE(6) over the customer's LBAs) is refused with
``NotATapeDrive`` before anything else is sent to it (``ScsiDevice.require_type``). The first time a tape
is seen, it is asked REPORT SUPPORTED OPERATION CODES (RCTD=1, read-only) once: the long commands
(REWIND, SPACE, LOCATE, LOAD/UNLOAD, ERASE, WRITE FILEMARKS, READ/WRITE, SEND DIAGNOSTIC) then wait as
long as the drive itself recommends, never less than tapediag's defaults (``app.timeouts``).
"""
from __future__ import annotations

import re

from app.device import ScsiDevice
from app.timeouts import LONG_COMMANDS, MOTION_TIMEOUT, Timeouts, nominal_times, notice_after, resolve
from native.errors import CheckCondition, IllegalRequest, InvalidParameter, ParseError, UnitAttention
from native.scsi import cdb as C
from native.scsi.inquiry import Inquiry, device_type_name
from native.scsi.opcodes import SupportedCommands
from native.transport import DEFAULT_TIMEOUT, TransferLimit, Transport

PERIPHERAL_TAPE = 0x01


class NotATapeDrive(InvalidParameter):
    """The device is not sequential-access: no tape command was sent to it (exit 2)."""

    def __init__(self, device: str, device_type: int, type_name: str) -> None:
        article = "an" if type_name[:1].lower() in "aeiou" else "a"
        super().__init__(f"{device or 'the device'} is {article} {type_name} (peripheral type {device_type}), not a tape drive",
                         hint="choose a tape drive; 'tapediag devices' lists them")
        self.device = device
        self.device_type = device_type


class TapeGate(ScsiDevice):
    """A tape drive's core: the tape gate and the timeouts every command of the other parts is sent with."""

    PERIPHERAL = PERIPHERAL_TAPE
    KIND = "drive"

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        # The long commands' timeouts: the defaults until the drive has been asked (``command_timeouts``).
        self._timeouts: Timeouts | None = None
        self._seconds: dict[int, float] = {op: default for op, (_, default) in LONG_COMMANDS.items()}
        self._nominal: dict[int, int] = {}  # the drive's nominal time per opcode, where it states one
        super().__init__(transport, device=device, read_only=read_only)

    def _notice_after(self, opcode: int) -> float:
        return notice_after(opcode, self._nominal.get(opcode))

    def _timeout_of(self, opcode: int) -> float:
        return self._seconds.get(opcode, DEFAULT_TIMEOUT)

    # -- the tape gate: tape commands go only to a tape (peripheral type 01h) ----------

    def require_tape(self) -> None:
        """Raise ``NotATapeDrive`` unless INQUIRY reports peripheral type 01h (``ScsiDevice.require_type``).

        Only a scripted unit-test transport (``tests/helpers/faults.py``) declares the
        type it emulates (``scripted_peripheral_type``); every real transport is asked.
        The first time a tape is seen, its command timeouts are learned (``command_timeouts``).
        """
        if self._inquiry is None:
            scripted = getattr(self.transport, "scripted_peripheral_type", None)
            if scripted == PERIPHERAL_TAPE:
                return
        super().require_type()
        if self._timeouts is None:
            assert self._inquiry is not None
            self._learn_timeouts(self._inquiry.product)

    def require_type(self) -> None:
        self.require_tape()

    def _wrong_type(self, inquiry: Inquiry) -> InvalidParameter:
        return NotATapeDrive(self.device, inquiry.device_type, device_type_name(inquiry.device_type))

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

    def supported_commands(self) -> SupportedCommands:
        """REPORT SUPPORTED OPERATION CODES, all commands, with their timeouts (asked again with a bigger
        allocation when the list does not fit)."""
        alloc = 0x2000
        report = SupportedCommands.parse(self._data_in(C.report_supported_opcodes(alloc=alloc), alloc))
        if report.needed > alloc:
            alloc = min(report.needed, 0x10000)
            report = SupportedCommands.parse(self._data_in(C.report_supported_opcodes(alloc=alloc), alloc))
        return report

    def _long(self, cdb: bytes, floor: float | None = None) -> float:
        """A long command's timeout. Read after the tape gate has run for this command: the first
        long command of a drive object learns the drive's timeouts there (``command_timeouts``)."""
        self.require_tape()
        seconds = self._seconds.get(cdb[0], MOTION_TIMEOUT)
        return max(seconds, floor) if floor is not None else seconds

    # -- the path and raw queries ---------------------------------------------------------

    def transfer_limit(self) -> TransferLimit | None:
        """The largest single transfer the OS/HBA path accepts, where the transport can tell (no command is sent)."""
        return self.transport.transfer_limit()

    def query_raw(self, cdb: bytes, alloc: int, timeout: float = DEFAULT_TIMEOUT) -> bytes:
        """A query's answer as the drive sent it (the support ticket keeps raw pages). Goes through
        both gates: nothing reaches a non-tape, nothing that changes state in a read-only session."""
        return self._data_in(cdb, alloc, timeout)


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

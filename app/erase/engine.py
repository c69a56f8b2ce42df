"""The erase engine: checks, then ERASE per partition, then what the tape holds now.

Short erase (SSC-5 ERASE with LONG=0; on LTO: "an EOD is written at the current position marking it as
end of data", Seagate Viper LTO SCSI manual, ERASE): at the start of each partition, so the old data can
no longer be read (it is still on the tape until overwritten). A drive that does not implement ERASE
(tgt: 05/20/00) gets a WRITE FILEMARKS at BOT instead, which ends the data there too: said so in the result.

Long erase (LONG=1): end of data at the start, then the drive overwrites the rest of the partition at its
native rate; hours on a full-length cartridge (``estimate``). Sent with IMMED=1, so that tapediag can ask
REQUEST SENSE for the progress indication (sense bytes 15-17) while the drive works. It cannot be stopped:
SSC has no command that ends an immediate erase (only a reset might, on some drives, and tapediag sends
none: it would hit every host of the drive); a cancel stops tapediag waiting and says what the tape holds
(it already reads as blank from BOT; the drive erases on to the end and is busy until then). That is said
before the erase starts.

On an LTFS cartridge (erased only with ``force``), the Volume Coherency Information LTFS keeps in the
cartridge memory (080Ch, each partition) is cleared afterwards, so the memory no longer names a volume
the tape does not hold; the partitions stay (``mkltfs --wipe`` or a FORMAT MEDIUM removes them).

The checks before anything is written are one function, ``inspect`` (the media fit, the data overwrite's
probe of every partition, whether the drive has ERASE, the estimate), and the decision one, ``decide``:
the engine runs both, and a confirmation (the GUI's) shows what ``check_cartridge`` found before it asks.
Confirmed for a named cartridge (``EraseParams.barcode``), the erase refuses any other one loaded since.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Callable

from native.errors import DeviceError, IllegalRequest, InvalidParameter, NotReady, ParseError, SafetyRefusal

from app import ltfs, media
from app.claims import claimed
from app.drive import ReadOnlyRefusal, Supported, TapeDrive, is_not_supported, supported
from app.erase.params import EraseParams
from app.erase.result import EraseResult
from app.events import CancelToken, EventSink, Message, PhaseFinished, PhaseStarted, Progress, discard
from app.tapeperf import safety
from native.scsi import cdb as C
from native.scsi.ltfs import VOLUME_COHERENCY
from native.scsi.mam import AttrFormat, Attribute
from native.units import block_text, duration_text, percent, rate_text, size_text

#: NOT READY with these ASC/ASCQ means "still erasing" (04/07 operation in progress, 00/18 erase in progress).
ERASING = {(0x04, 0x07), (0x00, 0x18), (0x04, 0x04)}
#: What a cancel does once a long erase has started: said before it starts, and again in the result.
CANNOT_STOP = ("once the drive has started it, it cannot be stopped: a cancel (Ctrl-C) then only stops tapediag "
               "waiting, and the drive erases on to the end of the tape, busy until then")


def estimate(drive: TapeDrive, partitions: int) -> tuple[float | None, str]:
    """A long erase's time: the cartridge's capacity (MAM 0001h of each partition, else the generation's
    published native capacity) at the generation's native rate (``app.tapeperf.rated``)."""
    from app.tapeperf.rated import RATED_MB_S
    from app.troubleshoot.data import native_capacity_gb

    generation = drive.generation()
    if generation is None or generation not in RATED_MB_S:
        return None, "the drive's generation is not known: no published rate to estimate with"
    rate = RATED_MB_S[generation][0] * 1e6
    mib = [supported(drive.read_attributes, partition=p) for p in range(partitions)]
    sizes = [m.value.maximum_capacity_mib for m in mib if isinstance(m, Supported)]
    if sizes and all(s is not None for s in sizes):
        capacity = sum(s for s in sizes if s is not None) * (1 << 20)
        basis = f"{size_text(capacity)}, the cartridge memory's maximum capacity (0001h)"
    else:
        native = native_capacity_gb(generation)
        if native is None:
            return None, f"no published capacity for LTO-{generation}"
        capacity, basis = native * 1e9, f"{size_text(native * 1e9)}, LTO-{generation}'s native capacity"
    return capacity / rate, f"{basis}, at {rate_text(rate / 1e6)}, LTO-{generation}'s native rate"


@dataclass(frozen=True)
class EraseCheck:
    """What the erase's own checks found, before anything is written: what a confirmation shows (the GUI's) and
    what the engine decides on. ``refusal``: the decision without ``force`` (None: the erase may go ahead);
    ``listed``: whether the drive lists ERASE (None: it does not say); ``estimate_seconds``: a long erase's time."""

    state: safety.CartridgeState
    refusal: SafetyRefusal | None
    partitions: int = 1
    listed: bool | None = None
    estimate_seconds: float | None = None
    estimate_basis: str = ""

    def cannot(self, long: bool) -> str:
        """Why this erase cannot run on this drive ("" when it can): a long erase needs ERASE, which a drive that does
        not list it (tgt) does not have."""
        if long and self.listed is False:
            return ("the drive does not implement ERASE (REPORT SUPPORTED OPERATION CODES does not list it): a long "
                    "erase cannot run there")
        return ""

    def announcement(self) -> str:
        """A long erase's warning, said before it starts: how long, and that it cannot be stopped mid-way."""
        took = f"about {duration_text(self.estimate_seconds)}" if self.estimate_seconds else "an unknown time"
        return f"a long erase takes {took} ({self.estimate_basis}); {CANNOT_STOP}"


def _other_partitions(drive: TapeDrive, count: int) -> str:
    """What the start of partition 1 and beyond holds ("" when blank); the tape is left at BOT."""
    try:
        for number in range(1, count):
            drive.locate(0, partition=number)
            out = drive.read(bytearray(safety.PROBE_BYTES))
            if out.nbytes:  # worded as the probe at BOT words it (``app.tapeperf.safety``)
                return f"a block at the start of partition {number} of {block_text(out.nbytes)}"
            if out.filemark:
                return f"a filemark at the start of partition {number}"
    finally:
        drive.rewind()
    return ""


def _erase_listed(drive: TapeDrive) -> bool | None:
    """Whether the drive lists ERASE(6) in REPORT SUPPORTED OPERATION CODES; None when it does not say."""
    try:
        commands = drive.supported_commands()
    except (DeviceError, ParseError):  # a drive that cannot answer the list just does not say
        return None
    return any(c.opcode == C.ERASE_6 for c in commands.commands)


def decide(check: EraseCheck, params: EraseParams) -> SafetyRefusal | None:
    """The erase's one decision: another cartridge than the one confirmed (``params.barcode``) is never erased;
    then the data overwrite's rules (``app.tapeperf.safety.decide``: write-protect and WORM never, data only
    with ``force``)."""
    state = check.state
    if params.barcode and state.barcode != params.barcode:
        loaded = f"'{state.barcode}'" if state.barcode else "a cartridge without a barcode in its memory"
        return SafetyRefusal(f"the loaded cartridge is {loaded}, not '{params.barcode}', the one the erase was "
                             "confirmed for: nothing was written", reason="another cartridge", overridable=False,
                             hint="load the cartridge you meant, and confirm the erase of that one")
    refusal = safety.decide(state, force=params.force)
    if refusal is not None and refusal.overridable:
        return SafetyRefusal(refusal.message, reason=refusal.reason, overridable=True,
                             hint="load a scratch cartridge, or erase it with --force")
    return refusal


def inspect(drive: TapeDrive, params: EraseParams) -> EraseCheck:
    """The checks before an erase, writing nothing: the media fit (``MediaRefusal``), the pre-write probe of every
    partition (it rewinds: the tape is left at BOT), whether the drive has ERASE, a long erase's estimate; the
    decision without ``force``."""
    drive.require_tape()
    drive.wait_ready(timeout=300.0)
    media.check_loaded(drive, writes=True, doing=f"a {params.kind} erase")
    state = safety.probe(drive, at_bot=True)
    partitions = ltfs.partition_count(drive) or 1
    if not state.holds_data and not state.write_protected and not state.worm:  # the probe looks at partition 0
        found = _other_partitions(drive, partitions)
        if found:
            state = replace(state, found=found)
    listed = _erase_listed(drive)
    seconds, basis = estimate(drive, partitions) if params.long else (None, "")
    check = EraseCheck(state, None, partitions, listed, seconds, basis)
    return replace(check, refusal=decide(check, replace(params, force=False)))


def check_cartridge(device: str, params: EraseParams) -> EraseCheck:
    """``inspect`` on ``device``, for a confirmation to show (the GUI's): the drive is claimed meanwhile, since the
    probe rewinds and must never move the tape under another run. Refused at once in a read-only session."""
    with TapeDrive.open(device) as drive, claimed(drive, "erase (checking the cartridge)"):
        if drive.read_only:
            raise ReadOnlyRefusal(drive.device, f"a {params.kind} erase was not started (it writes to the tape)")
        return inspect(drive, params)


class Erase:
    def __init__(self, drive: TapeDrive, params: EraseParams, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.drive, self.params, self.clock = drive, params, clock

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> EraseResult:
        cancel = cancel or CancelToken()
        drive, p = self.drive, self.params
        result = EraseResult(device=drive.device, kind=p.kind)
        if drive.read_only:
            raise ReadOnlyRefusal(drive.device, f"a {p.kind} erase was not started (it writes to the tape)")
        check = inspect(drive, p)
        result.cartridge, result.partitions = check.state, check.partitions
        refusal = decide(check, p)
        if refusal is not None:
            raise refusal
        if p.long:
            self._announce(result, sink, check)
        if cancel.cancelled:
            result.status, result.state_after = "cancelled", "nothing was written: the tape is as it was"
            return result
        t0 = self.clock()
        sink(PhaseStarted("erase"))
        for number in range(result.partitions):
            self._to_start(number)
            done = self._long(result, number, sink, cancel, t0) if p.long else self._short(result, number, check.listed)
            if not done:
                break
        result.seconds = self.clock() - t0
        if result.status == "complete":
            self._forget_ltfs(result)
            drive.rewind()
            result.state_after = self._state_words(result)
        sink(PhaseFinished("erase", result.to_dict()))
        return result

    def _announce(self, result: EraseResult, sink: EventSink, check: EraseCheck) -> None:
        """A long erase: refused on a drive without ERASE; else its estimate and that it cannot be stopped."""
        cannot = check.cannot(long=True)
        if cannot:
            raise InvalidParameter(f"{self.drive.device}: {cannot}; nothing was written",
                                   hint="a short erase ends the data at BOT with a filemark instead")
        result.estimate_seconds, result.estimate_basis = check.estimate_seconds, check.estimate_basis
        sink(Message("warning", check.announcement()))

    def _to_start(self, number: int) -> None:
        if number == 0:
            self.drive.rewind()
        else:
            self.drive.locate(0, partition=number)  # positioning, not writing

    def _short(self, result: EraseResult, number: int, listed: bool | None) -> bool:
        where = f"the start of partition {number}" if result.partitions > 1 else "BOT"
        if listed is not False:
            try:
                self.drive.erase(long=False)
                result.method.append(f"ERASE(6) LONG=0 at {where}")
                return True
            except IllegalRequest as err:
                if not is_not_supported(err):
                    raise
        self.drive.write_filemarks(1)
        result.method.append(f"WRITE FILEMARKS(6) at {where} (the drive does not implement ERASE)")
        result.notes.append(f"the drive does not implement ERASE: a filemark written at {where} ends the data "
                            "there; the tape now holds that one filemark")
        return True

    def _long(self, result: EraseResult, number: int, sink: EventSink, cancel: CancelToken, t0: float) -> bool:
        """ERASE LONG=1 IMMED=1, then REQUEST SENSE until the drive is ready; False when cancelled."""
        try:
            self.drive.erase(long=True, immed=True)
        except IllegalRequest as err:
            if not is_not_supported(err):
                raise
            raise InvalidParameter(f"{self.drive.device} does not implement a long erase ({err.message}); nothing was "
                                   "written", hint="a short erase ends the data at BOT with a filemark instead") from None
        result.method.append("ERASE(6) LONG=1 IMMED=1 at " + (f"the start of partition {number}"
                                                               if result.partitions > 1 else "BOT"))
        while True:
            progress = self._progress()
            if progress is None:
                return True
            result.progress = progress
            elapsed = self.clock() - t0
            total = result.estimate_seconds
            sink(Progress("erase", int(progress * 1000), 1000, elapsed, 0.0,
                          (total * (1 - progress)) if total else None))
            if cancel.cancelled or cancel.wait(self.params.poll_seconds):
                result.status = "cancelled"
                result.state_after = (f"cancelled at {percent(progress)} of partition {number}: tapediag stopped waiting, "
                                      "the drive goes on erasing to the end of the partition (SSC has no command to "
                                      "stop it) and answers NOT READY until then; the tape already reads as blank "
                                      "from where the erase began (end of data was written there first)")
                return False

    def _progress(self) -> float | None:
        """The erase's progress 0..1 while the drive reports it busy erasing, None once it is ready."""
        try:
            sense = self.drive.request_sense()
        except NotReady as err:
            sense = err.sense
        if sense is None or sense.key != 0x02 or (sense.asc, sense.ascq) not in ERASING:
            return None
        return sense.sks.progress if sense.sks is not None and sense.sks.progress is not None else 0.0

    def _forget_ltfs(self, result: EraseResult) -> None:
        """An erased LTFS volume's coherency information is cleared, partition by partition (WRITE ATTRIBUTE)."""
        if result.cartridge is None or result.cartridge.ltfs is None:
            return
        cleared = Attribute(VOLUME_COHERENCY, False, AttrFormat.BINARY, b"")
        try:
            for number in range(result.partitions):
                self.drive.write_attributes((cleared,), partition=number)
            result.notes.append("LTFS's volume coherency information (cartridge memory 080Ch) cleared: the memory "
                                "no longer names the erased volume; the cartridge keeps its partitions")
        except IllegalRequest as err:
            result.notes.append(f"the cartridge memory still names the LTFS volume (WRITE ATTRIBUTE refused: {err})")

    def _state_words(self, result: EraseResult) -> str:
        if self.params.long:
            return "erased to the end of the tape; it reads as blank (end of data at BOT)"
        if any("WRITE FILEMARKS" in m for m in result.method):
            return "end of data after one filemark at BOT: the old data can no longer be read, and is still on the tape"
        return "end of data at BOT: the old data can no longer be read, and is still on the tape until overwritten"

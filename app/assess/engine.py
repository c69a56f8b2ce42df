"""The drive assessment: evidence first, then the drive's own self-test and a write/read/verify.

Order matters. The support ticket's pages are captured before anything active runs (a
test changes the counters; reading TapeAlert 2Eh clears it), through a once-only cache
so that decoding them does not read 2Eh twice. Then: readiness, health from that
evidence, the self-test, the write/read/verify on a scratch cartridge (the tape test's
engine and its safety rules: a cartridge holding data is refused unless forced, write-
protect and WORM always), and what the drive's counters and TapeAlert say after it. Each
step has its own outcome, reason and, when it did not pass, what to do; ``rules.verdict``
combines them. What the host caused (a host that did not keep up, this machine under a
virtual drive) is a HOST note with the rate the host managed, never a drive warning.
"""
from __future__ import annotations

import datetime
from dataclasses import asdict, dataclass, field
from typing import Any, ClassVar, Mapping

from app.assess import rules
from app.assess.rules import Outcome, Verdict
from app.drive import ReadOnlyRefusal, TapeDrive, is_not_supported
from app.events import CancelToken, EventSink, Message, discard
from app.info import Verdict as Health
from app.info import gather
from app.patterns import Pattern
from app.runs.fields import Field
from app.tapeperf import TapePerfParams
from app.tapeperf.engine import TapePerfTest
from app.tapeperf.rated import BUFFER_MIB
from app.tapeperf.results import TapePerfResult
from app.alerts import HEALTH, flag_code, judge_alerts
from app.ticket import OnceTransport, Ticket, capture
from native.errors import (Cancelled, CheckCondition, ConnectionLost, DeviceError, InvalidParameter, NotReady,
                           SafetyRefusal)
from native.scsi.tapealert import CLEANING_FLAGS
from native.units import parse_size, percent, plural, rate_text

MiB = 1 << 20


def _size(text: str) -> int:
    """``--size 4G``: at least 1 MiB."""
    value = parse_size(text, "--size")
    if value < MiB:
        raise InvalidParameter("--size must be at least 1M")
    return value
#: The history's kind of an assessment run (``app.runs``), for every front end that records one.
RUN_KIND = "assessment"


@dataclass(frozen=True)
class AssessParams:
    """``size``: bytes the write/read step writes (None: 4 buffers, at least 2 GiB);
    ``no_write``: skip it (a partial assessment); ``force``: lift the refusal of a cartridge holding data."""

    size: int | None = None
    no_write: bool = False
    force: bool = False

    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("no_write", "&Do not write: skip the write, read-back and verify step (a partial assessment)",
              "skip the write/read step (a partial assessment)", flag=True),
        Field("size", "Data to &write:", "data to write and read back: empty is 4 drive buffers, at least 2 GiB (enough "
              "to stream past the drive's buffer); or a size such as 4G", metavar="SIZE", parse=_size,
              placeholder="4 drive buffers, at least 2 GiB", unit="size"),
        Field("force", "", "write even if the cartridge holds data (it is destroyed); never lifts write-protect/WORM",
              flag=True, gui=False),  # the GUI asks on its confirmation page
    )

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "AssessParams":
        """The size (None: the default amount) and the flags as the CLI's options or the GUI's fields give them."""
        size = values.get("size")
        return cls(size=_size(str(size)) if size is not None else None, no_write=bool(values.get("no_write")),
                   force=bool(values.get("force")))

    @classmethod
    def from_text(cls, size: str | None, *, no_write: bool = False, force: bool = False) -> "AssessParams":
        """``from_values`` of ``--size 4G`` (or None: the default amount) and the flags."""
        return cls.from_values({"size": size, "no_write": no_write, "force": force})

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Step:
    name: str
    outcome: Outcome
    reason: str
    action: str = ""  # what the technician does about it (a step that did not pass or did not run)


@dataclass
class AssessResult:
    device: str
    params: dict[str, Any]
    vendor: str = ""
    product: str = ""
    serial: str = ""
    firmware: str = ""
    status: str = "complete"
    error: str | None = None
    steps: list[Step] = field(default_factory=list)
    verdict: Verdict = Verdict.NOT_ASSESSED
    partial: bool = False
    next_action: str = ""
    evidence: dict[str, str] = field(default_factory=dict)  # raw pages captured first, hex
    tape: dict[str, Any] | None = None  # the write/read step's full result

    @property
    def exit_code(self) -> int:
        return rules.EXIT_CODES[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        d["steps"] = [{"name": s.name, "outcome": s.outcome.value, "reason": s.reason, "action": s.action}
                      for s in self.steps]
        d["exit_code"] = self.exit_code
        return d

    def step(self, name: str) -> Step | None:
        return next((s for s in self.steps if s.name == name), None)


class DriveAssessment:
    def __init__(self, drive: TapeDrive, params: AssessParams) -> None:
        self.drive, self.params = drive, params

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> AssessResult:
        cancel = cancel or CancelToken()
        drive = self.drive
        if drive.read_only:  # before any command, as tape-perf: the self-test and the write step change state
            raise ReadOnlyRefusal(drive.device, "the assessment was not started (its self-test, SEND DIAGNOSTIC, "
                                                "changes the drive's state" + (")" if self.params.no_write else
                                                                                 " and its write step writes test data)"))
        result = AssessResult(device=drive.device, params=self.params.to_dict())
        inq = drive.inquiry()  # the tape gate: a non-tape is refused here, before anything else
        result.vendor, result.product, result.firmware = inq.vendor, inq.product, inq.revision
        try:
            self._steps(result, sink, cancel)
        except Cancelled as err:  # a command given up after a cancel (app.commandwatch): said once, kept
            result.status, result.error = "cancelled", str(err)
            sink(Message("warning", str(err)))
        if result.status == "cancelled" and all(s.name != rules.WRITE_READ for s in result.steps):
            result.steps.append(Step(rules.WRITE_READ, Outcome.NOT_RUN, "cancelled before it started",
                                     "Run the assessment again and let it finish."))
        self._conclude(result)
        return result

    def _steps(self, result: AssessResult, sink: EventSink, cancel: CancelToken) -> None:
        """The steps in order; a cancel ends them between two (issue 27: a SIGTERM during the evidence
        capture still ran the self-test and the write), with the run's status "cancelled"."""
        drive = self.drive
        ready = self._readiness(result)
        if self._stopped(result, cancel, "before the support evidence was captured"):
            return
        info = self._evidence(result, sink)
        if info is not None:
            result.serial = info.identity.serial or ""
            self._health(result, info.health.verdict, info.health.reasons)
        if self._stopped(result, cancel, "before the self-test"):
            return
        self._self_test(result, sink)
        if self._stopped(result, cancel, "before the write/read step"):
            return
        if self.params.no_write:
            # Words for both front ends (the CLI's --no-write is the GUI's "Do not write" box): issue 31.
            result.steps.append(Step(rules.WRITE_READ, Outcome.NOT_RUN, "skipped (asked not to write)",
                                     f"Load a scratch cartridge and assess {drive.device} again with its write "
                                     "step: the verdict rests on the write, read back and verify."))
        elif not ready:
            result.steps.append(Step(rules.WRITE_READ, Outcome.NOT_ASSESSED, "no cartridge ready",
                                     "Load a scratch cartridge and run the assessment again."))
        else:
            self._write_read(result, sink, cancel)

    @staticmethod
    def _stopped(result: AssessResult, cancel: CancelToken, where: str) -> bool:
        if cancel.cancelled:
            result.status, result.error = "cancelled", f"cancelled {where}"
        return cancel.cancelled

    @staticmethod
    def _conclude(result: AssessResult) -> None:
        """The verdict, whether it is partial, and the next action, from the steps (``rules``)."""
        result.verdict = rules.verdict([(s.name, s.outcome) for s in result.steps],
                                       cancelled=result.status == "cancelled")
        result.partial = any(s.outcome in (Outcome.NOT_RUN, Outcome.NOT_ASSESSED) for s in result.steps)
        result.next_action = _next_action(result)

    # -- steps ------------------------------------------------------------------------

    def _readiness(self, result: AssessResult) -> bool:
        try:
            self.drive.wait_ready(timeout=300.0)
        except NotReady as err:
            result.steps.append(Step("identity and readiness", Outcome.NOT_ASSESSED,
                                     f"a tape drive, but not ready: {err}", "Load a scratch cartridge and run the "
                                                                          "assessment again."))
            return False
        except CheckCondition as err:
            result.steps.append(Step("identity and readiness", Outcome.FAIL, f"TEST UNIT READY failed: {err}"))
            return False
        result.steps.append(Step("identity and readiness", Outcome.PASS,
                                 f"{result.vendor} {result.product} firmware {result.firmware}, ready"))
        return True

    def _evidence(self, result: AssessResult, sink: EventSink) -> Any:
        """The ticket's pages, captured before any active step; then decoded from that capture."""
        sink(Message("info", "capturing the drive's pages before any test (support evidence)"))
        once = TapeDrive(OnceTransport(self.drive.transport), device=self.drive.device, read_only=True)
        ticket = Ticket(device=result.device, created=datetime.datetime.now(datetime.timezone.utc).isoformat())
        try:
            capture(once, ticket)
            info = gather(once)
        except (ConnectionLost, Cancelled):
            raise
        except DeviceError as err:
            result.steps.append(Step(rules.HEALTH, Outcome.NOT_ASSESSED, f"could not be read: {err}",
                                     "Run 'tapediag info' on this drive to see which query fails, then the assessment "
                                     "again."))
            return None
        result.evidence = {c.name: c.data.hex() for c in ticket.captures if c.data is not None}
        return info

    def _health(self, result: AssessResult, health: Health, reasons: tuple[str, ...]) -> None:
        """The health step is ``tapediag info``'s verdict, taken as it is (``app.info.gather``): the two agree."""

        outcome = {Health.HEALTHY: Outcome.PASS, Health.ATTENTION: Outcome.WARN, Health.FAILING: Outcome.FAIL}.get(
            health, Outcome.NOT_ASSESSED)
        why = f"'tapediag info' says {health.value}: " + "; ".join(reasons)
        action = HEALTH.get(health.value, ("", ""))[1] if outcome is not Outcome.PASS else ""
        result.steps.append(Step(rules.HEALTH, outcome, why, action))

    def _self_test(self, result: AssessResult, sink: EventSink) -> None:
        sink(Message("info", "running the drive's self-test (SEND DIAGNOSTIC)"))
        try:
            self.drive.self_test()
        except CheckCondition as err:
            if is_not_supported(err):
                result.steps.append(Step("drive self-test", Outcome.NOT_ASSESSED, "the drive does not run a self-test "
                                                                                  "on request"))
            else:
                result.steps.append(Step("drive self-test", Outcome.FAIL, f"the self-test failed: {err}"))
            return
        result.steps.append(Step("drive self-test", Outcome.PASS, "the drive's default self-test passed"))

    def _write_read(self, result: AssessResult, sink: EventSink, cancel: CancelToken) -> None:
        drive = self.drive
        generation = drive.generation()
        size = self.params.size or max(rules.MIN_SIZE, rules.BUFFERS_TO_WRITE * BUFFER_MIB.get(generation or 0, 512) * MiB)
        tp = TapePerfParams(direction="write+read", pattern=Pattern.parse("random"), block_size=MiB, io_size=MiB,
                            mode="variable", size=size // MiB * MiB, verify=True, force=self.params.force)
        try:
            tape = TapePerfTest(drive, tp).run(sink, cancel)  # puts the block mode and compression back itself
        except SafetyRefusal as err:
            # The refusal's own hint is tape-perf's (--start eod): the assessment's advice is its own.
            force = " (or --force if its data may be destroyed)" if err.overridable else ""
            result.steps.append(Step(rules.WRITE_READ, Outcome.NOT_ASSESSED, f"not run: {err.message}",
                                     f"Load a scratch cartridge and run the assessment again{force}."))
            return
        result.tape = tape.to_dict()
        if tape.status == "cancelled":
            result.status = "cancelled"
        self._judge_tape(result, tape)

    def _judge_tape(self, result: AssessResult, tape: TapePerfResult) -> None:
        write, read = tape.phase("write"), tape.phase("read")
        name = rules.WRITE_READ
        if tape.status == "cancelled":  # before "a phase is missing": a cancel is no failure of the drive
            result.steps.append(Step(name, Outcome.NOT_RUN, "cancelled before it finished",
                                     "Run the assessment again and let it finish."))
            return
        if tape.status == "failed" or write is None or read is None:
            result.steps.append(Step(name, Outcome.FAIL, f"the test failed: {tape.error}"))
            return
        if read.verify_errors:
            result.steps.append(Step(name, Outcome.FAIL, f"{read.verify_errors} blocks read back differ from what was "
                                                         f"written ({read.first_verify_error})"))
        else:
            result.steps.append(Step(name, Outcome.PASS, f"{write.bytes / 1e9:,.2f} GB written, read back and "
                                                         "verified without a difference"))
        self._judge_counters(result, tape, write.bytes + read.bytes)
        self._judge_backhitches(result, tape)
        self._judge_speed(result, tape)

    def _judge_counters(self, result: AssessResult, tape: TapePerfResult, moved: int) -> None:
        """Errors counted and TapeAlert flags set during the write and read (flags judged as ``info`` judges them)."""
        name = "errors and TapeAlert during the test"
        deltas = {d.name: d.delta for d in tape.log_deltas if d.delta is not None}
        alerts = judge_alerts(tape.tapealert)
        failing = alerts is not None and alerts.verdict == Health.FAILING.value
        uncorrected = sum(v for k, v in deltas.items() if "uncorrected" in k)
        corrected = sum(v for k, v in deltas.items() if "errors corrected" in k)
        gb = moved / 1e9
        if failing or uncorrected:
            why = ", ".join(filter(None, [f"{uncorrected} uncorrected errors" if uncorrected else "",
                                          ("TapeAlert " + ", ".join(alerts.flags)) if alerts else ""]))
            result.steps.append(Step(name, Outcome.FAIL, why))
        elif alerts is not None:
            cleaning = any(flag_code(f) in CLEANING_FLAGS for f in tape.tapealert)
            first = ("Clean the drive with a cleaning cartridge and run the assessment again" if cleaning else
                     "Run the assessment again with another scratch cartridge")
            result.steps.append(Step(name, Outcome.WARN if alerts.exit_code else Outcome.PASS,
                                     "TapeAlert raised: " + ", ".join(alerts.flags),
                                     f"{first}; if a flag comes back, open a case with the drive's vendor "
                                     f"(TapeAlert's advice: {' '.join(alerts.advice)})"))
        elif gb and corrected / gb > rules.CORRECTED_PER_GB_WARN:
            result.steps.append(Step(name, Outcome.WARN, f"{corrected} corrected errors in {gb:,.1f} GB"))
        elif not deltas:
            result.steps.append(Step(name, Outcome.NOT_ASSESSED, "the drive reports no error counters"))
        else:
            result.steps.append(Step(name, Outcome.PASS, f"no uncorrected errors, {corrected} corrected in {gb:,.1f} GB, "
                                                         "no TapeAlert flag"))

    def _judge_backhitches(self, result: AssessResult, tape: TapePerfResult) -> None:
        """Back-hitches while the host kept up are the drive's; those the host caused are a HOST note (each
        stall's cause: ``app.tapeperf.results.stall_cause``, over the time the drive's buffer lasts)."""
        name = "back-hitches while the host kept up"
        drive = [s for ph in tape.phases for s in ph.drive_stalls]
        outcome = Outcome.WARN if len(drive) > rules.BACKHITCHES_WARN else Outcome.PASS
        phases = " and ".join(ph.phase for ph in tape.phases)
        result.steps.append(Step(name, outcome, f"{plural(len(drive), 'back-hitch', 'back-hitches')} while streaming "
                                                f"({phases})", "Clean the drive and run the assessment again."
                                 if outcome is Outcome.WARN else ""))
        caused = [s for ph in tape.phases for s in ph.host_stalls]
        if caused:
            machine = all(s.cause == "emulator" for s in caused)
            rates = [s.host_mb_s for s in caused if s.host_mb_s is not None]
            window = caused[0].window or 0.0
            span = f"{window * 1000:,.0f} ms" if window < 1 else f"{window:,.1f} s"
            managed = f": it managed {rate_text(min(rates))} in the {span} before" if rates else ""
            who = "this machine (the virtual drive fell behind its own model)" if machine else "the host did not keep up"
            result.steps.append(Step("back-hitches the host caused", Outcome.HOST,
                                     f"{plural(len(caused), 'back-hitch', 'back-hitches')}: {who}{managed}",
                                     "None for the drive; feed it faster (a less loaded host) to measure it alone."))

    def _judge_speed(self, result: AssessResult, tape: TapePerfResult) -> None:
        name = "speed against what this drive can do"
        for ph in tape.phases:
            lim, pct = tape.limiter(ph), tape.percent_of_possible(ph)
            if lim.who in ("host", "emulator"):
                rate = rate_text(ph.streaming_mb_per_s or ph.mb_s)
                who = "this machine did not keep up with the virtual drive" if lim.who == "emulator" \
                    else "the host did not keep up"
                result.steps.append(Step(f"{name} ({ph.phase})", Outcome.HOST, f"{who}: it managed {rate} ({lim.why})",
                                         "None for the drive: to measure its speed, run the assessment from a host "
                                         "that can feed it."))
                continue
            if lim.who not in ("drive", "link") or pct is None:
                result.steps.append(Step(f"{name} ({ph.phase})", Outcome.NOT_ASSESSED, lim.why,
                                         "Write more data (--size) so that the drive streams long enough to judge."))
                continue
            outcome = Outcome.WARN if pct < rules.SPEED_WARN_PERCENT else Outcome.PASS
            label = tape.possible.label if tape.possible else ""
            result.steps.append(Step(f"{name} ({ph.phase})", outcome,
                                     f"{rate_text(ph.streaming_mb_per_s or 0)}, {percent(pct / 100)} of {label}",
                                     "Clean the drive and run the assessment again with another cartridge."
                                     if outcome is Outcome.WARN else ""))


def _next_action(result: AssessResult) -> str:
    """One action, from the steps: a failure first, then a cancel, the warnings, the steps a verdict needs."""
    failed = [s for s in result.steps if s.outcome is Outcome.FAIL]
    if result.status == "cancelled":
        seen = f" (before the cancel, {failed[0].name} failed: {failed[0].reason})" if failed else ""
        return f"Cancelled before the end, so nothing is concluded{seen}: run the assessment again and let it finish."
    if failed:
        return (f"Open a support case with the drive's vendor: {failed[0].name} failed. Attach this report and "
                "the support ticket ('tapediag ticket').")
    actions = [s.action for s in result.steps if s.outcome is Outcome.WARN and s.action]
    actions += [s.action for s in result.steps if s.name in rules.REQUIRED and s.outcome in
                (Outcome.NOT_RUN, Outcome.NOT_ASSESSED) and s.action]
    if result.verdict is Verdict.PASS_WITH_WARNINGS and not actions:
        actions.append("Clean the drive with a cleaning cartridge and run the assessment again; if the warning stays, "
                       "open a case.")
    if actions:
        return " Then: ".join(dict.fromkeys(actions))
    unknown = [s.name for s in result.steps if s.outcome in (Outcome.NOT_RUN, Outcome.NOT_ASSESSED)]
    return "No action needed" + (f" ({', '.join(unknown)}: not checked, each step says why)." if unknown else ".")

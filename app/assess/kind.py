"""The drive assessment as a run kind (``assessment``): parameters, engine, typed result, renderers."""
from __future__ import annotations

from app.assess.engine import AssessParams, AssessResult, DriveAssessment
from app.assess.rules import Outcome, words
from app.assess.text import summary_lines
from app.history.figures import VisitFigures
from app.runs.kind import EXIT_CANCELLED, Command, Finding, RunContext, RunKind, Rows, Stretch, Target
from app.runs.stored import result_of
from app.tapeperf.buffered import stretches as flush_stretches
from app.tapeperf.kind import TAPE_PERF, visit_figures as tape_visit_figures
from app.tapeperf.results import TapePerfResult
from native.units import plural

#: The assessment's verdicts as a tone: the one place both the PDF and the GUI take it from.
TONES = {"PASS": "good", "PASS WITH WARNINGS": "warn", "ATTENTION": "warn", "FAIL": "bad"}


def headline(result: AssessResult) -> str:
    return words(result.verdict.value, partial=result.partial, status=result.status)


def exit_code(result: AssessResult) -> int:
    """The verdict's code (``app.assess.EXIT_CODES``); 130 cancelled."""
    return EXIT_CANCELLED if result.status == "cancelled" else result.exit_code


def findings(result: AssessResult) -> list[Finding]:
    """The verdict with the steps that did not pass (or what passed), then the host's notes on their own."""
    steps = result.steps
    bad = [f"{s.name}: {s.reason}" for s in steps if s.outcome in (Outcome.FAIL, Outcome.WARN)]
    unknown = [f"{s.name}: {s.reason}" for s in steps if s.outcome in (Outcome.NOT_ASSESSED, Outcome.NOT_RUN)]
    passed = sum(1 for s in steps if s.outcome is Outcome.PASS)
    detail = "; ".join(bad + unknown + ([plural(passed, "check") + " passed"] if passed else []))
    tone = TONES.get(result.verdict.value, "none") if result.status != "cancelled" else "none"
    out = [Finding("Drive assessment", headline(result), tone, detail, result.next_action)]
    for s in steps:
        if s.outcome is Outcome.HOST:
            note = s.reason.split(" (", 1)[0]
            out.append(Finding("Host (during the assessment)", note[:1].upper() + note[1:], "none",
                               f"{s.name}: {s.reason}", s.action))
    return out


def rows(r: AssessResult) -> Rows:
    out = [("Verdict", headline(r)), ("Next action", r.next_action)]
    out += [("Drive", f"{r.vendor} {r.product}, firmware {r.firmware}" + (f", serial {r.serial}" if r.serial else ""))]
    out += [(f"{s.outcome.value.upper()}: {s.name}", s.reason) for s in r.steps]
    return out


def _engine(ctx: RunContext[AssessParams]) -> DriveAssessment:
    return DriveAssessment(ctx.drive, ctx.params)


def _tape_test(r: AssessResult) -> TapePerfResult | None:
    """The write/read step's tape test, read as the tape test it stores (``DamagedResult`` when it cannot be); None
    when the assessment did not get that far."""
    return result_of(TAPE_PERF, r.tape) if r.tape is not None else None


def visit_figures(r: AssessResult) -> VisitFigures:
    """What an assessment says about its cartridge and drive (``app.visits``): its write/read step's."""
    tape = _tape_test(r)
    return tape_visit_figures(tape) if tape is not None else VisitFigures()


def yardstick(r: AssessResult) -> tuple[str, float] | None:
    """What the speed steps judge the write/read step's rates against ("400 MB/s possible for incompressible data on
    LTO-9"): the plot's one reference line, and a scale made for it, which a few readings from the drive's buffer
    cannot squash (``app.report.plots``)."""
    tape = _tape_test(r)
    return tape.yardstick if tape is not None else None


def stretches(r: AssessResult) -> list[Stretch]:
    """The write step's closing flush on the plot, as the tape test marks it (``app.tapeperf.buffered``): the
    assessment's write is short, so the curve is the host's pace into the buffer, not what the drive wrote."""
    tape = _tape_test(r)
    return flush_stretches(tape) if tape is not None else []


ASSESSMENT: RunKind[AssessParams, AssessResult] = RunKind(
    "assessment", "Drive assessment", Target.DRIVE, AssessParams, AssessResult, _engine, headline=headline,
    text=lambda r: "\n".join(summary_lines(r)), rows=rows, findings=findings, exit_code=exit_code, visit=visit_figures,
    yardstick=yardstick, stretches=stretches,
    command=Command("assess", "drive assessment: evidence, self-test and a write/read/verify on a scratch cartridge "
                              "-> PASS/WARN/FAIL"))

__all__ = ["ASSESSMENT", "TONES", "exit_code", "findings", "headline", "rows"]

"""The drive assessment as a run kind (``assessment``): parameters, engine, typed result, renderers."""
from __future__ import annotations

from app.assess.engine import AssessParams, AssessResult, DriveAssessment
from app.assess.rules import Outcome, words
from app.assess.text import summary_lines
from app.history.figures import VisitFigures
from app.runs.kind import EXIT_CANCELLED, Command, Finding, RunContext, RunKind, Rows, Target
from app.runs.stored import result_of
from app.tapeperf.kind import TAPE_PERF, visit_figures as tape_visit_figures
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


def visit_figures(r: AssessResult) -> VisitFigures:
    """What an assessment says about its cartridge and drive (``app.visits``): its write/read step's, read as the
    tape test it stores (``DamagedResult`` when it cannot be); none when it did not get that far."""
    tape = result_of(TAPE_PERF, r.tape) if r.tape is not None else None
    return tape_visit_figures(tape) if tape is not None else VisitFigures()


ASSESSMENT: RunKind[AssessParams, AssessResult] = RunKind(
    "assessment", "Drive assessment", Target.DRIVE, AssessParams, AssessResult, _engine, headline=headline,
    text=lambda r: "\n".join(summary_lines(r)), rows=rows, findings=findings, exit_code=exit_code, visit=visit_figures,
    command=Command("assess", "drive assessment: evidence, self-test and a write/read/verify on a scratch cartridge "
                              "-> PASS/WARN/FAIL"))

__all__ = ["ASSESSMENT", "TONES", "exit_code", "findings", "headline", "rows"]

"""The assessment's rules as data: each threshold once, with why it is where it is.

A step's outcome is PASS, WARN, FAIL, NOT ASSESSED (the evidence was not there), NOT RUN
(skipped: ``--no-write``, a cancel) or HOST (what the step measured was the host's, not
the drive's: a host that did not keep up, or this machine under an emulated drive; a
note, never against the drive).

The overall verdict: any FAIL is FAIL. PASS and PASS WITH WARNINGS need the two steps
the verdict rests on (``REQUIRED``): the drive's health evidence, judged by ``tapediag
info``'s own rule (so ``info`` and ``assess`` agree), and the verified write and read back
(the main step). Without them nothing passes: a warning seen is ATTENTION, else NOT
ASSESSED. A cancelled assessment is NOT ASSESSED, whatever it saw before the cancel.
"""
from __future__ import annotations

import enum

from app.scan.thresholds import CORRECTED_PER_GB_MONITOR, REPOSITIONS_MONITOR


class Outcome(str, enum.Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    NOT_ASSESSED = "not assessed"
    NOT_RUN = "not run"
    HOST = "host"


class Verdict(str, enum.Enum):
    PASS = "PASS"
    PASS_WITH_WARNINGS = "PASS WITH WARNINGS"
    #: A warning was found, but the steps a PASS rests on did not both run: not a pass, something to act on.
    ATTENTION = "ATTENTION"
    FAIL = "FAIL"
    NOT_ASSESSED = "NOT ASSESSED"


#: Exit codes, the same numbers as ``info``'s verdicts (0 good, 10 warn, 11 bad, 12 no evidence).
EXIT_CODES = {Verdict.PASS: 0, Verdict.PASS_WITH_WARNINGS: 10, Verdict.ATTENTION: 10, Verdict.FAIL: 11,
              Verdict.NOT_ASSESSED: 12}

#: The step names, once: the CLI, the GUI's rows and the tests read them.
HEALTH = "TapeAlert and device status"
WRITE_READ = "write, read back and verify"
#: The steps without whose PASS (or WARN) no verdict can pass: the health evidence and the main step.
REQUIRED = (HEALTH, WRITE_READ)

#: A drive-limited streaming rate below this % of what the drive can do with the data is a warning:
#: a healthy drive streams near its rating when the host keeps up (tapediag's threshold).
SPEED_WARN_PERCENT = 70.0
#: Corrected errors per GB above which the drive is worth watching (the media scan's threshold).
CORRECTED_PER_GB_WARN = CORRECTED_PER_GB_MONITOR
#: Back-hitches while the host kept up above which the drive (or the cartridge) is worth watching.
BACKHITCHES_WARN = REPOSITIONS_MONITOR
#: How much the write/read step writes by default: enough to stream past the drive's buffer.
BUFFERS_TO_WRITE = 4
MIN_SIZE = 2 << 30


def verdict(steps: list[tuple[str, Outcome]], *, cancelled: bool = False) -> Verdict:
    """The overall verdict from each step's (name, outcome), by the rules above."""
    outcomes = [o for _, o in steps]
    if cancelled:
        return Verdict.NOT_ASSESSED
    if Outcome.FAIL in outcomes:
        return Verdict.FAIL
    done = {name for name, o in steps if o in (Outcome.PASS, Outcome.WARN)}
    if not all(name in done for name in REQUIRED):
        return Verdict.ATTENTION if Outcome.WARN in outcomes else Verdict.NOT_ASSESSED
    return Verdict.PASS_WITH_WARNINGS if Outcome.WARN in outcomes else Verdict.PASS


def words(verdict_value: str, *, partial: bool, status: str = "complete") -> str:
    """The verdict as every front end prints it: "NOT ASSESSED (cancelled)", "PASS (partial)" (a step that is
    not required was not checked), else the verdict alone."""
    if status == "cancelled":
        return f"{Verdict.NOT_ASSESSED.value} (cancelled)"
    if partial and verdict_value in (Verdict.PASS.value, Verdict.PASS_WITH_WARNINGS.value):
        return f"{verdict_value} (partial)"
    return verdict_value

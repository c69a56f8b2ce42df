"""The assessment's rules as data: each threshold once, with why it is where it is.

A step's outcome is PASS, WARN, FAIL or NOT ASSESSED (the evidence was not there). The
overall verdict: any FAIL is FAIL; else any WARN is PASS WITH WARNINGS; else PASS when at
least the health and the write/read steps passed, NOT ASSESSED when nothing could be
checked. Steps not run (``--no-write``) make the verdict partial, and it says so.
"""
from __future__ import annotations

import enum

from app.scan.results import CORRECTED_PER_GB_MONITOR, MEDIA_FLAGS_RETIRE, REPOSITIONS_MONITOR


class Outcome(str, enum.Enum):
    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    NOT_ASSESSED = "not assessed"
    NOT_RUN = "not run"


class Verdict(str, enum.Enum):
    PASS = "PASS"
    PASS_WITH_WARNINGS = "PASS WITH WARNINGS"
    FAIL = "FAIL"
    NOT_ASSESSED = "NOT ASSESSED"


#: Exit codes, the same numbers as ``info``'s verdicts (0 good, 10 warn, 11 bad, 12 no evidence).
EXIT_CODES = {Verdict.PASS: 0, Verdict.PASS_WITH_WARNINGS: 10, Verdict.FAIL: 11, Verdict.NOT_ASSESSED: 12}

#: A drive-limited streaming rate below this % of what the drive can do with the data is a warning:
#: a healthy drive streams near its rating when the host keeps up (tapediag's threshold).
SPEED_WARN_PERCENT = 70.0
#: Corrected errors per GB above which the drive is worth watching (the media scan's threshold).
CORRECTED_PER_GB_WARN = CORRECTED_PER_GB_MONITOR
#: Back-hitches while the host kept up above which the drive (or the cartridge) is worth watching.
BACKHITCHES_WARN = REPOSITIONS_MONITOR
#: TapeAlert flags raised during the test that fail it: the medium or the drive's hardware.
FAIL_FLAGS = set(MEDIA_FLAGS_RETIRE) | {0x06, 0x1E, 0x1F}  # 06h write failure, 1Eh hardware A, 1Fh hardware B
#: How much the write/read step writes by default: enough to stream past the drive's buffer.
BUFFERS_TO_WRITE = 4
MIN_SIZE = 2 << 30


def verdict(outcomes: list[Outcome]) -> Verdict:
    if Outcome.FAIL in outcomes:
        return Verdict.FAIL
    if Outcome.WARN in outcomes:
        return Verdict.PASS_WITH_WARNINGS
    if Outcome.PASS in outcomes:
        return Verdict.PASS
    return Verdict.NOT_ASSESSED

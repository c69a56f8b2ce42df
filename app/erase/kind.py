"""The erase as a run kind (``erase``): parameters, engine, typed result, renderers (issue 30 §3).

Recorded once through ``app.execute`` like every run: a refused erase is a ``refused`` run (nothing written), a
cancelled long erase a ``cancelled`` one saying what the drive does then, so a technician's history shows every
erase a cartridge went through, and the report names the cartridge and the LTFS volume it held.
"""
from __future__ import annotations

from app.erase.engine import Erase
from app.erase.params import EraseParams
from app.erase.result import EraseResult
from app.erase.text import headline, rows, text
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, Command, Finding, RunContext, RunKind, Target

_TONES = {"complete": "good", "cancelled": "warn", "failed": "bad"}


def exit_code(result: EraseResult) -> int:
    """0 done, 130 cancelled (the drive may still be erasing: the text says so), 1 failed."""
    return {"complete": EXIT_OK, "cancelled": EXIT_CANCELLED}.get(result.status, EXIT_FAILED)


def findings(result: EraseResult) -> list[Finding]:
    """One finding: the erase and the state of the tape after it."""
    words = {"complete": "Done", "cancelled": "Cancelled", "failed": "Failed"}.get(result.status, result.status)
    action = ("Wait until the drive is ready again before using it: it erases on to the end of the tape."
              if result.status == "cancelled" and result.kind == "long" else "")
    return [Finding(f"{result.kind.capitalize()} erase", words, _TONES.get(result.status, "none"), result.state_after,
                    action)]


def _engine(ctx: RunContext[EraseParams]) -> Erase:
    return Erase(ctx.drive, ctx.params)


ERASE: RunKind[EraseParams, EraseResult] = RunKind(
    "erase", "Erase", Target.DRIVE, EraseParams, EraseResult, _engine, headline=headline, text=text, rows=rows,
    findings=findings, exit_code=exit_code,
    command=Command("erase", "erase a cartridge: --short ends the data at the start of the tape, --long overwrites "
                             "the whole tape; never a cartridge holding data without --force"))

__all__ = ["ERASE", "exit_code", "findings"]

"""A drive assessment as ``tapediag assess`` prints it (and ``show`` prints it again)."""
from __future__ import annotations

from app.assess.engine import AssessResult
from app.assess.rules import Outcome, words

MARK = {Outcome.PASS: "PASS", Outcome.WARN: "WARN", Outcome.FAIL: "FAIL", Outcome.NOT_ASSESSED: "----",
        Outcome.NOT_RUN: "skip", Outcome.HOST: "HOST"}


def summary_lines(result: AssessResult) -> list[str]:
    head = f"{result.device}: {result.vendor} {result.product} firmware {result.firmware}"
    if result.serial:
        head += f", serial {result.serial}"
    verdict = words(result.verdict.value, partial=result.partial, status=result.status)
    lines = [head, f"assessment: {verdict}"]
    lines += [f"  [{MARK[s.outcome]}] {s.name}: {s.reason}" for s in result.steps]
    lines.append(f"next: {result.next_action}")
    return lines


__all__ = ["MARK", "summary_lines"]

"""Evaluating the recommendation rules of ``resources/rules/recommendations.json``.

A rule is data: clauses over the analysis facts, an advice, a reason template and
the white paper section it comes from. This module only interprets that data; no
recommendation is written as a code branch.
"""
from __future__ import annotations

import operator
import string
from typing import Any, Callable, Mapping

from native.errors import TapediagError

from .analysis import fmt
from .data import rules_document
from .model import Recommendation

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne,
}
SEVERITY_ORDER = {"high": 0, "medium": 1, "info": 2}


def clause_holds(clause: Mapping[str, Any], facts: Mapping[str, Any]) -> bool:
    """One clause; a clause on an unknown fact (None) never holds, except ``!=``."""
    if "any" in clause:
        return any(clause_holds(c, facts) for c in clause["any"])
    if "all" in clause:
        return all(clause_holds(c, facts) for c in clause["all"])
    op = _OPS.get(clause.get("op", ""))
    if op is None or "fact" not in clause:
        raise TapediagError(f"malformed troubleshooting rule clause: {dict(clause)}")
    left = facts.get(clause["fact"])
    if "other" in clause:
        right = facts.get(clause["other"])
        if right is not None:
            right = right * clause.get("times", 1)
    else:
        right = clause.get("value")
    if clause["op"] == "!=" and left is None:
        return True
    if left is None or right is None:
        return False
    try:
        return bool(op(left, right))
    except TypeError:
        return False


class _Formatted(dict):
    """Facts for ``str.format_map``: numbers printed like the white paper, unknown as '?'."""

    def __missing__(self, key: str) -> str:
        return "?"


def render(template: str, facts: Mapping[str, Any]) -> str:
    values = _Formatted()
    for key, value in facts.items():
        if isinstance(value, bool) or value is None:
            values[key] = "?" if value is None else ("on" if value else "off")
        elif isinstance(value, (int, float)):
            values[key] = fmt(float(value))
        else:
            values[key] = str(value)
    return string.Formatter().vformat(template, (), values)


def evaluate(facts: Mapping[str, Any], rules: list[dict] | None = None) -> tuple[Recommendation, ...]:
    """The recommendations whose conditions hold, most severe first (stable within a severity)."""
    rules = rules_document()["rules"] if rules is None else rules
    fired = [
        Recommendation(id=r["id"], severity=r["severity"], title=r["title"], advice=r["advice"],
                       reason=render(r["reason"], facts), source=r["source"])
        for r in rules
        if all(clause_holds(c, facts) for c in r["when"])
    ]
    return tuple(sorted(fired, key=lambda rec: SEVERITY_ORDER.get(rec.severity, 9)))

"""The two runs' own verdicts (each kind's ``findings``, page 1's words), topic by topic.

A verdict's tone is the kind's own judgement (good, warn, bad); a better tone is an improvement, a worse one
is worse, whatever the figures did: the verdict already weighed them. "none" is no verdict (a run too short
to judge, a note): nothing to rank.
"""
from __future__ import annotations

from typing import Any

from app.compare.model import Row
from app.compare.noise import IMPROVED, NOT_COMPARABLE, SAME, WORSE
from app.runs.kind import Finding
from app.runs.stored import Loaded

#: Tones from worst to best (``app.runs.TONES``); "none" is no verdict and is not ranked.
RANK = {"bad": 0, "warn": 1, "good": 2}
TONE_WORDS = {"good": "OK", "warn": "check", "bad": "act", "none": "no verdict"}


def _words(f: Finding | None) -> str:
    """The verdict's words up to their first colon (the figure: its explanation is the run's own page), and its tone."""
    return "not given" if f is None else f"{f.words.split(': ')[0]} ({TONE_WORDS.get(f.tone, f.tone)})"


def _judge(a: Finding | None, b: Finding | None) -> str:
    if a is None or b is None or a.tone not in RANK or b.tone not in RANK:
        return NOT_COMPARABLE  # given by one run only, or no verdict to rank (a run too short to judge, a note)
    if RANK[a.tone] == RANK[b.tone]:
        return SAME
    return IMPROVED if RANK[b.tone] > RANK[a.tone] else WORSE


def rows(a: Loaded[Any], b: Loaded[Any]) -> list[Row]:
    """One row per topic either run gives a verdict on (the first of each topic), in the order they give them."""
    fa = {f.topic: f for f in reversed(a.findings())}
    fb = {f.topic: f for f in reversed(b.findings())}
    out = []
    for topic in dict.fromkeys([f.topic for f in a.findings()] + [f.topic for f in b.findings()]):
        x, y = fa.get(topic), fb.get(topic)
        basis = ("given by one run only" if x is None or y is None else "the runs' own verdicts" if
                 _judge(x, y) != NOT_COMPARABLE else "no verdict to rank in one run or both")
        out.append(Row(f"Verdict: {topic}", _words(x), _words(y), "", _judge(x, y), basis))
    return out


__all__ = ["rows"]

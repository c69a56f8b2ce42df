"""What a run *is*, defined once per test type: the run model every front end renders from.

A ``RunKind`` names a test type (the history's ``kind``), its title, the one-line
headline of a stored result, the text the run printed when it ran (``show`` prints it
again, the GUI's history uses the headline), and for the PDF report its verdicts in
words with what to do (``Finding``, page 1) and its labelled, rounded rows, reading
typed results back with ``app.runs.typed.from_dict``. Adding a test type is its own module(s) plus one
``register`` call here (and its GUI panel).

This module stays light to import (the history list imports it): each kind imports its
engine's result class and renderer only when asked to render.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

Results = dict[str, Any]

#: How a finding reads at a glance (the PDF's colour): fine, look at it, act now, or no verdict.
TONES = ("good", "warn", "bad", "none")


@dataclass(frozen=True)
class Finding:
    """One verdict of a run in words, for the customer's manager: what was judged
    (``topic``), the verdict (``words``, with its figure and unit), why (``detail``)
    and what to do (``action``). ``tone`` is one of ``TONES``."""

    topic: str  # "Drive health", "Tape write rate", "Backup bottleneck"
    words: str  # "Healthy", "360 MB/s: 45% of the 800 MB/s this LTO-9 can write with 2:1 data"
    tone: str = "none"
    detail: str = ""
    action: str = ""


@dataclass(frozen=True)
class RunKind:
    name: str  # the history's kind, e.g. "tape-perf"
    title: str  # for people: "Tape performance"
    headline: Callable[[Results], str]  # one short line from a stored result
    text: Callable[[Results], str] | None = None  # the result as the run printed it, or None: generic
    drive: bool = True  # concerns a drive (else a directory or nothing)
    # The labelled, rounded rows a report shows for the result; None: the report's generic listing.
    fields: Callable[[Results], list[tuple[str, str]]] | None = None
    # The run's verdicts in words (page 1 of a report); None: the headline stands for itself.
    findings: Callable[[Results], list[Finding]] | None = None
    # The curves the result carries (label, [(t s, MB/s)]) for the report's plot; None: the stored samples'
    # phases are plotted (a run over several drives draws each drive and their aggregate instead).
    series: Callable[[Results], list[tuple[str, list[tuple[float, float]]]]] | None = None


_REGISTRY: dict[str, RunKind] = {}


def register(kind: RunKind) -> RunKind:
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """For tests that add a throwaway kind."""
    _REGISTRY.pop(name, None)


def kinds() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def get(name: str) -> RunKind | None:
    return _REGISTRY.get(name)


def title(name: str) -> str:
    kind = _REGISTRY.get(name)
    return kind.title if kind else name


def headline(name: str, results: Results | None) -> str:
    """The kind's headline, or "" when it has none for this result (an old or partial run)."""
    kind = _REGISTRY.get(name)
    if kind is None or not results:
        return ""
    try:
        return kind.headline(results)
    except (KeyError, TypeError, ValueError, AttributeError):
        return ""


def fields(name: str, results: Results | None) -> list[tuple[str, str]] | None:
    """The kind's report rows, or None (no renderer, or a result it cannot read)."""
    kind = _REGISTRY.get(name)
    if kind is None or kind.fields is None or not results:
        return None
    try:
        return kind.fields(results)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def findings(name: str, results: Results | None) -> list[Finding]:
    """The kind's verdicts for a result; [] when it has none or cannot read this result."""
    kind = _REGISTRY.get(name)
    if kind is None or kind.findings is None or not results:
        return []
    try:
        return kind.findings(results)
    except (KeyError, TypeError, ValueError, AttributeError):
        return []


def series(name: str, results: Results | None) -> list[tuple[str, list[tuple[float, float]]]] | None:
    """The kind's own curves for a result, or None (plot the stored samples by phase)."""
    kind = _REGISTRY.get(name)
    if kind is None or kind.series is None or not results:
        return None
    try:
        return kind.series(results)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def text(name: str, results: Results | None) -> str | None:
    """The result as the run printed it, or None (no renderer, or a result it cannot read)."""
    kind = _REGISTRY.get(name)
    if kind is None or kind.text is None or not results:
        return None
    try:
        return kind.text(results)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


from app.runs import builtin  # noqa: E402,F401  (registers the built-in kinds)

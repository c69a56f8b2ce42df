"""The run model's contract: what a run kind is, the registry, typed loading and the field table.

Nothing here imports a kind, a renderer, the CLI or Qt (``tests/test_layering.py``). The pieces:

* ``kind``: ``RunKind[P, R]`` (name, title, target, params, result, engine, renderers), ``Finding``,
  ``Target``, ``Command``, ``RunContext``;
* ``registry``: the kinds by name, filled by ``app.catalog`` (the one list of kinds);
* ``typed``: a stored dictionary read strictly into a dataclass (``DamagedResult`` when it does not fit);
* ``stored``: a stored run read into its kind's typed result once (``load``), the only reader of results;
* ``fields``: a kind's parameters declared once (CLI options, GUI form, parameter lines);
* ``words``: figures as a report words them.

Running and recording a run is ``app.execute``; adding a kind: ``docs/architecture.md``.
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from app.runs.registry import commands, get, install, kinds, known, register, title, unregister

if TYPE_CHECKING:
    from app.runs.kind import TONES, Call, Command, Engine, Finding, Rows, RunContext, RunKind, Series, Target

#: The contract's names, imported from ``kind`` on first use (PEP 562): the command line asks the registry on
#: every start (``--help``, ``devices``), which needs none of the run model's dataclasses (issue 32 §3).
_KIND = ("Call", "Command", "Engine", "Finding", "RunContext", "RunKind", "Rows", "Series", "TONES", "Target")

__all__ = ["Call", "Command", "Engine", "Finding", "RunContext", "RunKind", "Rows", "Series", "TONES", "Target",
           "commands", "get", "install", "kinds", "known", "register", "title", "unregister"]


if not TYPE_CHECKING:  # hidden from mypy, which checks each name against the imports above
    def __getattr__(name: str) -> Any:
        if name not in _KIND:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        return getattr(import_module("app.runs.kind"), name)

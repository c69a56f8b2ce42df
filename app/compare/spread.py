"""The run-to-run spread of a figure measured on repeats of the same test in the history (``noise.MEASURED``).

A repeat of a compared run is a complete run of the same kind, on the same device string and drive serial,
with the same parameters (``differences.HOW_NOT_WHAT`` aside). The repeats of the older run's test are taken
from the history up to it, those of the newer run's test from it on: a run between the two may be from
before or after whatever was done to the drive, and a spread over both sides would measure the change itself.
The spread is the pooled relative standard deviation of the two sides' groups.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any, Callable

from app.compare.differences import HOW_NOT_WHAT, drive_identity
from app.compare.noise import MEASURED
from app.history import History
from app.runs.stored import Loaded, load
from native.errors import DamagedResult

Figure = Callable[[Any], "float | None"]


@dataclass(frozen=True)
class Spread:
    """A relative σ and the runs it was measured on."""

    sigma: float
    run_ids: tuple[int, ...]


def _condition(loaded: Loaded[Any]) -> tuple[str, str, str | None, str]:
    ident = drive_identity(loaded)
    params = sorted((k, repr(v)) for k, v in loaded.run.params.items() if k not in HOW_NOT_WHAT)
    return loaded.run.kind, loaded.run.device, ident.serial if ident else None, repr(params)


def _repeats(history: History, anchor: Loaded[Any], older: bool, other: int) -> list[Loaded[Any]]:
    """Complete runs of ``anchor``'s test on its side of the pair (module docstring), ``anchor`` included."""
    want = _condition(anchor)
    out = []
    for run in history.list_runs(kind=anchor.run.kind, device=anchor.run.device):
        side = run.id <= anchor.run.id if older else run.id >= anchor.run.id
        if not side or run.id == other or run.status != "complete" or run.damaged:
            continue
        try:
            loaded = anchor if run.id == anchor.run.id else load(run)
        except DamagedResult:
            continue
        if _condition(loaded) == want and loaded.result is not None:
            out.append(loaded)
    return out


def measured(history: History, a: Loaded[Any], b: Loaded[Any], figure: Figure) -> Spread | None:
    """The pooled relative spread of ``figure`` over the repeats of ``a``'s and ``b``'s tests, or None when there are
    fewer than ``MEASURED.min_runs`` figures in all, or no side has two."""
    older, newer = (a, b) if a.run.id <= b.run.id else (b, a)
    sides = [_repeats(history, older, True, newer.run.id), _repeats(history, newer, False, older.run.id)]
    groups = [[v for r in side if (v := figure(r.result)) is not None and v > 0] for side in sides]
    dof = sum(len(g) - 1 for g in groups if len(g) >= 2)
    if sum(map(len, groups)) < MEASURED.min_runs or dof == 0:
        return None
    pooled = sum((len(g) - 1) * (statistics.stdev(g) / statistics.fmean(g)) ** 2 for g in groups if len(g) >= 2)
    return Spread(math.sqrt(pooled / dof), tuple(sorted({r.run.id for side in sides for r in side})))

__all__ = ["Spread", "measured"]

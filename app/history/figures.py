"""What one run says about the cartridge it moved through a drive: the history's second index, beside the keys.

``app.visits`` tells a worn cartridge from a worn drive by these figures over several runs (a *visit* is one
run of a cartridge in a drive). They are written once, as the run is recorded, from the kind's typed result
(``RunKind.visit``, called by ``app.execute``), into columns of the run's row; ``app.visits`` reads the columns,
never a stored result. So judging a cartridge by its history needs neither the run kinds' catalog nor the
stored results' shapes, and a run kind may change its result's shape without its visits reading as nothing.

Rows recorded before the figures existed (schema 3 and older) get them from the schema migration to version 4
(``legacy_figures``, below), the one place that reads an old row's results for them.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .keys import RunKeys


@dataclass(frozen=True)
class VisitFigures:
    """The GB the drive moved (None: not counted), the corrected and uncorrected errors it counted over them
    (None: not counted), slow zones found, a read an error stopped, and what a scan found pointing at the
    cartridge itself (``app.scan.rules``: "slow zones", "repositions")."""

    gb: float | None = None
    corrected: int | None = None
    uncorrected: int | None = None
    slow: bool = False
    stopped: bool = False
    signals: tuple[str, ...] = ()

    #: The row's columns, in ``row()``'s order (added by migration 4). ``visit_slow`` is NULL on a run that said
    #: nothing of a visit (not a visiting kind, or the run ended before its result).
    COLUMNS = ("visit_gb", "visit_corrected", "visit_uncorrected", "visit_slow", "visit_stopped", "visit_signals")

    def row(self) -> tuple[float | None, int | None, int | None, int, int, str]:
        return (self.gb, self.corrected, self.uncorrected, int(self.slow), int(self.stopped),
                json.dumps(list(self.signals)))

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> "VisitFigures | None":
        """The figures of ``COLUMNS``' values; None when the run recorded none. A signals cell that does not parse
        (a hand edit) reads as no signals: one odd cell must not stop ``info``."""
        gb, corrected, uncorrected, slow, stopped, signals = row
        if slow is None:
            return None
        try:
            listed = json.loads(signals) if signals else []
        except ValueError:
            listed = []
        return cls(float(gb) if gb is not None else None, corrected, uncorrected, bool(slow), bool(stopped),
                   tuple(str(s) for s in listed) if isinstance(listed, list) else ())


@dataclass(frozen=True)
class StoredVisit:
    """A run as the visits' index keeps it (``History.visit_rows``): what it was, when, how it ended, on which drive
    and cartridge, and its figures (None: it recorded none, e.g. it ended before its result)."""

    run_id: int
    kind: str
    started_at: str
    status: str
    keys: RunKeys
    figures: VisitFigures | None


def error_counts(deltas: list[tuple[str, int | None]]) -> tuple[int | None, int | None]:
    """The corrected and uncorrected errors a run's counter changes add up to: ``(name, delta)`` pairs, named as
    ``app.tapeperf.logs`` names them ("... errors corrected" / "... errors uncorrected", write and read); None
    where none was counted."""
    corrected = uncorrected = None
    for name, delta in deltas:
        if delta is None:
            continue
        if name.endswith("errors corrected"):
            corrected = (corrected or 0) + delta
        elif name.endswith("errors uncorrected"):
            uncorrected = (uncorrected or 0) + delta
    return corrected, uncorrected


# --- rows recorded before schema 4 -------------------------------------------------------------------------------
# Frozen with the migration that uses it (a migration is never edited once shipped): it reads the four visiting
# kinds' results as they were stored up to then, tolerantly, as ``app.history.keys`` reads their keys: an odd
# row gives no figures, never an error that would stop the migration.

def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _legacy_deltas(items: Any) -> tuple[int | None, int | None]:
    pairs = [(d.get("name"), _int(d.get("delta"))) for d in (items if isinstance(items, list) else [])
             if isinstance(d, dict)]
    return error_counts([(name, delta) for name, delta in pairs if isinstance(name, str)])


def legacy_figures(kind: str, stored: Any) -> VisitFigures | None:
    """A pre-schema-4 row's figures from its stored results; None for a kind that is no visit."""
    res = _dict(stored)
    if kind == "drive-info":
        sides = [s for s in (_dict(res.get(k)) for k in ("write_errors", "read_errors")) if s.get("supported")]
        if not sides:
            return VisitFigures()
        total = sum(_int(s.get("bytes_processed")) or 0 for s in sides)
        return VisitFigures(total / 1e9 or None, sum(_int(s.get("corrected")) or 0 for s in sides),
                            sum(_int(s.get("uncorrected")) or 0 for s in sides))
    if kind not in ("media-scan", "assessment", "tape-perf"):
        return None
    if kind == "assessment":
        res = _dict(res.get("tape"))
    corrected, uncorrected = _legacy_deltas(res.get("log_deltas"))
    if kind == "media-scan":
        moved = _int(_dict(res.get("read")).get("bytes")) or 0
        signals = res.get("cartridge_signals")
        return VisitFigures(moved / 1e9 or None, corrected, uncorrected, bool(res.get("slow_zones")),
                            res.get("end_reason") == "error",
                            tuple(str(s) for s in signals) if isinstance(signals, list) else ())
    moved = sum(_int(p.get("bytes")) or 0 for p in res.get("phases") or [] if isinstance(p, dict))
    return VisitFigures(moved / 1e9 or None, corrected, uncorrected)

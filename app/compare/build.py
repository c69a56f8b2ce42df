"""Two recorded runs read from the history and compared: what differs, then figure by figure.

Both runs are read once, through the one loader (``app.runs.stored.load``). A run that is not in the history,
whose record cannot be read, or a run compared with itself is bad input (``InvalidParameter``, exit 2): a
comparison measures nothing, so it refuses before it says anything rather than compare what it cannot read.
"""
from __future__ import annotations

from typing import Any, Callable

from app.catalog import KINDS  # noqa: F401  (installs the run kinds whose runs are compared)
from app.compare import tapeperf, verdicts
from app.compare.differences import differences
from app.compare.model import Comparison, Row, Side
from app.compare.noise import MEASURED, rule_lines
from app.compare.spread import Spread, measured
from app.history import History, HistoryError, Run
from app.runs import registry
from app.runs.stored import Loaded, load
from app.runs.words import when
from native.errors import DamagedResult, InvalidParameter
from native.units import percent

#: The figures each kind's runs are compared by (beyond every kind's verdicts): rows from the two typed results and
#: the measured spread of a figure by name. A kind not listed is compared by its verdicts alone.
FIGURES: dict[str, Callable[[Any, Any, Callable[[str], "float | None"]], list[Row]]] = {"tape-perf": tapeperf.rows}
#: The figures whose run-to-run spread the history can measure, by kind: name -> the figure of a typed result.
SPREAD_FIGURES: dict[str, dict[str, Callable[[Any], "float | None"]]] = {
    "tape-perf": {"write": tapeperf.rate_of("write"), "read": tapeperf.rate_of("read")}}


def _run(history: History, run_id: int) -> Run:
    """The stored run; a damaged row is bad input here (the comparison cannot read it), as an unknown id is."""
    try:
        return history.get_run(run_id, samples=False)
    except HistoryError as err:
        if any(r.id == run_id and r.damaged for r in history.list_runs()):
            raise InvalidParameter(err.message, hint=err.hint) from None
        raise


def _loaded(run: Run) -> Loaded[Any]:
    try:
        return load(run)
    except DamagedResult as err:
        raise InvalidParameter(err.message, hint=err.hint) from None


def _side(loaded: Loaded[Any]) -> Side:
    run = loaded.run
    assert isinstance(run, Run)
    return Side(run.id, run.kind, registry.title(run.kind), run.device, when(run.started_at), run.status,
                run.version, loaded.headline() or (run.error or ""))


class _Spreads:
    """The measured spread of each figure, asked for by the kind's rows and remembered for the notes."""

    def __init__(self, history: History, a: Loaded[Any], b: Loaded[Any]) -> None:
        self.history, self.a, self.b = history, a, b
        self.used: dict[str, Spread | None] = {}

    def __call__(self, name: str) -> float | None:
        figure = SPREAD_FIGURES.get(self.a.run.kind, {}).get(name)
        if figure is None or self.a.run.kind != self.b.run.kind:
            return None
        if name not in self.used:
            self.used[name] = measured(self.history, self.a, self.b, figure)
        found = self.used[name]
        return found.sigma if found is not None else None

    def notes(self) -> list[str]:
        out = []
        for name, found in self.used.items():
            if found is None:
                out.append(f"{name.capitalize()} rate: fewer than {MEASURED.min_runs} repeated runs of these tests in "
                           "the history, so the rule's band was used")
            else:
                runs = ", ".join(str(i) for i in found.run_ids)
                out.append(f"{name.capitalize()} rate: run-to-run spread σ = {percent(found.sigma)} measured on runs "
                           f"{runs} (repeats of the compared tests), used instead of the fixed band")
        return out


def compare_runs(history: History, before_id: int, after_id: int) -> Comparison:
    """Run ``before_id`` against run ``after_id`` (module docstring for what is refused)."""
    if before_id == after_id:
        raise InvalidParameter(f"run {before_id} compared with itself", hint="name two different runs")
    a, b = _loaded(_run(history, before_id)), _loaded(_run(history, after_id))
    spreads = _Spreads(history, a, b)
    rows: list[Row] = []
    figures = FIGURES.get(a.run.kind) if a.run.kind == b.run.kind else None
    if figures is not None and a.result is not None and b.result is not None:
        rows += figures(a.result, b.result, spreads)
    rows += verdicts.rows(a, b)
    notes = [] if figures is not None or a.run.kind != b.run.kind else [
        f"{registry.title(a.run.kind)} runs are compared by their verdicts only"]
    if a.result is None or b.result is None:
        notes.append("a run without results is compared by what it recorded only")
    said = differences(a, b, history.keys(before_id), history.keys(after_id))
    return Comparison(_side(a), _side(b), said, tuple(rows), tuple(rule_lines()),
                      tuple(notes + spreads.notes()))


__all__ = ["FIGURES", "SPREAD_FIGURES", "compare_runs"]

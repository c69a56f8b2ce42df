"""A stored run in one line, as the history list (CLI and GUI) shows it.

A run of a known kind is worded by its kind (``app.runs.stored``: its typed result's headline). A
run of a kind this version does not know (a row a newer tapediag wrote) has no typed result: its
measured MB/s figures are found in its stored dictionary, skipping rated and reference figures.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.runs.stored import load
from native.errors import DamagedResult
from native.units import rate_text

if TYPE_CHECKING:
    from app.history.store import Run
    from app.runs.stored import Loaded

_CONTAINERS_SKIPPED = ("samples", "tables", "recommendations", "facts", "input", "log_deltas", "stalls", "params", "streams")


def _is_rate(key: str, value: Any) -> bool:
    return (isinstance(value, (int, float)) and not isinstance(value, bool) and key.endswith("mb_s")
            and not key.startswith(("rated", "per_second", "max", "min", "target", "host")))


def mb_s_figures(results: Any, path: str = "") -> list[tuple[str, float]]:
    """Every measured MB/s figure, as (path, value); list items are named by their phase."""
    found: list[tuple[str, float]] = []
    if isinstance(results, dict):
        for key, value in results.items():
            if key in _CONTAINERS_SKIPPED:
                continue
            sub = f"{path}.{key}" if path else str(key)
            if _is_rate(str(key), value):
                found.append((sub, float(value)))
            elif isinstance(value, (dict, list)):
                found.extend(mb_s_figures(value, sub))
    elif isinstance(results, list):
        for i, item in enumerate(results):
            name = (item.get("phase") or item.get("name")) if isinstance(item, dict) else None
            found.extend(mb_s_figures(item, f"{path}.{name or i + 1}"))
    return found


def distinct_figures(results: Any) -> list[tuple[str, float]]:
    """``mb_s_figures`` without repeats: results often carry a phase rate twice
    (``phases[].mb_s`` and a top-level ``write_mb_s``); the first one found is kept."""
    seen: set[str] = set()
    out = []
    for path, value in mb_s_figures(results):
        name = figure_name(path)
        if name not in seen:
            seen.add(name)
            out.append((path, value))
    return out


def figure_name(path: str) -> str:
    """'phases.write.mb_s' -> 'write'; 'mb_s' -> 'rate'; 'tree_walk.mb_s' -> 'tree walk'."""
    name = path.removeprefix("phases.")
    for suffix in (".mb_s", "_mb_s"):
        name = name.removesuffix(suffix)
    name = "rate" if name == "mb_s" else name
    return name.replace("_", " ").replace(".", " ")


def _short(error: str) -> str:
    return error if len(error) <= 90 else error[:87] + "..."


def listed(run: "Run", limit: int = 3, loaded: "Loaded[Any] | None" = None) -> tuple[str, str]:
    """(the run's line, what is damaged in its record: "" when nothing). A run that did not complete says its
    error; a damaged record says so, and only that (the history still lists it, beside the others). ``loaded``:
    the run already read (``app.runs.stored.load``), so that a reader that needs more than the line reads it once."""
    if run.damaged:
        return f"record damaged: {run.damaged}", run.damaged
    if run.status != "complete" and run.error:
        return _short(run.error), ""
    try:
        loaded = loaded if loaded is not None else load(run)
    except DamagedResult as err:
        return f"record damaged: {err.message}", err.message
    if loaded.kind is not None:
        return loaded.headline() or (run.error or ""), ""
    parts = [f"{figure_name(p)} {rate_text(v)}" for p, v in distinct_figures(run.results or {})[:limit]]
    return ", ".join(parts) or (run.error or ""), ""


def headline(run: "Run") -> str:
    """The run's line in the history list (``listed``)."""
    return listed(run)[0]

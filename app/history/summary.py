"""The figures a technician looks for first in a stored run, whatever engine wrote it.

Engines' result dicts differ (a tape-perf result has a ``phases`` list, a disk result a
top-level ``mb_s``, a troubleshooting session a ``verdict``); these helpers find the
measured MB/s figures in any of them, skipping rated/reference figures, so the history
list, the GUI and the reports summarise runs the same way.
"""
from __future__ import annotations

from typing import Any

from native.units import rate_text

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


def headline(kind: str, status: str, results: dict | None, error: str | None = None, limit: int = 3) -> str:
    """One short line: the run kind's own headline (``app.runs``), the error of a run that did
    not complete, or for a kind without one the measured MB/s figures."""
    from app import runs

    res = results or {}
    if status not in ("complete",) and error:
        return error if len(error) <= 90 else error[:87] + "..."
    line = runs.headline(kind, res)
    if line:
        return line
    parts = [f"{figure_name(p)} {rate_text(v)}" for p, v in distinct_figures(res)[:limit]]
    return ", ".join(parts) or (error or "")

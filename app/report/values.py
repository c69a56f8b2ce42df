"""Raw result fields as labelled, readable rows: the run parameters and the ``--appendix``.

The run sections use each kind's own rows (``app.runs.RunKind.fields``); this generic
listing is for what has no such rows, and still gives every figure its unit and a
sensible rounding, so not even the appendix prints "latency max 3.5183".
"""
from __future__ import annotations

import re
from typing import Any

from app.runs.words import date, density, duration, mb_s, volume
from native.units import block_text

from .model import Field

_UNITS = re.compile(r"\b(mib|mb|wwn|100mb)\b")
_SECONDS = re.compile(r"(^|_)(seconds|elapsed|latency|latency_p\d+|latency_max|time_to_first_byte|t)$|_seconds$")


def label(path: str) -> str:
    """'phases.write.mb_s' -> 'Phases › write › MB/s' — readable without a glossary."""
    parts = []
    for part in path.split("."):
        # A rate's unit is in its value ("250.0 MB/s"), so its label says what it is a rate of.
        words = re.sub(r"_?mi?b_s$", " rate", part).replace("_", " ").strip()
        words = {"io size": "I/O size", "ios": "I/Os"}.get(words, words)
        parts.append(_UNITS.sub(lambda m: m.group(0).upper().replace("MIB", "MiB").replace("100MB", "100 MB"), words))
    text = " › ".join(parts)
    return text[:1].upper() + text[1:]


def value_text(key: str, value: Any) -> str:
    """One value for people, its unit read from its key (``*_mb_s``, ``*_seconds``, ``*_ms``, sizes, dates)."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        return _number(key, value)
    if isinstance(value, list):
        return ", ".join(value_text(key, v) for v in value) if all(not isinstance(v, (dict, list)) for v in value) else f"{len(value)} items"
    if key.endswith("date"):
        return date(str(value))
    return str(value)


def _number(key: str, value: int | float) -> str:
    if "mb_s" in key or "mib_s" in key:
        return mb_s(value).replace("MB/s", "MiB/s") if "mib_s" in key else mb_s(value)
    if key.endswith("_ms"):
        return duration(value / 1000)
    if _SECONDS.search(key) and isinstance(value, float):
        return duration(value)
    if key.endswith("density_code") and isinstance(value, int):
        return density(value)
    if key.endswith(("share", "ratio")) and isinstance(value, float):
        return f"{value:.0%}" if key.endswith("share") else f"{value:.2f}:1"
    if key.startswith("percent") or key.endswith("percent"):
        return f"{value:.0f}%"
    if isinstance(value, int):
        text = f"{value:,}" if abs(value) >= 10000 else str(value)
        if key.endswith(("size", "buffer")):
            return block_text(value) if value >= 1024 else f"{text} bytes"
        if "bytes" in key:
            return volume(value)
        if key.endswith("_mib"):
            return f"{text} MiB"
        if key.endswith("_kb"):
            return f"{text} KB"
        return text
    if "bytes" in key:
        return volume(value)
    if key.endswith("_kb"):
        return f"{value:,.0f} KB"
    return f"{value:,.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def flatten(data: Any, prefix: str = "", skip: tuple[str, ...] = ()) -> list[Field]:
    """Nested dicts/lists to labelled fields; list items named by their 'phase'/'name' when they have one."""
    out: list[Field] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in skip:
                continue
            path = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, (dict, list)) and value and (isinstance(value, dict) or all(isinstance(v, dict) for v in value)):
                out.extend(flatten(value, path, skip))
            else:
                out.append(Field(label(path), value_text(str(key), value)))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            name = (item.get("phase") or item.get("name") or item.get("stream")) if isinstance(item, dict) else None
            out.extend(flatten(item, f"{prefix}.{name if name not in (None, '') else i + 1}", skip))
    return out

"""Loading the troubleshooting data files from ``resources/rules/``.

The rules, thresholds and drive figures are data so that a technician (or a reviewer)
can read and adjust them without touching code. ``resources/`` sits next to the
Python packages both in the source tree and in the bundles.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from native.errors import TapediagError

RULES_DIR = Path(__file__).resolve().parents[2] / "resources" / "rules"


def _load(name: str) -> dict[str, Any]:
    path = RULES_DIR / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise TapediagError(f"cannot read the troubleshooting data {path}: {err}",
                            hint="reinstall tapediag") from err


@dataclass(frozen=True)
class DriveSpec:
    """What the rules need to know about one LTO generation."""

    generation: int
    native_mb_s: float
    nominal_ratio: float
    lowest_step_mb_s: float | None  # lowest data-rate-matching speed; None where unpublished


@dataclass(frozen=True)
class Link:
    key: str
    label: str
    nominal_mb_s: float
    practical_mb_s: float


@lru_cache(maxsize=1)
def thresholds() -> dict[str, Any]:
    return _load("bottleneck.json")


@lru_cache(maxsize=1)
def rules_document() -> dict[str, Any]:
    return _load("recommendations.json")


@lru_cache(maxsize=1)
def _drives() -> dict[str, Any]:
    return _load("lto-drives.json")["generations"]


def drive_spec(generation: int, *, half_height: bool = False) -> DriveSpec | None:
    row = _drives().get(str(generation))
    if row is None:
        return None
    step = row.get("lowest_step_hh_mb_s") if half_height else None
    native = row.get("native_hh_mb_s") if half_height else None
    return DriveSpec(
        generation=generation,
        native_mb_s=float(native or row["native_mb_s"]),
        nominal_ratio=float(row["nominal_ratio"]),
        lowest_step_mb_s=None if (step or row.get("lowest_step_mb_s")) is None else float(step or row["lowest_step_mb_s"]),
    )


def native_capacity_gb(generation: int) -> float | None:
    """A generation's published native cartridge capacity, GB (``lto-drives.json``: ``native_gb``)."""
    row = _drives().get(str(generation))
    return float(row["native_gb"]) if row is not None and row.get("native_gb") else None


def links() -> dict[str, Link]:
    return {k: Link(k, v["label"], float(v["nominal_mb_s"]), float(v["practical_mb_s"]))
            for k, v in thresholds()["links"].items()}

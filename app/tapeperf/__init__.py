"""The tape performance test: parameters, safety checks, the engine and its results.

    from app.tapeperf import TapePerfParams, TapePerfTest
    result = TapePerfTest(drive, TapePerfParams(...)).run(sink, cancel)

Sizes and durations are read by ``native.units`` (one rule for every command).

The names are imported on first use (PEP 562): a command that reads only this package's results
(``info`` and ``app.scan.results`` through it) does not load the engine (issue 32 §3).
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.tapeperf.engine import TapePerfTest
    from app.tapeperf.params import TapePerfParams, parse_direction
    from app.tapeperf.results import LogDelta, PhaseResult, Stall, TapePerfResult
    from app.tapeperf.safety import CartridgeState, check_before_write, probe

#: each public name and the module that defines it
_HOMES = {
    "TapePerfParams": "app.tapeperf.params",
    "TapePerfTest": "app.tapeperf.engine",
    "TapePerfResult": "app.tapeperf.results",
    "PhaseResult": "app.tapeperf.results",
    "Stall": "app.tapeperf.results",
    "LogDelta": "app.tapeperf.results",
    "CartridgeState": "app.tapeperf.safety",
    "check_before_write": "app.tapeperf.safety",
    "probe": "app.tapeperf.safety",
    "parse_direction": "app.tapeperf.params",
}

__all__ = [
    "TapePerfParams", "TapePerfTest", "TapePerfResult", "PhaseResult", "Stall", "LogDelta",
    "CartridgeState", "check_before_write", "probe", "parse_direction",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)

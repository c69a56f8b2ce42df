"""The tape performance test: parameters, safety checks, the engine and its results.

    from app.tapeperf import TapePerfParams, TapePerfTest
    result = TapePerfTest(drive, TapePerfParams(...)).run(sink, cancel)

Sizes and durations are read by ``native.units`` (one rule for every command).
"""
from app.tapeperf.params import TapePerfParams, parse_direction
from app.tapeperf.results import LogDelta, PhaseResult, Stall, TapePerfResult
from app.tapeperf.safety import CartridgeState, check_before_write, probe
from app.tapeperf.engine import TapePerfTest

__all__ = [
    "TapePerfParams", "TapePerfTest", "TapePerfResult", "PhaseResult", "Stall", "LogDelta",
    "CartridgeState", "check_before_write", "probe", "parse_direction",
]

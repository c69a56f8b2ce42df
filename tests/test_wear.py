"""Wear against design life (``app.wear``): a percentage only with a published figure and its source."""
from __future__ import annotations

import pytest

from app.wear import (
    CARTRIDGE_LOAD_CYCLES,
    CARTRIDGE_LOADS_SOURCE,
    NO_FIGURE,
    CartridgeVerdict,
    cartridge_wear,
    drive_reported_limits,
    drive_wear,
)


@pytest.mark.parametrize("generation, loads, verdict, pct", [
    (7, 1_000, CartridgeVerdict.KEEP, 5.0),
    (7, 16_000, CartridgeVerdict.MONITOR, 80.0),
    (7, 20_000, CartridgeVerdict.RETIRE, 100.0),
    (1, 6_000, CartridgeVerdict.RETIRE, 120.0),  # LTO-1: rated 5,000
    (2, 5_000, CartridgeVerdict.KEEP, 50.0),  # LTO-2: rated 10,000
])
def test_cartridge_verdict_from_rated_loads(generation: int, loads: int, verdict: CartridgeVerdict, pct: float) -> None:
    wear = cartridge_wear(generation, loads)
    assert wear.verdict is verdict
    figure = wear.figures[0]
    assert (figure.value, figure.design_life, figure.percent_used) == (loads, CARTRIDGE_LOAD_CYCLES[generation], pct)
    assert figure.source == CARTRIDGE_LOADS_SOURCE


@pytest.mark.parametrize("generation", [9, 10, None])
def test_no_published_rating_means_no_percentage_and_no_verdict(generation: int | None) -> None:
    wear = cartridge_wear(generation, 30_000)
    assert wear.verdict is CartridgeVerdict.NOT_ASSESSED
    assert all(f.percent_used is None and f.source == NO_FIGURE for f in wear.figures)
    assert any(NO_FIGURE in r for r in wear.reasons)


def test_unknown_load_count_is_not_assessed_and_errors_are_reasons() -> None:
    assert cartridge_wear(7, None).verdict is CartridgeVerdict.NOT_ASSESSED
    wear = cartridge_wear(7, 10, unrecovered_write=2)
    assert wear.verdict is CartridgeVerdict.KEEP  # no published rating to weigh errors against: a reason, not a verdict
    assert any("2 unrecovered write error" in r for r in wear.reasons)


def test_drive_figures_have_no_design_life() -> None:
    figures = drive_wear({"lifetime_head_hours": 800, "lifetime_volume_loads": 667, "drive_serial": "X",
                          "lifetime_power_on_hours": 2000})
    assert [(f.quantity, f.value) for f in figures] == [("head hours", 800), ("loads in this drive", 667), ("power-on hours", 2000)]
    assert all(f.design_life is None and f.percent_used is None and f.source == NO_FIGURE for f in figures)


def test_a_drive_reported_threshold_counts_and_the_most_used_figure_decides() -> None:
    """Quantum 3Eh: the drive gives the cartridge's wear passes and its own threshold for them."""
    reported = drive_reported_limits({"media_lifetime_loads": 100, "media_lifetime_loads_threshold": 0,  # 0: no threshold
                                      "media_lifetime_wear_passes": 900, "media_lifetime_wear_passes_threshold": 1000}, "Q 3Eh")
    (passes,) = reported
    assert (passes.value, passes.design_life, passes.percent_used) == (900, 1000, 90.0) and "Q 3Eh" in passes.source
    wear = cartridge_wear(7, 100, reported=reported)  # loads: 0.5 % of 20,000 (keep); passes: 90 % (monitor)
    assert wear.verdict is CartridgeVerdict.MONITOR
    assert cartridge_wear(None, None, reported=reported).verdict is CartridgeVerdict.MONITOR

"""When a change between two recorded runs is a change, and when it is the run-to-run noise: the one rule.

A technician who cleans a drive and runs the test again must be able to show the customer that it helped;
a 2 % faster second run proves nothing (the same drive with the same cartridge varies that much from run to
run). So every figure a comparison judges is judged here, by its type, with the rule's source and why:

* **Rates** (MB/s): a relative band (``RATE``), widened (``WIDENED``) for a phase either run says was not the
  drive's own figure (the host held it back, this machine slowed the virtual drive, or the run was too short
  to judge); replaced by the spread measured on repeats of the same test (``MEASURED``) when the history has
  at least ``MEASURED.min_runs`` of them, never below its floor (and not widened: the repeats varied as they did).
* **Counts** (back-hitches, corrected errors): events that come one by one, judged by counting statistics
  (``COUNTS``): the difference of two rates per GB must exceed two standard deviations of that difference,
  and the counts must differ by at least a few events.
* **Events that must not happen** (an uncorrected error, a TapeAlert flag, a verdict's tone): any change is
  a change; there is no noise in them.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from native.units import percent

IMPROVED, WORSE, NOISE, SAME, NOT_COMPARABLE = "improved", "worse", "within noise", "same", "not comparable"
#: Every judgement a comparison's row can carry, and its tone on page 1 and in the GUI (``app.runs.TONES``).
JUDGEMENTS = {IMPROVED: "good", WORSE: "bad", NOISE: "none", SAME: "none", NOT_COMPARABLE: "none"}


@dataclass(frozen=True)
class Band:
    """A relative band around the first run's figure: a change inside it is noise. ``source`` and ``why`` are
    what a comparison prints under its table."""

    relative: float
    source: str
    why: str


#: A rate of one run against another of the same test on the same drive.
RATE = Band(0.05, "tapediag's own judgement",
            "a tape drive's rate varies from run to run with the cartridge's position, the drive's speed matching "
            "and the host; repeated runs of the virtual LTO drive stay within 5% of its model "
            "(benchmarks/bench_virtual_drive.py: 80 of 80 runs), and a real drive is no steadier")
#: ... when either run says the phase was not the drive's own figure (the host, this machine, too short).
WIDENED = Band(0.15, "tapediag's own judgement",
               "a phase the host held back, that this machine slowed, or too short to judge measures the host or "
               "the buffer as much as the drive: three times the band")


@dataclass(frozen=True)
class Measured:
    """The spread of repeated runs of the same test (same kind, device, drive and parameters) in the history."""

    min_runs: int
    sigmas: float
    floor: float
    why: str


MEASURED = Measured(3, 2.0, 0.03,
                    "the runs that repeat each compared run's test (same device, drive and parameters) give the "
                    "run-to-run spread σ of this drive (pooled over the two sides); two single runs differ by more "
                    "than 2·√2·σ by chance 5% of the time; never below 3%")


@dataclass(frozen=True)
class Counts:
    """Events counted over an amount of data (back-hitches, corrected errors per GB)."""

    sigmas: float
    min_change: int
    why: str


COUNTS = Counts(2.0, 3,
                "events come one by one (Poisson counting): the difference of two rates per GB is a change when it "
                "exceeds two standard deviations of that difference, and the counts differ by 3 or more")


def rate_band(widen: bool, measured: float | None) -> tuple[float, str]:
    """The band a rate is judged by and what it is, in words: the measured spread (``MEASURED``, as a relative σ)
    when there is one (it holds whatever varied in the repeats, the host included: never widened), else ``RATE``,
    widened when the phase was not the drive's own figure."""
    if measured is not None:
        return max(MEASURED.sigmas * math.sqrt(2) * measured, MEASURED.floor), "measured spread of repeated runs"
    return (WIDENED.relative, "widened band") if widen else (RATE.relative, "fixed band")


def judge_rate(before: float | None, after: float | None, band: float) -> str:
    """A rate (higher is better) from ``before`` to ``after``, within ``band`` (relative) or not."""
    if before is None or after is None or before <= 0:
        return NOT_COMPARABLE
    change = after / before - 1
    if abs(change) <= band:
        return NOISE
    return IMPROVED if change > 0 else WORSE


def judge_count(before: int | None, before_gb: float, after: int | None, after_gb: float) -> str:
    """Events (fewer is better) counted over ``before_gb`` and ``after_gb`` GB: a change, or noise (``COUNTS``)."""
    if before is None or after is None or before_gb <= 0 or after_gb <= 0:
        return NOT_COMPARABLE
    if before == after and math.isclose(before_gb, after_gb, rel_tol=0.01):
        return SAME
    if abs(after - before) < COUNTS.min_change and math.isclose(before_gb, after_gb, rel_tol=0.01):
        return NOISE
    difference = after / after_gb - before / before_gb
    sigma = math.sqrt(max(before, 1) / before_gb ** 2 + max(after, 1) / after_gb ** 2)
    if abs(difference) <= COUNTS.sigmas * sigma or abs(after - before) < COUNTS.min_change:
        return NOISE
    return WORSE if difference > 0 else IMPROVED


def judge_must_not_happen(before: int | None, after: int | None) -> str:
    """Events that must not happen (uncorrected errors): any change is one, fewer is better."""
    if before is None or after is None:
        return NOT_COMPARABLE
    if before == after:
        return SAME
    return IMPROVED if after < before else WORSE


def rule_lines() -> list[str]:
    """How noise is judged, for the comparison's footnote: each rule with its source."""
    return [f"Rates: a change within ±{percent(RATE.relative)} is within noise ({RATE.source}: {RATE.why}); "
            f"±{percent(WIDENED.relative)} where {WIDENED.why}.",
            f"With {MEASURED.min_runs} or more repeated runs in the history: {MEASURED.why}.",
            f"Back-hitches and corrected errors: {COUNTS.why}.",
            "Uncorrected errors, TapeAlert flags and verdicts: any change is a change."]


__all__ = ["Band", "COUNTS", "IMPROVED", "JUDGEMENTS", "MEASURED", "NOISE", "NOT_COMPARABLE", "RATE", "SAME", "WIDENED",
           "WORSE", "judge_count", "judge_must_not_happen", "judge_rate", "rate_band", "rule_lines"]

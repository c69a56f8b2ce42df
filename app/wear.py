"""Wear against design life: only figures a vendor publishes, each with its source (issue 15).

A "% of design life used" is printed only where a public document gives the design figure.
What was searched for and found:

* **Cartridge load/unload cycles** — found. IBM TS2900 Tape Autoloader User's Guide, table
  "Nominal cartridge life: Load/unload cycles" (the same table is in Dell's PowerVault LTO
  User's Guide, which ships IBM drives): Ultrium 1: 5,000; Ultrium 2: 10,000; Ultrium 3 to 8
  (and M8): 20,000. No row is published there for Ultrium 9 or 10, so those get no figure.
* **Cartridge full-file passes** — not found in a public vendor document: not rated here. (HP's
  LTO-4 technical reference manual, vol. 2 "software integration", "Load count", recommends at
  most 20,000 passes over any particular area of tape: no page reports passes per area, so it
  cannot be applied to a figure a drive gives and is not used.)
* **Drive-reported thresholds** — Quantum's LTO-3/LTO-4 drives report, on their page 3Eh, the
  loaded cartridge's lifetime loads, wear passes and wear hours each beside the drive's own
  threshold for it (Quantum LTO-3/LTO-4 SCSI reference, 3.9.20): those are cited as the drive's
  figures and count towards the verdict like the published rating.
* **Drive head hours, load cycles, metres of tape, cleanings, power-on hours** — no public,
  per-generation design-life figure was found for HP/HPE, IBM or Quantum LTO drives. Vendor
  datasheets give MTBF (e.g. 250,000 hours at 100 % duty cycle), which is a failure *rate*, not
  a life, and must not be read as one; Quantum's LTO-3 half-height guide gives 100,000 cartridge
  load/eject cycles for that one drive only. So the drive's figures are shown raw with "no
  published design figure".

The cartridge verdict (keep / monitor / retire) uses only cited figures (the load/unload rating,
and a drive's own reported thresholds), the most used one deciding: retire
at or beyond it, monitor from ``MONITOR_AT`` of it (tapediag's own threshold, not a vendor
figure), keep below; "not assessed" when the cartridge's generation has no published rating or
its load count is unknown. Errors on the cartridge are listed as reasons, without a rating to
weigh them against.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass

from native.units import plural

NO_FIGURE = "no published design figure"

CARTRIDGE_LOADS_SOURCE = ("IBM TS2900 Tape Autoloader User's Guide, table 'Nominal cartridge life: Load/unload cycles' "
                          "(also Dell PowerVault LTO User's Guide, table 15)")
#: LTO generation of the cartridge -> rated load/unload cycles (CARTRIDGE_LOADS_SOURCE).
CARTRIDGE_LOAD_CYCLES = {1: 5_000, 2: 10_000, 3: 20_000, 4: 20_000, 5: 20_000, 6: 20_000, 7: 20_000, 8: 20_000}

#: Fraction of the rated life from which a cartridge is "monitor" (tapediag's policy, stated as such).
MONITOR_AT = 0.8

#: Drive lifetime figures of log page 0x14 that a wear table shows, by the page's field name.
DRIVE_QUANTITIES = (
    ("lifetime_head_hours", "head hours"),
    ("lifetime_volume_loads", "loads in this drive"),
    ("lifetime_metres_processed", "metres of tape processed"),
    ("lifetime_cleaning_operations", "cleanings"),
    ("lifetime_power_on_hours", "power-on hours"),
)


class CartridgeVerdict(str, enum.Enum):
    KEEP = "keep"
    MONITOR = "monitor"
    RETIRE = "retire"
    NOT_ASSESSED = "not assessed"


@dataclass(frozen=True)
class WearFigure:
    """One quantity: its value, the design figure and % used when one is published, and the source."""

    quantity: str
    value: int | None
    design_life: int | None
    percent_used: float | None
    source: str  # the document the design figure comes from, or NO_FIGURE


@dataclass(frozen=True)
class CartridgeWear:
    """The cartridge's wear: a verdict, the reasons for it and the figures it rests on."""

    verdict: CartridgeVerdict
    reasons: tuple[str, ...]
    figures: tuple[WearFigure, ...]


@dataclass(frozen=True)
class Wear:
    """The drive's wear figures and the cartridge's wear, as ``info`` shows them."""

    drive: tuple[WearFigure, ...]
    cartridge: CartridgeWear | None  # None: no cartridge information (none loaded, or no MAM)


def _percent(value: int, life: int) -> float:
    return round(100.0 * value / life, 1)


def drive_wear(figures: dict[str, int | str]) -> tuple[WearFigure, ...]:
    """The drive's lifetime figures (page 0x14) as shown; none has a published design life."""
    out = []
    for key, label in DRIVE_QUANTITIES:
        value = figures.get(key)
        if isinstance(value, int):
            out.append(WearFigure(label, value, None, None, NO_FIGURE))
    return tuple(out)


#: Quantum 3Eh (``native.scsi.vendorlogs``): (count, the drive's own threshold for it, what it counts).
DRIVE_REPORTED_LIMITS = (
    ("media_lifetime_loads", "media_lifetime_loads_threshold", "cartridge loads (drive's threshold)"),
    ("media_lifetime_wear_passes", "media_lifetime_wear_passes_threshold", "cartridge wear passes (drive's threshold)"),
    ("media_lifetime_wear_hours", "media_lifetime_wear_hours_threshold", "cartridge wear hours (drive's threshold)"),
)


def drive_reported_limits(figures: dict[str, int], source: str) -> tuple[WearFigure, ...]:
    """A drive that reports its own threshold for a cartridge count (Quantum LTO-3/4 page 3Eh): the count
    against that threshold, cited as the drive's figure. A zero threshold means none: no percentage."""
    out = []
    for count, limit, label in DRIVE_REPORTED_LIMITS:
        value, threshold = figures.get(count), figures.get(limit)
        if value is not None and threshold:
            out.append(WearFigure(label, value, threshold, _percent(value, threshold), f"reported by the drive ({source})"))
    return tuple(out)


def cartridge_wear(generation: int | None, load_count: int | None, *, unrecovered_write: int | None = None,
                   unrecovered_read: int | None = None, reported: tuple[WearFigure, ...] = ()) -> CartridgeWear:
    """The cartridge's loads against its generation's rated load/unload cycles (and any figure the drive
    reports against its own threshold, ``reported``); the verdict follows the most used of them."""
    rated = CARTRIDGE_LOAD_CYCLES.get(generation) if generation is not None else None
    figures: list[WearFigure] = []
    reasons: list[str] = []
    if load_count is None:
        reasons.append("load count not reported (no cartridge memory read)")
    elif rated is None:
        figures.append(WearFigure("cartridge loads", load_count, None, None, NO_FIGURE))
        name = f"LTO-{generation}" if generation else "this cartridge's generation"
        reasons.append(f"{plural(load_count, 'load')}; {NO_FIGURE} for {name} cartridges")
    else:
        figures.append(WearFigure("cartridge loads", load_count, rated, _percent(load_count, rated), CARTRIDGE_LOADS_SOURCE))
    figures += reported
    figures.append(WearFigure("full-file passes", None, None, None, NO_FIGURE))
    verdict = CartridgeVerdict.NOT_ASSESSED
    for f in figures:
        if f.design_life is None or f.value is None or f.percent_used is None:
            continue
        if f.value >= f.design_life:
            grade, said = CartridgeVerdict.RETIRE, "at or past"
        elif f.value >= MONITOR_AT * f.design_life:
            grade, said = CartridgeVerdict.MONITOR, f"{f.percent_used} % of"
        else:
            grade, said = CartridgeVerdict.KEEP, f"{f.percent_used} % of"
        reasons.append(f"{f.quantity}: {f.value:,}, {said} the rated {f.design_life:,}")
        verdict = max(verdict, grade, key=_SEVERITY.index)
    for what, count in (("write", unrecovered_write), ("read", unrecovered_read)):
        if count:
            reasons.append(f"{count:,} unrecovered {what} error(s) on this cartridge (log page 0x17; no rating to weigh them against)")
    return CartridgeWear(verdict, tuple(reasons), tuple(figures))


_SEVERITY = (CartridgeVerdict.NOT_ASSESSED, CartridgeVerdict.KEEP, CartridgeVerdict.MONITOR, CartridgeVerdict.RETIRE)

"""The drives' published speed-matching steps: how slowly an LTO drive can write and still stream.

A drive slows its tape to match a slower host, down to its lowest step; fed below that
(the host's rate divided by the data's compression ratio), it stops, rewinds a little and
restarts ("shoe-shining", back-hitching): throughput collapses and heads and media wear
(the white paper, "Tape drive"; ``shared/design/lto-drives.md``). So the rate a source
must reach to keep a drive streaming is its lowest step times the data's compression ratio.

Each table below is one vendor's published figures for one generation and form factor,
with where they were published. Where tapediag holds no published table for a
generation, ``speed_steps`` says so (``NOT_FOUND``) rather than guess. The steps are
native (uncompressed) MB/s, fastest first, for the drive writing its own generation's
media. ``resources/rules/lto-drives.json`` (the troubleshooting rules) carries each
generation's lowest step; ``tests/test_speedmatch.py`` keeps the two in agreement.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

FULL_HEIGHT = "full height"
HALF_HEIGHT = "half height"

_IBM_TS4300 = ("IBM Documentation, TS4300 Tape Library, \"Speed matching\" "
               "(ibm.com/docs/en/ts4300-tape-library?topic=features-speed-matching)")
_IBM_LTO10 = "IBM Documentation, \"Speed matching\" (ibm.com/docs/en/STAKKZ/con_LTOdrive_speedmatching.html)"


@dataclass(frozen=True)
class SpeedSteps:
    """One published speed-matching table: the native rates a drive can run at, fastest first."""

    generation: int
    form: str  # FULL_HEIGHT or HALF_HEIGHT
    vendor: str  # whose drives the table describes, as INQUIRY names the vendor ("IBM", "HP", "QUANTUM")
    steps_mb_s: tuple[float, ...]
    source: str
    note: str = ""  # "a range; the steps between are not published"

    @property
    def lowest_mb_s(self) -> float:
        return min(self.steps_mb_s)

    @property
    def highest_mb_s(self) -> float:
        return max(self.steps_mb_s)


TABLES: tuple[SpeedSteps, ...] = (
    SpeedSteps(2, FULL_HEIGHT, "IBM", (35, 30.63, 26.25, 21.9, 17.5),
               "IBM TotalStorage LTO Ultrium 2 Tape Drive (T400/T400F) user's guide, "
               "\"Speed Matching and Channel Calibration\" (five speeds)"),
    SpeedSteps(3, FULL_HEIGHT, "IBM", (80, 70, 60, 50, 40),
               "IBM TotalStorage Ultrium T800 (Ultrium 3) operator's manual, \"Speed Matching\" (five speeds)"),
    SpeedSteps(3, FULL_HEIGHT, "HP", (80, 27),
               "HP Ultrium drives technical reference manual, Generation 3 drives, volume 4: specifications "
               "(Q1530-90901, edition 5, December 2004): \"ATS data rate range 27-80 MB/s (U3)\"",
               note="a range (HP's Adaptive Tape Speed); the steps between are not published"),
    SpeedSteps(7, FULL_HEIGHT, "IBM", (306.0, 287.52, 268.56, 250.66, 231.86, 213.06, 194.26, 175.46, 157.67,
                                       138.52, 120.11, 101.46), _IBM_TS4300 + ", table 1 (full height)"),
    SpeedSteps(7, HALF_HEIGHT, "IBM", (306.0, 287.52, 268.56, 250.66, 231.86, 213.06, 194.26, 175.46, 157.67,
                                       138.52, 120.11, 101.46), _IBM_TS4300 + ", table 2 (half height)"),
    SpeedSteps(8, FULL_HEIGHT, "IBM", (365.0, 341.0, 318.0, 306.4, 273.0, 249.5, 226.0, 203.0, 180.0, 157.5,
                                       135.0, 112.0), _IBM_TS4300 + ", table 1 (full height)"),
    SpeedSteps(8, HALF_HEIGHT, "IBM", (306.4, 273.0, 249.5, 226.0, 203.0, 180.0, 157.5, 135.0, 112.0),
               _IBM_TS4300 + ", table 2 (half height)"),
    SpeedSteps(9, FULL_HEIGHT, "IBM", (408, 385, 366, 347, 325, 305, 284, 263, 244, 223, 203, 177),
               _IBM_TS4300 + ", table 1 (full height)"),
    SpeedSteps(9, HALF_HEIGHT, "IBM", (284, 263, 244, 223, 203, 177), _IBM_TS4300 + ", table 2 (half height)"),
    SpeedSteps(9, HALF_HEIGHT, "QUANTUM", (408, 385, 366, 347, 325, 305, 284, 263, 244, 223, 203, 177),
               "Quantum LTO-9 HH SAS User's Guide, \"Speed Matching\", table 2 (Generation 9 media)",
               note="Quantum lists the full-height top speeds for its half-height drive; the lowest step agrees "
                    "with IBM's half-height table"),
    SpeedSteps(10, FULL_HEIGHT, "IBM", (407, 387, 368, 349, 330, 311, 291, 272, 253, 234, 214, 195, 176, 157),
               _IBM_LTO10 + ", Generation 10 media (14 steps)"),
)

#: Generations for which tapediag holds no published speed-matching table, and what that means.
NOT_FOUND: dict[int, str] = {
    1: "no speed-matching table is published for LTO-1 drives that tapediag knows of (they did not match speed)",
    4: "no vendor speed-matching table for LTO-4 drives in the documentation tapediag draws on",
    5: "no vendor speed-matching table for LTO-5 drives in the documentation tapediag draws on",
    6: "no vendor speed-matching table for LTO-6 drives in the documentation tapediag draws on",
}

_HALF_HEIGHT_PRODUCT = re.compile(r"(?:\bHH|-HH|HALF)", re.IGNORECASE)
_FULL_HEIGHT_PRODUCT = re.compile(r"(?:-TD|\bFH|FULL)", re.IGNORECASE)


def form_from_product(product: str) -> str | None:
    """FULL_HEIGHT / HALF_HEIGHT from an INQUIRY product name where it says so (IBM "ULT3580-HH9",
    "ULTRIUM-TD9"; Quantum "ULTRIUM-HH9"), None where it does not (HPE names both "Ultrium 9-SCSI")."""
    if _HALF_HEIGHT_PRODUCT.search(product):
        return HALF_HEIGHT
    if _FULL_HEIGHT_PRODUCT.search(product):
        return FULL_HEIGHT
    return None


@dataclass(frozen=True)
class Match:
    """The table that applies to a drive, and in words how well it fits that drive."""

    table: SpeedSteps
    fit: str  # "" when vendor and form are the drive's own; else what was assumed


def _vendor_key(vendor: str) -> str:
    v = vendor.strip().upper()
    return "HP" if v in ("HP", "HPE") else v


def speed_steps(generation: int | None, *, vendor: str = "", form: str | None = None) -> Match | str:
    """The published table for this drive, or why there is none (a sentence).

    The drive's own vendor's table when there is one; else another vendor's table for the same
    generation and form factor (LTO drives of one generation write one format), said so in ``fit``.
    With the form factor unknown, the full-height table, said so.
    """
    if generation is None:
        return "the drive's LTO generation is not known: no speed-matching table applies"
    rows = [t for t in TABLES if t.generation == generation]
    if not rows:
        return NOT_FOUND.get(generation, f"no published speed-matching table for LTO-{generation} that tapediag knows of")
    want_form = form or FULL_HEIGHT
    key = _vendor_key(vendor)
    by_form = [t for t in rows if t.form == want_form] or rows
    own = [t for t in by_form if t.vendor == key]
    table = (own or by_form)[0]
    notes = []
    if not own:
        notes.append(f"{table.vendor}'s published figures for its LTO-{generation} drives"
                     + (f" ({vendor.strip()} publishes none tapediag knows of)" if vendor.strip() else ""))
    if form is None:
        notes.append(f"the drive's form factor is not in its INQUIRY data: the {table.form} table")
    if table.form != want_form:
        notes.append(f"only a {table.form} table is published")
    return Match(table, "; ".join(notes))

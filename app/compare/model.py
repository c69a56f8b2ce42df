"""A comparison of two recorded runs as plain data: what differs between them, then each figure with its
judgement (``app.compare.noise``). Already worded: the CLI, the GUI and the PDF print these strings."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from app.compare.noise import IMPROVED, JUDGEMENTS, NOISE, NOT_COMPARABLE, SAME, WORSE
from native.units import plural

#: The title of a comparison's PDF (``tapediag compare A B -o FILE``, the GUI's "Save comparison report").
REPORT_TITLE = "Before and after: comparison report"


@dataclass(frozen=True)
class Side:
    """One of the two runs, as the comparison names it."""

    run_id: int
    kind: str
    title: str  # "Tape performance"
    device: str
    started_at: str  # "2026-11-25 13:30 UTC"
    status: str
    version: str  # the tapediag that recorded it
    headline: str

    @property
    def name(self) -> str:
        """'run 12 of 2026-11-25 13:30 UTC'."""
        return f"run {self.run_id} of {self.started_at}"


@dataclass(frozen=True)
class Difference:
    """Something other than the figures that is not the same in both runs: the drive, the cartridge, a
    parameter. ``words`` says what it means for the comparison."""

    what: str  # "Drive serial", "Cartridge barcode", "Block size", "tapediag version"
    before: str
    after: str
    words: str


@dataclass(frozen=True)
class Row:
    """One figure of both runs and its judgement (``noise.JUDGEMENTS``); ``basis`` says by what rule."""

    figure: str  # "Write rate", "Write back-hitches (the drive's own)", "Read errors corrected"
    before: str
    after: str
    change: str  # "+104%", "3 fewer", "" where a change is no number
    judgement: str
    basis: str = ""

    @property
    def tone(self) -> str:
        return JUDGEMENTS.get(self.judgement, "none")


@dataclass(frozen=True)
class Comparison:
    """Run ``before`` against run ``after``: ``differences`` first (an empty tuple: the same test on the same drive
    and cartridge), then ``rows``; ``noise`` is how noise was judged, ``notes`` what else the reader must know."""

    before: Side
    after: Side
    differences: tuple[Difference, ...]
    rows: tuple[Row, ...]
    noise: tuple[str, ...]
    notes: tuple[str, ...] = ()

    def count(self, judgement: str) -> int:
        return sum(1 for r in self.rows if r.judgement == judgement)

    @property
    def summary(self) -> str:
        """'2 figures improved, 1 worse, 3 within noise' (the judgements that occur, in that order)."""
        parts = [f"{plural(self.count(IMPROVED), 'figure')} improved"] if self.count(IMPROVED) else []
        for judgement in (WORSE, NOISE, SAME, NOT_COMPARABLE):
            n = self.count(judgement)
            if n:
                parts.append(f"{n:,} {judgement}" if parts else f"{plural(n, 'figure')} {judgement}")
        return ", ".join(parts) or "nothing to compare"

    @property
    def same_test(self) -> bool:
        """No difference but the figures: a before-and-after of one test on one drive and cartridge."""
        return not self.differences

    def to_dict(self) -> dict:
        out = asdict(self)
        out["summary"] = self.summary
        return out


__all__ = ["Comparison", "Difference", "REPORT_TITLE", "Row", "Side"]

"""A comparison as the command prints it: what differs first, in words, then each figure and its judgement, then
how noise was judged."""
from __future__ import annotations

from typing import Sequence

from app.compare.model import Comparison


def _table(rows: Sequence[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths)) + "  " + r[-1] for r in rows]


def lines(c: Comparison) -> list[str]:
    a, b = c.before, c.after
    out = [f"Compared: {a.title} {a.name} (before) with {b.title} {b.name} (after)"]
    if c.same_test:
        out.append("Same test, drive and cartridge: a before-and-after comparison.")
    else:
        out.append("What differs besides the figures:")
        out += [f"  {d.what}: {d.before} / {d.after}: {d.words}" for d in c.differences]
    out.append("")
    if c.rows:
        head = ("Figure", f"Run {a.run_id}", f"Run {b.run_id}", "Change", "Judgement")
        out += _table([head] + [(r.figure, r.before, r.after, r.change or "-", r.judgement) for r in c.rows])
    out += ["", f"In all: {c.summary}."]
    out += [f"  {r.figure}: {r.judgement}, {r.basis}" for r in c.rows if r.basis and r.judgement != "same"]
    out += ["", "How noise is judged:"] + [f"  {line}" for line in c.noise] + [f"  {note}." for note in c.notes]
    return out


__all__ = ["lines"]

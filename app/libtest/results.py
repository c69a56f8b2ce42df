"""A library exerciser run's result: every move timed, the verdict, where each cartridge ended.

Stored in the history as ``to_dict`` writes it and read back with ``app.runs.typed.from_dict``;
``headline`` and ``summary_lines`` are what the history, ``show`` and the PDF print.
"""
from __future__ import annotations

import enum
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from native.units import duration_text, plural


class Verdict(enum.Enum):
    PASS = "PASS"
    FAIL = "FAIL"
    NOT_ASSESSED = "NOT ASSESSED"


#: As the other verdict commands (README): 0 pass, 11 fail, 12 not assessed.
EXIT_CODES = {Verdict.PASS: 0, Verdict.FAIL: 11, Verdict.NOT_ASSESSED: 12}


@dataclass
class Move:
    source: str  # element names as the inventory gives them, e.g. "slot:3", "drive:0"
    destination: str
    barcode: str
    seconds: float | None = None  # the robot's time for MOVE MEDIUM; None when it was not sent
    error: str | None = None  # the decoded refusal or fault, one line
    returning: bool = False  # a move that put a cartridge back (after the count, a fault or a cancel)
    unloaded: bool = False  # the drive was unloaded (LOAD UNLOAD) through its tape device before the move


@dataclass
class Misplaced:
    """A cartridge the final inventory did not find in its home slot."""

    barcode: str
    home: str
    where: str  # an element name, or "not found"


@dataclass
class LibraryTestResult:
    device: str
    params: dict[str, Any]
    vendor: str = ""
    product: str = ""
    status: str = "complete"  # "complete", "failed" (a robotics error), "cancelled"
    error: str | None = None
    verdict: Verdict = Verdict.NOT_ASSESSED
    reason: str = ""
    stopped: bool = False  # the exercise stopped early on an error (the reason says which)
    slots: list[str] = field(default_factory=list)  # the elements the run used
    drives: list[str] = field(default_factory=list)
    drive_devices: dict[str, str] = field(default_factory=dict)  # drive element -> its tape drive, by serial
    skipped: list[str] = field(default_factory=list)  # "CLN001L1 in slot:12 (cleaning cartridge)", ...
    moves: list[Move] = field(default_factory=list)
    restored: bool | None = None  # every cartridge home by the final inventory; None: it could not be read
    misplaced: list[Misplaced] = field(default_factory=list)
    #: the library and the exercised drives (``app.identity``; the key every run keeps them under)
    identities: list[dict[str, Any]] = field(default_factory=list)
    # Where every cartridge was (element name -> barcode, every full element) when the run began and when
    # it ended: the next run on this library compares the library with ``end_state``, or with
    # ``start_state`` when this run never finished (``app.libtest.previous``).
    start_state: dict[str, str] = field(default_factory=dict)
    end_state: dict[str, str] = field(default_factory=dict)
    #: What the library showed at the start that differs from how the last run on it left it.
    not_as_left: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]

    def timings(self) -> list[float]:
        return [m.seconds for m in self.moves if m.seconds is not None and m.error is None]

    def stats(self) -> dict[str, float] | None:
        """min / median / max seconds of the moves the robot completed."""
        times = self.timings()
        if not times:
            return None
        return {"min": min(times), "median": statistics.median(times), "max": max(times)}

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["verdict"] = self.verdict.value
        d["exit_code"] = self.exit_code
        d["stats"] = self.stats()
        return d


def move_times(stats: dict[str, float], moves: int) -> str:
    """'min 41 s, median 44 s, max 52 s (12 moves)': the move times as every front end writes them."""
    return (f"min {duration_text(stats['min'])}, median {duration_text(stats['median'])}, "
            f"max {duration_text(stats['max'])} ({plural(moves, 'move')})")


def headline(result: LibraryTestResult) -> str:
    done = len(result.timings())
    stats = result.stats()
    figures = plural(done, "move") + (
        f", median {duration_text(stats['median'])} (max {duration_text(stats['max'])})" if stats else "")
    back = "" if result.restored else (", NOT all cartridges home" if result.restored is False
                                       else ", final inventory unread")
    if result.verdict is Verdict.FAIL and result.reason:
        return f"FAIL after {figures}: {result.reason}{back}"
    return f"{result.verdict.value}: {figures}{back}"


def summary_lines(result: LibraryTestResult) -> list[str]:
    lines = [f"{result.device}: {result.vendor} {result.product}".rstrip(),
             f"library test: {result.verdict.value}" + (f" - {result.reason}" if result.reason else "")]
    if result.slots or result.drives:
        lines.append(f"  elements: {', '.join(result.slots)} <-> {', '.join(result.drives)}")
    lines += [f"  {element} is {device}: unloaded through it before each move out" for element, device
              in result.drive_devices.items()]
    lines += [f"  not as the last run left it: {s}" for s in result.not_as_left]
    lines += [f"  skipped {s}" for s in result.skipped]
    for i, m in enumerate(result.moves, 1):
        took = f"{duration_text(m.seconds):>9}" if m.seconds is not None else f"{'-':>9}"
        what = f"{m.barcode or 'cartridge'} {m.source} -> {m.destination}" + (" (putting back)" if m.returning else "") \
            + (", drive unloaded first" if m.unloaded else "")
        lines.append(f"  {i:>4} {took}  {what}" + (f": {m.error}" if m.error else ""))
    stats = result.stats()
    if stats:
        lines.append(f"move time: {move_times(stats, len(result.timings()))}")
    if result.restored:
        lines.append("final inventory: every cartridge is back in its home slot")
    elif result.restored is None:
        lines.append("final inventory: could not be read - check the library's panel")
    else:
        lines += [f"final inventory: {p.barcode} is in {p.where}, not in its home {p.home}" for p in result.misplaced]
    return lines


__all__ = ["EXIT_CODES", "LibraryTestResult", "Misplaced", "Move", "Verdict", "headline", "move_times",
           "summary_lines"]

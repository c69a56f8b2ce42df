"""How the last library test on a library left it, and what differs now.

Why (issue 27): a library test killed mid-run left two cartridges in drives; the next run took the
library as it found it for the starting point, moved what it could, put "everything" back and said
"every cartridge is back in its home slot" while two slots were empty. A run now reads what the
last recorded run on the same library says it left (its final inventory, ``end_state``; or, for a
run that never finished, the inventory it started from, ``start_state``, since it was to put
everything back) and says, before the first move, every element that differs.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.libtest.results import LibraryTestResult
from app.library import Inventory
from app.runs.typed import from_dict
from native.errors import DamagedResult
from native.iscsi_url import display_device
from native.scsi.smc import ElementType

KIND = "library-test"


def state_of(inv: Inventory) -> dict[str, str]:
    """Every full element but the robot's picker, by name: its barcode ("" when it has none)."""
    return {inv.name(e): e.barcode.strip() for e in inv.elements if e.full and e.type is not ElementType.TRANSPORT}


@dataclass(frozen=True)
class LeftBy:
    """What the last run on a library left there, and which run says so."""

    run_id: int
    state: dict[str, str]
    finished: bool  # False: the run never ended (killed, crashed); ``state`` is where it began


def left_by_last_run(device: str) -> LeftBy | None:
    """The last recorded library test on ``device`` and its state (None: none, or none that kept one)."""
    from app.history import History, HistoryError

    try:
        with History.open() as hist:
            runs = hist.list_runs(kind=KIND, device=display_device(device), limit=1)
    except HistoryError:
        return None
    if not runs or not runs[0].results:
        return None
    run = runs[0]
    try:  # read as every stored run is: typed (``app.runs.typed``; a checkpoint is the result so far)
        last = from_dict(LibraryTestResult, run.results)
    except DamagedResult:
        return None  # a record this tapediag cannot read says nothing of where the cartridges are
    if run.status != "incomplete" and last.end_state:
        return LeftBy(run.id, {str(k): str(v) for k, v in last.end_state.items()}, True)
    if last.start_state:
        return LeftBy(run.id, {str(k): str(v) for k, v in last.start_state.items()}, False)
    return None


def differences(left: LeftBy, now: dict[str, str]) -> list[str]:
    """One line per element whose content differs, e.g. "slot:3 held TGT003L6 after run 12, empty now"."""
    when = f"after run {left.run_id}" if left.finished else f"when run {left.run_id} began (it never finished)"
    out = []
    for name in sorted(set(left.state) | set(now), key=_element_order):
        was, is_ = left.state.get(name), now.get(name)
        if was == is_:
            continue
        then = f"held {was or 'a cartridge without a barcode'}" if was is not None else "was empty"
        current = f"holds {is_ or 'a cartridge without a barcode'} now" if is_ is not None else "empty now"
        out.append(f"{name} {then} {when}, {current}")
    return out


def _element_order(name: str) -> tuple[str, int, str]:
    kind, _, number = name.partition(":")
    return (kind, int(number), name) if number.isdigit() else (kind, -1, name)


__all__ = ["LeftBy", "differences", "left_by_last_run", "state_of"]

"""The library panel's operations: each one call into ``app/`` (the ``ui.engines`` model, Anki's ``QueryOp``).

The inventory, the checked move, INITIALIZE ELEMENT STATUS and the exerciser are the
ones ``tapediag library`` / ``library-test`` run (``app.library``, ``app.libtest``), the
words are ``app.library_view``'s and the run kind's (``app.libtest.kind``), and the exerciser is
run and recorded by ``app.execute`` with the parameters the CLI records. Functions
that talk to the library run on its worker (``ui.worker.Job``); ``exercise_params`` is
pure (GUI thread).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.events import CancelToken, EventSink
    from app.libtest import LibraryTestParams
    from app.libtest.results import LibraryTestResult
    from app.library import Inventory, Moved
    from app.library_view import ElementRow

DEFAULT_LIBRARY = "virtual:library"


@dataclass(frozen=True)
class LibraryView:
    """One reading of a library: its inventory, the rows the map shows, and what a move may name."""

    device: str
    inventory: Inventory
    summary: str
    rows: list[ElementRow]
    sources: list[str]
    destinations: list[str]
    moved: list[str]  # what the move before this reading did ("" lines when none)


def list_libraries() -> list[str]:
    """The changers discovery lists (local sg nodes, remembered iSCSI changer LUNs), the virtual library last.

    Not probed (no READ ELEMENT STATUS here): the panel reads the one chosen."""
    from app.discovery import discover
    from app.library_discovery import discover_libraries

    return [entry.device for entry in discover_libraries(discover(), probe=False)]


def _view(device: str, inventory: Inventory, moved: list[str]) -> LibraryView:
    from app.library_discovery import drive_devices
    from app.library_view import element_rows, move_destinations, move_sources, summary
    from native.scsi.smc import ElementType

    matched = drive_devices(inventory)
    devices = {inventory.name(e): matched.get(e.address) for e in inventory.of(ElementType.DATA_TRANSFER)}
    return LibraryView(device, inventory, summary(inventory), element_rows(inventory, devices),
                       move_sources(inventory), move_destinations(inventory), moved)


def read_library(device: str, *, initialize: bool = False) -> LibraryView:
    """``tapediag library DEVICE [--init]``: INITIALIZE ELEMENT STATUS only when asked, then the inventory."""
    from app.library import Changer

    from app.claims import claimed

    with Changer.open(device) as changer:
        if initialize:
            with claimed(changer, "library --init"):
                changer.initialize_element_status()
        return _view(device, changer.inventory(), [])


def move(device: str, source: str, destination: str, *, unload: bool = True,
         allow_removal: bool = False) -> LibraryView:
    """``tapediag library DEVICE --move SRC DST``: the same checked move, then the inventory again."""
    from app.library import Changer
    from app.library_view import moved_lines

    from app.claims import claimed

    with Changer.open(device) as changer:
        with claimed(changer, "library --move"):
            moved: Moved = changer.move(source, destination, unload=unload, allow_removal=allow_removal)
        inventory = changer.inventory()
    return _view(device, inventory, moved_lines(moved, inventory))


def exercise_params(values: dict[str, object]) -> LibraryTestParams:
    """The exerciser's parameters from the panel's fields by the conversion ``tapediag library-test`` uses (a blank
    field left out: every slot, every empty drive)."""
    from app.libtest import LibraryTestParams

    return LibraryTestParams.from_values({k: v for k, v in values.items() if not (isinstance(v, str) and not v.strip())})


@dataclass(frozen=True)
class Exercised:
    result: LibraryTestResult
    result_dict: dict
    run_id: int


def run_exerciser(device: str, params: LibraryTestParams, *, sink: EventSink, cancel: CancelToken) -> Exercised:
    """``tapediag library-test`` through ``app.execute``: bad input refused before a run is recorded, then the
    run in the history, recorded as the CLI records it."""
    from app.execute import execute
    from app.libtest.kind import LIBRARY_TEST

    run = execute(LIBRARY_TEST, params, device, sink=sink, cancel=cancel)
    return Exercised(run.result, run.result.to_dict(), run.run_id)


__all__ = ["DEFAULT_LIBRARY", "Exercised", "LibraryView", "exercise_params", "list_libraries", "move",
           "read_library", "run_exerciser"]

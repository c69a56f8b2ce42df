"""What a library exerciser run does: how many moves, among which slots and drives."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from native.errors import InvalidParameter

MAX_MOVES = 10_000  # a soak of several hours on a real robot; more is a typo


@dataclass(frozen=True)
class LibraryTestParams:
    """``moves``: MOVE MEDIUM commands to exercise (the moves that put cartridges back
    come on top when the count ends with a cartridge in a drive); ``slots``/``drives``:
    element names as ``app.library.Inventory.find`` reads them (empty: every slot, every
    empty drive); ``unload``: before a move out of a drive, unload it (LOAD UNLOAD) through
    the tape drive its identifier names (``app.library_discovery``), as many libraries need."""

    moves: int = 10
    slots: tuple[str, ...] = ()
    drives: tuple[str, ...] = ()
    unload: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.moves <= MAX_MOVES:
            raise InvalidParameter(f"moves: must be between 1 and {MAX_MOVES:,}")

    @classmethod
    def from_text(cls, moves: str | int | None = None, slots: str | None = None,
                  drives: str | None = None, *, unload: bool = True) -> "LibraryTestParams":
        """``--moves 20 --slots slot:1,slot:2,1004 --drives drive:0``: one conversion for CLI and GUI."""
        count = 10
        if moves is not None:
            try:
                count = int(str(moves).strip())
            except ValueError:
                raise InvalidParameter(f"moves: {moves!r} is not a whole number") from None
        return cls(count, _names(slots, "slots"), _names(drives, "drives"), unload)

    def to_dict(self) -> dict[str, Any]:
        return {"moves": self.moves, "slots": list(self.slots), "drives": list(self.drives), "unload": self.unload}


def _names(text: str | None, what: str) -> tuple[str, ...]:
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not names or any(not n or not n.isprintable() for n in names):
        raise InvalidParameter(f"{what}: element names separated by commas, e.g. slot:1,slot:2 or drive:0")
    return names

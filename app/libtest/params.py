"""What a library exerciser run does: how many moves, among which slots and drives."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from app.runs.fields import Field, given
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

    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("moves", "Mo&ves:", f"moves to exercise (up to {MAX_MOVES:,})", default="10", metavar="N",
              parse=lambda t: _moves(t)),
        Field("slots", "&Slots:", "slots whose cartridges to use, e.g. slot:1,slot:2 (default: every slot)",
              metavar="LIST", parse=lambda t: _names(t, "slots"), placeholder="every slot, e.g. slot:1,slot:2"),
        Field("drives", "&Drives:", "drives to use, e.g. drive:0 (default: every empty drive)", metavar="LIST",
              parse=lambda t: _names(t, "drives"), placeholder="every empty drive, e.g. drive:0"),
        Field("unload", "", "do not unload a drive (LOAD UNLOAD through the tape drive its serial names) before "
              "moving a cartridge out of it; leave that to the library", default=True, flag=True, option="--no-unload",
              gui=False),
    )

    def __post_init__(self) -> None:
        if not 1 <= self.moves <= MAX_MOVES:
            raise InvalidParameter(f"moves: must be between 1 and {MAX_MOVES:,}")

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "LibraryTestParams":
        """``--moves 20 --slots slot:1,slot:2,1004 --drives drive:0`` (or the GUI's fields): the one conversion."""
        moves, slots, drives = given(values, "moves"), given(values, "slots"), given(values, "drives")
        unload = values.get("unload")
        return cls(_moves(str(moves if moves is not None else cls.FIELDS[0].default)),
                   _names(str(slots), "slots") if slots is not None else (),
                   _names(str(drives), "drives") if drives is not None else (), True if unload is None else bool(unload))

    @classmethod
    def from_text(cls, moves: str | int | None = None, slots: str | None = None,
                  drives: str | None = None, *, unload: bool = True) -> "LibraryTestParams":
        """``from_values`` of the words."""
        return cls.from_values({"moves": moves, "slots": slots, "drives": drives, "unload": unload})

    def to_dict(self) -> dict[str, Any]:
        return {"moves": self.moves, "slots": list(self.slots), "drives": list(self.drives), "unload": self.unload}


def _moves(text: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise InvalidParameter(f"moves: {text!r} is not a whole number") from None


def _names(text: str | None, what: str) -> tuple[str, ...]:
    if text is None:
        return ()
    names = tuple(n.strip() for n in text.split(","))
    if not names or any(not n or not n.isprintable() for n in names):
        raise InvalidParameter(f"{what}: element names separated by commas, e.g. slot:1,slot:2 or drive:0")
    return names

"""What an erase is asked to do, declared once (``app.runs.fields``): the CLI's ``--short``/``--long``, ``--force``,
``--barcode`` and ``--poll``, the GUI's drop-down, and the labels of ``show``'s and the report's parameter line."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Mapping

from native.errors import InvalidParameter
from native.units import parse_duration

from app.runs.fields import Field, given

SHORT, LONG = "short", "long"


def _poll(text: str) -> float:
    """Seconds (a bare number, as the option's name says) or a duration ('30s', '1min')."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = parse_duration(text, "--poll")
    if not 0 <= seconds <= 600:  # NaN fails this too
        raise InvalidParameter("--poll must be 0 to 600 seconds")
    return seconds


def _barcode(text: str) -> str:
    barcode = text.strip()
    if not barcode or len(barcode) > 32 or not barcode.isprintable():
        raise InvalidParameter("--barcode must be the cartridge's barcode as its label shows it (1 to 32 characters)")
    return barcode


@dataclass(frozen=True)
class EraseParams:
    """``long``: the whole tape (ERASE LONG=1), else a short erase (end of data at BOT, ERASE LONG=0).
    ``force``: the explicit confirmation a cartridge holding data needs (as a data overwrite's ``--force``).
    ``barcode``: erase only the cartridge with this barcode (the GUI confirms one cartridge by name: the one
    loaded when the erase starts must be that one). ``poll_seconds``: how often a long erase's progress is asked
    for (REQUEST SENSE)."""

    long: bool = False
    force: bool = False
    barcode: str = ""
    poll_seconds: float = 5.0

    FIELDS: ClassVar[tuple[Field, ...]] = (
        # The GUI's choice; the CLI says it with --short or --long (one of them, always: an erase is never a default).
        Field("erase", "&Erase:", "a short erase ends the data at the start of the tape (seconds); a long erase "
                                  "overwrites the whole tape (hours, and it cannot be stopped once started)",
              default=SHORT, option=None, stored=("kind",),
              choices=((SHORT, "Short: end of data at the start of the tape (seconds)"),
                       (LONG, "Long: the whole tape (hours; cannot be stopped once started)"))),
        Field("short", "", "a short erase: end of data at the start of the tape (seconds); the old data can no "
                           "longer be read, and stays on the tape until overwritten", flag=True, gui=False),
        Field("long", "", "a long erase: the whole tape is overwritten (hours on a full-length cartridge); said "
                          "before it starts how long, and that once started it cannot be stopped", flag=True,
              gui=False),
        Field("force", "Erase a cartridge that holds data", "erase a cartridge that holds data (an LTFS volume "
              "included); never lifts the refusal of a write-protected or WORM cartridge", flag=True, gui=False),
        Field("barcode", "Only the cartridge with barcode", "erase only if the loaded cartridge's barcode (cartridge "
              "memory 0806h) is this one", metavar="BARCODE", parse=_barcode, gui=False),
        Field("poll", "Progress asked every", "seconds between progress queries during a long erase",
              default="5", metavar="SECONDS", parse=_poll, gui=False, stored=("poll_seconds",), unit="s"),
    )

    def __post_init__(self) -> None:
        if not 0 <= self.poll_seconds <= 600:
            raise InvalidParameter("the erase's poll interval must be 0 to 600 seconds")

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "EraseParams":
        """The one conversion both front ends call: the CLI's ``--short``/``--long`` (exactly one), or the GUI's
        ``erase`` choice; ``force``, ``barcode`` and ``poll`` as given."""
        short, long = bool(values.get("short")), bool(values.get("long"))
        chosen = given(values, "erase")
        if short and long:
            raise InvalidParameter("give --short or --long, not both")
        if chosen is not None and chosen not in (SHORT, LONG):
            raise InvalidParameter(f"erase: '{chosen}' is not one of short, long")
        if not (short or long or chosen):
            raise InvalidParameter("say which erase: --short (end of data at the start of the tape) or --long (the "
                                   "whole tape, hours)")
        barcode = given(values, "barcode")
        poll = given(values, "poll")
        return cls(long=long or chosen == LONG, force=bool(values.get("force")),
                   barcode=_barcode(str(barcode)) if barcode is not None else "",
                   poll_seconds=_poll(str(poll)) if poll is not None else 5.0)

    @property
    def kind(self) -> str:
        return LONG if self.long else SHORT

    def to_dict(self) -> dict[str, Any]:
        """As the history stores them: which erase, the confirmation, the barcode asked for, the poll interval."""
        return {"kind": self.kind, "force": self.force, "barcode": self.barcode, "poll_seconds": self.poll_seconds}


__all__ = ["EraseParams", "LONG", "SHORT"]

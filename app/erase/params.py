"""What an erase is asked to do."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from native.errors import InvalidParameter


@dataclass(frozen=True)
class EraseParams:
    """``long``: the whole tape (ERASE LONG=1), else a short erase (end of data at BOT, ERASE LONG=0).
    ``force``: the explicit confirmation a cartridge holding data needs (as a data overwrite's ``--force``).
    ``poll_seconds``: how often a long erase's progress is asked for (REQUEST SENSE)."""

    long: bool = False
    force: bool = False
    poll_seconds: float = 5.0

    def __post_init__(self) -> None:
        if not 0 <= self.poll_seconds <= 600:
            raise InvalidParameter("the erase's poll interval must be 0 to 600 seconds")

    @property
    def kind(self) -> str:
        return "long" if self.long else "short"

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "kind": self.kind}

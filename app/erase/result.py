"""What an erase did, and the state it left the tape in."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class EraseResult:
    """``status``: "complete", "cancelled" (tapediag stopped waiting; ``state_after`` says what the drive does
    then) or "failed". ``method``: the commands sent, in words. ``estimate_seconds``: a long erase's expected
    time and ``estimate_basis`` what it rests on. ``state_after``: the tape as the erase left it."""

    device: str
    params: dict[str, Any]
    kind: str = "short"
    status: str = "complete"
    error: str | None = None
    cartridge: dict[str, Any] = field(default_factory=dict)  # the pre-write probe (``CartridgeState.to_dict``)
    partitions: int = 1
    method: list[str] = field(default_factory=list)
    estimate_seconds: float | None = None
    estimate_basis: str = ""
    seconds: float = 0.0
    progress: float | None = None  # the last progress the drive reported, 0..1
    state_after: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

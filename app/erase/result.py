"""What an erase did, and the state it left the tape in: typed end to end (the history reads it back into this)."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from app.tapeperf.safety import CartridgeState


@dataclass
class EraseResult:
    """``status``: "complete", "cancelled" (tapediag stopped waiting; ``state_after`` says what the drive does
    then) or "failed". ``cartridge``: what the pre-write probe found (barcode, LTFS volume, what it held).
    ``method``: the commands sent, in words. ``estimate_seconds``: a long erase's expected time and
    ``estimate_basis`` what it rests on. ``state_after``: the tape as the erase left it."""

    device: str
    kind: str = "short"
    status: str = "complete"
    error: str | None = None
    cartridge: CartridgeState | None = None
    partitions: int = 1
    method: list[str] = field(default_factory=list)
    estimate_seconds: float | None = None
    estimate_basis: str = ""
    seconds: float = 0.0
    progress: float | None = None  # the last progress the drive reported, 0..1
    state_after: str = ""
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["cartridge"] = self.cartridge.to_dict() if self.cartridge is not None else None
        return out


__all__ = ["EraseResult"]

"""What a READ, a WRITE, a burst of them and a SPACE did, per SSC: the conditions that end them are
outcomes (flags, a residual), not exceptions."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, TypeVar

from native.errors import DeviceError

@dataclass(frozen=True)
class WriteOutcome:
    """A completed WRITE. ``eom_warning``: the early-warning zone was reached; write
    the remaining data (e.g. a trailer, a filemark) soon. ``residual`` counts
    blocks (fixed) or bytes (variable) the drive did not take, normally 0."""

    eom_warning: bool = False
    residual: int = 0


@dataclass(frozen=True)
class ReadOutcome:
    """One READ, per SSC: conditions that end a read are flags, not exceptions.

    ``nbytes`` bytes of the buffer are valid. ``residual`` is the signed sense INFO
    value (requested minus actual, in blocks in fixed mode); negative with ``ili``
    means the block on tape was longer than the request and was truncated.
    """

    nbytes: int
    filemark: bool = False
    eom: bool = False
    eod: bool = False
    ili: bool = False
    residual: int = 0
    data: memoryview | None = None

    @property
    def stopped(self) -> bool:
        """True when the read hit something other than data (filemark, EOD, EOM)."""
        return self.filemark or self.eod or self.eom


O = TypeVar("O", ReadOutcome, WriteOutcome)


@dataclass(frozen=True)
class Burst(Generic[O]):
    """A run of the same READ or WRITE (``TapeDrive.read_burst``/``write_burst``).

    ``clean`` I/Os moved the whole buffer with GOOD status. What ended the run, if
    anything, is the next I/O's ``tail`` (an outcome as ``read``/``write`` return it: a
    filemark, EOD, the early warning, a short block) or its ``error`` (what ``read``/
    ``write`` would have raised), kept as a value so the caller records the clean I/Os
    before it. Neither: the run stopped at its count or its time limit.
    """

    clean: int
    tail: O | None = None
    error: DeviceError | None = None


@dataclass(frozen=True)
class SpaceOutcome:
    """A SPACE. ``residual`` is how many of the requested units were not spaced."""

    residual: int = 0
    filemark: bool = False
    eod: bool = False
    bop: bool = False
    eom: bool = False


WRITTEN = WriteOutcome()  # frozen: one instance serves every GOOD WRITE

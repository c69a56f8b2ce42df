"""What a running test tells the outside world, and how it is told to stop.

Every test engine (tape performance, create data, read data) has the same shape::

    result = SomeTest(params, ...).run(sink, cancel)

``sink`` is called from the engine's thread with the events below; the CLI prints
them, the GUI forwards them through a Qt signal, pytest collects them in a list.
Samples are measured on the host side (bytes and monotonic time per I/O) and batched
so that publishing never costs more than the I/O it describes.
"""
from __future__ import annotations

from array import array
from dataclasses import dataclass, field, replace
from itertools import repeat
from typing import Callable, Iterator, Union

from app.cancel import CancelToken as CancelToken  # its own module: the command line's signal policy needs only it
from app.sink import discard as discard  # its own module: a run that emits nothing needs only it


@dataclass(frozen=True)
class Sample:
    """One I/O as the host saw it. ``t`` is seconds since the test started (end of the I/O)."""

    t: float
    nbytes: int
    latency: float
    phase: str  # "write", "read", "create", "read-data", "tree-walk"
    stream: int = 0


@dataclass(frozen=True, eq=False)
class SampleColumns:
    """Samples of one phase and stream as flat arrays (a copy of a slice of an engine's log):
    ``t``/``latency`` doubles, ``nbytes`` 64-bit integers, one entry per I/O."""

    t: array
    nbytes: array
    latency: array
    phase: str
    stream: int = 0

    def __len__(self) -> int:
        return len(self.t)

    def samples(self) -> tuple[Sample, ...]:
        ph, st = self.phase, self.stream
        return tuple(Sample(t, n, lat, ph, st) for t, n, lat in zip(self.t, self.nbytes, self.latency))

    def rows(self, run_id: int) -> Iterator[tuple[int, float, int, float, str, int]]:
        """The history's sample rows, without a ``Sample`` object each."""
        return zip(repeat(run_id), self.t, self.nbytes, self.latency, repeat(self.phase), repeat(self.stream))

    def retagged(self, phase: str, stream: int) -> "SampleColumns":
        return replace(self, phase=phase, stream=stream)


class SampleBatch:
    """Samples collected since the last batch; published at 10 Hz or more.

    An engine hands over its arrays (``columns``); the ``Sample`` objects are built only
    when a consumer asks for ``samples`` (a plot, on the GUI thread), never one per I/O on
    the engine's thread while it streams (issue 19). Immutable once made.
    """

    __slots__ = ("columns", "_samples")

    def __init__(self, samples: tuple[Sample, ...] = (), *, columns: SampleColumns | None = None) -> None:
        self.columns = columns
        self._samples: tuple[Sample, ...] | None = None if columns is not None else tuple(samples)

    @property
    def samples(self) -> tuple[Sample, ...]:
        if self._samples is None:
            assert self.columns is not None
            self._samples = self.columns.samples()
        return self._samples

    def __len__(self) -> int:
        return len(self.columns) if self.columns is not None else len(self.samples)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SampleBatch) and self.samples == other.samples

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"SampleBatch({len(self)} samples)"


@dataclass(frozen=True)
class PhaseStarted:
    """A phase of a run began (its total, when it has one)."""

    phase: str
    total_bytes: int | None = None  # None when the phase runs for a duration or to EOD


@dataclass(frozen=True)
class Progress:
    """How far a phase has come: bytes, time, rate and the time left."""

    phase: str
    done_bytes: int
    total_bytes: int | None
    elapsed: float
    rate_mb_s: float  # decimal MB/s over the whole phase so far
    eta_s: float | None


@dataclass(frozen=True)
class Message:
    """A line for the technician, at its level."""

    level: str  # "info", "warning", "error"
    text: str


@dataclass(frozen=True)
class PhaseFinished:
    """A phase of a run ended, with its summary."""

    phase: str
    summary: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RatedRates:
    """The drive's published rates, said once a tape test knows its generation (before any
    write): the GUI's plot draws them as reference lines, the CLI has them in the result."""

    generation: int | None
    native_mb_s: float | None
    compressed_mb_s: float | None


@dataclass(frozen=True)
class Yardstick:
    """What a tape test's verdict will judge its rate against ("800 MB/s possible for 2:1 data on LTO-9",
    ``app.tapeperf.rated.possible``), said once the data's ratio and the compression are known (before
    the first write): the GUI's plot draws it as its reference line instead of the rated rates, so the
    line and the headline use one figure (issue 31)."""

    mb_s: float
    label: str


@dataclass(frozen=True)
class RobotMove:
    """A library exerciser's MOVE MEDIUM, said when it is sent (``seconds`` None) and when it ends (its time,
    or the robot's error): the GUI's live progress and move-time plot."""

    number: int  # 1-based, every move the run sends (putting back included)
    planned: int  # the moves asked for; putting back comes on top
    source: str  # element names, "slot:3" -> "drive:0"
    destination: str
    barcode: str
    seconds: float | None = None
    returning: bool = False
    error: str | None = None


@dataclass(frozen=True)
class Checkpoint:
    """What a run has done so far (its result's ``to_dict()``), for the history to keep while the run
    goes on: a run whose process dies (SIGKILL, a crash) then stays "incomplete" but not empty. A
    library test says so its starting inventory is known to the next run even then."""

    results: dict


@dataclass(frozen=True)
class DriveBusy:
    """A passive watch's sampling interval (``app.watch``): the share of it the drive had a command
    outstanding, from the kernel's tape statistics. ``1 - busy_share`` is the time it waited for the
    host: the live curve of the bottleneck number (the bytes moved arrive as a ``SampleBatch``)."""

    t: float  # end of the interval, seconds since the watch began
    seconds: float
    busy_share: float


Event = Union[SampleBatch, PhaseStarted, Progress, Message, PhaseFinished, RatedRates, Yardstick, RobotMove, Checkpoint,
              DriveBusy]
EventSink = Callable[[Event], None]

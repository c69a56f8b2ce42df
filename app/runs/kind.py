"""What a run kind is: the contract every kind's package fills in, and nothing of any kind.

A kind (``RunKind[P, R]``) says what a test type *is*, once: its history name and title, what it
runs on (``Target``), its parameters (``P``, a dataclass whose inputs are one field table,
``app.runs.fields``), its typed result (``R``, a dataclass with ``to_dict()``), the engine that runs it
and its renderers, each taking the typed result: the headline (history list, GUI), the text (what the
CLI prints and ``show`` prints again), the report's labelled rows, page 1's findings, its own curves,
its exit code. Readers never see the stored dictionary: ``app.runs.stored`` reads it into ``R`` once.

This module imports no kind, no CLI and no Qt (pluggy's hook specification, Django's ``AppConfig``):
the kinds import it, ``app.catalog`` lists them.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol, TypeVar

from app.cancel import CancelToken
from app.sink import discard
from app.runs.exits import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE  # the kinds' too

if TYPE_CHECKING:
    from app.events import EventSink
    from app.history.figures import VisitFigures
    from app.runs.fields import Field

P = TypeVar("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

#: How a finding reads at a glance (the PDF's colour): fine, look at it, act now, or no verdict.
TONES = ("good", "warn", "bad", "none")
#: A report's labelled, rounded rows for a result: ("Write rate", "451.5 MB/s overall").
Rows = list[tuple[str, str]]
#: Curves a result carries itself: (label, [(t s, MB/s)]).
Series = list[tuple[str, list[tuple[float, float]]]]


@dataclass(frozen=True)
class Finding:
    """One verdict of a run in words, for the customer's manager: what was judged
    (``topic``), the verdict (``words``, with its figure and unit), why (``detail``)
    and what to do (``action``). ``tone`` is one of ``TONES``."""

    topic: str  # "Drive health", "Tape write rate", "Backup bottleneck"
    words: str  # "Healthy", "360 MB/s: 45% of the 800 MB/s this LTO-9 can write with 2:1 data"
    tone: str = "none"
    detail: str = ""
    action: str = ""


@dataclass(frozen=True)
class Stretch:
    """A stretch of a run's throughput plot that carries no samples but must be read with them: a write's closing
    flush, when the drive writes out its buffer after the host's last WRITE (a short run's curve shows the rate into
    the buffer, its headline the rate onto tape). It lies ``seconds`` long after ``phase``'s last I/O; ``label`` is
    drawn on it, ``note`` (a sentence naming both figures and why they differ) is printed under the plot."""

    phase: str
    seconds: float
    label: str
    note: str


class Target(enum.Enum):
    """What a kind runs on, which says what ``app.execute`` does before the engine starts."""

    #: One tape drive: opened, claimed (``app.claims``), its commands watched, its and its cartridge's identities
    #: recorded (``app.identity``).
    DRIVE = "a tape drive"
    #: Several tape drives at once (their device strings in the parameters' ``devices``): each opened, claimed,
    #: watched and identified.
    DRIVES = "several tape drives"
    #: A medium changer: opened, claimed and watched.
    LIBRARY = "a tape library"
    #: A device asked queries only (``info``, ``ticket``): no claim; the kind's engine opens it.
    QUERIES = "a device, queries only"
    #: A directory (the disk tests): nothing is opened for the engine.
    DIRECTORY = "a directory"
    #: Nothing (a troubleshooting session).
    NOTHING = "nothing"

    @property
    def device(self) -> bool:
        """Whether the kind concerns a device of its own (a drive or a library: its report names it)."""
        return self in (Target.DRIVE, Target.DRIVES, Target.LIBRARY, Target.QUERIES)


@dataclass(frozen=True)
class Command:
    """The kind's ``tapediag`` sub-command: its name and the one line ``tapediag --help`` lists.

    ``app/cli/commands.py`` lists every command without importing any kind (start-up, issue 13.4);
    ``tests/test_catalog.py`` holds that table to the catalog's commands."""

    name: str
    help: str


@dataclass
class RunContext(Generic[P]):
    """What a kind's engine is given: its parameters and device string, the sink and the cancel token, and
    what ``app.execute`` opened for it (``drive``, ``drives`` or ``changer``, by the kind's ``Target``)."""

    params: P
    device: str
    sink: EventSink = discard
    cancel: CancelToken = field(default_factory=CancelToken)
    drive: Any = None  # app.drive.TapeDrive, for Target.DRIVE
    drives: list[Any] = field(default_factory=list)  # app.drive.TapeDrive each, for Target.DRIVES
    changer: Any = None  # app.library.Changer, for Target.LIBRARY


class Engine(Protocol[R_co]):
    """An engine as every test is shaped (``Test(...).run(sink, cancel) -> Result``). It may also have
    ``close()`` (called whatever happens) and ``stored_extra() -> dict`` (keys stored beside its result)."""

    def run(self, sink: EventSink, cancel: CancelToken) -> R_co: ...


@dataclass(frozen=True)
class Call(Generic[R]):
    """A plain function as an engine (a troubleshooting session, a throwaway kind in a test)."""

    fn: Callable[[], R]

    def run(self, sink: EventSink, cancel: CancelToken) -> R:
        return self.fn()


def _no_exit_code(result: Any) -> int:
    return 0


@dataclass(frozen=True)
class RunKind(Generic[P, R]):
    """One test type (module docstring). ``engine(ctx)`` builds the engine once the target is open and
    before the run is recorded (bad input refused there leaves no run: a typo is not a run); its
    ``run(sink, cancel)`` is what the history records."""

    name: str  # the history's kind, e.g. "tape-perf"
    title: str  # for people: "Tape performance"
    target: Target
    params: type[P]
    result: type[R]
    engine: Callable[[RunContext[P]], Engine[R]]
    headline: Callable[[R], str]  # one short line
    text: Callable[[R], str] | None = None  # the result as the run printed it; None: show lists the figures
    rows: Callable[[R], Rows] | None = None  # the report's rows; None: the report's generic listing
    findings: Callable[[R], list[Finding]] | None = None  # page 1's verdicts; None: the headline stands
    series: Callable[[R], Series] | None = None  # the curves it carries; None: the stored samples by phase
    #: (label, MB/s) its verdict judges the rate against: the plot's one reference line (``app.report.plots``).
    yardstick: Callable[[R], tuple[str, float] | None] | None = None
    #: The rate its plot's scale is made for when it has no yardstick (several drives: their sum); None: the readings.
    scale: Callable[[R], float | None] | None = None
    #: What its plot must mark besides the samples (``Stretch``: a write's closing flush); None: nothing.
    stretches: Callable[[R], list[Stretch]] | None = None
    #: What a run says about the cartridge and drive it visited (``app.history.figures``): stored with the run as it
    #: is recorded, read by ``app.visits``; None: its runs are no visits.
    visit: Callable[[R], VisitFigures] | None = None
    exit_code: Callable[[R], int] = _no_exit_code  # the documented exit status of a finished run
    command: Command | None = None
    #: What a refused second run on the device names a run of this kind by (``app.claims``); "": its command.
    claim: str = ""
    #: The shape of the stored result; ``upgrade(data, version)`` brings a row stored at an older version to it
    #: (rows from before versions were stored are version 0).
    version: int = 1
    upgrade: Callable[[dict[str, Any], int], dict[str, Any]] | None = None
    #: How a stored result becomes ``R``; None: ``app.runs.typed.from_dict(result, data)``. May give None for a
    #: row that holds no result of the kind (a ticket whose pages could not be decoded).
    load: Callable[[dict[str, Any]], R | None] | None = None
    #: The stored parameters as (label, value) rows for ``show`` and the report, when the field table cannot say
    #: them (a troubleshooting session's nested figures); None: ``app.runs.fields.stored_rows`` of ``fields``.
    parameters: Callable[[dict[str, Any]], list[tuple[str, str]]] | None = None

    @property
    def fields(self) -> tuple["Field", ...]:
        """The parameters' field table (``P.FIELDS``, ``app.runs.fields``): the CLI's options, the GUI's form, the
        labels of ``show``'s and the report's parameter lines. Empty: the kind takes none."""
        return tuple(getattr(self.params, "FIELDS", ()))

    def parameter_rows(self, params: dict[str, Any]) -> list[tuple[str, str]]:
        """The stored parameters for people, each value with its unit: the one source of ``show``'s parameter line
        and the report's."""
        if self.parameters is not None:
            return self.parameters(params)
        from app.runs.fields import stored_rows

        return stored_rows(self.fields, params)

    @property
    def drive(self) -> bool:
        """Whether a run of this kind concerns a device of its own (``Target.device``)."""
        return self.target.device


__all__ = ["EXIT_CANCELLED", "EXIT_FAILED", "EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE", "Call", "Command", "Engine", "Finding", "RunContext", "RunKind", "Rows", "Series", "Stretch", "TONES", "Target"]

"""What a tape performance test found: per-phase rates, latencies, stalls, and the drive's view.

Everything is computed from host-side samples (bytes and monotonic end time per I/O),
never from polling the drive while it streams. A *stall* is an I/O whose latency is far
above the phase's median: on a tape drive that is the signature of a back-hitch (the
drive ran out of data, stopped, rewound a little and restarted).
"""
from __future__ import annotations

import copy
import math
from array import array
from dataclasses import asdict, dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable

from app.events import Sample, SampleColumns
from app.tapeperf.rated import BUFFER_MIB, Possible, possible
from app.tapeperf.sizing import SizePlan
from native.units import change_text, duration_text, percent, rate_text, size_text

if TYPE_CHECKING:
    import numpy as np

MB = 1_000_000
MiB = 1 << 20

#: An I/O counts as a stall when its latency exceeds both STALL_FACTOR x the median
#: and the median + STALL_MIN_SECONDS (so scheduling jitter on a loaded host is not
#: called a back-hitch; a real one costs a second or more).
STALL_FACTOR = 8.0
STALL_MIN_SECONDS = 0.25
#: Who caused a stall is judged over the time the drive's buffer lasts at the phase's rate (the drive's
#: buffer from log page 0x0C, else its generation's): a host that brought too little in that span emptied
#: (write) or filled (read) the buffer, and the tape had to stop and reposition. Clamped to these bounds;
#: a drive whose buffer is unknown gets the default.
STALL_WINDOW_MIN, STALL_WINDOW_MAX, STALL_WINDOW_DEFAULT = 0.05, 10.0, 1.0


@dataclass(frozen=True)
class Stall:
    """One slow I/O (a back-hitch's signature) and who caused it (``stall_cause``).

    ``cause``: "drive" (the host kept up: the drive's own repositioning, retries or the tape),
    "host" (the host left more than ``HOST_SHARE_LIMIT`` of the window before it between
    commands: the buffer ran dry or full because the host did not keep up), "emulator"
    (a virtual drive that fell behind its own model there: this machine). ``host_mb_s``:
    what the host moved in the ``window`` seconds before the stall."""

    t: float  # seconds since the test started, end of the slow I/O
    latency: float
    phase: str
    cause: str = "drive"
    host_mb_s: float | None = None
    window: float | None = None


@dataclass
class PhaseResult:
    """One write or read pass."""

    phase: str
    bytes: int = 0
    ios: int = 0
    blocks: int = 0
    filemarks: int = 0
    elapsed: float = 0.0
    mb_s: float = 0.0
    mib_s: float = 0.0
    # Decimal MB/s while streaming: from the end of the first data I/O (load, rewind and positioning are
    # over) to the end of the last, and for a write to the end of the closing filemark, which flushes
    # the drive's buffer: without it a run no longer than the buffer would show the interface's speed
    # (e.g. 123 % of what an LTO-9 can write). The headline figure; ``mb_s`` is the overall rate next to it. Not named
    # *_mb_s so that generic summaries, which list every *_mb_s figure, do not show it twice.
    streaming_mb_per_s: float | None = None
    streaming_seconds: float | None = None
    # Share of the streaming time that passed between commands (the host preparing the next I/O).
    host_share: float | None = None
    # How long the closing filemark took: the drive writing out its buffer (0 for a read).
    flush_seconds: float | None = None
    # An emulated drive only: seconds it fell behind its own model because this machine was too slow.
    emulator_lag_seconds: float | None = None
    # An emulated drive only: its cartridge file's rate on this machine's storage and the seconds it took.
    emulator_storage_mb_s: float | None = None
    emulator_storage_seconds: float | None = None
    per_second_min_mb_s: float | None = None
    per_second_max_mb_s: float | None = None
    latency_p50: float | None = None
    latency_p99: float | None = None
    latency_max: float | None = None
    time_to_first_byte: float | None = None
    stalls: list[Stall] = field(default_factory=list)
    end_reason: str = ""  # "size reached", "duration reached", "capacity reached", "filemark", "end of data", "cancelled", "error"
    error: str | None = None
    verified_blocks: int = 0
    verify_errors: int = 0
    first_verify_error: str | None = None
    # What the run said of the phase when it was stored (``TapePerfResult.to_dict`` fills them): a stored run is
    # shown with its own verdict, not one a later rule would give ("" / None: a run not yet stored).
    limited_by: str = ""
    limited_why: str = ""
    percent_of_possible: float | None = None

    @property
    def stall_count(self) -> int:
        return len(self.stalls)

    @property
    def drive_stalls(self) -> list[Stall]:
        """The stalls while the host kept up: the drive's (or the tape's) own."""
        return [s for s in self.stalls if s.cause == "drive"]

    @property
    def host_stalls(self) -> list[Stall]:
        """The stalls the host caused (it did not keep up) or this machine (an emulated drive behind its model)."""
        return [s for s in self.stalls if s.cause != "drive"]

    def to_dict(self) -> dict:
        d = asdict(self)
        d["stall_count"] = self.stall_count
        d["drive_stall_count"] = len(self.drive_stalls)
        return d


@dataclass
class SampleLog:
    """The samples of one phase in flat arrays: appending costs no object per I/O.

    ``lag_probe``: an emulated drive's ``Transport.emulator_lag`` (seconds it fell behind its own
    model so far); read after each I/O or burst into ``lag``, so that a stall or a slow stretch
    this machine caused is told from one the drive's model made (``stall_cause``)."""

    phase: str
    t: array = field(default_factory=lambda: array("d"))
    latency: array = field(default_factory=lambda: array("d"))
    nbytes: array = field(default_factory=lambda: array("q"))
    lag: array = field(default_factory=lambda: array("d"))
    lag_probe: Callable[[], float | None] | None = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.t)

    def _lag_now(self) -> float | None:
        return self.lag_probe() if self.lag_probe is not None else None

    def add(self, t: float, latency: float, nbytes: int) -> None:
        self.t.append(t)
        self.latency.append(latency)
        self.nbytes.append(nbytes)
        lag = self._lag_now()
        if lag is not None:
            self.lag.append(lag)

    @staticmethod
    def prepare() -> None:
        """Load what ``add_burst`` needs before a phase streams: imported at the first burst, numpy
        (tens of milliseconds) fell inside the streaming window, as host time between two commands."""
        import numpy  # noqa: F401

    def add_burst(self, starts: array, ends: array, count: int, nbytes: int, t0: float) -> None:
        """The first ``count`` I/Os of a burst (``TapeDrive.read_burst``/``write_burst``), ``nbytes`` each:
        their clock readings become samples in whole-array steps, not one Python step per I/O."""
        if count <= 0:
            return
        import numpy as np

        s = np.frombuffer(starts, dtype=np.float64, count=count)
        e = np.frombuffer(ends, dtype=np.float64, count=count)
        self.t.frombytes((e - t0).tobytes())
        self.latency.frombytes((e - s).tobytes())
        self.nbytes.extend(array("q", (nbytes,)) * count)
        lag = self._lag_now()
        if lag is not None:
            self.lag.extend(array("d", (lag,)) * count)

    def lags(self) -> array | None:
        """The emulated drive's lag after each I/O, or None (real hardware, or not recorded for every I/O)."""
        return self.lag if len(self.lag) == len(self.t) and len(self.t) else None

    def columns(self, start: int = 0) -> SampleColumns:
        """The samples from ``start`` on, as arrays (copies: the log keeps growing)."""
        return SampleColumns(self.t[start:], self.nbytes[start:], self.latency[start:], self.phase)

    def samples(self, start: int = 0, stop: int | None = None) -> tuple[Sample, ...]:
        stop = len(self.t) if stop is None else stop
        ph = self.phase
        t, lat, nb = self.t, self.latency, self.nbytes
        return tuple(Sample(t[i], nb[i], lat[i], ph) for i in range(start, stop))


def _percentile(sorted_values: "np.ndarray", q: float) -> float:
    """Nearest-rank percentile of an ascending sequence (q in 0..100)."""
    if not len(sorted_values):
        return math.nan
    rank = max(1, math.ceil(q / 100.0 * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


def summarize(result: PhaseResult, log: SampleLog, start_t: float, end_t: float, *,
              flush_seconds: float = 0.0, filemark_seconds: float = 0.0, buffer_bytes: int | None = None) -> None:
    """Fill the rates, latency figures and stalls of ``result`` from its samples.

    ``start_t``/``end_t`` bound the phase on the test's clock; ``mb_s`` covers the whole
    phase (positioning before the first byte and the closing filemark that flushes the
    drive's buffer included: data only counts once it is on tape). ``streaming_mb_per_s``
    starts after the first data I/O, which carries the load/rewind/positioning time and
    is therefore never a back-hitch, and for a write it ends with the closing filemark
    (``flush_seconds``: data counts once it is on tape, not once it is in the buffer). The
    drive is busy during its data I/Os and during the filemarks (``flush_seconds`` plus
    ``filemark_seconds`` for the ones written along the way); the rest of the streaming time
    is the host's. The per-second figures come only from whole seconds of streaming (two at
    least, else they are omitted). Each stall gets its cause (``stall_cause``) over the time the
    drive's buffer (``buffer_bytes``, when known) lasts at the streaming rate.
    """
    result.elapsed = max(end_t - start_t, 1e-9)
    result.mb_s = result.bytes / result.elapsed / MB
    result.mib_s = result.bytes / result.elapsed / MiB
    if not len(log):
        return
    # numpy over the logs' own buffers: ``sorted()`` of a long run's latencies (100,000 floats on
    # ``virtual:null``) was one C call holding the GIL for tens of milliseconds, a frozen GUI
    # at the end of every phase; numpy sorts with the GIL released.
    import numpy as np

    t = np.frombuffer(log.t, dtype=np.float64)
    lat = np.frombuffer(log.latency, dtype=np.float64)
    nbytes = np.frombuffer(log.nbytes, dtype=np.int64)
    lats = np.sort(lat)
    p50 = _percentile(lats, 50)
    result.latency_p50 = p50
    result.latency_p99 = _percentile(lats, 99)
    result.latency_max = float(lats[-1])
    result.time_to_first_byte = float(t[0]) - start_t
    first_end = float(t[0])
    if flush_seconds:
        result.flush_seconds = flush_seconds
    span = float(t[-1]) + flush_seconds - first_end
    if len(log) >= 2 and span > 0:
        result.streaming_seconds = span
        result.streaming_mb_per_s = int(nbytes[1:].sum()) / span / MB
        busy = float(lat[1:].sum()) + flush_seconds + filemark_seconds
        result.host_share = min(1.0, max(0.0, 1.0 - busy / span))
    # The first I/O waits for the positioning: judge stalls among the streaming I/Os only.
    if len(lat) > 1:
        median = _percentile(np.sort(lat[1:]), 50)
        threshold = max(median * STALL_FACTOR, median + STALL_MIN_SECONDS)
        slow = np.flatnonzero(lat[1:] > threshold) + 1
        window = stall_window(buffer_bytes, result.streaming_mb_per_s)
        lags = log.lags()
        lag = np.frombuffer(lags, dtype=np.float64) if lags is not None else None
        result.stalls = [stall_cause(t, lat, nbytes, lag, int(i), window, log.phase) for i in slow]
    # Bins over the data I/Os only: the seconds of a closing flush carry no data and would read "min 0.0".
    data_span = float(t[-1]) - first_end
    seconds = int(data_span // 1.0) if data_span > 0 else 0
    if seconds >= 2:
        k = ((t[1:] - first_end) // 1.0).astype(np.int64)
        inside = k < seconds
        bins = np.bincount(k[inside], weights=nbytes[1:][inside], minlength=seconds)
        result.per_second_min_mb_s = float(bins.min()) / MB
        result.per_second_max_mb_s = float(bins.max()) / MB


def stall_window(buffer_bytes: int | None, mb_s: float | None) -> float:
    """Seconds the drive's buffer lasts at ``mb_s``: the span a host must have kept up over (see ``STALL_WINDOW_*``)."""
    if not buffer_bytes or not mb_s:
        return STALL_WINDOW_DEFAULT
    return min(STALL_WINDOW_MAX, max(STALL_WINDOW_MIN, buffer_bytes / (mb_s * MB)))


def stall_cause(t: "np.ndarray", lat: "np.ndarray", nbytes: "np.ndarray", lag: "np.ndarray | None", i: int,
                window: float, phase: str) -> Stall:
    """The stall at I/O ``i`` with who caused it: the rule, in one place, for tape-perf, assess and scan.

    Looks at the ``window`` seconds before the slow I/O started. An emulated drive that fell
    behind its own model in that span or in the slow I/O itself (``lag``) made it: this machine.
    Else a host that spent more than ``HOST_SHARE_LIMIT`` of the span between commands did not
    keep up, and the buffer ran dry (write) or full (read): the host. Else the host kept up and
    the stall is the drive's own (repositioning, retries, the tape)."""
    import numpy as np

    start = float(t[i] - lat[i])
    first_start = float(t[0] - lat[0])
    w0 = max(start - window, first_start)
    span = start - w0
    j = int(np.searchsorted(t, w0, side="right"))  # the first I/O that ended inside the span
    if lag is not None:
        before = float(lag[j - 1]) if j > 0 else float(lag[0])
        own = float(lag[i] - lag[i - 1]) if i > 0 else 0.0
        if lag[i] - before > EMULATOR_LAG_SHARE * max(span, lat[i]) or own > 0.1 * lat[i]:
            return Stall(float(t[i]), float(lat[i]), phase, "emulator", None, window)
    if span <= 0 or i <= j:
        return Stall(float(t[i]), float(lat[i]), phase, "drive", None, window)
    ends = np.maximum(t[j - 1:i] if j > 0 else np.concatenate(([w0], t[:i])), w0)
    gaps = np.clip(t[j:i + 1] - lat[j:i + 1] - ends, 0.0, None)
    moved = int(nbytes[j:i].sum())
    host_mb_s = moved / span / MB
    cause = "host" if float(gaps.sum()) > HOST_SHARE_LIMIT * span else "drive"
    return Stall(float(t[i]), float(lat[i]), phase, cause, host_mb_s, window)


#: Fewer seconds of streaming than this, and no verdict is given on what limited the rate.
STEADY_SECONDS = 3.0
#: An emulated drive behind its model for more than this share of the streaming time: its figure is the machine's.
EMULATOR_LAG_SHARE = 0.05
#: ... and its cartridge file's I/O took at least this share of the streaming time: the storage is the limit.
STORAGE_SHARE = 0.5
#: A streaming rate within this fraction of what is possible is "at the drive's (or link's) limit".
AT_LIMIT = 0.95
#: More than this share of the streaming time between commands: the host did not keep up.
HOST_SHARE_LIMIT = 0.2


@dataclass(frozen=True)
class Limiter:
    """Who limited a phase: "drive", "host", "link", "emulator" (a virtual drive this machine could not
    run at its model's speed), or "not steady" (no verdict), and why."""

    who: str
    why: str


@dataclass
class LogDelta:
    """A counter read before and after the test (None where the drive lacks it)."""

    name: str
    before: int | None
    after: int | None

    @property
    def delta(self) -> int | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before

    @property
    def change(self) -> str:
        """'0', '+3', '+101 MB' (``native.units.change_text``): a byte counter with its unit, never a raw +4294967296."""
        return change_text(self.delta, nbytes="bytes" in self.name)

    @property
    def line(self) -> str:
        """'bytes from host (compression page): +101 MB', as the CLI and the report print a counter."""
        return f"{self.name}: {self.change}"


def error_deltas(deltas: list[LogDelta]) -> tuple[int | None, int | None]:
    """The corrected and uncorrected errors a run's counter deltas add up to (``app.history.figures``); None where
    none was counted."""
    from app.history.figures import error_counts

    return error_counts([(d.name, d.delta) for d in deltas])


@dataclass
class TapePerfResult:
    """The whole test. ``status``: complete, cancelled or failed (with ``error``)."""

    device: str
    params: dict
    status: str = "complete"
    error: str | None = None
    vendor: str = ""
    product: str = ""
    generation: int | None = None
    history: int = 1024
    phases: list[PhaseResult] = field(default_factory=list)
    predicted_ratio: float | None = None
    drive_ratio: float | None = None
    drive_ratio_note: str = ""
    rated_native_mb_s: float | None = None
    rated_compressed_mb_s: float | None = None
    # The drive's buffer and where the figure comes from: the span stalls are judged over (``stall_cause``).
    buffer_bytes: int | None = None
    buffer_source: str = ""
    compression: str = ""  # what happened to the compression setting
    settings: str = ""  # whether the drive's block mode and compression were put back (app.tapeperf.settings)
    log_deltas: list[LogDelta] = field(default_factory=list)
    log_notes: list[str] = field(default_factory=list)  # "page 0x1B: not supported"...
    tapealert: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    size_plan: SizePlan | None = None  # what the write sent and why
    samples: list[Sample] = field(default_factory=list, repr=False)
    #: What was possible for this drive with this data, as stored with the run (None: a run not yet stored).
    possible_label: str | None = None
    possible_mb_s: float | None = None

    def phase(self, name: str) -> PhaseResult | None:
        return next((p for p in self.phases if p.phase == name), None)

    @property
    def pattern(self) -> str:
        """The data pattern's name, as the parameters recorded it ("—" when they did not)."""
        return str(self.params.get("pattern", "—"))

    @property
    def generates_data(self) -> bool:
        """Whether the test made its data (a write, or a read that verifies): a plain read makes none, so the model's
        ratio is only taken, not predicted."""
        return self.params.get("direction") != "read" or bool(self.params.get("verify"))

    @property
    def possible(self) -> Possible | None:
        """What this drive can do with this data (``app.tapeperf.rated.possible``)."""
        return possible(self.generation, self.predicted_ratio, compression_on=self.compression != "off")

    @property
    def yardstick(self) -> tuple[str, float] | None:
        """(label, MB/s) the verdict judged the rate against, as stored with the run (its plot's one line), else by
        the rate table now; None when the drive's generation or the data's ratio is unknown."""
        if self.possible_label and self.possible_mb_s:
            return self.possible_label, self.possible_mb_s
        ref = self.possible
        return (ref.label, ref.mb_s) if ref else None

    @property
    def possible_words(self) -> str | None:
        """'800 MB/s possible for 2:1 data on LTO-9': as stored with the run, else by the rate table now."""
        if self.possible_label is not None:
            return self.possible_label
        ref = self.possible
        return ref.label if ref else None

    def judged(self, phase: PhaseResult) -> tuple[Limiter, float | None]:
        """Who limited the phase and its % of what is possible: as the run said when it was stored, else by the
        rules now (``limiter``, ``percent_of_possible``)."""
        if phase.limited_by:
            return Limiter(phase.limited_by, phase.limited_why), phase.percent_of_possible
        return self.limiter(phase), self.percent_of_possible(phase)

    def figure(self, name: str) -> tuple[float, Limiter] | None:
        """Phase ``name``'s rate as a component figure elsewhere (troubleshooting): its headline rate, the overall one
        when it never streamed, with what limited it as ``show`` says it (``judged``). None: no such phase, or it
        moved no data."""
        phase = self.phase(name)
        if phase is None:
            return None
        rate = headline_rate(phase) or (phase.mb_s if phase.mb_s > 0 else None)
        return (rate, self.judged(phase)[0]) if rate else None

    def percent_of_possible(self, phase: PhaseResult) -> float | None:
        """The streaming rate as % of what this drive can do with this data (None when unknown)."""
        ref = self.possible
        rate = headline_rate(phase)
        if ref is None or rate is None:
            return None
        return 100.0 * rate / ref.mb_s

    def limiter(self, phase: PhaseResult) -> Limiter:
        """Who limited the phase, from host-side timing; "not steady" when the run cannot tell."""
        if phase.streaming_seconds is None or phase.streaming_seconds < STEADY_SECONDS:
            seconds = phase.streaming_seconds or 0.0
            return Limiter("not steady", f"only {duration_text(seconds)} of streaming: too short to tell what limits the rate "
                                         f"(run at least {STEADY_SECONDS:.0f} s, better a minute)")
        buffer_mib = BUFFER_MIB.get(self.generation or 0)
        if phase.phase == "write" and buffer_mib and phase.bytes < 2 * buffer_mib * MiB:
            return Limiter("not steady", f"only {size_text(phase.bytes)} written, less than twice the drive's "
                                         f"{buffer_mib:,} MiB buffer: the rate may be the buffer filling, not the tape")
        ref = self.possible
        rate = phase.streaming_mb_per_s or 0.0
        behind = _emulator_limiter(phase, ref)
        if behind is not None:
            return behind
        if ref is not None and rate >= AT_LIMIT * ref.mb_s:
            who = "link" if "link" in ref.label else "drive"
            label = ref.label.removesuffix(" (the link's limit)")
            return Limiter(who, f"the {who} ran at its limit: {label}")
        share = phase.host_share or 0.0
        if share > HOST_SHARE_LIMIT:
            return Limiter("host", f"the host: {share:.0%} of the streaming time passed between commands "
                                   f"(preparing the data, CPU, the source), not in the drive")
        # The back-hitches the host caused (``stall_cause``) are the host's time too, though spent in the drive.
        caused = [s for s in phase.stalls if s.cause == "host"]
        stopped = sum(s.latency for s in caused) / phase.streaming_seconds
        if share + stopped > HOST_SHARE_LIMIT:
            return Limiter("host", f"the host: it did not keep up, and the drive stopped and repositioned "
                                   f"{len(caused)} time{'s' if len(caused) != 1 else ''} for it ({stopped:.0%} of "
                                   f"the streaming time, {share:.0%} more between commands)")
        return Limiter("drive", f"the drive: its commands took {1 - share:.0%} of the streaming time")

    def to_dict(self, *, samples: bool = False) -> dict[str, Any]:
        # Field by field rather than ``asdict(self)``: that deep-copies every Sample (tens of
        # thousands in a GUI run, ~0.5 s of GIL-holding Python) only for them to be dropped here.
        d: dict[str, Any] = {
            f.name: copy.deepcopy(getattr(self, f.name)) for f in fields(self)
            if f.name not in ("phases", "samples", "log_deltas", "size_plan")
        }
        d["size_plan"] = self.size_plan.to_dict() if self.size_plan is not None else None
        d["phases"] = []
        ref = self.possible
        d["possible_mb_s"] = ref.mb_s if ref else None
        d["possible_label"] = self.possible_words
        for p in self.phases:
            pd = p.to_dict()
            limiter, pd["percent_of_possible"] = self.judged(p)
            pd["limited_by"], pd["limited_why"] = limiter.who, limiter.why
            d["phases"].append(pd)
            # Headline figures for history tables and rules: the streaming rate, the overall one beside it.
            d[f"{p.phase}_mb_s"] = headline_rate(p)
            d[f"{p.phase}_overall_mb_s"] = p.mb_s
        d["log_deltas"] = [dict(name=x.name, before=x.before, after=x.after, delta=x.delta) for x in self.log_deltas]
        d["sample_count"] = len(self.samples)
        if samples:
            d["samples"] = [asdict(s) for s in self.samples]
        return d


def _emulator_limiter(phase: PhaseResult, ref: Possible | None) -> Limiter | None:
    """An emulated drive that missed what is possible because this machine made it late: "emulator",
    never "the drive" (issue 32.3). None for real hardware, a drive at its limit, or one whose own model
    would have missed it too with this host: with a lag of at most ``EMULATOR_LAG_SHARE`` (then the host
    or the modelled drive is the answer), or whatever the lag when the host's own gaps took more than
    ``HOST_SHARE_LIMIT`` of the window (then the host is: a host held to 60 MB/s on an LTO-5 under load
    read "this machine" for a 7 % lag, though the model fed that host's gaps alone ran at 51 MB/s).

    The lag is the streaming window's own (``native/virtual/lag.py``): the window's time is the model's
    time plus the lag, so the model's rate for the same bytes is known, and the lag is capped at the
    window for a result stored before the lag was measured that way."""
    seconds, rate = phase.streaming_seconds or 0.0, phase.streaming_mb_per_s or 0.0
    if phase.emulator_lag_seconds is None or seconds <= 0 or (ref is not None and rate >= AT_LIMIT * ref.mb_s):
        return None
    lag = min(max(phase.emulator_lag_seconds, 0.0), seconds)
    model_rate = rate * seconds / (seconds - lag) if lag < seconds else math.inf
    if ref is not None and model_rate < AT_LIMIT * ref.mb_s and (phase.host_share or 0.0) > HOST_SHARE_LIMIT:
        return None  # the host's pace: the lag only made a run the host held back slower still
    if lag <= EMULATOR_LAG_SHARE * seconds and (ref is None or model_rate < AT_LIMIT * ref.mb_s):
        return None
    model = f"its model alone would have run at {rate_text(model_rate)}" if math.isfinite(model_rate) else "its model"
    behind = f"the virtual drive fell {duration_text(lag)} of the {duration_text(seconds)} streaming time behind its own model ({model})"
    store = phase.emulator_storage_seconds or 0.0
    if phase.emulator_storage_mb_s and store >= STORAGE_SHARE * seconds:
        return Limiter("emulator", f"the host's storage at {rate_text(phase.emulator_storage_mb_s)}, not the drive "
                                   f"(the virtual cartridge's file took {store / seconds:.0%} of the streaming time; "
                                   f"{behind})")
    return Limiter("emulator", f"this machine, not the drive: {behind}; CPU or the cartridge file's storage")


def headline_rate(phase: PhaseResult) -> float | None:
    """The figure a phase is summed up by: its streaming rate, the overall rate when it never streamed."""
    return phase.streaming_mb_per_s if phase.streaming_mb_per_s is not None else (phase.mb_s if phase.ios else None)


def phase_headline(result: TapePerfResult, phase: PhaseResult) -> str:
    """'write 451.5 MB/s streaming (overall 174.5 MB/s), 56% of 800 MB/s possible for 2:1 data on LTO-9':
    the words the CLI, the GUI, the history and the PDF all say (a stored run with its own verdict)."""
    limiter, pct = result.judged(phase)
    if phase.streaming_mb_per_s is None:
        text = f"{phase.phase} {rate_text(phase.mb_s)} overall (never streamed)"
    else:
        text = f"{phase.phase} {rate_text(phase.streaming_mb_per_s)} streaming (overall {rate_text(phase.mb_s)})"
    label = result.possible_words
    if pct is not None and label:
        text += f", {percent(pct / 100)} of {label}"
    if limiter.who == "emulator":  # never let a slow host read as a slow (virtual) drive
        text += " — limited by this machine, not the drive"
    elif limiter.who == "not steady" and pct is not None:  # a % of a run too short to judge
        text += " — too short to judge the drive: run longer"
    return text


def headline(result: TapePerfResult) -> str:
    """One line for a whole tape-perf result: each phase's headline, joined."""
    return "; ".join(phase_headline(result, p) for p in result.phases)


__all__ = ["headline", "phase_headline", "headline_rate", "Limiter", "PhaseResult", "TapePerfResult", "SampleLog", "Stall", "LogDelta", "error_deltas", "summarize", "MB", "MiB"]

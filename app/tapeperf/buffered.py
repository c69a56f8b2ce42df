"""A short write's two figures: the rate into the drive's buffer and the rate onto tape.

A drive takes the host's WRITEs into its buffer (1 GiB on an LTO-9) as fast as the host and its link bring them,
and writes them to tape at its own speed; the closing filemark returns once the buffer is on tape
(``PhaseResult.flush_seconds``). A write not much longer than the buffer lasts therefore has two rates: the host's
samples, the plot's curve, run at the link's pace (about 1,190 MB/s on the virtual LTO-9), while the streaming
figure, which counts the flush (``app.tapeperf.results.summarize``), is the drive's (801 MB/s): the headline's.
The plot marks the flush and says both figures (``stretches``, the run kind's ``RunKind.stretches``), so that no
one reads the curve as what the drive wrote.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.runs.kind import Stretch
from app.tapeperf.results import PhaseResult, TapePerfResult
from native.units import duration_text, rate_text, size_text

#: The flush's share of the streaming time from which the plot says both figures: below it the curve and the
#: headline's figure differ by less than this share (a long write, where the buffer is a small part of it).
NOTED_SHARE = 0.05


@dataclass(frozen=True)
class BufferedWrite:
    """A write whose closing flush took a noticeable share of its streaming time (``NOTED_SHARE``)."""

    phase: str
    into_buffer_mb_s: float  # the host's data I/Os alone: the curve
    onto_tape_mb_s: float  # counted to the end of the flush: the headline's streaming figure
    data_seconds: float
    flush_seconds: float
    buffer_bytes: int | None

    def note(self) -> str:
        """Both figures and why they differ, in one sentence for under the plot."""
        buffer = f"{size_text(self.buffer_bytes)} buffer" if self.buffer_bytes else "buffer"
        return (f"{self.phase.capitalize()}: the curve's {rate_text(self.into_buffer_mb_s)} is how fast the host sent "
                f"data into the drive's {buffer} (the host's and its link's pace), not what the drive wrote; after the "
                f"last WRITE the drive took {duration_text(self.flush_seconds)} to write out its buffer (shaded). "
                f"Counted to the end of that flush, the drive wrote {rate_text(self.onto_tape_mb_s)}: the figure the "
                f"verdict judges.")


def buffered(ph: PhaseResult, buffer_bytes: int | None = None) -> BufferedWrite | None:
    """The phase's two figures when its flush took at least ``NOTED_SHARE`` of its streaming time, else None."""
    flush, span, rate = ph.flush_seconds, ph.streaming_seconds, ph.streaming_mb_per_s
    if not flush or not span or not rate or flush < NOTED_SHARE * span or span - flush <= 0:
        return None
    data_seconds = span - flush
    return BufferedWrite(ph.phase, rate * span / data_seconds, rate, data_seconds, flush, buffer_bytes)


def buffered_writes(result: TapePerfResult) -> list[BufferedWrite]:
    """Each phase of ``result`` whose plot must say both figures (a write shorter than a few buffers' worth)."""
    found = (buffered(ph, result.buffer_bytes) for ph in result.phases)
    return [b for b in found if b is not None]


def stretches(result: TapePerfResult) -> list[Stretch]:
    """The flushes to mark on the run's plot, each with its note (``RunKind.stretches``)."""
    return [Stretch(b.phase, b.flush_seconds, "flush to tape", b.note()) for b in buffered_writes(result)]


__all__ = ["NOTED_SHARE", "BufferedWrite", "buffered", "buffered_writes", "stretches"]

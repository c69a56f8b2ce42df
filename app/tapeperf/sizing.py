"""How much a tape test writes: a default that can judge the drive, and never more than the cartridge takes.

One rule for the CLI, the GUI and the engine:

* **auto** (``AUTO``, the default of ``--size`` and of the GUI's field): about a minute at the
  rate this drive can reach with this data (``app.tapeperf.rated.possible``: native rate x
  the pattern's ratio, capped by the link), and at least ``BUFFERS`` x the drive's buffer
  (``rated.BUFFER_MIB``): a write no longer than twice the buffer may have measured the
  buffer filling, not the tape (``TapePerfResult.limiter``). LTO-9 with 2:1 data: 48 GB.
  A drive whose generation is unknown (no rate, no buffer) gets ``UNKNOWN_BYTES``.
* **capped by the cartridge**: what it holds natively from where the write starts
  (MAM 0001h, maximum capacity, for a write from BOT; 0000h, remaining capacity, for an
  append at EOD), less ``EARLY_WARNING_SHARE`` for the early-warning zone before its end.
  An explicit size that does not fit is capped the same way (decided in issue 25): the
  write would end at the cartridge's early warning anyway ("capacity reached"), and a
  capped size ends it cleanly with the read-back reading all of it. The capacity is the
  native one, so compressible data never lands past the end of a real cartridge either.
  A cartridge that reports no capacity (no cartridge memory) is not capped: its end
  still ends the write.
* a **duration** bounds the write by time; the cartridge's end still ends it.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Protocol

from app.patterns import Pattern
from app.tapeperf.rated import BUFFER_MIB, possible
from native.errors import ConnectionLost, DeviceError, ParseError
from native.units import size_text

if TYPE_CHECKING:
    from app.drive import TapeDrive


class Asked(Protocol):
    """What the rule reads of a test's parameters (``app.tapeperf.params.TapePerfParams`` is one): the data, the
    compression, the I/O size and what the user asked for."""

    @property
    def pattern(self) -> Pattern: ...

    @property
    def compression(self) -> str: ...

    @property
    def io_size(self) -> int: ...

    @property
    def size(self) -> int | None: ...

    @property
    def duration(self) -> float | None: ...

    @property
    def start(self) -> str: ...

    @property
    def writes(self) -> bool: ...


#: The size as typed when none is given: the CLI's ``--size`` default and the GUI field's text.
AUTO = "auto"
#: Seconds of streaming the default aims at: long enough for a verdict on what limits the rate.
JUDGE_SECONDS = 60.0
#: The default writes at least this many times the drive's buffer (more than the limiter's 2).
BUFFERS = 2.5
#: No generation known (tgt, a non-LTO drive): no buffer and no rate to size from.
UNKNOWN_BYTES = 1 << 30
#: The share of the cartridge's capacity kept free for its early-warning zone.
EARLY_WARNING_SHARE = 0.05
MiB = 1 << 20


def _example() -> str:
    ref = possible(9, 2.0)
    return f"LTO-9, 2:1 data: {size_text(int(JUDGE_SECONDS * ref.mb_s * 1e6))}" if ref else ""


#: ``--help`` and the GUI's tooltip: what the default is.
AUTO_HELP = (f"{AUTO} (the default): about a minute at the rate the drive can reach with this data and at least "
             f"{BUFFERS:g} x its buffer ({_example()}), at most {1 - EARLY_WARNING_SHARE:.0%} of what the cartridge "
             "holds")


@dataclass(frozen=True)
class SizePlan:
    """What the write phase will send, why, and whether it fits the cartridge."""

    size: int | None  # bytes; None: a duration bounds the write
    asked: int | None  # the size asked for (None: auto, or a duration)
    auto: bool
    capacity: int | None  # bytes the cartridge holds natively from where the write starts (None: not reported)
    capacity_from: str  # "MAM 0001h (maximum capacity)" ...
    why: str  # one line, for the run's messages and the confirm page

    @property
    def capped(self) -> bool:
        return self.size is not None and self.asked is not None and self.size < self.asked

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _ratio(params: Asked) -> float:
    """The ratio the rate reference assumes: the pattern's target (zeros: the link decides)."""
    pattern = params.pattern
    if pattern.kind == "zeros":
        return 10.0
    return (pattern.target or 1.0) if pattern.kind == "ratio" else 1.0


def auto_bytes(params: Asked, generation: int | None) -> tuple[int, str]:
    """The default's bytes before the cartridge caps them, and why."""
    buffer_mib = BUFFER_MIB.get(generation or 0)
    ref = possible(generation, _ratio(params), compression_on=params.compression != "off")
    if buffer_mib is None or ref is None:
        return UNKNOWN_BYTES, "auto, the drive's generation is unknown (no rate and no buffer to size from)"
    minute = int(JUDGE_SECONDS * ref.mb_s * 1e6)
    floor = int(BUFFERS * buffer_mib * MiB)
    if minute >= floor:
        return minute, f"auto, a minute at {ref.label}"
    return floor, f"auto, {BUFFERS:g} x the drive's {buffer_mib:,} MiB buffer"


def _asked(size: int) -> str:
    """A size as asked, with its binary form when it was typed that way: "34.4 GB (32 GiB)"."""
    for unit, name in ((1 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB")):
        if size >= unit and size % unit == 0:
            return f"{size_text(size)} ({size // unit:,} {name})"
    return size_text(size)


def plan(params: Asked, *, generation: int | None, capacity: int | None,
         capacity_from: str = "") -> SizePlan:
    """The size the write phase sends (module docstring): the rule, without asking the drive."""
    io = params.io_size
    auto = params.size is None and params.duration is None
    if params.duration is not None and params.size is None:
        return SizePlan(None, None, False, capacity, capacity_from,
                        "for the duration asked" + (f"; the cartridge's end ends it sooner (it holds "
                                                    f"{size_text(capacity)})" if capacity else ""))
    wanted, why = auto_bytes(params, generation) if auto else (int(params.size or 0), "as asked")
    wanted = max(io, wanted // io * io)
    if capacity is None:
        return SizePlan(wanted, None if auto else params.size, auto, None, capacity_from,
                        f"{size_text(wanted)}: {why}" + ("" if not auto else "; the cartridge reports no capacity"))
    room = max(io, int(capacity * (1 - EARLY_WARNING_SHARE)) // io * io)
    asked = None if auto else params.size
    if wanted <= room:
        return SizePlan(wanted, asked, auto, capacity, capacity_from,
                        f"{size_text(wanted)}: {why}; fits the cartridge (it holds {size_text(capacity)})")
    short = ""
    buffer_mib = BUFFER_MIB.get(generation or 0)
    if buffer_mib and room < 2 * buffer_mib * MiB:
        short = f"; too little to judge the drive (it needs more than twice its {buffer_mib:,} MiB buffer)"
    what = "auto" if auto else f"the {_asked(wanted)} asked for does not fit"
    return SizePlan(room, asked, auto, capacity, capacity_from,
                    f"{size_text(room)}: {what}, the cartridge holds {size_text(capacity)} "
                    f"({capacity_from}), less {EARLY_WARNING_SHARE:.0%} for its early-warning zone{short}")


def cartridge_capacity(drive: "TapeDrive", *, at_bot: bool) -> tuple[int | None, str]:
    """Bytes the loaded cartridge holds natively from where a write starts, from its cartridge memory."""
    try:
        mam = drive.read_attributes()
    except ConnectionLost:
        raise
    except (DeviceError, ParseError):
        return None, "no cartridge memory"
    mib, source = ((mam.maximum_capacity_mib, "MAM 0001h, maximum capacity") if at_bot else
                   (mam.remaining_capacity_mib, "MAM 0000h, remaining capacity"))
    return (mib * MiB, source) if mib else (None, "the cartridge memory reports no capacity")


def plan_for(drive: "TapeDrive", params: Asked, generation: int | None) -> SizePlan:
    """``plan`` with the capacity the loaded cartridge reports (read-only: READ ATTRIBUTE)."""
    capacity, source = cartridge_capacity(drive, at_bot=params.start == "bot" or not params.writes)
    return plan(params, generation=generation, capacity=capacity, capacity_from=source)


__all__ = ["AUTO", "AUTO_HELP", "SizePlan", "auto_bytes", "cartridge_capacity", "plan", "plan_for"]

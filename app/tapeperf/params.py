"""What a tape performance test is asked to do, and the checks made before any write.

``TapePerfParams`` is the one parameter object the CLI, the GUI wizard and the tests
build; ``validate(limits)`` rejects what the drive cannot do (block size outside READ
BLOCK LIMITS, I/O size not a multiple of the block size in fixed mode, a size smaller
than one I/O) with one clear ``InvalidParameter`` *before* the cartridge is touched.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import ClassVar, Mapping

from app.patterns import Pattern
from app.runs.fields import Field
from app.tapeperf.sizing import AUTO, AUTO_HELP
from native.scsi.tape import BlockLimits
from native.errors import InvalidParameter
from native.units import parse_amount, parse_size

DIRECTIONS = ("write", "read", "write+read")
MODES = ("fixed", "variable")
COMPRESSION = ("on", "off", "leave")
STARTS = ("bot", "eod")

#: WRITE(6)/READ(6) carry a 24-bit transfer length: bytes in variable mode.
MAX_TRANSFER_FIELD = 0xFFFFFF

#: Sanity caps: more than any cartridge holds (LTO-10: 30 TB native, 75 TB at 2.5:1), a week, 100 GB/s.
MAX_TEST_BYTES = 100 * 10**12
MAX_TEST_SECONDS = 7 * 86400.0
MAX_HOST_RATE = 100e9


def _seed(value: object) -> int:
    """A pattern seed: a whole number from 0 (the generators take unsigned seeds)."""
    if value is None or value == "":
        return 0
    try:
        seed = int(str(value))
    except ValueError:
        raise InvalidParameter(f"--seed {value!r} is not a whole number") from None
    if not 0 <= seed < 2**63:
        raise InvalidParameter(f"--seed {seed} is out of range (0 ... 2^63-1)")
    return seed


def parse_direction(text: str) -> str:
    """'write', 'read', 'write,read' / 'write+read' / 'both'."""
    word = text.strip().lower().replace(" ", "").replace(",", "+")
    if word in ("both", "readback", "write+readback"):
        word = "write+read"
    if word not in DIRECTIONS:
        raise InvalidParameter(f"direction '{text}' is not one of write, read, write,read")
    return word


def _block(text: str) -> int:
    block = parse_size(text, "block size")
    if block < 1:
        raise InvalidParameter("the block size must be at least 1 byte")
    return block


def _amount(text: str) -> tuple[int | None, float | None]:
    """A test size ('32G'), a duration ('90s', '10min') or ``auto`` (both None): ``--size``."""
    return (None, None) if text.strip().lower() == AUTO else parse_amount(text, "test size")


def _pattern(text: str) -> str:
    return Pattern.parse(text.strip()).name


def _whole(text: str, option: str) -> int:
    try:
        return int(str(text).strip())
    except ValueError:
        raise InvalidParameter(f"{option} {text!r} is not a whole number") from None


#: The parameters as a person gives them (``app.runs.fields``): the CLI's options and the GUI's form, one declaration.
FIELDS: tuple[Field, ...] = (
    Field("direction", "&Direction:", "write, read, or write,read", default="write+read", parse=parse_direction,
          choices=(("write+read", "Write, then read back"), ("write", "Write only"), ("read", "Read only"))),
    Field("pattern", "Data pa&ttern:", "zeros, random, or N:1 for 1.0 <= N <= 10: the ratio the drive's own "
          "compressor (SLDC) will achieve", default="2:1", parse=_pattern),
    Field("block_size", "Bloc&k size:", "bytes per tape block: 262144, 256K, 1M", default="256K", parse=_block,
          unit="size"),
    Field("mode", "Block &mode:", "block mode", default="fixed", choices=(("fixed", "Fixed"), ("variable", "Variable"))),
    Field("io_size", "&I/O size:", "bytes per WRITE/READ command; in fixed mode a multiple of the block size "
          "(1M in fixed mode, the block size in variable mode)", parse=_block,
          placeholder="1 MiB in fixed mode, the block size in variable mode", unit="size"),
    Field("size", "&Amount of data:", "bytes to write (32G, 100GB), a duration (90s, 10min, 1h) or " + AUTO_HELP
          + "; a size the cartridge cannot take is capped to what it holds", default=AUTO, parse=_amount,
          stored=("size", "duration"), unit=("bytes", "s")),
    Field("filemarks_every", "Fi&lemark every:", "write a filemark every N bytes (0 = none: each filemark flushes the "
          "drive's buffer)", default="0", parse=lambda t: parse_size(t, "filemark interval"), unit="size"),
    Field("compression", "Drive &compression:", "hardware compression", default="leave",
          choices=(("on", "On"), ("off", "Off"), ("leave", "Leave as it is"))),
    Field("start", "&Start at:", "write from BOT or append at EOD", default="bot",
          choices=(("bot", "Beginning of tape (overwrite)"), ("eod", "End of data (append)"))),
    Field("verify", "&Verify data read back against what was written",
          "compare every block read back with the data written", flag=True),
    Field("force", "", "overwrite a cartridge that holds data", flag=True, gui=False),  # the GUI asks on its page
    Field("host_rate", "Slo&w the host to:", "throttle the host to this many bytes/s (e.g. 50MB) to reproduce a "
          "slow source", parse=lambda t: float(parse_size(t, "host rate")), placeholder="full speed; e.g. 50MB",
          stored=("host_rate_limit",), unit="bytes/s"),
    Field("seed", "Seed &of the pattern:", "pattern seed (a read that verifies the data needs the seed it was written with)", default="0",
          parse=lambda t: _seed(t), placeholder="0"),
    Field("history", "SLDC histor&y:", "SLDC history for the pattern (1K or 16K; default from the generation)",
          option="--history-size", parse=lambda t: parse_size(t, "history size"),
          placeholder="from the generation; or 1K, 16K", unit="size"),
    Field("blocks_per_io", "", "HP-UX form: blocks per I/O (fixed mode; sets --io-size = block size x this)",
          parse=lambda t: _whole(t, "--blocks-per-io"), gui=False),
    Field("repeats", "", "HP-UX form: number of I/Os (sets --size)", parse=lambda t: _whole(t, "--repeats"),
          gui=False),
)


@dataclass
class TapePerfParams:
    """One tape performance test. Sizes are bytes; ``size`` or ``duration`` bounds the write, neither: the
    default size that can judge the drive (``app.tapeperf.sizing``, resolved on the drive).

    ``io_size`` is the bytes per WRITE/READ command: in fixed mode a multiple of
    ``block_size`` (the white paper's 256 KB block, 1 MB I/O); in variable mode each
    command moves one block, so it equals ``block_size``. ``host_rate_limit`` (bytes/s)
    throttles the host on purpose, to reproduce a slow backup source.
    """

    direction: str = "write"
    pattern: Pattern = field(default_factory=lambda: Pattern.parse("2:1"))
    block_size: int = 256 << 10
    mode: str = "fixed"
    io_size: int = 1 << 20
    size: int | None = None  # None with no duration: auto (app.tapeperf.sizing), resolved on the drive
    duration: float | None = None
    filemarks_every: int = 0
    compression: str = "leave"
    start: str = "bot"
    verify: bool = False
    force: bool = False
    history: int | None = None  # SLDC history override (bytes); None = from the generation
    seed: int = 0
    host_rate_limit: float | None = None

    @classmethod
    def from_hpux(cls, block_size: int, blocks_per_io: int, repeats: int, **kwargs: object) -> "TapePerfParams":
        """The HP-UX form "block size x blocks per I/O x repeats" as fixed-mode parameters."""
        if blocks_per_io < 1 or repeats < 1:
            raise InvalidParameter("blocks per I/O and repeats must be at least 1")
        io = block_size * blocks_per_io
        return cls(block_size=block_size, io_size=io, size=io * repeats, mode="fixed", **kwargs)  # type: ignore[arg-type]

    FIELDS: ClassVar[tuple[Field, ...]] = FIELDS

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "TapePerfParams":
        """Parameters from what a user gave (CLI options, GUI fields, both as typed): the one conversion, by the
        field table (``FIELDS``: a value left out takes its declared default). ``io_size`` left out: 1 MiB in
        fixed mode, the block size in variable mode; the HP-UX form (``blocks_per_io``, ``repeats``) sets the I/O
        size and the size. Bad text raises ``InvalidParameter``; so does a value given but blank (``--direction ""``
        once ran a write)."""
        defaults = {f.name: f.default for f in FIELDS}

        def text(key: str) -> str | None:
            value = values.get(key)
            if isinstance(value, str) and not value.strip():
                option = next(f.cli for f in FIELDS if f.name == key)
                raise InvalidParameter(f"{option} is empty: give a value or leave the option out")
            if value is None:
                value = defaults.get(key) or None
            return None if value is None else str(value)

        mode = text("mode") or "fixed"
        block = _block(text("block_size") or "256K")
        io_text = text("io_size")
        if io_text is not None:
            io = parse_size(io_text, "I/O size")
        else:
            io = block if mode == "variable" else max(block, (1 << 20) // block * block)
        size, duration = _amount(text("size") or AUTO)
        per_io, repeats = text("blocks_per_io"), text("repeats")
        if per_io is not None or repeats is not None:  # the HP-UX form
            io = block * _whole(per_io, "--blocks-per-io") if per_io is not None else io
            size, duration = (io * _whole(repeats, "--repeats"), None) if repeats is not None else (size, duration)
        history, host_rate = text("history"), text("host_rate")
        return cls(
            direction=parse_direction(text("direction") or "write"), pattern=Pattern.parse(text("pattern") or "2:1"),
            block_size=block, mode=mode, io_size=io, size=size, duration=duration,
            filemarks_every=parse_size(text("filemarks_every") or "0", "filemark interval"),
            compression=text("compression") or "leave", start=text("start") or "bot",
            verify=bool(values.get("verify", False)), force=bool(values.get("force", False)),
            history=parse_size(history, "history size") if history else None, seed=_seed(text("seed")),
            host_rate_limit=float(parse_size(host_rate, "host rate")) if host_rate else None,
        )

    @classmethod
    def from_text(cls, values: Mapping[str, object]) -> "TapePerfParams":
        """``from_values`` (its older name)."""
        return cls.from_values(values)

    @property
    def writes(self) -> bool:
        return self.direction in ("write", "write+read")

    @property
    def reads(self) -> bool:
        return self.direction in ("read", "write+read")

    @property
    def fixed(self) -> bool:
        return self.mode == "fixed"

    def problems(self, limits: BlockLimits | None = None) -> list[str]:
        """Every reason this test cannot run, one sentence each (empty when it can)."""
        out = self._choice_problems()
        if out:
            return out
        if limits is not None:
            out += self._limit_problems(limits)
        return out + self._io_problems() + self._extent_problems() + self._option_problems()

    def _choice_problems(self) -> list[str]:
        """A choice outside its list, or a size below a byte: nothing else can be checked then."""
        out: list[str] = []
        if self.direction not in DIRECTIONS:
            out.append(f"direction '{self.direction}' is not one of {', '.join(DIRECTIONS)}")
        if self.mode not in MODES:
            out.append(f"block mode '{self.mode}' is not fixed or variable")
        if self.compression not in COMPRESSION:
            out.append(f"compression '{self.compression}' is not on, off or leave")
        if self.start not in STARTS:
            out.append(f"start '{self.start}' is not bot or eod")
        if self.block_size < 1:
            out.append("the block size must be at least 1 byte")
        if self.io_size < 1:
            out.append("the I/O size must be at least 1 byte")
        return out

    def _limit_problems(self, limits: BlockLimits) -> list[str]:
        """The block size against the drive's READ BLOCK LIMITS."""
        out: list[str] = []
        bs = self.block_size
        if limits.max_length and bs > limits.max_length:
            out.append(f"block size {bs} is above the drive's maximum of {limits.max_length} bytes (READ BLOCK LIMITS)")
        if bs < max(limits.min_length, 1):
            out.append(f"block size {bs} is below the drive's minimum of {limits.min_length} bytes (READ BLOCK LIMITS)")
        gran = 1 << limits.granularity
        if bs % gran:
            out.append(f"block size {bs} is not a multiple of the drive's {gran}-byte granularity (READ BLOCK LIMITS)")
        return out

    def _io_problems(self) -> list[str]:
        """The I/O against the block mode and what one WRITE(6) can carry."""
        bs, io = self.block_size, self.io_size
        if self.fixed:
            if io % bs:
                return [f"in fixed-block mode the I/O size ({io}) must be a multiple of the block size ({bs})"]
            if io // bs > MAX_TRANSFER_FIELD:
                return [f"an I/O of {io // bs} blocks does not fit a WRITE(6) command"]
            return []
        out = []
        if io != bs:
            out.append(f"in variable-block mode each I/O is one block: the I/O size ({io}) must equal the block size ({bs})")
        if bs > MAX_TRANSFER_FIELD:
            out.append(f"a variable block of {bs} bytes does not fit a WRITE(6) command (max {MAX_TRANSFER_FIELD})")
        return out

    def _extent_problems(self) -> list[str]:
        """The test's size and duration, and the filemarks' spacing."""
        out: list[str] = []
        io, size, duration, every = self.io_size, self.size, self.duration, self.filemarks_every
        if size is not None and size < io:
            out.append(f"the test size ({size} bytes) is smaller than one I/O ({io} bytes)")
        if size is not None and size > MAX_TEST_BYTES:
            out.append(f"a test size of {size:,} bytes is more than any cartridge holds (at most 100 TB)")
        if duration is not None and duration > MAX_TEST_SECONDS:
            out.append("a test longer than a week is not a test (give at most 7 days)")
        if duration is not None and duration <= 0:
            out.append("the test duration must be positive")
        if every < 0:
            out.append("filemarks-every must be 0 (none) or a number of bytes")
        elif every > MAX_TEST_BYTES:
            out.append(f"a filemark every {every:,} bytes is more than any cartridge holds")
        elif 0 < every < io:
            out.append(f"a filemark every {every} bytes is less than one I/O ({io} bytes)")
        return out

    def _option_problems(self) -> list[str]:
        """The SLDC history, the host rate limit and verify."""
        out: list[str] = []
        if self.history is not None and (self.history < 256 or self.history & (self.history - 1)):
            out.append(f"SLDC history {self.history} is not a power of two of at least 256 bytes")
        if self.host_rate_limit is not None and not 0 < self.host_rate_limit <= MAX_HOST_RATE:
            out.append("the host rate limit must be positive and at most 100 GB/s")
        if self.verify and not self.reads:
            out.append("verify needs a read phase: use direction write,read (or read)")
        return out

    def validate(self, limits: BlockLimits | None = None) -> None:
        """Raise ``InvalidParameter`` for the first problem (``problems`` lists them all)."""
        found = self.problems(limits)
        if found:
            more = f" (and {len(found) - 1} more problem{'s' if len(found) > 2 else ''})" if len(found) > 1 else ""
            raise InvalidParameter(found[0] + more)

    def to_dict(self) -> dict:
        d = asdict(self)
        d["pattern"] = self.pattern.name
        return d


__all__ = ["FIELDS", "TapePerfParams", "parse_direction", "DIRECTIONS"]

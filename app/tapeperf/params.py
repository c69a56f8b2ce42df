"""What a tape performance test is asked to do, and the checks made before any write.

``TapePerfParams`` is the one parameter object the CLI, the GUI wizard and the tests
build; ``validate(limits)`` rejects what the drive cannot do (block size outside READ
BLOCK LIMITS, I/O size not a multiple of the block size in fixed mode, a size smaller
than one I/O) with one clear ``InvalidParameter`` *before* the cartridge is touched.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from app.patterns import Pattern
from app.tapeperf.sizing import AUTO
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

    @classmethod
    def from_text(cls, values: dict[str, object]) -> "TapePerfParams":
        """Parameters from the text a user typed (CLI options, GUI fields), one conversion for both.

        Keys: direction, pattern, block_size, mode, io_size (default: 1 MiB in fixed
        mode, the block size in variable mode), size (bytes, a duration or ``auto``, the
        default: ``app.tapeperf.sizing``),
        filemarks_every, compression, start, verify, force, history, seed, host_rate.
        Missing keys take the defaults; bad text raises ``InvalidParameter``.
        """
        def text(key: str) -> str | None:
            value = values.get(key)
            if isinstance(value, str) and not value.strip():
                # Given but empty (--direction ""): a typo, never "the default" (it used to run a write).
                option = {"history": "history-size"}.get(key, key.replace("_", "-"))
                raise InvalidParameter(f"--{option} is empty: give a value or leave the option out")
            return None if value is None else str(value)

        mode = text("mode") or "fixed"
        block = parse_size(text("block_size") or "256K", "block size")
        if block < 1:
            raise InvalidParameter("the block size must be at least 1 byte")
        io_text = text("io_size")
        if io_text is not None and mode == "fixed":
            io = parse_size(io_text, "I/O size")
        elif mode == "variable":
            io = parse_size(io_text, "I/O size") if io_text is not None else block
        else:
            io = max(block, (1 << 20) // block * block)
        amount = text("size") or AUTO
        size, duration = (None, None) if amount.strip().lower() == AUTO else parse_amount(amount, "test size")
        history = text("history")
        host_rate = text("host_rate")
        return cls(
            direction=parse_direction(text("direction") or "write"),
            pattern=Pattern.parse(text("pattern") or "2:1"),
            block_size=block,
            mode=mode,
            io_size=io,
            size=size,
            duration=duration,
            filemarks_every=parse_size(text("filemarks_every") or "0", "filemark interval"),
            compression=text("compression") or "leave",
            start=text("start") or "bot",
            verify=bool(values.get("verify", False)),
            force=bool(values.get("force", False)),
            history=parse_size(history, "history size") if history else None,
            seed=_seed(values.get("seed")),
            host_rate_limit=float(parse_size(host_rate, "host rate")) if host_rate else None,
        )

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


__all__ = ["TapePerfParams", "parse_direction", "DIRECTIONS"]

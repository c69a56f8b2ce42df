"""What the disk tests are asked to do: typed, validated before anything is touched.

Kept apart from the engines so the CLI and the GUI can build and check parameters
(and show the white paper presets) without pulling in the I/O machinery.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Mapping

from app.disk.content import check as check_pattern
from app.disk.sizes import DISTRIBUTIONS, mean_size, parse_size
from app.runs.fields import Field, given
from native import diskio
from native.errors import InvalidParameter
from native.units import size_text

MAX_STREAMS = 8
FSYNC_POLICIES = ("none", "file", "end")
#: The white paper's data sets ("Test data"). Both used 2:1 data and "an equal
#: distribution of files in each directory"; a log-uniform size spread reproduces
#: their mean file sizes (11.4 MB over 64 KB-64 MB, 8.9 KB over 4-16 KB).
PRESETS: dict[str, dict] = {
    "typical": dict(depth=1, breadth=20, files_per_dir=220, min_size=64 << 10, max_size=64 << 20,
                    distribution="log-uniform", pattern="2:1"),
    "small": dict(depth=5, breadth=6, files_per_dir=750, min_size=4 << 10, max_size=16 << 10,
                  distribution="log-uniform", pattern="2:1"),
}


def _whole(value: object, what: str) -> int:
    """A whole number given as an int (argparse) or as text (a GUI field)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise InvalidParameter(f"{what}: '{value}' is not a whole number") from None


def device_rate_mb_s(value: object) -> float:
    """MB/s from bytes per second given as a number or as a size ('400MB', '1.2GB')."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value) / 1e6
    return parse_size(str(value).strip().removesuffix("/s"), "device rate") / 1e6


def _size(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else parse_size(str(value))


def _count(text: str) -> int:
    """A whole number of directories or files, as typed (its range is ``validate``'s)."""
    return _whole(text, "the value")


def _file_size(text: str) -> int:
    size = parse_size(text, None)
    if size <= 0:
        raise InvalidParameter("must be more than zero")
    return size


def _total(text: str) -> int | None:
    """A total size, or 0 (None): no cap, fill the tree."""
    size = parse_size(text, None)
    if size < 0:
        raise InvalidParameter("must be a size, or 0 to fill the tree")
    return size or None


def _streams(text: str) -> int:
    streams = _whole(text, "streams")
    if not 1 <= streams <= MAX_STREAMS:
        raise InvalidParameter(f"streams must be between 1 and {MAX_STREAMS}")
    return streams


def _pattern(text: str) -> str:
    check_pattern(text)  # the pattern generator's own parser and message
    return text.strip()


def _default(fields: tuple[Field, ...], name: str) -> str | bool:
    return next(f.default for f in fields if f.name == name)


def _value(fields: tuple[Field, ...], values: Mapping[str, object], name: str) -> object | None:
    """What the user gave for ``name``, else the field's declared default (None: there is none)."""
    value = given(values, name)
    if value is None:
        value = _default(fields, name)
    return None if value in ("", None) else value


#: The directory a disk test works in: the CLI's positional DIR, the GUI's first page (not a form field).
_TARGET = Field("target", "&Directory:", "the directory", option=None, gui=False)


@dataclass(frozen=True)
class CreateDataParams:
    """What to create. ``total_size`` / ``files`` cap the whole run (shared evenly by the
    streams); without them every stream fills its tree."""

    target: str
    depth: int = 3
    breadth: int = 5
    files_per_dir: int = 160
    min_size: int = 4 << 10
    max_size: int = 16 << 10
    distribution: str = "uniform"  # fixed (every file max_size) | uniform | log-uniform
    pattern: str = "2:1"
    streams: int = 1
    total_size: int | None = None
    files: int | None = None
    fsync: str = "end"
    write_size: int = 1 << 20
    allow_non_empty: bool = False
    seed: int = 0
    cleanup: bool = False  # remove what the run made again once it is measured (``--cleanup``)

    FIELDS: ClassVar[tuple[Field, ...]] = (
        _TARGET,
        Field("preset", "", "a white paper data set: typical (64K-64M) or small (4K-16K)",
              choices=tuple((name, name) for name in sorted(PRESETS)), gui=False),  # the GUI's presets list them
        Field("depth", "Tree &depth:", "levels of subdirectories under each stream's own directory", default="3",
              parse=_count),
        Field("breadth", "B&readth (subdirectories):", "subdirectories per directory", default="5", parse=_count),
        Field("files_per_dir", "Fi&les per directory:", "files in every directory", default="160", parse=_count),
        Field("min_size", "M&inimum file size:", "smallest file", default="4K", parse=_file_size, unit="size"),
        Field("max_size", "Ma&ximum file size:", "largest file", default="16K", parse=_file_size, unit="size"),
        Field("size", "", "every file this size (fixed distribution: stored as its min and max)", metavar="SIZE",
              parse=_file_size, gui=False),
        Field("distribution", "Size distrib&ution:", "file sizes between min and max", default="uniform",
              choices=(("uniform", "Uniform"), ("log-uniform", "Log-uniform"), ("fixed", "Fixed"))),
        Field("pattern", "Data pa&ttern:", "zeros, random or N:1", default="2:1", parse=_pattern),
        Field("total_size", "T&otal size:", "stop after this much data (all streams together): 10G = 10 GiB, "
              "10GB = 10^10 bytes; 0: fill the tree", metavar="SIZE", parse=_total, placeholder="fill the tree",
              unit="size"),
        Field("files", "", "stop after this many files (all streams together)", metavar="N", parse=_count, gui=False),
        Field("streams", "Parallel &streams:", f"parallel writers, each with its own subtree (1-{MAX_STREAMS})",
              default="1", parse=_streams),
        Field("fsync", "", "end: flush the file system at the end of each stream, inside the timing; file: fsync "
              "every file; none: page cache only (flattering)", default="end",
              choices=tuple((p, p) for p in FSYNC_POLICIES), gui=False),
        Field("write_size", "", "bytes per write call", default="1M", parse=_file_size, gui=False, unit="size"),
        Field("seed", "", "seed of sizes and contents (reproducible trees)", default="0", parse=_count, gui=False),
        Field("allow_non_empty", "Allo&w a non-empty directory (files of others are kept)",
              "write into a new subdirectory of a non-empty DIR", flag=True),
        Field("cleanup", "", "remove the created files again after measuring", flag=True, gui=False),
    )

    @classmethod
    def preset(cls, name: str, target: str, **overrides: object) -> "CreateDataParams":
        if name not in PRESETS:
            raise InvalidParameter(f"unknown preset '{name}'", hint=f"use one of {', '.join(PRESETS)}")
        return cls(target=target, **{**PRESETS[name], **overrides})

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "CreateDataParams":
        """The parameters from what a user gave, typed (CLI options) or as text (GUI fields): the one
        conversion both front ends call, so both record the same ``to_dict()``.

        Keys: target, preset, depth, breadth, files_per_dir, min_size, max_size, size (every file
        that size), distribution, pattern, streams, total_size, files, fsync, write_size, seed,
        allow_non_empty. Sizes are bytes or text ('4K', '64M'); a missing, None or blank value
        takes the preset's or the default. Bad text raises ``InvalidParameter``; ranges are
        ``validate``'s.
        """
        fields = cls.FIELDS
        target = given(values, "target")
        if target is None:
            raise InvalidParameter("no target directory given")
        preset = given(values, "preset")
        if preset is not None and preset not in PRESETS:
            raise InvalidParameter(f"unknown preset '{preset}'", hint=f"use one of {', '.join(PRESETS)}")
        # A preset's figures stand where nothing else is given; what is given overrides them.
        shape: dict[str, Any] = dict(PRESETS[str(preset)]) if preset is not None else {}
        for key in ("depth", "breadth", "files_per_dir", "min_size", "max_size", "distribution", "pattern"):
            value = given(values, key) if key in shape else _value(fields, values, key)
            if value is not None:
                shape[key] = (_size(value) if key.endswith("size") else _whole(value, key.replace("_", " "))
                              if key in ("depth", "breadth", "files_per_dir") else str(value).strip())
        if (every := given(values, "size")) is not None:
            if given(values, "min_size") is not None or given(values, "max_size") is not None:
                raise InvalidParameter("give --size (every file that size) or --min-size/--max-size, not both")
            shape.update(min_size=_size(every), max_size=_size(every), distribution="fixed")
        total, files = given(values, "total_size"), given(values, "files")
        return cls(
            target=str(target), streams=_whole(_value(fields, values, "streams"), "streams"),
            total_size=_total(str(total)) if total is not None else None,
            files=_whole(files, "files") if files is not None else None,
            fsync=str(_value(fields, values, "fsync")), write_size=_size(_value(fields, values, "write_size")),
            seed=_whole(_value(fields, values, "seed"), "seed"), allow_non_empty=bool(values.get("allow_non_empty")),
            cleanup=bool(values.get("cleanup")), **shape,
        )

    @property
    def dirs_per_stream(self) -> int:
        return sum(self.breadth**level for level in range(1, self.depth + 1))

    @property
    def capacity_per_stream(self) -> int:
        return self.dirs_per_stream * self.files_per_dir

    def validate(self) -> None:
        checks = [
            (1 <= self.depth <= 10, "depth must be 1 to 10"),
            (1 <= self.breadth <= 100, "breadth must be 1 to 100"),
            (1 <= self.files_per_dir <= 999_999, "files per directory must be 1 to 999999"),
            (0 <= self.min_size <= self.max_size, "min size must not exceed max size"),
            (self.max_size <= 1 << 40, "max size is at most 1 TiB"),
            (self.distribution in DISTRIBUTIONS, f"distribution must be one of {', '.join(DISTRIBUTIONS)}"),
            (1 <= self.streams <= MAX_STREAMS, f"streams must be 1 to {MAX_STREAMS}"),
            (self.fsync in FSYNC_POLICIES, f"fsync must be one of {', '.join(FSYNC_POLICIES)}"),
            (4096 <= self.write_size <= 64 << 20, "write size must be 4K to 64M"),
            (self.total_size is None or self.files is None, "give a total size or a file count, not both"),
            (self.total_size is None or self.total_size > 0, "total size must be positive"),
            (self.files is None or self.files > 0, "file count must be positive"),
            (0 <= self.seed < 2**63, "seed must be a whole number from 0"),
            # Last, and only once depth and breadth are in range: breadth**depth of a huge depth never ends.
            (not (1 <= self.depth <= 10 and 1 <= self.breadth <= 100) or self.dirs_per_stream <= 1_000_000,
             "the tree would have more than a million directories per stream"),
        ]
        for ok, text in checks:
            if not ok:
                raise InvalidParameter(text)
        check_pattern(self.pattern)  # the pattern generator's own parser and message
        if self.files is not None and -(-self.files // self.streams) > self.capacity_per_stream:
            raise InvalidParameter(
                f"{self.files} files do not fit: each stream's tree holds {self.capacity_per_stream} "
                f"({self.dirs_per_stream} directories x {self.files_per_dir} files)",
                hint="raise --depth, --breadth or --files-per-dir",
            )
        if self.total_size is not None and self.total_size / self.streams > self.capacity_per_stream * max(self.max_size, 1):
            raise InvalidParameter(
                f"{size_text(self.total_size, binary=True)} does not fit in the tree even with every file at the maximum size",
                hint="raise --depth, --breadth, --files-per-dir or --max-size",
            )

    def share(self, stream: int) -> tuple[int, int | None]:
        """(files, bytes or None) stream ``stream`` (1-based) must create."""
        if self.files is not None:
            base, extra = divmod(self.files, self.streams)
            return base + (1 if stream <= extra else 0), None
        if self.total_size is not None:
            base, extra = divmod(self.total_size, self.streams)
            return self.capacity_per_stream, base + (1 if stream <= extra else 0)
        return self.capacity_per_stream, None

    def expected_files(self) -> int:
        """Files the run should make (an estimate when it is limited by total size)."""
        if self.total_size is None:
            return sum(self.share(s)[0] for s in range(1, self.streams + 1))
        mean = max(mean_size(self.distribution, self.min_size, self.max_size), 1.0)
        return min(self.streams * self.capacity_per_stream, int(self.total_size / mean) + self.streams)

    def expected_bytes(self) -> int:
        if self.total_size is not None:
            return self.total_size + self.streams * self.max_size  # the last file of a stream may overshoot
        return int(self.expected_files() * mean_size(self.distribution, self.min_size, self.max_size))

    def to_dict(self) -> dict:
        return asdict(self)



@dataclass(frozen=True)
class ReadDataParams:
    target: str
    streams: int = 1
    buffer_size: int = 1 << 20
    direct: bool = False
    evict: bool = True
    max_listed_unreadable: int = 1000
    #: After the run, read a sample of the same files again with O_DIRECT (``app.disk.probe``):
    #: the raw figure that shows a read served from a cache below this machine.
    raw_probe: bool = True
    #: What the device delivers raw, in MB/s, when the user knows it (a dd on the host, the
    #: array's rating): the reference for a cache this machine's O_DIRECT cannot bypass.
    device_mb_s: float | None = None

    FIELDS: ClassVar[tuple[Field, ...]] = (
        _TARGET,
        Field("streams", "Parallel &streams:", f"parallel readers (1-{MAX_STREAMS})", default="1", parse=_streams),
        Field("buffer_size", "Read b&uffer:", "read size", default="1M", parse=_file_size, option="--buffer",
              metavar="SIZE", unit="size"),
        Field("direct", "&Direct I/O (O_DIRECT, bypasses the page cache entirely)",
              "O_DIRECT reads (bypass the page cache entirely)", flag=True),
        Field("evict", "", "do not evict files before reading (cache may flatter)", default=True, flag=True,
              option="--no-evict", gui=False),
        Field("raw_probe", "", "skip the raw probe (after the run, a sample of the same files read again with "
              "O_DIRECT, the figure that shows a read served from a cache below this machine)", default=True,
              flag=True, option="--no-raw-probe", gui=False),
        Field("device_rate", "Device's ra&w rate:", "what the device delivers raw, per second (e.g. 400MB, from dd on "
              "the host or the array's rating): a read above it is reported as served from a cache",
              metavar="RATE", parse=lambda t: device_rate_mb_s(t), placeholder="unknown; e.g. 400MB",
              stored=("device_mb_s",), unit="MB/s"),
        Field("max_listed_unreadable", "", "", option=None, gui=False),
    )

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "ReadDataParams":
        """The parameters from what a user gave, typed (CLI options) or as text (GUI fields): the one
        conversion both front ends call. Keys: target, streams, buffer_size, direct, evict (default on),
        raw_probe (default on), device_rate (bytes/s as a number, or text such as '400MB': per second)."""
        target, rate = given(values, "target"), given(values, "device_rate")
        if target is None:
            raise InvalidParameter("no directory to read given")
        evict, probe = values.get("evict"), values.get("raw_probe")
        return cls(str(target), streams=_whole(_value(cls.FIELDS, values, "streams"), "streams"),
                   buffer_size=_size(_value(cls.FIELDS, values, "buffer_size")), direct=bool(values.get("direct")),
                   evict=True if evict is None else bool(evict), raw_probe=True if probe is None else bool(probe),
                   device_mb_s=device_rate_mb_s(rate) if rate is not None else None)

    def validate(self) -> None:
        if not 1 <= self.streams <= MAX_STREAMS:
            raise InvalidParameter(f"streams must be 1 to {MAX_STREAMS}")
        if not 4096 <= self.buffer_size <= 64 << 20:
            raise InvalidParameter("buffer size must be 4K to 64M")
        if self.device_mb_s is not None and not self.device_mb_s > 0:
            raise InvalidParameter("the device rate must be above 0, e.g. 400MB (per second)")
        if self.unbuffered and self.buffer_size % 4096:
            # refused rather than rounded up: the buffer size is the read size being measured
            if self.direct:
                raise InvalidParameter("direct reads need a buffer size that is a multiple of 4K")
            raise InvalidParameter("unbuffered reads on Windows need a buffer size that is a multiple of 4K",
                                   hint="use a multiple of 4K, or --no-evict to read through the file cache")

    @property
    def unbuffered(self) -> bool:
        """Reads that bypass the cache with aligned I/O: --direct (O_DIRECT), and on
        Windows every evicting run too (eviction there means FILE_FLAG_NO_BUFFERING)."""
        return self.direct or (diskio.IS_WINDOWS and self.evict)

    def to_dict(self) -> dict:
        return asdict(self)



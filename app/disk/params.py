"""What the disk tests are asked to do: typed, validated before anything is touched.

Kept apart from the engines so the CLI and the GUI can build and check parameters
(and show the white paper presets) without pulling in the I/O machinery.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping

from app.disk.content import check as check_pattern
from app.disk.sizes import DISTRIBUTIONS, mean_size, parse_size
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


def _given(values: Mapping[str, object], key: str) -> object | None:
    """A value the user gave: None when missing, None or blank (the field left empty: the default)."""
    value = values.get(key)
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return value


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
        target = _given(values, "target")
        if target is None:
            raise InvalidParameter("no target directory given")
        preset = _given(values, "preset")
        if preset is not None and preset not in PRESETS:
            raise InvalidParameter(f"unknown preset '{preset}'", hint=f"use one of {', '.join(PRESETS)}")
        shape: dict[str, Any] = dict(PRESETS[str(preset)]) if preset is not None else {}
        for key in ("depth", "breadth", "files_per_dir"):
            if (v := _given(values, key)) is not None:
                shape[key] = _whole(v, key.replace("_", " "))
        for key in ("min_size", "max_size"):
            if (v := _given(values, key)) is not None:
                shape[key] = _size(v)
        for key in ("distribution", "pattern"):
            if (v := _given(values, key)) is not None:
                shape[key] = str(v).strip()
        if (every := _given(values, "size")) is not None:
            if _given(values, "min_size") is not None or _given(values, "max_size") is not None:
                raise InvalidParameter("give --size (every file that size) or --min-size/--max-size, not both")
            shape.update(min_size=_size(every), max_size=_size(every), distribution="fixed")
        total, files = _given(values, "total_size"), _given(values, "files")
        streams, write_size = _given(values, "streams"), _given(values, "write_size")
        seed, fsync = _given(values, "seed"), _given(values, "fsync")
        return cls(
            target=str(target), streams=_whole(streams, "streams") if streams is not None else 1,
            total_size=_size(total) if total is not None else None,
            files=_whole(files, "files") if files is not None else None,
            fsync=str(fsync) if fsync is not None else "end",
            write_size=_size(write_size) if write_size is not None else 1 << 20,
            seed=_whole(seed, "seed") if seed is not None else 0,
            allow_non_empty=bool(values.get("allow_non_empty")), **shape,
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

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "ReadDataParams":
        """The parameters from what a user gave, typed (CLI options) or as text (GUI fields): the one
        conversion both front ends call. Keys: target, streams, buffer_size, direct, evict (default on),
        raw_probe (default on), device_rate (bytes/s as a number, or text such as '400MB': per second)."""
        target, streams, buffer = _given(values, "target"), _given(values, "streams"), _given(values, "buffer_size")
        if target is None:
            raise InvalidParameter("no directory to read given")
        evict, probe, rate = values.get("evict"), values.get("raw_probe"), _given(values, "device_rate")
        return cls(str(target), streams=_whole(streams, "streams") if streams is not None else 1,
                   buffer_size=_size(buffer) if buffer is not None else 1 << 20, direct=bool(values.get("direct")),
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



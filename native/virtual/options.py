"""Parsing ``virtual:ltoN?key=value&...`` into typed options, rejecting anything odd.

The device string is user input (CLI, GUI, saved history), so every option is
checked here, before a cartridge file is touched: a typo must give one clear
``InvalidParameter`` line, not a drive that silently ignores it.

The options, what they take and what they do are ``OPTIONS`` below: one table that the
parser checks keys against and that ``tapediag devices --help`` prints (``options_help``).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from native.errors import InvalidParameter
from native.virtual.specs import FULL_HEIGHT_ONLY, GENERATIONS, GenerationSpec, spec_for

#: Default virtual cartridge size in bytes of tape (compressed bytes). Small enough for
#: any laptop disk; the file grows with the uncompressed data actually written.
DEFAULT_CAPACITY = 8 << 30

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_DECIMAL = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}


@dataclass(frozen=True)
class Option:
    """One ``key=value`` of a virtual device string, as a trainer reads it in the help."""

    key: str
    value: str  # what it takes, e.g. "0|1", "S" (a size), "a,b"
    text: str
    example: str  # a value the parser accepts (the help's examples and the tests use it)


#: Every option ``_apply`` understands, in the order the help lists them (sizes take K/M/G/T binary
#: or KB/MB/GB decimal suffixes).
OPTIONS: tuple[Option, ...] = (
    Option("cartridge", "PATH", "cartridge file; default data_dir()/virtual/lto<N>.cart, created blank", "/tmp/a.cart"),
    Option("capacity", "S", "tape capacity in compressed bytes, set when the cartridge is created (default 8G); "
           "the file holds the uncompressed data, so it can grow to capacity x compression ratio", "64M"),
    Option("ew", "S", "early-warning zone before the end (default capacity/64, at least 1M)", "4M"),
    Option("maxfile", "S", "disk budget of the cartridge file (default 4 x capacity); reaching it is the end of "
           "the medium too, so 10:1 data cannot fill the disk (all-zero blocks cost no disk)", "1G"),
    Option("wp", "0|1", "write-protect tab (kept in the cartridge until changed)", "1"),
    Option("worm", "0|1", "WORM medium; only when the cartridge is created", "1"),
    Option("loaded", "0|1", "0: no cartridge in the drive (NOT READY 02/3A/00 until LOAD)", "0"),
    Option("halfheight", "0|1", "half-height drive (slower speed steps on LTO-8/9; not LTO-10)", "1"),
    Option("interface", "MB/s", "host link limit (default SAS 6G = 600 for LTO-5/6, 12G = 1200)", "300"),
    Option("buffer", "S", "drive buffer (default 256M LTO-5, 512M LTO-6, 1G LTO-7+)", "512M"),
    Option("backhitch", "SECONDS", "time a stopped tape needs to reposition and restart (default 2)", "1.5"),
    Option("restart", "FRACTION", "buffer fill (0.05-1) at which a stopped tape restarts (default 1 = full)", "0.5"),
    Option("realtime", "0|1", "0: no sleeping, commands return at once (functional tests)", "0"),
    Option("tapealert", "a,b", "TapeAlert flags (1-64) raised at open, cleared by reading page 0x2E", "3,20"),
    Option("barcode", "TEXT", "the cartridge's barcode (MAM 0x0806), when it is created", "ABC123L9"),
    Option("hours", "N", "the drive's power-on hours (default 2000); head hours, loads, cleanings and metres on "
           "page 0x14 follow from it (a worn drive: 40000)", "40000"),
    Option("temp", "C", "drive temperature in degrees C on log page 0x0D (default 38)", "55"),
    Option("phyerrors", "N", "SAS PHY invalid-dword and disparity counts on page 0x18 (a bad cable: 5000)", "5000"),
    Option("encrypt", "0|1", "report AES-256-GCM encryption on (data is still stored in the clear: a training "
           "prop); LTO-4 and later", "1"),
    Option("selftest", "pass|fail", "the result of SEND DIAGNOSTIC's self-test (fail: 04/40/80), for the drive "
           "assessment", "fail"),
)


def options_help(width: int = 79) -> str:
    """The options as a help text (``tapediag devices --help``), from ``OPTIONS`` itself."""
    import textwrap

    lines = ["virtual drive options: virtual:ltoN?key=value&key=value",
             "(e.g. virtual:lto9?wp=1&tapealert=3,20; sizes: K/M/G binary, KB/MB/GB decimal)"]
    for opt in OPTIONS:
        head = f"  {opt.key}={opt.value}"
        lines += textwrap.wrap(opt.text, width, initial_indent=f"{head:<22}", subsequent_indent=" " * 22)
    return "\n".join(lines)


def parse_size(text: str, what: str) -> int:
    """'8G', '64MiB', '1.5GB', '4096' -> bytes. K/M/G/T and KiB... are binary, KB/MB... decimal."""
    match = _SIZE.match(text)
    if not match:
        raise InvalidParameter(f"{what}={text!r} is not a size", hint="use e.g. 4096, 64M, 8G or 1.5GB")
    number, unit = match.group(1), (match.group(2) or "").lower()
    mult = _DECIMAL[unit] if unit in _DECIMAL else _UNITS[unit[:1]]
    return int(float(number) * mult)


def _flag(text: str, what: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "yes", "true", "on"):
        return True
    if low in ("0", "no", "false", "off"):
        return False
    raise InvalidParameter(f"{what}={text!r} must be 0 or 1")


def _number(text: str, what: str, *, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameter(f"{what}={text!r} is not a number") from None
    if not (low <= value <= high):
        raise InvalidParameter(f"{what}={text} is out of range ({low:g} ... {high:g})")
    return value


@dataclass
class VirtualOptions:
    """Everything a ``virtual:ltoN`` device string can say. ``None`` = generation default."""

    generation: int
    cartridge: Path | None = None
    capacity: int | None = None
    write_protect: bool = False
    worm: bool | None = None
    half_height: bool = False
    interface_mbs: float | None = None
    buffer: int | None = None
    loaded: bool = True
    backhitch: float = 2.0  # seconds from restart decision to data flowing again
    restart: float = 1.0  # buffer fill fraction that makes a stopped drive restart
    realtime: bool = True  # False: no sleeping (functional tests)
    early_warning: int | None = None  # bytes of tape before the end that raise EOM
    max_file: int | None = None  # disk budget of the cartridge file
    tapealert: tuple[int, ...] = ()
    barcode: str | None = None
    hours: int = 2000  # the drive's power-on hours (device statistics page)
    temperature: int = 38  # degrees C (temperature page)
    phy_errors: int = 0  # SAS PHY error counts (protocol specific port page)
    encrypt: bool = False  # report data encryption on (SECURITY PROTOCOL IN status page)
    selftest_fails: bool = False  # SEND DIAGNOSTIC's self-test reports a hardware failure (training)
    explicit: set[str] = field(default_factory=set)

    @property
    def spec(self) -> GenerationSpec:
        base = spec_for(self.generation, half_height=self.half_height)
        from dataclasses import replace

        if self.interface_mbs is not None:
            base = replace(base, interface_rate=self.interface_mbs * 1_000_000)
        if self.buffer is not None:
            base = replace(base, buffer_size=self.buffer)
        return base


def parse_device(device: str) -> VirtualOptions:
    """``virtual:lto9?cartridge=/tmp/a.cart&capacity=64M&wp=1`` -> VirtualOptions."""
    head, _, query = device.partition("?")
    match = re.fullmatch(r"virtual:lto(\d+)", head.strip(), re.IGNORECASE)
    if not match or int(match.group(1)) not in GENERATIONS:
        names = ", ".join(f"virtual:lto{g}" for g in GENERATIONS)
        raise InvalidParameter(f"'{head}' is not a virtual drive", hint=f"use one of {names} or virtual:null")
    opts = VirtualOptions(generation=int(match.group(1)))
    for item in filter(None, query.split("&")):
        key, sep, raw = item.partition("=")
        key = key.strip().lower()
        value = unquote(raw)
        if not sep:
            raise InvalidParameter(f"option '{item}' in {device!r} needs a value (key=value)")
        if key in opts.explicit:
            raise InvalidParameter(f"option '{key}' given twice in {device!r}")
        opts.explicit.add(key)
        _apply(opts, key, value)
    if opts.half_height and opts.generation in FULL_HEIGHT_ONLY:
        raise InvalidParameter(f"halfheight=1: no half-height LTO-{opts.generation} figures are published; virtual:lto{opts.generation} is full height")
    return opts


def _apply(opts: VirtualOptions, key: str, value: str) -> None:
    if key == "cartridge":
        if not value.strip():
            raise InvalidParameter("cartridge= needs a file path")
        opts.cartridge = Path(value).expanduser()
    elif key == "capacity":
        opts.capacity = parse_size(value, key)
        if opts.capacity < 1 << 20:
            raise InvalidParameter(f"capacity={value} is too small (at least 1 MiB)")
    elif key == "wp":
        opts.write_protect = _flag(value, key)
    elif key == "worm":
        opts.worm = _flag(value, key)
    elif key == "halfheight":
        opts.half_height = _flag(value, key)
    elif key == "interface":
        opts.interface_mbs = _number(value, key, low=1, high=100_000)
    elif key == "buffer":
        opts.buffer = parse_size(value, key)
        if not (64 << 10) <= opts.buffer <= (16 << 30):
            raise InvalidParameter(f"buffer={value} is out of range (64K ... 16G)")
    elif key == "loaded":
        opts.loaded = _flag(value, key)
    elif key == "backhitch":
        opts.backhitch = _number(value, key, low=0, high=60)
    elif key == "restart":
        opts.restart = _number(value, key, low=0.05, high=1.0)
    elif key == "realtime":
        opts.realtime = _flag(value, key)
    elif key == "ew":
        opts.early_warning = parse_size(value, key)
    elif key == "maxfile":
        opts.max_file = parse_size(value, key)
        if opts.max_file < 1 << 20:
            raise InvalidParameter(f"maxfile={value} is too small (at least 1 MiB)")
    elif key == "tapealert":
        try:
            flags = tuple(int(x) for x in value.split(",") if x.strip())
        except ValueError:
            raise InvalidParameter(f"tapealert={value!r} must be flag numbers, e.g. 3,20") from None
        if any(not 1 <= f <= 64 for f in flags):
            raise InvalidParameter(f"tapealert={value!r}: flags are numbered 1 ... 64")
        opts.tapealert = flags
    elif key == "barcode":
        if not (0 < len(value) <= 32 and value.isprintable() and value.isascii()):
            raise InvalidParameter(f"barcode={value!r} must be 1-32 printable ASCII characters")
        opts.barcode = value
    elif key == "hours":
        opts.hours = int(_number(value, key, low=0, high=1_000_000))
    elif key == "temp":
        opts.temperature = int(_number(value, key, low=0, high=100))
    elif key == "encrypt":
        opts.encrypt = _flag(value, key)
    elif key == "phyerrors":
        opts.phy_errors = int(_number(value, key, low=0, high=4_000_000_000))
    elif key == "selftest":
        if value.strip().lower() not in ("pass", "fail"):
            raise InvalidParameter(f"selftest={value!r} must be pass or fail")
        opts.selftest_fails = value.strip().lower() == "fail"
    else:
        known = ", ".join(opt.key for opt in OPTIONS)
        raise InvalidParameter(f"unknown virtual drive option '{key}'", hint=f"known: {known}")

"""Parsing ``virtual:ltoN?key=value&...`` into typed options, rejecting anything odd.

The device string is user input (CLI, GUI, saved history), so every option is
checked here, before a cartridge file is touched: a typo must give one clear
``InvalidParameter`` line, not a drive that silently ignores it.

The options, what they take and what they do are ``OPTIONS`` below: one table that the
parser checks keys against and that ``tapediag devices --help`` prints (``options_help``).
Sizes and 0|1 flags are read by ``native.units``, as every command reads them: K/M/G/T binary,
KB/MB/GB/TB decimal; flags also take on/off, yes/no.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable
from urllib.parse import unquote

from native.errors import InvalidParameter
from native.units import parse_generation, parse_on_off, parse_size
from native.virtual.specs import FULL_HEIGHT_ONLY, GENERATIONS, GenerationSpec, spec_for

#: Default virtual cartridge size in bytes of tape (compressed bytes). Small enough for
#: any laptop disk; the file grows with the uncompressed data actually written.
DEFAULT_CAPACITY = 8 << 30

#: Power-on hours of a ``worn=1`` drive unless ``hours=`` says otherwise (the "worn drive" example above).
WORN_HOURS = 40_000
WORN_HEAD_PER_GB = 100.0  # worn=1's head: one rewrite/reread per 10 MB (a model, not a published figure)
#: ``badtape=``: how many times the drive passes over the worn stretch to read it, and the tape it rereads per
#: corrected error counted (LTO's data set, ~400 KiB of tape as ``reports._log_volume`` counts it). A model.
BAD_TAPE_PASSES = 4
BAD_TAPE_ERROR_BYTES = 400 * 1024


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
           "the file holds the uncompressed data and never more than the capacity of it (+ 64 KiB header and 41 "
           "bytes per block), so compressible data ends the tape at the capacity too", "64M"),
    Option("ew", "S", "early-warning zone before the end (default capacity/64, at least 1M)", "4M"),
    Option("maxfile", "S", "disk budget of the cartridge file's data (default and at most the capacity); reaching "
           "it is the end of the medium too (all-zero blocks cost no disk)", "1G"),
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
    Option("keydesc", "TEXT", "with encrypt=1: the key descriptor (U-KAD, 1-32 printable ASCII characters) the "
           "application gave with its key, reported with the key in use (SECURITY PROTOCOL IN 0020h) and with an "
           "encrypted block the drive has read (0021h)", "BACKUP-KEY-2024&encrypt=1"),
    Option("selftest", "pass|fail", "the result of SEND DIAGNOSTIC's self-test (fail: 04/40/80), for the drive "
           "assessment", "fail"),
    Option("vendor", "hp|ibm", "personality: hp (default) answers as an HPE 'Ultrium N-SCSI' with HP's vendor log pages "
           "(30h 31h 32h 34h); ibm as an IBM 'ULT3580-TDN' (TDA for LTO-10) listing a real IBM drive's pages "
           "(30h-3Dh; no 0Dh, no 18h, so phyerrors= is refused with it)", "ibm"),
    Option("worn", "0|1", "a worn drive, for training: power-on hours 40000 unless hours= is given, a worn head "
           "(wornhead=100 unless wornhead= is given: a model, not a published figure); IBM 37h media efficiency 80h", "1"),
    Option("alertat", "FLAGS@S", "TapeAlert flags (as tapealert=) raised once the host has written and read S bytes "
           "in all since the load: a fault that appears mid-test, after the evidence was captured", "4@64M"),
    Option("library", "DIR", "a drive of the virtual library whose folder is DIR (virtual:library?dir=DIR), with "
           "drive=N its drive element (from 0): the cartridge is the one the library moved into that element "
           "(DIR/cartridges/BARCODE.cart), none when it is empty; UNLOAD and LOAD tell the library whether the tape "
           "is threaded (it refuses to move a threaded cartridge out, 05/3B/90). The library names these strings",
           "/tmp/lib&drive=0"),
    Option("drive", "N", "the drive element N (0-15) of the virtual library: of library=, else of the default one "
           "(virtual:library, in the data directory); virtual:lto9?drive=0 is its first drive", "0"),
    Option("wornhead", "N", "a worn head: N corrected errors per GB (10^9 bytes) the host writes or reads, on the "
           "error counter pages (0x02, 0x03) and HP's tape usage page (30h); default 0. The data still comes back "
           "right: the drive's ECC and retries correct it", "200"),
    Option("badtape", "S-S", "a worn stretch of the tape, from S to S bytes of tape from BOT: the drive reads it "
           f"{BAD_TAPE_PASSES} times over (rereads, each counted as a corrected read error per "
           f"{BAD_TAPE_ERROR_BYTES >> 10} KiB on page 0x03), so it reads there at 1/{BAD_TAPE_PASSES} of its speed; "
           "the data still comes back right", "1G-2G"),
    # The drive's own alarms (issue 25), for a trainer showing what moves the health verdict.
    Option("reftemp", "C", "the drive's reference (maximum rated) temperature on log page 0x0D parameter 0001h; "
           "default none reported. temp= above it makes 'info' say Attention", "55"),
    Option("maxtemp", "0|1", "device statistics (0x14) 'maximum recommended mechanism temperature exceeded'", "1"),
    Option("clean", "requested|required", "the drive's own cleaning flag on log page 0x11 (CRQST or CRQRD; "
           "required also on 0x0C), without a TapeAlert flag", "requested"),
    Option("harderrors", "W,R", "lifetime hard write and read errors on device statistics (0x14)", "7,3"),
    Option("nonmedium", "N", "the non-medium error count on log page 0x06", "250"),
    Option("diag", "KK/AA/QQ", "a tape diagnostic data entry (0x16) with this sense (hex), kept from before the "
           "open, on a WRITE of the loaded cartridge", "03/0C/00"),
    Option("serial", "TEXT", "the drive's serial number (VPD 80h, page 0x14); default made from the cartridge path. "
           "Two device strings with different serials are two drives to the history", "HU0001"),
    Option("wornmedia", "N", "a worn cartridge: N corrected errors per GB (10^9 bytes) read or written on it, kept in "
           "the cartridge file, so they follow the cartridge into any drive (wornhead= is the drive's own)", "50"),
    Option("tur", "KK/AA/QQ[/deferred|/filemark]", "every TEST UNIT READY answers CHECK CONDITION with this sense (hex): "
           "0B/47/00 a parity error on the path, 03/0C/00/deferred a deferred write error, 00/00/01/filemark",
           "0B/47/00"),
)



def default_library_folder() -> Path:
    """The folder of ``virtual:library`` without ``dir=``: the data directory's ``virtual-library``. Its drives
    are named ``virtual:ltoN?drive=N`` (``library_drive_device``), with no path in the name."""
    from native.paths import data_dir

    return data_dir() / "virtual-library"

def options_help(width: int = 79) -> str:
    """The options as a help text (``tapediag devices --help``), from ``OPTIONS`` itself."""
    import textwrap

    lines = ["virtual drive options: virtual:ltoN?key=value&key=value",
             "(e.g. virtual:lto9?wp=1&tapealert=3,20; sizes: K/M/G binary, KB/MB/GB decimal)"]
    for opt in OPTIONS:
        head = f"  {opt.key}={opt.value}"
        lines += textwrap.wrap(opt.text, width, initial_indent=f"{head:<22}", subsequent_indent=" " * 22)
    return "\n".join(lines)



def _number(text: str, what: str, *, low: float, high: float) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameter(f"{what}={text!r} is not a number") from None
    if not (low <= value <= high):
        raise InvalidParameter(f"{what}={text} is out of range ({low:g} ... {high:g})")
    return value


@dataclass(frozen=True)
class TurSense:
    """The sense every TEST UNIT READY answers with (``tur=``): key, ASC, ASCQ and the tape bits."""

    key: int
    asc: int
    ascq: int
    deferred: bool = False
    filemark: bool = False


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
    key_descriptor: str = ""  # the U-KAD reported with the key (``keydesc=``)
    selftest_fails: bool = False  # SEND DIAGNOSTIC's self-test reports a hardware failure (training)
    vendor: str = "hp"  # personality: "hp" or "ibm" (native.virtual.vendorpages)
    worn: bool = False  # a worn drive (training): more hours and a worn head (``worn_head``)
    alert_at: tuple[tuple[int, ...], int] | None = None  # TapeAlert flags raised after this many host bytes
    worn_head: float = 0.0  # corrected errors per GB moved (write and read error counter pages)
    bad_tape: tuple[int, int] | None = None  # a worn stretch of tape (bytes of tape from BOT): read slowly, with rereads
    library: Path | None = None  # the virtual library's folder this drive belongs to (with ``drive``)
    library_drive: int | None = None
    reference_temperature: int | None = None  # page 0x0D parameter 0001h
    max_temperature_exceeded: bool = False  # page 0x14 parameter 0081h
    cleaning: str = ""  # "requested" (CRQST) or "required" (CRQRD) on page 0x11
    hard_errors: tuple[int, int] = (0, 0)  # lifetime hard write and read errors (page 0x14)
    non_medium_errors: int = 0  # page 0x06
    diagnostic: tuple[int, int, int] | None = None  # one kept entry on page 0x16 (sense key, ASC, ASCQ)
    tur_sense: TurSense | None = None  # every TEST UNIT READY fails with it
    serial: str | None = None  # the drive's serial (default: from the cartridge path)
    worn_media: float | None = None  # the cartridge's own corrected errors per GB (kept in the cartridge)
    explicit: set[str] = field(default_factory=set)

    @property
    def spec(self) -> GenerationSpec:
        base = spec_for(self.generation, half_height=self.half_height)
        from dataclasses import replace

        if self.interface_mbs is not None:
            base = replace(base, interface_rate=self.interface_mbs * 1_000_000)
        if self.buffer is not None:
            base = replace(base, buffer_size=self.buffer)
        if self.vendor != "hp":
            from native.virtual.vendorpages import product

            vendor, name = product(self.vendor, self.generation)
            base = replace(base, vendor=vendor, product=name)
        return base


def parse_device(device: str) -> VirtualOptions:
    """``virtual:lto9?cartridge=/tmp/a.cart&capacity=64M&wp=1`` -> VirtualOptions."""
    head, _, query = device.partition("?")
    kind, _, name = head.strip().partition(":")
    try:
        number = name[3:]  # exactly "lto<N>": the device string is also a history key, one spelling only
        if kind.lower() != "virtual" or name[:3].lower() != "lto" or not (number.isascii() and number.isdigit()):
            raise InvalidParameter(head)
        generation = parse_generation(number, "virtual drive", supported=GENERATIONS)
    except InvalidParameter:
        names = ", ".join(f"virtual:lto{g}" for g in GENERATIONS)
        raise InvalidParameter(f"'{head}' is not a virtual drive", hint=f"use one of {names} or virtual:null") from None
    opts = VirtualOptions(generation=generation)
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
    _combine(opts)
    return opts


def _combine(opts: VirtualOptions) -> None:
    """What options mean together: a worn drive's defaults, and the combinations no drive has."""
    if opts.vendor == "ibm" and "phyerrors" in opts.explicit:
        raise InvalidParameter("phyerrors= needs log page 0x18, which an IBM drive does not list", hint="use vendor=hp with phyerrors=")
    if opts.key_descriptor and not opts.encrypt:
        raise InvalidParameter("keydesc= names the key of an encrypting drive", hint="add encrypt=1")
    if opts.worn and "hours" not in opts.explicit:
        opts.hours = WORN_HOURS
    if opts.worn and "wornhead" not in opts.explicit:
        opts.worn_head = WORN_HEAD_PER_GB
    if opts.library is not None and opts.library_drive is None:
        raise InvalidParameter("library= needs drive=: which drive of the virtual library")
    if opts.library_drive is not None and opts.library is None:  # a drive of the default library (virtual:library)
        opts.library = default_library_folder()
    if opts.library is not None and {"cartridge", "barcode", "loaded"} & opts.explicit:
        raise InvalidParameter("a library drive's cartridge is the one the library moved into it",
                               hint="leave out cartridge=, barcode= and loaded=")
    if opts.half_height and opts.generation in FULL_HEIGHT_ONLY:
        raise InvalidParameter(f"halfheight=1: no half-height LTO-{opts.generation} figures are published; virtual:lto{opts.generation} is full height")


def _apply(opts: VirtualOptions, key: str, value: str) -> None:
    """Set one option from its text (``_FIELDS``: the attribute and the parser of each key)."""
    found = _FIELDS.get(key)
    if found is None:
        known = ", ".join(opt.key for opt in OPTIONS)
        raise InvalidParameter(f"unknown virtual drive option '{key}'", hint=f"known: {known}")
    attribute, parse = found
    setattr(opts, attribute, parse(value, key))


Parse = Callable[[str, str], Any]


def _path(missing: str) -> Parse:
    def parse(value: str, key: str) -> Path:
        if not value.strip():
            raise InvalidParameter(missing)
        return Path(value).expanduser()
    return parse


def _size(low: int = 0, high: int | None = None, refusal: str = "") -> Parse:
    """A size (``parse_size``) in [low, high]; below or above it, ``refusal`` (the key and value filled in)."""
    def parse(value: str, key: str) -> int:
        size = parse_size(value, key)
        if size < low or (high is not None and size > high):
            raise InvalidParameter(refusal.format(key=key, value=value))
        return size
    return parse


def _figure(low: float, high: float, *, whole: bool = False) -> Parse:
    return lambda value, key: (int if whole else float)(_number(value, key, low=low, high=high))


def _choice(*choices: str) -> Parse:
    def parse(value: str, key: str) -> str:
        chosen = value.strip().lower()
        if chosen not in choices:
            raise InvalidParameter(f"{key}={value!r} must be {' or '.join(choices)}")
        return chosen
    return parse


def _alert_at(value: str, key: str) -> tuple[tuple[int, ...], int]:
    flags, at, size = value.partition("@")
    if not at or not flags.strip():
        raise InvalidParameter(f"alertat={value!r} must be FLAGS@SIZE, e.g. 4@64M")
    return _flags(flags, key), parse_size(size, key)


def _label(value: str, key: str) -> str:
    if not (0 < len(value) <= 32 and value.isprintable() and value.isascii()):
        raise InvalidParameter(f"barcode={value!r} must be 1-32 printable ASCII characters")
    return value


def _key_descriptor(value: str, key: str) -> str:
    if not (0 < len(value) <= 32 and value.isprintable() and value.isascii()):
        raise InvalidParameter(f"keydesc={value!r} must be 1-32 printable ASCII characters")
    return value


def _serial(value: str, key: str) -> str:
    if not (0 < len(value) <= 32 and value.isascii() and value.isprintable() and " " not in value):
        raise InvalidParameter(f"serial={value!r} must be 1-32 printable ASCII characters without spaces")
    return value


def _drive_element(value: str, key: str) -> int:
    if not value.strip().isdigit() or int(value) > 15:
        raise InvalidParameter(f"drive={value!r} is not a drive element of the virtual library (0-15)")
    return int(value)


def _hard_errors(value: str, key: str) -> tuple[int, int]:
    parts = value.split(",")
    if len(parts) != 2:
        raise InvalidParameter(f"harderrors={value!r} must be two counts, write and read, e.g. 7,3")
    write, read = (int(_number(p, key, low=0, high=4_000_000_000)) for p in parts)
    return write, read


def _tur(value: str, key: str) -> "TurSense":
    rest = value.split("/")
    bits = {b.strip().lower() for b in rest[3:]}
    if bits - {"deferred", "filemark"}:
        raise InvalidParameter(f"tur={value!r}: after KK/AA/QQ only /deferred or /filemark")
    k, a, q = _sense_triple("/".join(rest[:3]), key)
    return TurSense(k, a, q, deferred="deferred" in bits, filemark="filemark" in bits)


_COUNT = _figure(0, 4_000_000_000, whole=True)

#: Each option: the ``VirtualOptions`` attribute it sets and how its text is read (its help is ``OPTIONS``).
_FIELDS: dict[str, tuple[str, Parse]] = {
    "cartridge": ("cartridge", _path("cartridge= needs a file path")),
    "capacity": ("capacity", _size(1 << 20, refusal="{key}={value} is too small (at least 1 MiB)")),
    "wp": ("write_protect", parse_on_off),
    "worm": ("worm", parse_on_off),
    "halfheight": ("half_height", parse_on_off),
    "interface": ("interface_mbs", _figure(1, 100_000)),
    "buffer": ("buffer", _size(64 << 10, 16 << 30, "{key}={value} is out of range (64K ... 16G)")),
    "loaded": ("loaded", parse_on_off),
    "backhitch": ("backhitch", _figure(0, 60)),
    "restart": ("restart", _figure(0.05, 1.0)),
    "realtime": ("realtime", parse_on_off),
    "ew": ("early_warning", _size()),
    "maxfile": ("max_file", _size(1 << 20, refusal="{key}={value} is too small (at least 1 MiB)")),
    "tapealert": ("tapealert", lambda value, key: _flags(value, key)),
    "alertat": ("alert_at", _alert_at),
    "wornhead": ("worn_head", _figure(0, 1_000_000)),
    "badtape": ("bad_tape", lambda value, key: _stretch(value, key)),
    "barcode": ("barcode", _label),
    "hours": ("hours", _figure(0, 1_000_000, whole=True)),
    "temp": ("temperature", _figure(0, 100, whole=True)),
    "encrypt": ("encrypt", parse_on_off),
    "keydesc": ("key_descriptor", _key_descriptor),
    "phyerrors": ("phy_errors", _COUNT),
    "vendor": ("vendor", _choice("hp", "ibm")),
    "worn": ("worn", parse_on_off),
    "library": ("library", _path("library= needs the virtual library's folder")),
    "drive": ("library_drive", _drive_element),
    "selftest": ("selftest_fails", lambda value, key: _choice("pass", "fail")(value, key) == "fail"),
    # The drive's own alarms (issue 25: temperature, cleaning, hard errors, kept errors, a failing TUR).
    "reftemp": ("reference_temperature", _figure(0, 254, whole=True)),
    "maxtemp": ("max_temperature_exceeded", parse_on_off),
    "clean": ("cleaning", _choice("requested", "required")),
    "harderrors": ("hard_errors", _hard_errors),
    "nonmedium": ("non_medium_errors", _COUNT),
    "diag": ("diagnostic", lambda value, key: _sense_triple(value, key)),
    "serial": ("serial", _serial),
    "wornmedia": ("worn_media", _figure(0, 1_000_000)),
    "tur": ("tur_sense", _tur),
}


def _sense_triple(value: str, what: str) -> tuple[int, int, int]:
    """'03/0C/00' -> (3, 0x0C, 0): a sense key (0-F), ASC and ASCQ in hex."""
    parts = value.split("/")
    try:
        key, asc, ascq = (int(p, 16) for p in parts)
    except ValueError:
        raise InvalidParameter(f"{what}={value!r} must be a sense key, ASC and ASCQ in hex, e.g. 03/0C/00") from None
    if not (0 <= key <= 0xF and 0 <= asc <= 0xFF and 0 <= ascq <= 0xFF):
        raise InvalidParameter(f"{what}={value!r}: the sense key is 0-F, ASC and ASCQ 00-FF")
    return key, asc, ascq


def _stretch(value: str, what: str) -> tuple[int, int]:
    """A stretch of tape: '1G-2G' -> (start, end) in bytes, the end after the start."""
    first, dash, last = value.partition("-")
    if not dash or not first.strip() or not last.strip():
        raise InvalidParameter(f"{what}={value!r} must be START-END, e.g. 1G-2G")
    start, end = parse_size(first, what), parse_size(last, what)
    if end <= start:
        raise InvalidParameter(f"{what}={value}: the end must lie after the start")
    return start, end


def _flags(value: str, what: str) -> tuple[int, ...]:
    """TapeAlert flag numbers: '3,20' -> (3, 20)."""
    try:
        flags = tuple(int(x) for x in value.split(",") if x.strip())
    except ValueError:
        raise InvalidParameter(f"{what}={value!r} must be flag numbers, e.g. 3,20") from None
    if any(not 1 <= f <= 64 for f in flags):
        raise InvalidParameter(f"{what}={value!r}: flags are numbered 1 ... 64")
    return flags

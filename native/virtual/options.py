"""Parsing ``virtual:ltoN?key=value&...`` into typed options, rejecting anything odd.

The device string is user input (CLI, GUI, saved history), so every option is
checked here, before a cartridge file is touched: a typo must give one clear
``InvalidParameter`` line, not a drive that silently ignores it.

Options (sizes take K/M/G/T binary or KB/MB/GB decimal suffixes):

=============  ==========================================================================
cartridge=P    cartridge file; default ``data_dir()/virtual/lto<N>.cart``, created blank
capacity=S     tape capacity in compressed bytes, set when the cartridge is created;
               default 8 GiB. The file holds the *uncompressed* data, so it can grow to
               capacity x compression ratio (zeros: little tape, but all bytes on disk)
ew=S           early-warning zone before the end (default capacity/64, at least 1 MiB)
maxfile=S      disk budget of the cartridge file (default 4 x capacity): reaching it is
               the end of the medium too, so 10:1 data cannot fill the disk. All-zero
               blocks cost no disk (stored as headers only)
wp=0|1         write-protect tab (kept in the cartridge until changed)
worm=0|1       WORM medium; only when the cartridge is created
loaded=0|1     0: no cartridge in the drive (NOT READY 02/3A/00 until LOAD)
halfheight=1   half-height drive (slower speed steps on LTO-8/9; refused for LTO-10, full height only)
interface=MBs  host link limit in MB/s (default SAS 6G = 600 for LTO-5/6, 12G = 1200)
buffer=S       drive buffer (default 256 MiB LTO-5, 512 MiB LTO-6, 1 GiB LTO-7+)
backhitch=s    seconds a stopped tape needs to reposition and restart (default 2)
restart=f      buffer fill (0.05-1) at which a stopped tape restarts (default 1 = full)
realtime=0|1   0: no sleeping, commands return at once (functional tests)
tapealert=a,b  TapeAlert flags raised at open (cleared by reading page 0x2E)
barcode=TEXT   the cartridge's barcode (MAM 0x0806), when it is created
hours=N        the drive's power-on hours (default 2000); head hours, loads, cleanings and
               metres on the device statistics page (0x14) follow from it (a worn drive: 40000)
temp=C         drive temperature in degrees C on log page 0x0D (default 38)
phyerrors=N    SAS PHY invalid-dword and disparity counts on page 0x18 (a bad cable: 5000)
encrypt=0|1    1: the drive reports AES-256-GCM encryption on (SECURITY PROTOCOL IN 20h status
               page; data is still stored in the clear, this is a training prop). LTO-4 and later
vendor=hp|ibm  personality: hp (default) answers as an HPE "Ultrium N-SCSI" with HP's vendor log pages
               (30h 31h 32h 34h); ibm as an IBM "ULT3580-TDN" (TDA for LTO-10) listing a real IBM
               drive's pages (30h-3Dh; no 0Dh, no 18h, so phyerrors= is refused with it). See vendorpages.py
worn=0|1       1: a worn head, for training: power-on hours 40000 unless hours= is given, and the
               error counters (02h/03h, 30h) report one rewrite/reread per 10 MB processed (a model,
               not a published figure); IBM 37h media efficiency 80h instead of 01h
library=DIR    a drive of the virtual library whose folder is DIR (``virtual:library?dir=DIR``), with
drive=N        drive=N its drive element (from 0): the cartridge is the one the library moved into
               that element (``DIR/cartridges/BARCODE.cart``), none when it is empty (LOAD: 02/3A/00);
               UNLOAD and LOAD tell the library whether the tape is threaded (it refuses to move
               a threaded cartridge out, 05/3B/90). The library names these strings itself
selftest=pass|fail  the result of SEND DIAGNOSTIC's default self-test (fail: 04/40/80, diagnostic
               failure on component 80h), for the drive assessment
=============  ==========================================================================
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

#: Power-on hours of a ``worn=1`` drive unless ``hours=`` says otherwise (the "worn drive" example above).
WORN_HOURS = 40_000

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]i?b?|b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
_DECIMAL = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12}


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
    vendor: str = "hp"  # personality: "hp" or "ibm" (native.virtual.vendorpages)
    worn: bool = False  # a worn head (training): more hours, rewrites and rereads
    library: Path | None = None  # the virtual library's folder this drive belongs to (with ``drive``)
    library_drive: int | None = None
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
    if opts.vendor == "ibm" and "phyerrors" in opts.explicit:
        raise InvalidParameter("phyerrors= needs log page 0x18, which an IBM drive does not list", hint="use vendor=hp with phyerrors=")
    if opts.worn and "hours" not in opts.explicit:
        opts.hours = WORN_HOURS
    if (opts.library is None) != (opts.library_drive is None):
        raise InvalidParameter("library= and drive= go together: a drive of the virtual library")
    if opts.library is not None and {"cartridge", "barcode", "loaded"} & opts.explicit:
        raise InvalidParameter("a library drive's cartridge is the one the library moved into it",
                               hint="leave out cartridge=, barcode= and loaded=")
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
    elif key == "vendor":
        if value.strip().lower() not in ("hp", "ibm"):
            raise InvalidParameter(f"vendor={value!r} must be hp or ibm")
        opts.vendor = value.strip().lower()
    elif key == "worn":
        opts.worn = _flag(value, key)
    elif key == "library":
        if not value.strip():
            raise InvalidParameter("library= needs the virtual library's folder")
        opts.library = Path(value).expanduser()
    elif key == "drive":
        if not value.strip().isdigit() or int(value) > 15:
            raise InvalidParameter(f"drive={value!r} is not a drive element of the virtual library (0-15)")
        opts.library_drive = int(value)
    elif key == "selftest":
        if value.strip().lower() not in ("pass", "fail"):
            raise InvalidParameter(f"selftest={value!r} must be pass or fail")
        opts.selftest_fails = value.strip().lower() == "fail"
    else:
        known = ("cartridge, capacity, maxfile, wp, worm, halfheight, interface, buffer, loaded, backhitch, restart, "
                 "realtime, ew, tapealert, barcode, hours, temp, phyerrors, encrypt, vendor, worn, selftest, "
                 "library, drive")
        raise InvalidParameter(f"unknown virtual drive option '{key}'", hint=f"known: {known}")

"""The one place where tapediag reads and writes sizes, rates, durations, on/off and LTO generations.

Why here, in ``native/``: the virtual drive's device string (``virtual:lto9?capacity=8G``) is
parsed in ``native/virtual``, and ``native/`` may not import ``app/``; putting the rules in the
lowest layer lets every layer (virtual drive, the app core, the CLI, the GUI) share one set
instead of each keeping a copy that drifts (issue 12: "1GB" was 10^9 in two parsers and 2^30
in two others).

The rule, as ``tapediag tape-perf --help`` has always said it:

* ``K``, ``M``, ``G``, ``T``, ``P`` (and ``KiB``, ``MiB`` ... ``Ki``, ``Mi`` ...) are binary,
  as block and I/O sizes are always meant (256K = 262144);
* ``KB``, ``MB``, ``GB``, ``TB``, ``PB`` are decimal, as drive and disk vendors quote
  capacities (100GB = 10^11);
* a plain number is bytes (``B`` may be written). Case and spaces do not matter.

Output follows the same split: rates and amounts are decimal (MB/s, GB, as vendors rate
drives), with the binary figure only in parentheses where a technician may compare it
with a tool that prints MiB/s.
"""
from __future__ import annotations

import math
import re
from datetime import datetime

from native.errors import InvalidParameter

MB = 1_000_000
GB = 1_000_000_000
MiB = 1 << 20
GiB = 1 << 30

#: Larger than any disk or cartridge (10^18 bytes): a bigger "size" is a typo, never a request.
MAX_BYTES = 10**18

_BINARY = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
_DECIMAL = {"kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12, "pb": 10**15}
_NUMBER_UNIT = re.compile(r"^([+-]?)(\d+(?:\.\d*)?|\.\d+)\s*([a-z]*)$", re.IGNORECASE)
#: The sentence the --help of every command that takes sizes ends with.
SIZES_HELP = ("Sizes: K, M, G, T (and KiB, MiB...) are binary (64K = 65536 bytes); KB, MB, GB, TB are decimal "
              "(10GB = 10^10 bytes); the same rule in every command and in virtual drive options.")
SIZE_EXAMPLES = "e.g. 262144, 256K, 1M, 32G (binary) or 100MB, 1.5GB (decimal)"

_SECONDS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
            "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
            "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600}
#: ``parse_amount``: a bare "m" is mebibytes there (as in block sizes), so only these read as durations.
_AMOUNT_DURATION_UNITS = frozenset(_SECONDS) - {"m"}

_ON = frozenset({"on", "yes", "y", "true", "1"})
_OFF = frozenset({"off", "no", "n", "false", "0"})

#: The LTO generations tapediag has published figures for (rated rates, troubleshooting rules).
#: The virtual drive models fewer (``native.virtual.specs.GENERATIONS``) and passes its own set.
LTO_GENERATIONS = tuple(range(1, 11))
_GENERATION = re.compile(r"^(?:(?:LTO|ULTRIUM)[\s_-]*)?(\d{1,2})$", re.IGNORECASE)


def _named(what: str | None, text: str) -> str:
    """"block size '12Q'" or, where argparse already names the option, just "'12Q'"."""
    return f"{what} '{text}'" if what else f"'{text}'"


def parse_size(text: str | int, what: str | None = "size", *, maximum: int = MAX_BYTES,
               binary_only: bool = False) -> int:
    """'256K' -> 262144, '1GB' -> 10^9, '1G' -> 2^30, '4096' -> 4096 (rule: module docstring).

    ``what`` names the option in the one-line error ("block size '12Q' is not a size");
    ``None`` when argparse prints the option name itself. The result is whole bytes, from
    0 to ``maximum``: '0.3K' (307.2 bytes), '-1', 'nan' and '' are refused, not rounded.
    ``binary_only`` refuses KB/MB/GB where the thing named is binary by trade (a backup
    application's "256 KB" tape block is 262144 bytes), saying which spelling means it.
    """
    from fractions import Fraction  # here: fractions and decimal cost every command's start-up 2 ms (issue 32.3)

    if isinstance(text, bool) or not isinstance(text, (int, str)):
        raise InvalidParameter(f"{_named(what, str(text))} is not a size", hint=SIZE_EXAMPLES)
    if isinstance(text, int):
        value = Fraction(text)
        shown = str(text)
    else:
        shown = text.strip()
        if not shown:
            raise InvalidParameter(f"{what or 'the size'} is empty", hint=SIZE_EXAMPLES)
        match = _NUMBER_UNIT.match(shown)
        unit = match.group(3).lower() if match else ""
        if unit.endswith("ib"):
            unit = unit[:-2]  # KiB -> K (binary)
        elif unit.endswith("i"):
            unit = unit[:-1]  # Ki -> K (binary)
        if not match or (unit not in _DECIMAL and unit not in _BINARY):
            raise InvalidParameter(f"{_named(what, shown)} is not a size", hint=SIZE_EXAMPLES)
        if match.group(1) == "-":
            raise InvalidParameter(f"{_named(what, shown)} is negative: a size is 0 or more bytes")
        value = Fraction(match.group(2)) * (_DECIMAL[unit] if unit in _DECIMAL else _BINARY[unit])
        if binary_only and unit in _DECIMAL:
            binary = f"{match.group(2)}{unit[0].upper()}"
            raise InvalidParameter(f"{_named(what, shown)} would be {float(value):,.0f} bytes ({unit.upper()} is decimal)",
                                   hint=f"write {binary} for {parse_size(binary, what):,} bytes")
    if value < 0:
        raise InvalidParameter(f"{_named(what, shown)} is negative: a size is 0 or more bytes")
    if value > maximum:
        limit = "any disk or cartridge holds" if maximum == MAX_BYTES else f"the {size_text(maximum)} allowed"
        raise InvalidParameter(f"{_named(what, shown)} is more than {limit}")
    if value.denominator != 1:
        raise InvalidParameter(f"{_named(what, shown)} is not a whole number of bytes ({float(value):g})")
    return int(value)


def parse_duration(text: str, what: str | None = "duration") -> float:
    """'90s', '10min', '10m', '1.5h' -> seconds. A unit is required: a bare number is ambiguous."""
    shown = text.strip()
    match = _NUMBER_UNIT.match(shown)
    unit = match.group(3).lower() if match else ""
    if not match or unit not in _SECONDS or match.group(1) == "-":
        raise InvalidParameter(f"{_named(what, shown)} is not a duration", hint="use e.g. 90s, 10min or 1h")
    seconds = float(match.group(2)) * _SECONDS[unit]
    if not math.isfinite(seconds):
        raise InvalidParameter(f"{_named(what, shown)} is not a duration", hint="use e.g. 90s, 10min or 1h")
    return seconds


def is_duration(text: str) -> bool:
    """True when ``text`` reads as a duration in ``parse_amount`` ('10min', '90s'; not '10m', a size)."""
    match = _NUMBER_UNIT.match(text.strip())
    return match is not None and match.group(3).lower() in _AMOUNT_DURATION_UNITS


def parse_amount(text: str, what: str | None = "size") -> tuple[int | None, float | None]:
    """How much to do: bytes ('32G', '100GB') or a duration ('90s', '10min', '1h') -> (bytes, seconds).

    A bare 'M' is mebibytes here, as in block sizes: minutes are spelt 'min'.
    """
    if is_duration(text):
        return None, parse_duration(text, what)
    return parse_size(text, what), None


def parse_on_off(text: str, what: str | None = None) -> bool:
    """'on'/'off', 'yes'/'no', 'true'/'false', '1'/'0', 'y'/'n' (any case) -> bool."""
    low = text.strip().lower()
    if low in _ON:
        return True
    if low in _OFF:
        return False
    raise InvalidParameter(f"{_named(what, text)} is not on or off" if what else f"expected on or off, not {text!r}",
                           hint="use on/off, yes/no or 1/0")


def parse_generation(text: str, what: str | None = "LTO generation",
                     supported: tuple[int, ...] = LTO_GENERATIONS) -> int:
    """'LTO-9', 'lto9', 'LTO9', 'LTO 9', 'Ultrium 9', '9' -> 9, when in ``supported``.

    Product names with more in them ('ULTRIUM-HH8', 'ULT3580-TDA') are INQUIRY strings,
    read by ``app.drive.generation_from_product``.
    """
    match = _GENERATION.match(text.strip())
    if not match:
        raise InvalidParameter(f"{_named(what, text)} is not an LTO generation",
                               hint=f"e.g. LTO-{supported[-1]}, lto{supported[-1]} or {supported[-1]}")
    generation = int(match.group(1))
    if generation not in supported:
        raise InvalidParameter(f"{_named(what, text)}: LTO-{generation} is not supported",
                               hint=f"LTO-{supported[0]} to LTO-{supported[-1]}")
    return generation


# -- writing numbers -------------------------------------------------------------------------
def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 stall', '2 stalls', '0 files', '1 directory', '3 directories' (``many`` for irregular words)."""
    if count == 1:
        return f"{count:,} {word}"
    if many is None:
        many = word[:-1] + "ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else word + "s"
    return f"{count:,} {many}"


def rate_text(mb_s: float | None, *, mib: bool = False) -> str:
    """Decimal MB/s, as drives are rated: '451.5 MB/s', '1,899 MB/s' (no tenths from 1,000 on); with ``mib``
    also '451.5 MB/s (430.6 MiB/s)'."""
    if mb_s is None or not math.isfinite(mb_s):
        return "-"
    text = f"{mb_s:,.0f} MB/s" if abs(mb_s) >= 1000 else f"{mb_s:,.1f} MB/s"
    return f"{text} ({mb_s * MB / MiB:,.1f} MiB/s)" if mib else text


def bit_rate_text(mb_s: float | None) -> str:
    """A network rate as links are rated, from decimal MB/s: '899 Mbit/s', '99.8 Mbit/s' (tenths below 100)."""
    if mb_s is None or not math.isfinite(mb_s):
        return "-"
    mbit = mb_s * 8
    return f"{mbit:,.0f} Mbit/s" if abs(mbit) >= 100 else f"{mbit:,.1f} Mbit/s"


def size_text(nbytes: float | None, *, binary: bool = False) -> str:
    """Decimal amounts to three significant figures, '1.07 GB', '44.3 MB', '443 MB' (below 1 kB, '512 bytes');
    with ``binary`` also '1.07 GB (1.00 GiB)'. The one rounding of amounts: the report's words call it too."""
    if nbytes is None or not math.isfinite(nbytes):
        return "-"
    if abs(nbytes) < 1000:
        return plural(int(nbytes), "byte")
    for unit, factor in (("PB", 10**15), ("TB", 10**12), ("GB", GB), ("MB", MB), ("KB", 1000)):
        if abs(nbytes) >= factor:
            text = f"{_three_figures(nbytes / factor)} {unit}"
            break
    if not binary:
        return text
    for unit, factor in (("PiB", 1 << 50), ("TiB", 1 << 40), ("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if abs(nbytes) >= factor:
            return f"{text} ({_three_figures(nbytes / factor)} {unit})"
    return text


def _three_figures(value: float) -> str:
    """Three significant figures, as amounts are quoted: '2.15', '44.3', '443', '1,024' (no fraction from 100 on)."""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.2f}" if abs(value) < 10 else f"{value:.1f}"


def block_text(nbytes: int) -> str:
    """A block or transfer size as a drive's settings and the OS name it: '256 KiB', '16 MiB', '80,000 bytes'
    (and a size typed in binary units, '32 GiB')."""
    for unit, scale in (("TiB", 1 << 40), ("GiB", GiB), ("MiB", MiB), ("KiB", 1 << 10)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale:,} {unit}"
    return plural(nbytes, "byte")


def size_input_text(nbytes: int) -> str:
    """A size as a person types it, exactly and read back by ``parse_size`` to the same bytes: '128M', '4G', '1GB',
    else the bytes ('80000'). A form filled from a stored run (Repeat this run) shows this, not '134217728'."""
    for suffix, scale in (("T", 1 << 40), ("G", GiB), ("M", MiB), ("K", 1 << 10),
                          ("TB", 10**12), ("GB", GB), ("MB", MB), ("KB", 10**3)):
        if nbytes >= scale and nbytes % scale == 0:
            return f"{nbytes // scale}{suffix}"
    return str(nbytes)


def duration_text(seconds: float | None) -> str:
    """The one way a duration is written, on screen, in a terminal and in a PDF: '14.0 ms', '6.2 s', '42 s',
    '1 min 05 s', '15 min', '1 h 02 min', '3 h' (tenths only under ten seconds, where they mean something;
    a zero tail is left off). A missing or impossible figure is '-'."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    seconds = max(0.0, float(seconds))
    if seconds < 1:
        return f"{seconds * 1000:,.1f} ms"
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    whole = int(round(seconds))
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        minutes, rest = divmod(whole, 60)
        return f"{minutes} min {rest:02d} s" if rest else f"{minutes} min"
    hours, rest = divmod(int(round(seconds / 60)), 60)
    return f"{hours} h {rest:02d} min" if rest else f"{hours} h"


def date_text(text: str | None) -> str:
    """'20261125' (MAM attribute 0406h, SPC-4) or an ISO timestamp -> '2026-11-25'; anything else as given."""
    if not text:
        return "-"
    text = str(text).strip()
    if len(text) == 8 and text.isdigit():
        return f"{text[:4]}-{text[4:6]}-{text[6:]}"
    try:
        return datetime.fromisoformat(text).date().isoformat()
    except ValueError:
        return text


def percent(fraction: float | None) -> str:
    """The one percent style: a whole number and no space, '56%' (0.5649 -> '56%')."""
    if fraction is None or not math.isfinite(fraction):
        return "-"
    return f"{fraction * 100:.0f}%"



def change_text(fraction: float | None) -> str:
    """A relative change with its sign, in the one percent style: '+104%', '-3%', '±0%' (a comparison's column)."""
    if fraction is None or not math.isfinite(fraction):
        return "-"
    text = percent(abs(fraction))
    if text == "0%":
        return "±0%"
    return ("+" if fraction > 0 else "-") + text


def per_gb_text(count: int, nbytes: float) -> str:
    """A count over an amount of data, as errors and back-hitches are compared: '94 (299 per GB)' (decimal GB, as
    ``size_text``); '94' when the amount is unknown or none."""
    if count == 0 or nbytes <= 0 or not math.isfinite(nbytes):
        return f"{count:,}"
    rate = count / (nbytes / GB)
    return f"{count:,} ({rate:,.0f} per GB)" if rate >= 10 or rate == 0 else f"{count:,} ({rate:,.2f} per GB)"


__all__ = ["MAX_BYTES", "LTO_GENERATIONS", "parse_size", "parse_duration", "parse_amount", "is_duration",
           "parse_on_off", "parse_generation", "plural", "rate_text", "bit_rate_text", "size_text", "block_text", "date_text", "duration_text", "percent",
           "change_text", "per_gb_text", "size_input_text"]

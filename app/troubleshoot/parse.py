"""Parsing what a technician types: block sizes, link speeds, drive generations, on/off."""
from __future__ import annotations

import re

from app.drive import generation_from_product
from native.errors import InvalidParameter

from .data import Link, links

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmg]?)(?:i?b)?\s*$", re.IGNORECASE)


def parse_block_size(text: str) -> int:
    """'256K', '256KB', '1M', '262144' -> bytes (binary units, as block sizes are)."""
    m = _SIZE.match(text)
    if not m:
        raise InvalidParameter(f"cannot read block size {text!r} (examples: 64K, 256K, 1M)")
    value = float(m.group(1)) * {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3}[m.group(2).lower()]
    if value < 512 or value > 64 * 1024**2 or value != int(value):
        raise InvalidParameter(f"block size {text!r} is not a plausible tape block size (512 bytes to 64M)")
    return int(value)


_LINK_ALIASES = {
    "1g": "1GbE", "1gb": "1GbE", "1gbe": "1GbE", "1gbit": "1GbE", "gige": "1GbE", "gbe": "1GbE",
    "10g": "10GbE", "10gb": "10GbE", "10gbe": "10GbE", "10gbit": "10GbE",
    "25g": "25GbE", "25gbe": "25GbE", "40g": "40GbE", "40gbe": "40GbE",
    "100g": "100GbE", "100gbe": "100GbE", "100m": "100Mb", "100mb": "100Mb", "100mbit": "100Mb",
}


def parse_link(text: str) -> Link:
    """'1GbE', '10GbE', '100Mb' or a measured rate such as '940Mbit' / '105MB/s'."""
    key = text.strip().replace(" ", "").replace("-", "")
    table = links()
    if key in table:
        return table[key]
    alias = _LINK_ALIASES.get(key.lower())
    if alias:
        return table[alias]
    m = re.match(r"^(\d+(?:\.\d+)?)(mbit|mb/s|mbps|mbit/s|mbyte/s|mb)$", key.lower())
    if m:
        value = float(m.group(1))
        if m.group(2).startswith("mbit") or m.group(2) == "mbps":
            return Link(key, f"{value:g} Mb/s link", value / 8, value / 8 * 0.94)
        return Link(key, f"measured network ({value:g} MB/s)", value, value)
    raise InvalidParameter(f"unknown network link {text!r}",
                           hint=f"use one of {', '.join(table)}, '940Mbit' or a measured '105MB/s'")


def parse_on_off(text: str) -> bool:
    low = text.strip().lower()
    if low in ("on", "yes", "true", "1", "y"):
        return True
    if low in ("off", "no", "false", "0", "n"):
        return False
    raise InvalidParameter(f"expected on or off, not {text!r}")


def parse_generation(text: str) -> tuple[int, bool]:
    """'LTO-9', 'lto9', '9', 'ULTRIUM-HH9', 'Ultrium 9-SCSI' -> (9, half_height); IBM's 'ULT3580-TDA' -> (10, False)."""
    half = bool(re.search(r"\bHH|HH[\dA-Z]|half", text, re.IGNORECASE))
    lettered = generation_from_product(text) if re.search(r"-(?:HH|TD)[A-Z]\b", text, re.IGNORECASE) else None
    if lettered is not None:  # IBM's letter naming: one table for it, in app.drive
        return lettered, half
    m = re.search(r"(?:LTO|ULTRIUM)[\s_-]*(?:HH|TD|FH)?[\s_-]*(\d{1,2})", text, re.IGNORECASE) or re.fullmatch(r"\s*(\d{1,2})\s*", text)
    if not m or not 1 <= int(m.group(1)) <= 10:
        raise InvalidParameter(f"cannot tell the LTO generation from {text!r} (examples: LTO-4, LTO-9)")
    return int(m.group(1)), half

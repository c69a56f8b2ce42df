"""Parsing what a technician types: block sizes, link speeds, drive generations, on/off.

Sizes, on/off and plain generation names are read by ``native.units``, the one set of rules
every command shares; what is only the troubleshooter's (plausible tape block sizes, links,
product names with HH/TD) is here.
"""
from __future__ import annotations

import re

from app.drive import generation_from_product
from native import units
from native.errors import InvalidParameter

from .data import Link, links

#: The block sizes backup applications configure: 512 bytes to 64 MiB.
MIN_BLOCK, MAX_BLOCK = 512, 64 << 20


def parse_block_size(text: str) -> int:
    """'256K', '1M', '262144' -> bytes.

    A backup application's "256 KB" block is 262144 bytes, but by the one rule '256KB' is
    256000: read as typed it would fire the "block size below 256 KB" advice against a
    customer who is right. So the decimal units are refused here, with the binary spelling.
    """
    value = units.parse_size(text, "block size", binary_only=True)
    if not MIN_BLOCK <= value <= MAX_BLOCK:
        raise InvalidParameter(f"block size {text!r} is not a plausible tape block size (512 bytes to 64M)")
    return value


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


def parse_generation(text: str) -> tuple[int, bool]:
    """'LTO-9', 'lto9', '9', 'ULTRIUM-HH8', 'Ultrium 9-SCSI' -> (9, half_height); IBM's 'ULT3580-TDA' -> (10, False).

    Plain names go through ``native.units.parse_generation``; INQUIRY product names (HH/TD,
    IBM's letters) through ``app.drive.generation_from_product``, the one reader of those.
    """
    half = bool(re.search(r"\bHH|HH[\dA-Z]|half", text, re.IGNORECASE))
    try:
        return units.parse_generation(text, "drive generation"), half
    except InvalidParameter as plain:
        generation = generation_from_product(text)
        if generation is None or generation not in units.LTO_GENERATIONS:
            raise plain from None
        return generation, half

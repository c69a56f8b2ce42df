"""Human sizes ("4K", "64M", "10G") and the file-size distributions of create-data.

Sizes use binary multiples (K = 1024), as HPCreateData's KB/MB did; rates elsewhere
are decimal MB/s, as the white paper's figures are.
"""
from __future__ import annotations

import math
import re

import numpy as np

from native.errors import InvalidParameter

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE_RE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*$", re.IGNORECASE)
DISTRIBUTIONS = ("fixed", "uniform", "log-uniform")


def parse_size(text: str | int) -> int:
    """``4K`` -> 4096; ``1.5M``, ``10G``, ``512``, ``64KiB`` all accepted."""
    if isinstance(text, int):
        return text
    match = _SIZE_RE.match(text)
    if not match:
        raise InvalidParameter(f"'{text}' is not a size", hint="use a number with an optional K, M, G or T suffix, e.g. 64K")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def size_arg(text: str) -> int:
    """``parse_size`` for argparse: a bad size becomes a usage error, not a traceback."""
    import argparse

    try:
        return parse_size(text)
    except InvalidParameter as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def format_size(nbytes: float) -> str:
    """1536 -> '1.5 KiB': for messages, never parsed back."""
    for unit, factor in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor:
            return f"{nbytes / factor:.3g} {unit}"
    return f"{int(nbytes)} B"


def mean_size(distribution: str, lo: int, hi: int) -> float:
    """Expected file size, for the free-space estimate of a run limited by tree shape."""
    if distribution == "fixed" or lo == hi:
        return float(hi)
    if distribution == "uniform":
        return (lo + hi) / 2
    lo = max(lo, 1)
    return (hi - lo) / math.log(hi / lo)


def draw_sizes(rng: np.random.Generator, distribution: str, lo: int, hi: int, count: int) -> np.ndarray:
    """``count`` file sizes in [lo, hi] (int64)."""
    if distribution == "fixed" or lo == hi:
        return np.full(count, hi, dtype=np.int64)
    if distribution == "uniform":
        return rng.integers(lo, hi + 1, size=count, dtype=np.int64)
    if distribution == "log-uniform":
        lo1 = max(lo, 1)
        values = np.exp(rng.uniform(math.log(lo1), math.log(hi + 1), size=count))
        return np.clip(values.astype(np.int64), lo, hi)
    raise InvalidParameter(f"unknown size distribution '{distribution}'", hint=f"use one of {', '.join(DISTRIBUTIONS)}")

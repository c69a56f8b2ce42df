"""The file-size distributions of create-data, and the argparse door to ``native.units``.

Sizes follow the one rule of ``native.units`` (K/M/G binary, KB/MB/GB decimal), the same
as tape-perf and the virtual drive: ``--max-size 64K`` is 65536 bytes as HPCreateData's
"64 KB" was, but ``--total-size 10GB`` is 10^10 bytes (it was 10 GiB before issue 12;
``10G`` still is). Rates elsewhere are decimal MB/s, as the white paper's figures are.
"""
from __future__ import annotations

import argparse
import math

import numpy as np

from native.errors import InvalidParameter
from native.units import parse_size

DISTRIBUTIONS = ("fixed", "uniform", "log-uniform")


def size_arg(text: str) -> int:
    """``native.units.parse_size`` for argparse: a bad size becomes a usage error, not a traceback."""
    try:
        return parse_size(text, None)
    except InvalidParameter as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def format_size(nbytes: float) -> str:
    """1536 -> '1.5 KiB': a file or buffer size in the binary units it is typed in (never parsed back).

    Amounts of data (a tree, free space) are decimal: ``native.units.size_text``.
    """
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

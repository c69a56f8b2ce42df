"""What an LTO drive's compressor (SLDC, ECMA-321) makes of a record: its size only.

"2:1 data" means nothing unless measured against the drive's own compressor, and
zlib/lz4 disagree with SLDC by -10 % to +4 %; so the pattern generator calibrates
against this model, and the virtual drive uses it to charge tape for a record. The
work happens in C (``native._sldc``); see its header for the exact cost model
(scheme 1 with scheme 2 fallback, 13-bit control symbols, End of Record, 32-bit pad).

History: 1 KiB for LTO-1...5, 16 KiB (14-bit displacement) for LTO-6 and later. Each
record is modelled with an empty history (the drive may carry history across records,
which can only make real ratios a little better).
"""
from __future__ import annotations

from typing import Union

from native import _sldc

BytesLike = Union[bytes, bytearray, memoryview]

HISTORY_LTO1_5 = 1024
HISTORY_LTO6_PLUS = 16384

#: Hash-chain candidates tried per position. Deeper finds slightly longer matches on
#: highly repetitive data, at a cost in speed; 32 is where the ratio stops moving.
DEFAULT_DEPTH = 32


def history_for_generation(generation: int) -> int:
    """SLDC history size for an LTO generation (1 KiB up to LTO-5, 16 KiB from LTO-6)."""
    return HISTORY_LTO1_5 if generation <= 5 else HISTORY_LTO6_PLUS


def compressed_bits(data: BytesLike, history_bytes: int = HISTORY_LTO1_5) -> int:
    """Encoded length in bits of one record, End of Record included, before padding."""
    return _sldc.compressed_bits(data, history_bytes, DEFAULT_DEPTH)[0]


def compressed_size(data: BytesLike, history_bytes: int = HISTORY_LTO1_5) -> int:
    """Bytes SLDC produces for ``data`` as one record (padded to a 32-bit boundary)."""
    return (compressed_bits(data, history_bytes) + 31) // 32 * 4


def compressed_sizes(data: BytesLike, record_size: int, history_bytes: int = HISTORY_LTO1_5) -> list[int]:
    """``compressed_size`` of each ``record_size`` slice of ``data`` (the last may be short).

    One C call for many records: the virtual drive's path for a multi-block WRITE.
    """
    return _sldc.compressed_sizes(data, record_size, history_bytes, DEFAULT_DEPTH)


def ratio(data: BytesLike, history_bytes: int = HISTORY_LTO1_5) -> float:
    """Compression ratio (input bytes / encoded bytes) of ``data`` as one record."""
    n = len(memoryview(data).cast("B")) if not isinstance(data, (bytes, bytearray)) else len(data)
    if n == 0:
        return 1.0
    return n / compressed_size(data, history_bytes)


__all__ = [
    "HISTORY_LTO1_5",
    "HISTORY_LTO6_PLUS",
    "compressed_bits",
    "compressed_size",
    "compressed_sizes",
    "history_for_generation",
    "ratio",
]

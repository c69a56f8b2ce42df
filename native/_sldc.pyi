"""Stub of the C SLDC model (native/src/_sldc.c)."""
from typing_extensions import Buffer

def compressed_bits(data: Buffer, history: int = ..., depth: int = ...) -> tuple[int, int, int]:
    """(compressed bits, literals, copies) of ``data`` as an LTO drive's SLDC would encode it."""

def compressed_sizes(data: Buffer, record_size: int, history: int = ..., depth: int = ...) -> list[int]:
    """The compressed size of each ``record_size`` slice of ``data``."""

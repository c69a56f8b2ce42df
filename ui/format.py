"""Numbers as a technician reads them, in ``native.units``' one way of writing them (the CLI's and the PDF's):
decimal MB/s (as drive vendors rate them), binary sizes where a block or file size is meant. Only the GUI's
dash for a missing figure is its own."""
from __future__ import annotations

from native.units import block_text, duration_text, rate_text, size_text


def human_bytes(n: float | int | None) -> str:
    """Decimal amounts, ``native.units.size_text`` (the CLI's and the PDF's '1.07 GB'), with the GUI's dash."""
    return "–" if n is None else size_text(n)


def human_size(n: int | None) -> str:
    """A block, I/O or file size in binary units, ``native.units.block_text`` ('256 KiB', '1 MiB')."""
    return "–" if n is None else block_text(n)


def human_rate(mb_s: float | None) -> str:
    """``native.units.rate_text``, the CLI's words, with the GUI's dash for "none"."""
    return "–" if mb_s is None else rate_text(mb_s)


def human_duration(seconds: float | None) -> str:
    """``native.units.duration_text``, the CLI's and the PDF's words, with the GUI's dash for "none"."""
    return "–" if seconds is None else duration_text(seconds)

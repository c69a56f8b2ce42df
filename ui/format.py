"""Numbers as a technician reads them, in ``native.units``' one way of writing them (the CLI's and the PDF's):
decimal MB/s (as drive vendors rate them), binary sizes where a block or file size is meant. Only the GUI's
dash for a missing figure is its own, and ``unbroken``: how a figure stays whole where a line wraps."""
from __future__ import annotations

import re

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


#: A unit ``native.units`` writes after a figure ('814.5 MB/s', '1.07 GB', '256 KiB', '0.3 ms', '2,062 files/s').
_UNIT = r"(?:[KMGTP]i?B|[KMGT]bit|files|bytes?|µs|ms|s|min|h)(?:/s)?"
_FIGURE_SPACE = re.compile(rf"(?<=\d) (?={_UNIT}(?!\w))")
#: The slash inside a unit ('MB/s', 'files/s', 'I/O'): a line may break after a slash (Unicode's line breaking
#: rules), and a narrow headline read "814.5 MB/" over "s".
_UNIT_SLASH = re.compile(r"(?<=[A-Za-z])/(?=(?:s|Os?)(?!\w))")
NBSP, WORD_JOINER = "\u00a0", "\u2060"


def unbroken(text: str) -> str:
    """``text`` with every figure kept whole on one line: a no-break space between a figure and its unit and a
    word joiner after a unit's slash (both invisible; PDF text extraction reads them as ' ' and nothing).
    For any text a line may wrap in: a headline label, a PDF verdict box or table cell. Applying it twice
    changes nothing."""
    return _UNIT_SLASH.sub("/" + WORD_JOINER, _FIGURE_SPACE.sub(NBSP, text))

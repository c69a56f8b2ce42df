"""Numbers as a technician reads them: decimal MB/s (as drive vendors rate them),
binary sizes where a block or file size is meant."""
from __future__ import annotations

from native.units import rate_text


def human_bytes(n: float | int | None) -> str:
    if n is None:
        return "–"
    n = float(n)
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if abs(n) < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1000
    return f"{n:.2f} TB"  # pragma: no cover


def human_size(n: int | None) -> str:
    """Binary units for block / I/O / file sizes (256 KiB, 1 MiB)."""
    if n is None:
        return "–"
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % (div // 1024 if div > 1024 else 1) == 0:
            v = n / div
            return f"{v:g} {unit}"
    return f"{n} B"


def human_rate(mb_s: float | None) -> str:
    """``native.units.rate_text``, the CLI's words, with the GUI's dash for "none"."""
    return "–" if mb_s is None else rate_text(mb_s)


def human_duration(seconds: float | None) -> str:
    if seconds is None:
        return "–"
    seconds = max(0.0, float(seconds))
    if seconds < 10:
        return f"{seconds:.1f} s"
    s = int(round(seconds))
    h, rem = divmod(s, 3600)
    m, s = divmod(rem, 60)
    if h:
        return f"{h} h {m:02d} min"
    if m:
        return f"{m} min {s:02d} s"
    return f"{s} s"

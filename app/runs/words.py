"""Figures as a report prints them: each with its unit and no more digits than it deserves.

Stored results keep raw numbers (seconds, bytes, counters); these turn them into what a
customer reads ("14 ms", "2.15 GB", "LTO-9 (0x60)", "2026-11-25"). One place, so the
report's page 1 and its run sections round the same figure the same way.
"""
from __future__ import annotations

from datetime import datetime, timezone

from native.units import block_text, date_text, duration_text, plural, rate_text, size_text

#: A block size as a drive's settings name it (``native.units.block_text``).
block = block_text


def mb_s(value: float | None) -> str:
    """'359.9 MB/s', '1,899 MB/s' (``native.units.rate_text``); a missing figure is a dash."""
    return "—" if value is None else rate_text(value)


def duration(seconds: float | None) -> str:
    """'14.0 ms', '6.2 s', '1 min 05 s', '1 h 02 min' (``native.units.duration_text``); a missing figure is a dash."""
    return "—" if seconds is None else duration_text(seconds)


def volume(nbytes: float | None) -> str:
    """Decimal, as drive ratings are: '2.15 GB', '443 MB', '12.0 TB' (``native.units.size_text``; '—' for none)."""
    if nbytes is None:
        return "—"
    return size_text(nbytes)


def density(code: int | None, name: str | None = None) -> str:
    """'LTO-9 (0x60)': the name a person knows and the code a support case quotes."""
    if code is None:
        return name or "—"
    if not name:
        from native.scsi.density import density_name

        name = density_name(code)
    return f"{name} (0x{code:02X})" if not name.startswith("density 0x") else name


def date(text: str | None) -> str:
    """'20261125' (MAM) or an ISO timestamp -> '2026-11-25' (``native.units.date_text``)."""
    return "—" if not text else date_text(text)


def when(timestamp: str | None) -> str:
    """An ISO timestamp as '2026-11-25 13:30 UTC' (what a ticket wants: the day and the minute)."""
    if not timestamp:
        return "—"
    try:
        moment = datetime.fromisoformat(timestamp)
    except ValueError:
        return timestamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def count(n: int | None, thing: str) -> str:
    """'1 filemark', '2,048 I/Os' (``native.units.plural``; a word already plural stays as it is)."""
    if n is None:
        return "—"
    return plural(n, thing, thing if thing.endswith("s") else None)

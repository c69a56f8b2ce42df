"""What a media scan reads: the whole cartridge, or up to a size or a duration."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar, Mapping

from app.runs.fields import Field, given
from native.units import parse_amount, parse_size
from native.errors import InvalidParameter

MB = 1_000_000


def _limit(text: str) -> tuple[int | None, float | None]:
    """``--limit 20G`` or ``--limit 10min``: bytes or seconds (the rule of tape-perf's ``--size``)."""
    if not text.strip():
        raise InvalidParameter("--limit needs a size (e.g. 20G) or a duration (e.g. 10min)")
    limit_bytes, limit_seconds = parse_amount(text)
    if (limit_bytes is not None and limit_bytes <= 0) or (limit_seconds is not None and limit_seconds <= 0):
        raise InvalidParameter("--limit must be a positive size or duration")
    return limit_bytes, limit_seconds


def _zone(text: str) -> int:
    zone = parse_size(text, "--zone")
    if zone < MB:
        raise InvalidParameter("--zone must be at least 1 MB")
    return zone


@dataclass(frozen=True)
class ScanParams:
    """``limit_bytes``/``limit_seconds``: stop early (a partial scan, said so in the result);
    ``zone_bytes``: the read rate is reported per zone of this many bytes (and per file)."""

    limit_bytes: int | None = None
    limit_seconds: float | None = None
    zone_bytes: int = 1_000 * MB

    FIELDS: ClassVar[tuple[Field, ...]] = (
        Field("limit", "Scan &limit:", "stop after this much data (20G) or time (10min): a partial scan",
              metavar="SIZE|DURATION", parse=_limit, placeholder="the whole cartridge",
              stored=("limit_bytes", "limit_seconds"), unit=("bytes", "s")),
        Field("zone", "Rate per &zone of:", "report the read rate per zone of this much data (and per file)",
              default="1GB", metavar="SIZE", parse=_zone, stored=("zone_bytes",), unit="bytes"),
    )

    def __post_init__(self) -> None:
        if self.limit_bytes is not None and self.limit_bytes <= 0:
            raise InvalidParameter("--limit must be a positive size or duration")
        if self.limit_seconds is not None and self.limit_seconds <= 0:
            raise InvalidParameter("--limit must be a positive size or duration")
        if self.zone_bytes < MB:
            raise InvalidParameter("--zone must be at least 1 MB")

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "ScanParams":
        """``limit`` (a size or a duration) and ``zone`` as the CLI's options or the GUI's fields give them: the one
        conversion (``FIELDS``). Left out: the whole cartridge, the default zone; given but blank (``--limit ""``) is
        a mistake, said as such (the GUI leaves a blank field out)."""
        _limit_field, zone_field = cls.FIELDS
        limit = values.get("limit")
        limit_bytes, limit_seconds = _limit(str(limit)) if limit is not None else (None, None)
        zone = given(values, "zone") or zone_field.default
        return cls(limit_bytes, limit_seconds, _zone(str(zone)))

    @classmethod
    def from_text(cls, limit: str | None = None, zone: str | None = None) -> "ScanParams":
        """``from_values`` of the two words: ``--limit 20G`` or ``10min``, ``--zone 1G``."""
        return cls.from_values({"limit": limit, "zone": zone})

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

"""What a media scan reads: the whole cartridge, or up to a size or a duration."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from native.units import parse_amount, parse_size
from native.errors import InvalidParameter

MB = 1_000_000


@dataclass(frozen=True)
class ScanParams:
    """``limit_bytes``/``limit_seconds``: stop early (a partial scan, said so in the result);
    ``zone_bytes``: the read rate is reported per zone of this many bytes (and per file)."""

    limit_bytes: int | None = None
    limit_seconds: float | None = None
    zone_bytes: int = 1_000 * MB

    def __post_init__(self) -> None:
        if self.limit_bytes is not None and self.limit_bytes <= 0:
            raise InvalidParameter("--limit must be a positive size or duration")
        if self.limit_seconds is not None and self.limit_seconds <= 0:
            raise InvalidParameter("--limit must be a positive size or duration")
        if self.zone_bytes < MB:
            raise InvalidParameter("--zone must be at least 1 MB")

    @classmethod
    def from_text(cls, limit: str | None = None, zone: str | None = None) -> "ScanParams":
        """``--limit 20G`` or ``--limit 10min`` (a size or a duration), ``--zone 1G``: one conversion for CLI and GUI."""
        limit_bytes = limit_seconds = None
        if limit is not None:
            if not limit.strip():
                raise InvalidParameter("--limit needs a size (e.g. 20G) or a duration (e.g. 10min)")
            limit_bytes, limit_seconds = parse_amount(limit)  # the rule of tape-perf's --size
        zone_bytes = parse_size(zone, "--zone") if zone else 1_000 * MB
        return cls(limit_bytes, limit_seconds, zone_bytes)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

"""What a watch is asked to do: typed, validated before anything is read.

Each field is declared once with its help, unit and range (the ``field`` metadata that
``app.nettest.params.fields_of`` reads), so a front end builds its options or its form from
the declaration. The conversion and range checks are the network test's own (``_from_values``,
``_check_ranges``): generic over any such declaration, they are reused here until the run model
gives them a home of their own. ``for_`` is the ``--for`` option (``for`` is a Python keyword).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from app.nettest.params import _check_ranges, _from_values, _meta
from native.errors import InvalidParameter

MAX_SECONDS = 7 * 86400.0


@dataclass(frozen=True)
class WatchParams:
    """A passive watch of a backup another program runs on ``device``."""

    device: str = field(metadata=_meta("the drive the backup writes to: its /dev/nstN (or /dev/stN, /dev/sgN)"))
    for_: float = field(default=0.0, metadata=_meta(
        "how long to watch (0: until the job ends, see until idle)", 0, MAX_SECONDS, unit="s"))
    until_idle: float = field(default=60.0, metadata=_meta(
        "end once the drive has had no I/O for this long after the job (0: never); with no job seen and no "
        "--for, the watch ends after this long saying nothing is running", 0, MAX_SECONDS, unit="s"))
    pid: int = field(default=0, metadata=_meta(
        "the backup process (0: whoever holds the drive's st node open, found through /proc)", 0, 2**31 - 1))
    source: str = field(default="", metadata=_meta(
        "block devices the job reads, comma-separated (sdb,dm-0); empty: those the backup process has open"))
    interface: str = field(default="", metadata=_meta(
        "network interfaces the data arrives on, comma-separated; empty: every interface but loopback"))
    interval: float = field(default=0.2, metadata=_meta("seconds between samples of the kernel's counters",
                                                        0.05, 5, unit="s"))
    query_drive: str = field(default="on", metadata=_meta(
        "read the drive's identity, compression and error counters through its sg node before and after the "
        "watch, never during it (off: the kernel's figures only, nothing at all is sent to the drive)",
        choices=("on", "off")))

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "WatchParams":
        """The one conversion the front ends call (options typed, form fields as text)."""
        return _from_values(cls, values)

    def validate(self) -> None:
        if not self.device.strip():
            raise InvalidParameter("no drive given", hint="name the drive the backup writes to, e.g. /dev/nst0")
        _check_ranges(self)
        if self.for_ == 0 and self.until_idle == 0:
            raise InvalidParameter("the watch needs an end", hint="give --for 10min, or --until-idle 60s to end with the job")

    @property
    def sources(self) -> tuple[str, ...]:
        """The named block devices as the kernel names them ("/dev/sdb" -> "sdb")."""
        return tuple(s.strip().removeprefix("/dev/") for s in self.source.split(",") if s.strip())

    @property
    def interfaces(self) -> tuple[str, ...]:
        return tuple(s.strip() for s in self.interface.split(",") if s.strip())

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

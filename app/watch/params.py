"""What a watch is asked to do: typed, validated before anything is read.

Each field is declared once with its help, unit and range (``FIELDS``, the run model's field table,
``app.runs.fields``, as the network test's: its defaults are the dataclass's own), so a front end
builds its options or its form from the declaration, and ``from_values``/``validate`` check the same
ranges. ``for_`` is the ``--for`` option (``for`` is a Python keyword): its label is "for".
"""
from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, fields
from typing import Any, ClassVar, Mapping

from app.runs.fields import Field, with_defaults
from native.errors import InvalidParameter
from native.units import parse_duration

MAX_SECONDS = 7 * 86400.0


def label(info: Field) -> str:
    """How a field is named to a user: "until idle", "for"."""
    return info.name.rstrip("_").replace("_", " ")


def _convert(info: Field, kind: str, value: object) -> object:
    if kind == "str":
        return str(value).strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    else:
        text = str(value).strip()
        try:
            number = float(text)
        except ValueError:
            if info.unit != "s":
                raise InvalidParameter(f"{label(info)}: '{text}' is not a number") from None
            number = parse_duration(text, label(info))
    if kind == "int":
        if number != int(number):
            raise InvalidParameter(f"{label(info)}: '{value}' is not a whole number")
        return int(number)
    return number


@dataclass(frozen=True)
class WatchParams:
    """A passive watch of a backup another program runs on ``device``."""

    device: str
    for_: float = 0.0
    until_idle: float = 60.0
    pid: int = 0
    source: str = ""
    interface: str = ""
    interval: float = 0.2
    query_drive: str = "on"

    FIELDS: ClassVar[tuple[Field, ...]] = ()  # below: the defaults are the dataclass's

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "WatchParams":
        """The one conversion the front ends call (options typed, form fields as text); missing or blank: the default."""
        kwargs: dict[str, Any] = {}
        for f, info in zip(fields(cls), cls.FIELDS):
            value = values.get(f.name)
            if value is None or (isinstance(value, str) and not value.strip()):
                continue
            kwargs[f.name] = _convert(info, str(f.type), value)
        if "device" not in kwargs and fields(cls)[0].default is MISSING:
            raise InvalidParameter("no drive given", hint="name the drive the backup writes to, e.g. /dev/nst0")
        return cls(**kwargs)

    def validate(self) -> None:
        if not self.device.strip():
            raise InvalidParameter("no drive given", hint="name the drive the backup writes to, e.g. /dev/nst0")
        for info in self.FIELDS:
            value = getattr(self, info.name)
            choices = [v for v, _words in info.choices]
            if choices and value not in choices:
                raise InvalidParameter(f"{label(info)} must be one of {', '.join(choices)}, not '{value}'")
            if info.low is not None and info.high is not None and not info.low <= value <= info.high:
                raise InvalidParameter(f"{label(info)} must be {info.low:g} to {info.high:g}, not {value:g}")
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


WatchParams.FIELDS = with_defaults(WatchParams, (
    Field("device", "&Drive:", "the drive the backup writes to: its /dev/nstN (or /dev/stN, /dev/sgN)", option=None),
    Field("for_", "&For:", "how long to watch (0: until the job ends, see until idle)", low=0, high=MAX_SECONDS,
          unit="s", option="--for", metavar="FOR"),
    Field("until_idle", "&Until idle:", "end once the drive has had no I/O for this long after the job (0: never); "
          "with no job seen and no --for, the watch ends after this long saying nothing is running", low=0,
          high=MAX_SECONDS, unit="s", metavar="UNTIL_IDLE"),
    Field("pid", "&Process:", "the backup process (0: whoever holds the drive's st node open, found through /proc)",
          low=0, high=2**31 - 1, metavar="PID"),
    Field("source", "&Source:", "block devices the job reads, comma-separated (sdb,dm-0); empty: those the backup "
          "process has open", metavar="SOURCE"),
    Field("interface", "&Network:", "network interfaces the data arrives on, comma-separated; empty: every interface "
          "but loopback", metavar="INTERFACE"),
    Field("interval", "&Interval:", "seconds between samples of the kernel's counters", low=0.05, high=5, unit="s",
          metavar="INTERVAL"),
    Field("query_drive", "&Query the drive:", "read the drive's identity, compression and error counters through its "
          "sg node before and after the watch, never during it (off: the kernel's figures only, nothing at all is "
          "sent to the drive)", choices=(("on", "on"), ("off", "off")), parse=str.strip,  # validate() says what fits
          metavar="QUERY_DRIVE"),
))

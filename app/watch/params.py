"""What a watch is asked to do: typed, validated before anything is read.

Each field is declared once with its help, unit and range (the ``field`` metadata that
``app.nettest.params.fields_of`` reads, the network test's declaration), so a front end builds
its options or its form from the declaration, and ``from_values``/``validate`` check the same
ranges. ``for_`` is the ``--for`` option (``for`` is a Python keyword): its label is "for".
"""
from __future__ import annotations

from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Mapping

from app.nettest.params import FieldInfo, fields_of
from native.errors import InvalidParameter
from native.units import parse_duration

MAX_SECONDS = 7 * 86400.0


def _meta(help: str, low: float | None = None, high: float | None = None, *, choices: tuple[str, ...] = (),
          unit: str = "") -> dict[str, Any]:
    """One field's declaration, as ``fields_of`` reads it."""
    return {"help": help, "low": low, "high": high, "choices": choices, "unit": unit}


def label(info: FieldInfo) -> str:
    """How a field is named to a user: "until idle", "for"."""
    return info.name.rstrip("_").replace("_", " ")


def _convert(info: FieldInfo, kind: str, value: object) -> object:
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
        """The one conversion the front ends call (options typed, form fields as text); missing or blank: the default."""
        kwargs: dict[str, Any] = {}
        for f, info in zip(fields(cls), fields_of(cls)):
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
        for info in fields_of(type(self)):
            value = getattr(self, info.name)
            if info.choices and value not in info.choices:
                raise InvalidParameter(f"{label(info)} must be one of {', '.join(info.choices)}, not '{value}'")
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

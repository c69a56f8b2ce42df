"""What the network test and its server are asked to do: typed, validated before any socket opens.

Each field is declared once with its help, unit and range (``field`` metadata read by
``fields_of``), so a front end can build its options or form from the declaration, and
``validate`` checks the same ranges. The token is no parameter: it is a secret, read by
``app.nettest.token`` and never recorded with a run.
"""
from __future__ import annotations

import ipaddress
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, Mapping

from app.patterns import Pattern
from native.errors import InvalidParameter
from native.units import parse_duration, parse_size

#: The server's default TCP port (iperf3 has 5201; a different one, so the two never meet by accident).
DEFAULT_PORT = 5210
#: client -> server is what a backup sends, server -> client what a restore brings back.
DIRECTIONS = ("backup", "restore", "both")
MAX_STREAMS = 16
MAX_SECONDS = 600.0


@dataclass(frozen=True)
class FieldInfo:
    """One parameter as a front end shows it."""

    name: str
    help: str
    default: Any
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    unit: str = ""  # "s": a duration ('10', '90s', '2min'); "bytes": a size ('128K', '1GB')


def _meta(help: str, low: float | None = None, high: float | None = None, *, choices: tuple[str, ...] = (),
          unit: str = "") -> dict[str, Any]:
    return {"help": help, "low": low, "high": high, "choices": choices, "unit": unit}


def fields_of(cls: type) -> tuple[FieldInfo, ...]:
    """The declared parameters of ``NetTestParams`` or ``ServeParams``, in order."""
    out = []
    for f in fields(cls):
        default = None if f.default is MISSING else f.default
        meta = f.metadata
        out.append(FieldInfo(f.name, meta["help"], default, meta["low"], meta["high"], meta["choices"], meta["unit"]))
    return tuple(out)


def _number(value: object, info: FieldInfo) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        if info.unit == "s":
            return parse_duration(text, info.name.replace("_", " "))
        if info.unit == "bytes":
            return float(parse_size(text, info.name.replace("_", " ")))
        raise InvalidParameter(f"{info.name.replace('_', ' ')}: '{text}' is not a number") from None


def _convert(info: FieldInfo, kind: type, value: object) -> object:
    if kind is str:
        return str(value).strip()
    number = _number(value, info)
    if kind is int:
        if number != int(number):
            raise InvalidParameter(f"{info.name.replace('_', ' ')}: '{value}' is not a whole number")
        return int(number)
    return number


def _from_values(cls: type, values: Mapping[str, object]) -> Any:
    """``cls`` from what a user gave, typed (options) or as text (form fields); missing or blank: the default."""
    kinds = {"str": str, "int": int, "float": float}
    kwargs: dict[str, Any] = {}
    for f, info in zip(fields(cls), fields_of(cls)):
        value = values.get(f.name)
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        kwargs[f.name] = _convert(info, kinds[str(f.type)], value)
    missing = [f.name for f in fields(cls) if f.default is MISSING and f.name not in kwargs]
    if missing:
        raise InvalidParameter(f"no {missing[0].replace('_', ' ')} given")
    return cls(**kwargs)


def _check_ranges(obj: Any) -> None:
    for info in fields_of(type(obj)):
        value = getattr(obj, info.name)
        label = info.name.replace("_", " ")
        if info.choices and value not in info.choices:
            raise InvalidParameter(f"{label} must be one of {', '.join(info.choices)}, not '{value}'")
        if info.low is not None and info.high is not None and not info.low <= value <= info.high:
            raise InvalidParameter(f"{label} must be {info.low:g} to {info.high:g}, not {value:g}")


@dataclass(frozen=True)
class NetTestParams:
    """What the client (``net-test``) asks the server for."""

    host: str = field(metadata=_meta("the server's address: where net-serve runs and what it printed"))
    port: int = field(default=DEFAULT_PORT, metadata=_meta("the server's TCP port", 1, 65535))
    streams: int = field(default=1, metadata=_meta("parallel TCP connections (a backup's parallel streams)",
                                                   1, MAX_STREAMS))
    seconds: float = field(default=10.0, metadata=_meta("how long each direction runs", 1, MAX_SECONDS, unit="s"))
    direction: str = field(default="both", metadata=_meta(
        "backup: client to server; restore: server to client; both: backup, then restore", choices=DIRECTIONS))
    pattern: str = field(default="2:1", metadata=_meta("data sent: zeros, random or N:1 (as the tape and disk tests), "
                                                       "so a compressing link is not flattered"))
    send_size: int = field(default=128 << 10, metadata=_meta("bytes per send call", 4 << 10, 4 << 20, unit="bytes"))
    seed: int = field(default=0, metadata=_meta("seed of the data (reproducible streams)", 0, 2**31 - 1))

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "NetTestParams":
        """The one conversion the front ends call (options typed, form fields as text)."""
        return _from_values(cls, values)

    @property
    def phases(self) -> tuple[str, ...]:
        return ("backup", "restore") if self.direction == "both" else (self.direction,)

    def validate(self) -> None:
        if not self.host:
            raise InvalidParameter("no server address given")
        _check_ranges(self)
        Pattern.parse(self.pattern)  # the pattern generator's own parser and message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class ServeParams:
    """What the server (``net-serve``) accepts. ``bind`` has no default on purpose: the server
    listens only where it is told, and on every interface only when told so (``0.0.0.0``, ``::``)."""

    bind: str = field(metadata=_meta("the one local address to listen on (0.0.0.0 or :: = every interface)"))
    port: int = field(default=DEFAULT_PORT, metadata=_meta("TCP port to listen on (0: any free port, printed)",
                                                           0, 65535))
    wait_seconds: float = field(default=300.0, metadata=_meta("exit when no session has started after this long",
                                                              1, 86400, unit="s"))
    max_seconds: float = field(default=60.0, metadata=_meta("the longest a direction may run", 1, MAX_SECONDS,
                                                            unit="s"))
    max_streams: int = field(default=8, metadata=_meta("the most parallel connections a session may use",
                                                       1, MAX_STREAMS))
    max_bytes: int = field(default=100 * 10**9, metadata=_meta("the most data a session may move, both directions",
                                                               1 << 20, 10**15, unit="bytes"))
    handshake_seconds: float = field(default=10.0, metadata=_meta(
        "how long a connection may take to introduce itself before it is dropped", 0.1, 120, unit="s"))
    max_wrong_tokens: int = field(default=3, metadata=_meta("wrong tokens before the server gives up and exits",
                                                            1, 100))

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "ServeParams":
        return _from_values(cls, values)

    @property
    def all_interfaces(self) -> bool:
        """True when the address is the wildcard: every interface of this machine."""
        try:
            return ipaddress.ip_address(self.bind).is_unspecified
        except ValueError:
            return False

    def validate(self) -> None:
        if not self.bind:
            raise InvalidParameter("no address to listen on given",
                                   hint="give this machine's address on the backup network, or 0.0.0.0 for all")
        _check_ranges(self)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

"""What the network test and its server are asked to do: typed, validated before any socket opens.

Each field is declared once with its help, unit and range (``FIELDS``, the run model's field table,
``app.runs.fields``: its defaults are the dataclass's own), so a front end builds its options or form
from the declaration (``python -m app.nettest`` its options), and ``validate`` checks the same ranges.
The token is no parameter: it is a secret, read by ``app.nettest.token`` and never recorded with a run.
"""
from __future__ import annotations

import ipaddress
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Mapping

from app.patterns import Pattern
from app.runs.fields import Field, check_ranges, from_values, with_defaults
from native.errors import InvalidParameter

#: The server's default TCP port (iperf3 has 5201; a different one, so the two never meet by accident).
DEFAULT_PORT = 5210
#: client -> server is what a backup sends, server -> client what a restore brings back.
DIRECTIONS = ("backup", "restore", "both")
MAX_STREAMS = 16
MAX_SECONDS = 600.0


@dataclass(frozen=True)
class NetTestParams:
    """What the client (``net-test``) asks the server for."""

    host: str
    port: int = DEFAULT_PORT
    streams: int = 1
    seconds: float = 10.0
    direction: str = "both"
    pattern: str = "2:1"
    send_size: int = 128 << 10
    seed: int = 0

    FIELDS: ClassVar[tuple[Field, ...]] = ()  # below: the defaults are the dataclass's

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "NetTestParams":
        """The one conversion the front ends call (options typed, form fields as text)."""
        return from_values(cls, cls.FIELDS, values)

    @property
    def phases(self) -> tuple[str, ...]:
        return ("backup", "restore") if self.direction == "both" else (self.direction,)

    def validate(self) -> None:
        if not self.host:
            raise InvalidParameter("no server address given")
        check_ranges(self, self.FIELDS)
        Pattern.parse(self.pattern)  # the pattern generator's own parser and message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


NetTestParams.FIELDS = with_defaults(NetTestParams, (
    Field("host", "&Server:", "the server's address: where net-serve runs and what it printed", option=""),
    Field("port", "&Port:", "the server's TCP port", low=1, high=65535),
    Field("streams", "&Streams:", "parallel TCP connections (a backup's parallel streams)", low=1, high=MAX_STREAMS),
    Field("seconds", "&Time per direction:", "how long each direction runs", low=1, high=MAX_SECONDS, unit="s"),
    Field("direction", "&Direction:", "backup: client to server; restore: server to client; both: backup, then restore",
          choices=tuple((d, d) for d in DIRECTIONS)),
    Field("pattern", "Data pa&ttern:", "data sent: zeros, random or N:1 (as the tape and disk tests), so a compressing "
          "link is not flattered"),
    Field("send_size", "Send si&ze:", "bytes per send call", low=4 << 10, high=4 << 20, unit="size"),
    Field("seed", "S&eed:", "seed of the data (reproducible streams)", low=0, high=2**31 - 1),
))


@dataclass(frozen=True)
class ServeParams:
    """What the server (``net-serve``) accepts. ``bind`` has no default on purpose: the server
    listens only where it is told, and on every interface only when told so (``0.0.0.0``, ``::``)."""

    bind: str
    port: int = DEFAULT_PORT
    wait_seconds: float = 300.0
    max_seconds: float = 60.0
    max_streams: int = 8
    max_bytes: int = 100 * 10**9
    handshake_seconds: float = 10.0
    max_wrong_tokens: int = 3

    FIELDS: ClassVar[tuple[Field, ...]] = ()  # below: the defaults are the dataclass's

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "ServeParams":
        return from_values(cls, cls.FIELDS, values)

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
        check_ranges(self, self.FIELDS)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


ServeParams.FIELDS = with_defaults(ServeParams, (
    Field("bind", "&Listen on:", "the one local address to listen on (0.0.0.0 or :: = every interface)"),
    Field("port", "&Port:", "TCP port to listen on (0: any free port, printed)", low=0, high=65535),
    Field("wait_seconds", "&Wait:", "exit when no session has started after this long", low=1, high=86400, unit="s"),
    Field("max_seconds", "Longest &direction:", "the longest a direction may run", low=1, high=MAX_SECONDS, unit="s"),
    Field("max_streams", "Most &streams:", "the most parallel connections a session may use", low=1, high=MAX_STREAMS),
    Field("max_bytes", "Most &data:", "the most data a session may move, both directions", low=1 << 20, high=10**15,
          unit="bytes"),
    Field("handshake_seconds", "&Handshake:", "how long a connection may take to introduce itself before it is "
          "dropped", low=0.1, high=120, unit="s"),
    Field("max_wrong_tokens", "Wrong &tokens:", "wrong tokens before the server gives up and exits", low=1, high=100),
))

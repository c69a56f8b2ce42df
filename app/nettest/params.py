"""What the network test and its server are asked to do: typed, validated before any socket opens.

Each field is declared once with its help, unit and range (``FIELDS``, the run model's field table,
``app.runs.fields``: its defaults are the dataclass's own), so a front end builds its options or form
from the declaration (``python -m app.nettest`` its options), and ``validate`` checks the same ranges.
The token is a secret, read by ``app.nettest.token``: it rides in ``NetTestParams.token`` as a ``Token`` (hidden
by its ``repr``) and is left out of ``to_dict()``, so it is never recorded, shown or exported with a run.
"""
from __future__ import annotations

import ipaddress
from dataclasses import asdict, dataclass, field, fields
from typing import Any, ClassVar, Mapping

from app.patterns import Pattern
from app.nettest.token import Token
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
    #: The one-time token (a secret: never in ``to_dict()``, hidden by its repr); None: not given yet.
    token: Token | None = field(default=None, repr=False, compare=False)

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

    @property
    def where(self) -> str:
        """'127.0.0.1:5210', '[::1]:5210': the server as ``net-test`` is given it (the run's device in the history)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def to_dict(self) -> dict[str, Any]:
        """What the history records: every parameter but the token."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "token"}


NetTestParams.FIELDS = with_defaults(NetTestParams, (
    Field("host", "Ser&ver:", "the server's address: where net-serve runs and what it printed", option=None),
    Field("port", "P&ort:", "the server's TCP port", low=1, high=65535, option=None, unit="id"),
    Field("streams", "&Streams:", "parallel TCP connections (a backup's parallel streams)", low=1, high=MAX_STREAMS),
    Field("seconds", "T&ime per direction:", "how long each direction runs: 10s, 1m", default="10s", low=1,
          high=MAX_SECONDS,
          unit="s", option="--time", metavar="DURATION"),
    Field("direction", "Di&rection:", "backup: client to server; restore: server to client; both: backup, then restore",
          choices=tuple((d, d) for d in DIRECTIONS)),
    Field("pattern", "Data pa&ttern:", "data sent: zeros, random or N:1 (as the tape and disk tests), so a compressing "
          "link is not flattered"),
    Field("send_size", "Send si&ze:", "bytes per send call", default="128K", low=4 << 10, high=4 << 20, unit="size"),
    Field("seed", "See&d:", "seed of the data (reproducible streams)", low=0, high=2**31 - 1),
))


@dataclass(frozen=True)
class ServeParams:
    """What the server (``net-serve``) accepts. ``bind`` has no default on purpose: the server
    listens only where it is told, and on every interface only when told so (``0.0.0.0``, ``::``)."""

    bind: str = ""  # none: validate() refuses, naming what is missing
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


def parse_address(text: str, default_port: int | None = DEFAULT_PORT) -> tuple[str, int]:
    """'127.0.0.1:5210', '[::1]:5210', 'localhost:5210' -> (host, port); without a port, ``default_port`` (None: a
    port is required). A bare IPv6 address ('::1') is a host without a port."""
    text = text.strip()
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":") if sep and rest.startswith(":") else None
        if not sep or (rest and port_text is None):
            raise InvalidParameter(f"'{text}' is not an address: write [IPv6]:PORT, e.g. [::1]:{DEFAULT_PORT}")
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    else:
        host, port_text = text, None
    if not host:
        raise InvalidParameter(f"'{text}' names no host: write ADDRESS:PORT, e.g. 127.0.0.1:{DEFAULT_PORT}")
    if port_text is None:
        if default_port is None:
            raise InvalidParameter(f"'{text}' names no port: write ADDRESS:PORT, e.g. 127.0.0.1:{DEFAULT_PORT}")
        return host, default_port
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise InvalidParameter(f"'{port_text}' is not a TCP port (0 to 65535)")
    return host, int(port_text)


ServeParams.FIELDS = with_defaults(ServeParams, (
    Field("bind", "&Listen on:", "the one local address to listen on (0.0.0.0 or :: = every interface)",
          option=None),  # the CLI's --listen ADDR:PORT gives both
    Field("port", "P&ort:", "TCP port to listen on (0: any free port, printed)", low=0, high=65535, option=None,
          unit="id"),
    Field("wait_seconds", "&Wait for a client:", "exit when no session has started after this long", default="5min",
          low=1, high=86400, unit="s"),
    Field("max_seconds", "Longest &direction:", "the longest a direction may run", default="60s", low=1,
          high=MAX_SECONDS, unit="s"),
    Field("max_streams", "Most &streams:", "the most parallel connections a session may use", low=1, high=MAX_STREAMS),
    Field("max_bytes", "Most &data:", "the most data a session may move, both directions", low=1 << 20, high=10**15,
          unit="bytes"),
    Field("handshake_seconds", "&Handshake:", "how long a connection may take to introduce itself before it is "
          "dropped", default="10s", low=0.1, high=120, unit="s"),
    Field("max_wrong_tokens", "Wrong &tokens:", "wrong tokens before the server gives up and exits", low=1, high=100),
))

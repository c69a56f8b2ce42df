"""The network test's wire format: a small versioned handshake, then a few framed messages.

Every connection starts with a greeting: ``b"TDNT"``, the protocol version (u16), the
connection's kind (u8: 1 control, 2 data), its length (u16) and its body. The control
connection's body is the session request (``Hello``: token, direction, streams,
duration, send size, pattern); a data connection's is the session's 16-byte nonce (from
``Accept``), the phase and the stream number. After its greeting a data connection
carries test data only, in one direction; the control connection carries frames: type
(u8), length (u16), body. Nothing else exists: no command, no path, no shell; anything
that does not parse is ``ProtocolError`` and the connection is closed.

All integers are big-endian; text is UTF-8 with a length byte, shown only after
``printable`` (a hostile peer's escape sequences never reach a terminal).

Nothing is encrypted: the data is synthetic, and the token is spent by the session it
opens. Someone who can read the traffic sees the token and the session's nonce; with
them they could at most add data connections to that one session, which carry test
data and nothing else.
"""
from __future__ import annotations

import select
import socket
import struct
import time
from dataclasses import dataclass, field
from typing import Union

from native.errors import NetTestError, ProtocolError

MAGIC = b"TDNT"
VERSION = 1
KIND_CONTROL, KIND_DATA = 1, 2
GREETING = struct.Struct("!4sHBH")
MAX_GREETING_BODY = 512
FRAME = struct.Struct("!BH")
MAX_FRAME_BODY = 16 << 10
NONCE_BYTES = 16
DIRECTION_CODES = {"backup": 1, "restore": 2, "both": 3}
#: phase index -> name, for each direction a session can ask for
PHASES = {"backup": ("backup",), "restore": ("restore",), "both": ("backup", "restore")}
NOT_REPORTED = -1  # a TCP_INFO figure the sending end's OS does not give

#: Why a server refuses a session, by code: (name, the words a client shows).
REFUSALS: dict[int, tuple[str, str]] = {
    1: ("wrong-token", "wrong token"),
    2: ("busy", "the server is busy with another test session"),
    3: ("version", "the server speaks another version of the network test protocol"),
    4: ("limits", "the request is beyond the server's limits"),
    5: ("bad-request", "the request is malformed"),
    6: ("stopping", "the server is stopping"),
}
WRONG_TOKEN, BUSY, BAD_VERSION, LIMITS, BAD_REQUEST, STOPPING = 1, 2, 3, 4, 5, 6


def printable(text: str, limit: int = 200) -> str:
    """Peer-supplied text made safe to print: control characters replaced, length capped."""
    cleaned = "".join(ch if ch.isprintable() else "?" for ch in text)
    return cleaned[:limit]


class Reader:
    """Reads fields from a message body; any shortfall or excess is ``ProtocolError``."""

    def __init__(self, data: bytes, what: str) -> None:
        self.data, self.pos, self.what = data, 0, what

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise ProtocolError(f"{self.what}: message cut short")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str) -> tuple:
        s = struct.Struct("!" + fmt)
        return s.unpack(self.take(s.size))

    def u8(self) -> int:
        return int(self.unpack("B")[0])

    def text(self, limit: int) -> str:
        n = self.u8()
        if n > limit:
            raise ProtocolError(f"{self.what}: a text field of {n} bytes (at most {limit})")
        return self.take(n).decode("utf-8", "replace")

    def end(self) -> None:
        if self.pos != len(self.data):
            raise ProtocolError(f"{self.what}: {len(self.data) - self.pos} bytes too many")


def _text(value: str, limit: int) -> bytes:
    raw = value.encode("utf-8")[:limit]
    return bytes([len(raw)]) + raw


# -- greetings -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hello:
    """The control connection's greeting: who may run what."""

    token: bytes
    direction: str
    streams: int
    milliseconds: int  # per phase
    send_size: int
    seed: int
    pattern: str
    client: str = ""  # "tapediag 0.1.0 on Linux", for the server's console

    @property
    def seconds(self) -> float:
        return self.milliseconds / 1000.0

    @property
    def phases(self) -> tuple[str, ...]:
        return PHASES[self.direction]

    def body(self) -> bytes:
        return (_text(self.token.decode("ascii", "replace"), 64)
                + struct.pack("!BBIII", DIRECTION_CODES[self.direction], self.streams, self.milliseconds,
                              self.send_size, self.seed)
                + _text(self.pattern, 16) + _text(self.client, 64))

    @classmethod
    def parse(cls, body: bytes) -> "Hello":
        r = Reader(body, "session request")
        token = r.text(64).encode("ascii", "replace")
        code, streams, ms, send_size, seed = r.unpack("BBIII")
        pattern, client = r.text(16), r.text(64)
        r.end()
        names = {v: k for k, v in DIRECTION_CODES.items()}
        if code not in names:
            raise ProtocolError(f"session request: unknown direction {code}")
        return cls(token, names[code], streams, ms, send_size, seed, pattern, client)


@dataclass(frozen=True)
class DataHello:
    """A data connection's greeting: which session, phase and stream it belongs to."""

    nonce: bytes
    phase: int
    stream: int

    def body(self) -> bytes:
        return self.nonce + struct.pack("!BB", self.phase, self.stream)

    @classmethod
    def parse(cls, body: bytes) -> "DataHello":
        r = Reader(body, "data connection greeting")
        nonce = r.take(NONCE_BYTES)
        phase, stream = r.unpack("BB")
        r.end()
        return cls(nonce, phase, stream)


def greeting(kind: int, body: bytes, version: int = VERSION) -> bytes:
    return GREETING.pack(MAGIC, version, kind, len(body)) + body


@dataclass(frozen=True)
class Greeting:
    """What a connection said first, before its body is understood."""

    version: int
    kind: int
    body: bytes


def read_greeting(sock: socket.socket, deadline: float) -> Greeting:
    """The greeting of a fresh connection, by ``deadline`` (``time.monotonic``); ``ProtocolError``
    for anything that is not one (an HTTP request, a port scanner, garbage, silence)."""
    head = recv_exactly(sock, GREETING.size, deadline, "greeting")
    magic, version, kind, length = GREETING.unpack(head)
    if magic != MAGIC:
        raise ProtocolError("not a tapediag network test client (wrong greeting)")
    if kind not in (KIND_CONTROL, KIND_DATA) or length > MAX_GREETING_BODY:
        raise ProtocolError("not a tapediag network test client (malformed greeting)")
    return Greeting(version, kind, recv_exactly(sock, length, deadline, "greeting"))


def recv_exactly(sock: socket.socket, n: int, deadline: float, what: str) -> bytes:
    """``n`` bytes by ``deadline``; ``ProtocolError`` when the peer is silent too long or closes."""
    out = bytearray()
    while len(out) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise ProtocolError(f"no complete {what} in time")
        ready, _, _ = select.select([sock], [], [], left)
        if not ready:
            continue
        try:
            piece = sock.recv(n - len(out))
        except (BlockingIOError, InterruptedError):
            continue
        except OSError as err:
            raise ProtocolError(f"the connection broke during the {what} ({err.strerror or err})") from None
        if not piece:
            raise ProtocolError(f"the connection closed during the {what}")
        out += piece
    return bytes(out)


# -- frames on the control connection ------------------------------------------------------


@dataclass(frozen=True)
class Accept:
    nonce: bytes
    server: str  # "tapediag 0.1.0 on Windows"
    tcp_info: bool  # the server's OS reports RTT and retransmissions (it is the sender of a restore)


@dataclass(frozen=True)
class Refuse:
    code: int
    text: str


@dataclass(frozen=True)
class Ready:
    phase: int


@dataclass(frozen=True)
class SampleEntry:
    stream: int
    t: float  # seconds since the phase started, on the receiver's clock
    dt: float  # the slice the bytes came in
    nbytes: int


@dataclass(frozen=True)
class Samples:
    phase: int
    entries: tuple[SampleEntry, ...]


@dataclass(frozen=True)
class Done:
    """Client to server: every stream of a restore phase has ended at the client."""

    phase: int


@dataclass(frozen=True)
class StreamEnd:
    """One stream at the end of a phase, as the end that knows it saw it (-1: not reported)."""

    stream: int
    nbytes: int
    seconds: float
    rtt_us: int = NOT_REPORTED
    min_rtt_us: int = NOT_REPORTED
    retransmits: int = NOT_REPORTED


@dataclass(frozen=True)
class PhaseEnd:
    phase: int
    note: str
    streams: tuple[StreamEnd, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Abort:
    text: str


@dataclass(frozen=True)
class Bye:
    pass


Message = Union[Accept, Refuse, Ready, Samples, Done, PhaseEnd, Abort, Bye]
_SAMPLE = struct.Struct("!Bddq")
_STREAM_END = struct.Struct("!Bqdqqq")
MAX_SAMPLES = (MAX_FRAME_BODY - 8) // _SAMPLE.size


def _encode_body(msg: Message) -> tuple[int, bytes]:
    if isinstance(msg, Accept):
        return 1, msg.nonce + _text(msg.server, 64) + bytes([int(msg.tcp_info)])
    if isinstance(msg, Refuse):
        return 2, bytes([msg.code]) + _text(msg.text, 200)
    if isinstance(msg, Ready):
        return 3, bytes([msg.phase])
    if isinstance(msg, Samples):
        rows = b"".join(_SAMPLE.pack(e.stream, e.t, e.dt, e.nbytes) for e in msg.entries)
        return 4, struct.pack("!BH", msg.phase, len(msg.entries)) + rows
    if isinstance(msg, Done):
        return 5, bytes([msg.phase])
    if isinstance(msg, PhaseEnd):
        rows = b"".join(_STREAM_END.pack(s.stream, s.nbytes, s.seconds, s.rtt_us, s.min_rtt_us, s.retransmits)
                        for s in msg.streams)
        return 6, bytes([msg.phase]) + _text(msg.note, 200) + bytes([len(msg.streams)]) + rows
    if isinstance(msg, Abort):
        return 7, _text(msg.text, 200)
    return 8, b""


def encode(msg: Message) -> bytes:
    kind, body = _encode_body(msg)
    return FRAME.pack(kind, len(body)) + body


def decode(kind: int, body: bytes) -> Message:
    r = Reader(body, "control message")
    msg: Message
    if kind == 1:
        msg = Accept(r.take(NONCE_BYTES), r.text(64), bool(r.u8()))
    elif kind == 2:
        msg = Refuse(r.u8(), r.text(200))
    elif kind in (3, 5):
        msg = Ready(r.u8()) if kind == 3 else Done(r.u8())
    elif kind == 4:
        phase, count = r.unpack("BH")
        msg = Samples(phase, tuple(SampleEntry(*r.unpack("Bddq")) for _ in range(count)))
    elif kind == 6:
        phase, note, count = r.u8(), r.text(200), r.u8()
        msg = PhaseEnd(phase, note, tuple(StreamEnd(*r.unpack("Bqdqqq")) for _ in range(count)))
    elif kind == 7:
        msg = Abort(r.text(200))
    elif kind == 8:
        msg = Bye()
    else:
        raise ProtocolError(f"unknown control message type {kind}")
    r.end()
    return msg


class Channel:
    """The control connection: whole messages out, whole messages in, each wait bounded.

    ``peer`` names the other end in errors ("the server", "the client"). A closed or reset
    connection is ``NetTestError`` ("... closed the connection"), bytes that do not parse
    ``ProtocolError``. Used from one thread.
    """

    def __init__(self, sock: socket.socket, peer: str) -> None:
        self.sock, self.peer = sock, peer
        self._buf = bytearray()
        sock.settimeout(10.0)  # a send of a few bytes that takes longer: the peer is gone

    def send(self, msg: Message) -> None:
        try:
            self.sock.sendall(encode(msg))
        except OSError as err:
            raise NetTestError(f"{self.peer} closed the connection ({err.strerror or err})") from None

    def receive(self, timeout: float) -> Message | None:
        """The next message, waiting up to ``timeout`` seconds; None if none came."""
        deadline = time.monotonic() + timeout
        while (msg := self._parse()) is None:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.sock], [], [], max(left, 0.0))
            if not ready:
                return None
            try:
                piece = self.sock.recv(64 << 10)
            except (BlockingIOError, InterruptedError, socket.timeout):
                continue
            except OSError as err:
                raise NetTestError(f"{self.peer} closed the connection ({err.strerror or err})") from None
            if not piece:
                raise NetTestError(f"{self.peer} closed the connection")
            self._buf += piece
        return msg

    def expect(self, kind: type, timeout: float, what: str) -> Message:
        """The next message, which must be ``kind`` (an ``Abort`` or ``Refuse`` says why not)."""
        msg = self.receive(timeout)
        if msg is None:
            raise NetTestError(f"{self.peer} did not send {what} within {timeout:.0f} s")
        if isinstance(msg, kind):
            return msg
        if isinstance(msg, Abort):
            raise NetTestError(f"{self.peer} ended the test: {printable(msg.text)}")
        raise ProtocolError(f"{self.peer} sent {type(msg).__name__} where {what} was due")

    def _parse(self) -> Message | None:
        if len(self._buf) < FRAME.size:
            return None
        kind, length = FRAME.unpack_from(self._buf)
        if length > MAX_FRAME_BODY:
            raise ProtocolError(f"{self.peer} sent a control message of {length} bytes")
        if len(self._buf) < FRAME.size + length:
            return None
        body = bytes(self._buf[FRAME.size:FRAME.size + length])
        del self._buf[:FRAME.size + length]
        return decode(kind, body)

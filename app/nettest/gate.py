"""The server's door: who may come in, decided in one place, under one lock.

Every new connection gets ``handshake_seconds`` to introduce itself (``read_greeting``)
in its own short-lived thread, so one silent or slow connection never holds up the
real client. Then ``Gate.admit`` decides:

* a control greeting while no session runs: the protocol version, then the one-time
  token (constant-time comparison; after ``max_wrong_tokens`` wrong ones the server gives
  up), then the request against the server's limits; the first that passes is the
  session, and the token is spent;
* a control greeting while a session runs: refused, busy;
* a data greeting: accepted only with the running session's nonce, for the phase the
  session is gathering, a stream number it asked for and not yet connected;
* anything else is closed without an answer.
"""
from __future__ import annotations

import hmac
import secrets
import socket
import threading
import time
from dataclasses import dataclass
from typing import Callable

from app.nettest import protocol as proto
from app.nettest.params import ServeParams
from app.nettest.token import matches
from app.patterns import Pattern
from native.errors import InvalidParameter, ProtocolError

MIN_SEND, MAX_SEND = 4 << 10, 4 << 20


@dataclass
class Session:
    hello: proto.Hello
    sock: socket.socket
    peer: str
    nonce: bytes


def peer_name(addr: object) -> str:
    """'127.0.0.1:40312' / '[::1]:40312' from an address tuple."""
    if isinstance(addr, tuple) and len(addr) >= 2:
        host = str(addr[0])
        return f"[{host}]:{addr[1]}" if ":" in host else f"{host}:{addr[1]}"
    return str(addr)


class Gate:
    """The server's state between its threads: the session, its data connections, the tally of wrong tokens."""

    def __init__(self, token: str, params: ServeParams, note: Callable[[str], None]) -> None:
        self.token, self.params, self.note = token, params, note
        self._cond = threading.Condition()
        self.session: Session | None = None
        self.wrong_tokens = 0
        self.gave_up = False
        self._collected = -1  # the last phase whose data connections were taken
        self._streams: dict[tuple[int, int], socket.socket] = {}  # (phase, stream) -> connection

    # -- called from the handshake threads ---------------------------------------------------

    def admit(self, sock: socket.socket, peer: str, greeting: proto.Greeting) -> bool:
        """Route a greeted connection; True when it was kept (the caller must not close it)."""
        if greeting.kind == proto.KIND_DATA:
            return self._admit_data(sock, peer, greeting)
        with self._cond:
            refusal = self._refusal(greeting, peer)
            if refusal is None:
                hello = proto.Hello.parse(greeting.body)
                self.session = Session(hello, sock, peer, secrets.token_bytes(proto.NONCE_BYTES))
                self._cond.notify_all()
                return True
        code, text = refusal
        self.note(f"refused {peer}: {text}")
        _send_quietly(sock, proto.encode(proto.Refuse(code, text)))
        return False

    def _refusal(self, greeting: proto.Greeting, peer: str) -> tuple[int, str] | None:
        """Why a control greeting is refused, or None to accept it (called under the lock)."""
        if self.gave_up:
            return proto.STOPPING, "the server is stopping"
        if self.session is not None:
            return proto.BUSY, "busy with another test session"
        if greeting.version != proto.VERSION:
            return proto.BAD_VERSION, (f"this server speaks network test protocol {proto.VERSION}, the client "
                                       f"{greeting.version}: use the same tapediag version at both ends")
        hello = proto.Hello.parse(greeting.body)
        if not matches(hello.token, self.token):
            self.wrong_tokens += 1
            if self.wrong_tokens >= self.params.max_wrong_tokens:
                self.gave_up = True
                self._cond.notify_all()
            return proto.WRONG_TOKEN, f"wrong token ({self.wrong_tokens} of {self.params.max_wrong_tokens} allowed)"
        beyond = self._beyond_limits(hello)
        return (proto.LIMITS, beyond) if beyond else None

    def _beyond_limits(self, hello: proto.Hello) -> str:
        p = self.params
        if not 1 <= hello.streams <= p.max_streams:
            return f"{hello.streams} streams asked, this server allows 1 to {p.max_streams}"
        if not 0 < hello.seconds <= p.max_seconds:
            return f"{hello.seconds:g} s asked, this server allows up to {p.max_seconds:g} s a direction"
        if not MIN_SEND <= hello.send_size <= MAX_SEND:
            return f"a send size of {hello.send_size} bytes (4 KiB to 4 MiB allowed)"
        try:
            Pattern.parse(hello.pattern)
        except InvalidParameter as err:
            return str(err)
        return ""

    def _admit_data(self, sock: socket.socket, peer: str, greeting: proto.Greeting) -> bool:
        with self._cond:
            s = self.session
            try:
                data = proto.DataHello.parse(greeting.body)
            except ProtocolError:
                data = None
            ok = (s is not None and data is not None and greeting.version == proto.VERSION
                  and hmac.compare_digest(data.nonce, s.nonce) and self._collected < data.phase < len(s.hello.phases)
                  and 1 <= data.stream <= s.hello.streams and (data.phase, data.stream) not in self._streams)
            if ok and data is not None:
                self._streams[(data.phase, data.stream)] = sock
                self._cond.notify_all()
                return True
        self.note(f"dropped a data connection from {peer}: not one the session expects")
        return False

    # -- called from the main thread -------------------------------------------------------

    def wait_session(self, deadline: float, stop: threading.Event) -> Session | None:
        """The session once a client is admitted; None at ``deadline``, on ``stop`` or when the server gave up."""
        with self._cond:
            while self.session is None and not self.gave_up and not stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self._cond.wait(min(left, 0.2))
            return None if self.gave_up else self.session

    def take(self, phase: int, count: int, wait: float) -> list[socket.socket] | None:
        """Phase ``phase``'s ``count`` data connections in stream order, once all are in (waiting up to
        ``wait`` seconds for the rest), else None. The client may open them as soon as the previous
        phase ended: they wait here until the server gets to them."""
        with self._cond:
            if len(self._of(phase)) < count:
                self._cond.wait(wait)
            mine = self._of(phase)
            if len(mine) < count:
                return None
            self._collected = phase
            for key in [k for k in self._streams if k[0] == phase]:
                del self._streams[key]
            return [sock for _stream, sock in sorted(mine.items())]

    def waiting(self, phase: int) -> int:
        with self._cond:
            return len(self._of(phase))

    def _of(self, phase: int) -> dict[int, socket.socket]:
        return {stream: sock for (p, stream), sock in self._streams.items() if p == phase}

    def close_waiting(self) -> None:
        """Close data connections no phase collected (the session ended before their phase)."""
        with self._cond:
            for sock in self._streams.values():
                sock.close()
            self._streams.clear()
            self._collected = 255


def _send_quietly(sock: socket.socket, data: bytes) -> None:
    try:
        sock.settimeout(2.0)
        sock.sendall(data)
    except OSError:
        pass  # the peer left already: nothing more to tell it

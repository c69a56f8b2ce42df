"""The network test's server (``net-serve``): one session, then it exits.

``NetServer(params, sink).serve(cancel) -> ServeOutcome``. It listens on exactly the
address and port given, prints a fresh one-time token (``Listening``), admits one client
that brings it (``app.nettest.gate``), runs the phases that client asked for within the
server's own limits (duration per direction, streams, bytes per session), and exits:
after the session, when no session started within ``wait_seconds``, after
``max_wrong_tokens`` wrong tokens, or on Ctrl-C. It writes no file and keeps nothing
between runs; its sockets carry the protocol of ``app.nettest.protocol`` and nothing
else, so there is no command, path or shell a client could reach.

Per phase the server is the receiver of a backup (it counts the bytes and sends them to
the client as samples at 10 Hz, then the totals) and the sender of a restore (it sends
for the asked time, then the kernel's RTT and retransmission figures of its sockets).
"""
from __future__ import annotations

import errno as errno_mod
import platform
import select
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Callable, Union

from app import __version__
from app.disk import content as content_mod
from app.events import CancelToken, Message
from app.nettest import protocol as proto
from app.nettest.gate import Gate, Session, peer_name
from app.nettest.params import ServeParams
from app.nettest.result import NetPhase, NetStream
from app.nettest.streams import StreamSet, end_wait
from app.nettest.token import new_token
from native import netio
from native.errors import Cancelled, InvalidParameter, NetTestError, ProtocolError

#: The receiving server sends its samples this often (the client publishes them at 10 Hz or more).
SAMPLE_INTERVAL = 0.05
#: Handshakes in progress at once; more connections than that are closed at once.
MAX_PENDING = 16
_IN_USE = (errno_mod.EADDRINUSE, 10048)  # POSIX, Winsock WSAEADDRINUSE
_NOT_HERE = (errno_mod.EADDRNOTAVAIL, 10049)


@dataclass(frozen=True)
class Listening:
    """What the server says when it starts: where, the token, how long it waits."""

    address: str
    port: int
    token: str
    params: ServeParams


ServeEvent = Union[Listening, Message]
ServeSink = Callable[[ServeEvent], None]


@dataclass
class ServeOutcome:
    """How the server ended. ``status``: complete, no-client, gave-up, stopped or cancelled."""

    status: str
    text: str
    phases: list[NetPhase] = field(default_factory=list)


def describe_host() -> str:
    return f"tapediag {__version__} on {platform.system() or sys.platform}"


def listen(params: ServeParams) -> socket.socket:
    """A socket listening on exactly ``params.bind``/``params.port``; one clear error otherwise."""
    where = f"{params.bind} port {params.port}"
    try:
        infos = socket.getaddrinfo(params.bind, params.port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise InvalidParameter(f"cannot listen on '{params.bind}': {err.strerror}") from None
    family, _kind, _proto, _name, addr = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if sys.platform == "win32":  # SO_REUSEADDR there would let another program share the port
            sock.setsockopt(socket.SOL_SOCKET, getattr(socket, "SO_EXCLUSIVEADDRUSE", 0xFFFFFFFB), 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)  # this address only, not IPv4 too
        sock.bind(addr)
        sock.listen(MAX_PENDING)
    except OSError as err:
        sock.close()
        if err.errno in _IN_USE or getattr(err, "winerror", None) in _IN_USE:
            raise NetTestError(f"cannot listen on {where}: the port is in use",
                               hint="another net-serve or program has it: choose another port in --listen") from None
        if err.errno in _NOT_HERE or getattr(err, "winerror", None) in _NOT_HERE:
            raise InvalidParameter(f"cannot listen on {where}: {params.bind} is not an address of this machine") from None
        raise NetTestError(f"cannot listen on {where}: {err.strerror or err}") from None
    return sock


class Doorman(threading.Thread):
    """Accepts connections and gives each its own short-lived thread to introduce itself."""

    def __init__(self, listener: socket.socket, gate: Gate, params: ServeParams, note: Callable[[str], None]) -> None:
        super().__init__(name="net-serve-door", daemon=True)
        self.listener, self.gate, self.params, self.note = listener, gate, params, note
        self.stop = threading.Event()
        self._slots = threading.BoundedSemaphore(MAX_PENDING)

    def run(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.listener], [], [], 0.2)
            if not ready:
                continue
            try:
                sock, addr = self.listener.accept()
            except OSError:
                continue
            if not self._slots.acquire(blocking=False):
                sock.close()
                self.note(f"dropped {peer_name(addr)}: too many connections at once")
                continue
            threading.Thread(target=self._greet, args=(sock, peer_name(addr)), daemon=True).start()

    def _greet(self, sock: socket.socket, peer: str) -> None:
        kept = False
        try:
            greeting = proto.read_greeting(sock, time.monotonic() + self.params.handshake_seconds)
            kept = self.gate.admit(sock, peer, greeting)
        except ProtocolError as err:
            self.note(f"dropped {peer}: {err}")
        finally:
            if not kept:
                sock.close()
            self._slots.release()


class NetServer:
    """``NetServer(params, sink).serve(cancel)``: see the module's docstring."""

    def __init__(self, params: ServeParams, sink: ServeSink) -> None:
        self.params, self.sink = params, sink

    def note(self, text: str, level: str = "info") -> None:
        self.sink(Message(level, text))

    def serve(self, cancel: CancelToken | None = None) -> ServeOutcome:
        cancel = cancel or CancelToken()
        self.params.validate()
        listener = listen(self.params)
        host, port = listener.getsockname()[:2]
        gate = Gate(new_token(), self.params, self.note)
        door = Doorman(listener, gate, self.params, self.note)
        door.start()
        session: Session | None = None
        try:
            self.sink(Listening(str(host), int(port), gate.token, self.params))
            session = self._wait(gate, door.stop, cancel)
            if session is None:
                return self._no_session(gate, cancel)
            return _ServerSession(session, gate, self.params, self.note, cancel).run()
        finally:
            door.stop.set()
            door.join()
            listener.close()
            gate.close_waiting()
            if session is not None:
                session.sock.close()

    def _wait(self, gate: Gate, stop: threading.Event, cancel: CancelToken) -> Session | None:
        deadline = time.monotonic() + self.params.wait_seconds
        while time.monotonic() < deadline and not cancel.cancelled and not gate.gave_up:
            session = gate.wait_session(min(deadline, time.monotonic() + 0.2), stop)
            if session is not None:
                return session
        return None

    def _no_session(self, gate: Gate, cancel: CancelToken) -> ServeOutcome:
        if cancel.cancelled:
            return ServeOutcome("cancelled", "stopped before any session")
        if gate.gave_up:
            return ServeOutcome("gave-up", f"{gate.wrong_tokens} wrong tokens: stopped (start net-serve again "
                                           "for a new token)")
        return ServeOutcome("no-client", f"no client started a session within {self.params.wait_seconds:g} s")


class _ClientEnded(NetTestError):
    """The client ended the session early (its Abort's words)."""


class _ServerSession:
    """One admitted session, run on the server's main thread."""

    def __init__(self, session: Session, gate: Gate, params: ServeParams, note: Callable[[str], None],
                 cancel: CancelToken) -> None:
        self.s, self.gate, self.params, self.note, self.cancel = session, gate, params, note, cancel
        self.hello = session.hello
        self.channel = proto.Channel(session.sock, "the client")
        self.used = 0
        self.phases: list[NetPhase] = []

    def run(self) -> ServeOutcome:
        h = self.hello
        self.note(f"session from {self.s.peer} ({proto.printable(h.client, 64)}): {' then '.join(h.phases)}, "
                  f"{h.streams} stream{'s' if h.streams > 1 else ''}, {h.seconds:g} s each, pattern "
                  f"{proto.printable(h.pattern, 16)}")
        try:
            content = content_mod.load(h.pattern, seed=h.seed) if "restore" in h.phases else None
            self.channel.send(proto.Accept(self.s.nonce, describe_host(), netio.TCP_INFO_REPORTED))
            for index, phase in enumerate(h.phases):
                self.phases.append(self._phase(index, phase, content))
            self.channel.expect(proto.Bye, self.params.handshake_seconds, "its goodbye")
            self.channel.send(proto.Bye())
        except Cancelled:
            return ServeOutcome("cancelled", "stopped mid-session; the client was told", self.phases)
        except _ClientEnded as err:
            return ServeOutcome("stopped", f"the client ended the session: {err}", self.phases)
        except NetTestError as err:
            return ServeOutcome("stopped", f"the session ended early: {err}", self.phases)
        return ServeOutcome("complete", "session complete", self.phases)

    def _phase(self, index: int, phase: str, content: content_mod.Content | None) -> NetPhase:
        socks = self._gather(index)
        t0 = time.perf_counter_ns()
        self.channel.send(proto.Ready(index))
        cap = max(self.params.max_bytes - self.used, 0)
        if phase == "backup":
            result = self._receive(index, StreamSet(socks, t0, self.hello.seconds, byte_cap=cap))
        else:
            assert content is not None
            streams = StreamSet(socks, t0, self.hello.seconds, byte_cap=cap)
            streams.start_sending(content, self.hello.seed, index, self.hello.send_size)
            result = self._send(index, streams)
        self.note(_phase_line(result))
        return result

    def _gather(self, index: int) -> list[socket.socket]:
        """The phase's data connections, watching the control connection meanwhile (an Abort, garbage
        or a vanished client ends the session now, not at the deadline)."""
        deadline = time.monotonic() + self.params.handshake_seconds
        while (socks := self.gate.take(index, self.hello.streams, SAMPLE_INTERVAL)) is None:
            msg = self.channel.receive(0.0)
            if isinstance(msg, proto.Abort):
                raise _ClientEnded(proto.printable(msg.text))
            if msg is not None:
                raise ProtocolError(f"the client sent {type(msg).__name__} before the phase")
            self._stop_if_cancelled()
            if time.monotonic() > deadline:
                raise NetTestError(f"the client opened {self.gate.waiting(index)} of {self.hello.streams} data "
                                   f"connections within {self.params.handshake_seconds:g} s")
        return socks

    def _watch(self, streams: StreamSet) -> None:
        """One short wait on the control connection: the client's Abort, or our own Ctrl-C, ends the phase."""
        msg = self.channel.receive(SAMPLE_INTERVAL)
        if isinstance(msg, proto.Abort):
            streams.halt()
            raise _ClientEnded(proto.printable(msg.text))
        if msg is not None:
            streams.halt()
            raise ProtocolError(f"the client sent {type(msg).__name__} mid-phase")
        if self.cancel.cancelled:
            streams.halt()
            self._stop_if_cancelled()

    def _stop_if_cancelled(self) -> None:
        """Our own Ctrl-C (or SIGTERM): tell the client why, then end the session."""
        if self.cancel.cancelled:
            self.channel.send(proto.Abort("the server was stopped (Ctrl-C or a stop signal)"))
            raise Cancelled("the server was stopped")

    def _receive(self, index: int, streams: StreamSet) -> NetPhase:
        streams.start_receiving()
        try:
            while streams.running:
                self._watch(streams)
                self._send_samples(index, streams)
            self._send_samples(index, streams)
            note = self._receive_note(streams)
            ends = streams.received()
            self.channel.send(proto.PhaseEnd(index, note, ends))
        finally:
            streams.halt()
            streams.close()
        self.used += streams.total_bytes
        return NetPhase("backup", [NetStream(e.stream, e.nbytes, e.seconds) for e in ends], "server", note=note)

    def _send_samples(self, index: int, streams: StreamSet) -> None:
        entries = streams.drain()
        for i in range(0, len(entries), proto.MAX_SAMPLES):
            self.channel.send(proto.Samples(index, tuple(entries[i:i + proto.MAX_SAMPLES])))

    def _receive_note(self, streams: StreamSet) -> str:
        if streams.byte_cap is not None and streams.total_bytes >= streams.byte_cap:
            return f"stopped at the server's limit of {self.params.max_bytes:,} bytes a session"
        if errors := streams.errors():
            stream, why = errors[0]
            raise NetTestError(f"the client's stream {stream} broke ({why})")
        if any(not st.eof for st in streams.states):
            return "the client did not end its streams in time: cut"
        return ""

    def _send(self, index: int, streams: StreamSet) -> NetPhase:
        try:
            while streams.running:
                self._watch(streams)
            if errors := streams.errors():
                stream, why = errors[0]
                raise NetTestError(f"stream {stream} to the client broke ({why})")
            streams.shutdown_sending()
            self.channel.expect(proto.Done, end_wait(self.hello.seconds), "the end of the restore")
            capped = streams.byte_cap is not None and streams.total_bytes >= streams.byte_cap
            note = f"stopped at the server's limit of {self.params.max_bytes:,} bytes a session" if capped else ""
            ends = streams.sent()
            self.channel.send(proto.PhaseEnd(index, note, ends))
        finally:
            streams.halt()
            streams.close()
        self.used += streams.total_bytes
        return NetPhase("restore", [NetStream(e.stream, e.nbytes, 0.0) for e in ends], "client", note=note)


def _phase_line(phase: NetPhase) -> str:
    if phase.receiver == "server":
        return (f"{phase.phase}: received {phase.bytes:,} bytes in {phase.seconds:.1f} s = {phase.mb_s:,.1f} MB/s "
                f"({phase.mbit_s:,.0f} Mbit/s){'; ' + phase.note if phase.note else ''}")
    return f"{phase.phase}: sent {phase.bytes:,} bytes; the client measured the rate{'; ' + phase.note if phase.note else ''}"

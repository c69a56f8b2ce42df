"""The network test's client (``net-test HOST``): the engine a run records.

``NetTest(params, token).run(sink, cancel) -> NetTestResult``, the shape of every
engine (``app.events``): ``PhaseStarted``, ``SampleBatch`` at 10 Hz (each stream's bytes
as the *receiving* end counted them: the server's samples in a backup, this end's in a
restore), ``Progress`` and ``PhaseFinished`` per direction.

Errors before any data moved (nothing listens, the token is wrong, the server is busy)
raise ``NetTestError``/``NetRefused``; a connection that breaks mid-test ends the run
with status "stopped" and the phases measured so far; Ctrl-C ends it "cancelled" within
one slice (50 ms), and the server is told.
"""
from __future__ import annotations

import socket
import time
from collections import defaultdict

from app.disk import content as content_mod
from app.events import (CancelToken, EventSink, PhaseFinished, PhaseStarted, Progress, Sample, SampleBatch,
                        discard)
from app.nettest import protocol as proto
from app.nettest.params import NetTestParams
from app.nettest.result import MB, NetPhase, NetStream, NetTestResult
from app.nettest.server import describe_host
from app.nettest.streams import StreamSet, end_wait
from app.nettest.token import ENV, normalise
from native import netio
from native.errors import Cancelled, InvalidParameter, NetRefused, NetTestError

CONNECT_TIMEOUT = 10.0
#: SampleBatch and Progress at least this often (12.5 Hz: "10 Hz or more" with room for a late tick).
PUBLISH_INTERVAL = 0.08
TICK = 0.02


class _Tally:
    """The receiver's samples of one phase as they come: published at 10 Hz, summed per stream."""

    def __init__(self, phase: str, sink: EventSink, t0_ns: int, seconds: float) -> None:
        self.phase, self.sink, self.t0_ns, self.seconds = phase, sink, t0_ns, seconds
        self.pending: list[Sample] = []
        self.bytes: dict[int, int] = defaultdict(int)
        self.last_t: dict[int, float] = defaultdict(float)
        self._published = time.monotonic()

    def add(self, entries: list[proto.SampleEntry] | tuple[proto.SampleEntry, ...]) -> None:
        for e in entries:
            self.pending.append(Sample(e.t, e.nbytes, e.dt, self.phase, e.stream))
            self.bytes[e.stream] += e.nbytes
            self.last_t[e.stream] = max(self.last_t[e.stream], e.t)

    def publish(self, force: bool = False) -> None:
        if not force and time.monotonic() - self._published < PUBLISH_INTERVAL:
            return
        self._published = time.monotonic()
        if self.pending:
            self.sink(SampleBatch(tuple(sorted(self.pending, key=lambda s: s.t))))
            self.pending = []
        elapsed = (time.perf_counter_ns() - self.t0_ns) / 1e9
        done = sum(self.bytes.values())
        rate = done / elapsed / MB if elapsed > 0 else 0.0
        self.sink(Progress(self.phase, done, None, elapsed, rate, max(self.seconds - elapsed, 0.0)))

    def partial(self, receiver: str, note: str) -> NetPhase:
        """The phase as far as the samples went (a run that was cancelled or broke)."""
        streams = [NetStream(i, self.bytes[i], self.last_t[i]) for i in sorted(self.bytes)]
        return NetPhase(self.phase, streams, receiver, note=note)


class _PhaseBroke(NetTestError):
    """A phase ended early (a broken connection, or Ctrl-C when ``cancelled``); ``phase`` holds
    what was measured until then."""

    def __init__(self, message: str, phase: NetPhase, cancelled: bool) -> None:
        super().__init__(message)
        self.phase, self.cancelled = phase, cancelled


class NetTest:
    """``NetTest(params, token).run(sink, cancel) -> NetTestResult`` (see the module docstring).

    ``open()`` (which ``run`` calls if it was not called) connects and is admitted, before anything is
    measured: ``app.nettest.kind`` calls it while the engine is built, so a server that is not there or
    refuses the token leaves no run in the history, only its one line. The token is ``token``, else the
    parameters' own (``NetTestParams.token``)."""

    def __init__(self, params: NetTestParams, token: str | None = None) -> None:
        if token is None and params.token is not None:
            token = params.token.reveal()
        if not token:
            raise InvalidParameter("no token given", hint=f"use --token-file FILE or {ENV}, or type it when asked")
        self.params, self._token = params, token
        self._session: tuple[proto.Channel, proto.Accept, content_mod.Content] | None = None

    def open(self) -> "NetTest":
        """Check the parameters, make the data, connect and be admitted (raises ``NetTestError``/``NetRefused``)."""
        if self._session is None:
            p = self.params
            p.validate()
            content = content_mod.load(p.pattern, seed=p.seed)  # before the clock starts: the pool takes ~1 s
            channel, accept = self._open_session()
            self._session = (channel, accept, content)
        return self

    def close(self) -> None:
        """The session's control connection closed (a session opened and never run ends here)."""
        if self._session is not None:
            self._session[0].sock.close()

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> NetTestResult:
        p, cancel = self.params, cancel or CancelToken()
        channel, accept, content = self.open()._session  # type: ignore[misc]
        result = NetTestResult(f"{p.host} port {p.port}", p.to_dict(), pattern=content.name,
                               predicted_ratio=content.predicted_ratio, native=netio.NATIVE, client=describe_host())
        result.server_info = proto.printable(accept.server, 64)
        try:
            for index, phase in enumerate(p.phases):
                result.phases.append(self._phase(channel, accept, index, phase, content, sink, cancel))
            channel.send(proto.Bye())
            channel.expect(proto.Bye, CONNECT_TIMEOUT, "its goodbye")
        except _PhaseBroke as err:
            result.phases.append(err.phase)
            result.status = "cancelled" if err.cancelled else "stopped"
            result.error = "cancelled" if err.cancelled else f"the test stopped: {err}"
        except NetTestError as err:
            result.status, result.error = "stopped", f"the test stopped: {err}"
        finally:
            channel.sock.close()
        return result

    # -- the session -----------------------------------------------------------------------

    def _connect(self) -> socket.socket:
        p = self.params
        where = f"{p.host} port {p.port}"
        try:
            return socket.create_connection((p.host, p.port), timeout=CONNECT_TIMEOUT)
        except ConnectionRefusedError:
            raise NetTestError(f"nothing listens at {where}",
                               hint="start net-serve there first, with this address and port") from None
        except socket.timeout:
            raise NetTestError(f"no answer from {where} within {CONNECT_TIMEOUT:g} s",
                               hint="a firewall may drop the connection: allow the port on the server") from None
        except socket.gaierror as err:
            raise NetTestError(f"cannot find the server '{p.host}': {err.strerror}") from None
        except OSError as err:
            raise NetTestError(f"cannot connect to {where}: {err.strerror or err}") from None

    def _open_session(self) -> tuple[proto.Channel, proto.Accept]:
        p = self.params
        hello = proto.Hello(normalise(self._token), p.direction, p.streams, round(p.seconds * 1000), p.send_size,
                            p.seed, p.pattern, describe_host())
        sock = self._connect()
        channel = proto.Channel(sock, "the server")
        try:
            sock.sendall(proto.greeting(proto.KIND_CONTROL, hello.body()))
            reply = channel.receive(CONNECT_TIMEOUT)
        except (OSError, NetTestError) as err:
            sock.close()
            raise NetTestError(f"the server at {p.host} port {p.port} did not accept the session: {err}") from None
        if isinstance(reply, proto.Accept):
            return channel, reply
        sock.close()
        if isinstance(reply, proto.Refuse):
            words = proto.printable(reply.text) or proto.REFUSALS.get(reply.code, ("", "refused"))[1]
            raise NetRefused(f"the server refused the session: {words}", code=reply.code)
        raise NetTestError(f"no answer from the server at {p.host} port {p.port} within {CONNECT_TIMEOUT:g} s")

    def _data_connections(self, nonce: bytes, index: int) -> list[socket.socket]:
        socks: list[socket.socket] = []
        try:
            for stream in range(1, self.params.streams + 1):
                sock = self._connect()
                socks.append(sock)
                sock.sendall(proto.greeting(proto.KIND_DATA, proto.DataHello(nonce, index, stream).body()))
        except (OSError, NetTestError) as err:
            for s in socks:
                s.close()
            raise NetTestError(f"cannot open data connection {len(socks) + 1}: {err}") from None
        return socks

    # -- one phase -------------------------------------------------------------------------

    def _phase(self, channel: proto.Channel, accept: proto.Accept, index: int, phase: str,
               content: content_mod.Content, sink: EventSink, cancel: CancelToken) -> NetPhase:
        p = self.params
        socks = self._data_connections(accept.nonce, index)
        try:
            channel.expect(proto.Ready, CONNECT_TIMEOUT, "the start of the phase")
        except NetTestError:
            for s in socks:
                s.close()
            raise
        t0 = time.perf_counter_ns()
        sink(PhaseStarted(phase))
        tally = _Tally(phase, sink, t0, p.seconds)
        streams = StreamSet(socks, t0, p.seconds)
        if phase == "backup":
            streams.start_sending(content, p.seed, index, p.send_size)
        else:
            streams.start_receiving()
        try:
            end = self._stream(channel, streams, tally, index, phase == "backup", cancel)
        finally:
            streams.halt()
        try:
            result = self._phase_result(phase, streams, end, accept)
        finally:
            streams.close()
        sink(PhaseFinished(phase, {"mb_s": round(result.mb_s, 3), "mbit_s": round(result.mbit_s, 2),
                                   "bytes": result.bytes, "seconds": round(result.seconds, 6)}))
        return result

    def _stream(self, channel: proto.Channel, streams: StreamSet, tally: _Tally, index: int, sending: bool,
                cancel: CancelToken) -> proto.PhaseEnd:
        """Run the phase until the server's figures for it arrive."""
        ended_at: float | None = None
        receiver = "server" if sending else "client"
        try:
            while True:
                msg = channel.receive(TICK)
                if isinstance(msg, proto.PhaseEnd):
                    streams.halt()
                    tally.add(streams.drain() if not sending else ())
                    tally.publish(force=True)  # the curve holds every byte the figure counts
                    return msg
                if isinstance(msg, proto.Samples):
                    tally.add(msg.entries)
                elif isinstance(msg, proto.Abort):
                    raise NetTestError(f"the server ended the test: {proto.printable(msg.text)}")
                elif msg is not None:
                    raise NetTestError(f"the server sent {type(msg).__name__} mid-phase")
                if not sending:
                    tally.add(streams.drain())
                tally.publish()
                if cancel.cancelled:
                    streams.halt()
                    _tell(channel, proto.Abort("cancelled at the client"))
                    raise Cancelled("cancelled")
                if ended_at is None and not streams.running:
                    ended_at = time.monotonic()
                    streams.shutdown_sending() if sending else channel.send(proto.Done(index))
                if ended_at is not None and time.monotonic() - ended_at > end_wait(self.params.seconds):
                    raise NetTestError("the server sent no figures for the phase")
        except (NetTestError, Cancelled) as err:
            streams.halt()
            if not sending:
                tally.add(streams.drain())
            tally.publish(force=True)
            cancelled = isinstance(err, Cancelled)
            broke = tally.partial(receiver, "cancelled" if cancelled else f"ended early: {err}")
            raise _PhaseBroke(str(err), broke, cancelled) from None

    def _phase_result(self, phase: str, streams: StreamSet, end: proto.PhaseEnd, accept: proto.Accept) -> NetPhase:
        """The phase's streams: bytes and time from the receiver, RTT and retransmissions from the sender."""
        if phase == "backup":
            counted, kernel, receiver = end.streams, streams.sent(), "server"
            note = "" if netio.TCP_INFO_REPORTED else f"RTT and retransmissions: {netio.TCP_INFO_NOTE} (the client)"
        else:
            counted, kernel, receiver = streams.received(), end.streams, "client"
            note = "" if accept.tcp_info else f"RTT and retransmissions: {netio.TCP_INFO_NOTE} (the server)"
        by_stream = {k.stream: k for k in kernel}
        out = []
        for c in counted:
            k = by_stream.get(c.stream)
            rtt = _ms(k.rtt_us) if k else None
            out.append(NetStream(c.stream, c.nbytes, c.seconds, rtt, _ms(k.min_rtt_us) if k else None,
                                 k.retransmits if k and k.retransmits >= 0 else None))
        return NetPhase(phase, out, receiver, note, proto.printable(end.note))


def _ms(us: int) -> float | None:
    return None if us < 0 else us / 1000.0


def _tell(channel: proto.Channel, msg: proto.Message) -> None:
    try:
        channel.send(msg)
    except NetTestError:
        pass  # the server is gone already

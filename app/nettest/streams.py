"""The parallel TCP streams of one phase, at either end: one thread per stream, C loops inside.

A stream thread calls ``native.netio`` for slices of ``SLICE_NS`` (the GIL is released
inside), keeps what each slice did as a sample (end time, duration, bytes), reads the
kernel's TCP_INFO when it is the sender, and checks ``stop`` between slices. The owning
thread (the engine's or the server's) drains the samples at 10 Hz or more, so the sink or
the wire is only ever used from one thread.

Rates follow the white paper's rule for parallel work: all streams' bytes divided by the
time of the slowest one, counted at the receiver from the phase's start to its last byte.
"""
from __future__ import annotations

import collections
import functools
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

from app.disk.content import CHUNK, Content
from app.nettest.protocol import NOT_REPORTED, SampleEntry, StreamEnd
from native import netio
from native._pattern import block_key

SLICE_NS = 50_000_000  # 50 ms: samples at 20 Hz per stream, a stop within one slice
#: A receiver's read size: iperf3's (128 KiB). On a fast path both ends are CPU-bound on their copies, and a
#: 256 KiB buffer (with the socket's own memory) was measured to crowd the receiving core's cache: 0.85-0.93
#: of iperf3 on one loopback stream against 0.98-1.05 with 128 KiB, paired in the same runs
#: (benchmarks/README.md, "Network").
RECV_BUFFER = 128 << 10
#: Past the phase's time a receiver keeps counting the sender's last bytes (socket buffers and
#: queues draining over a slow link) as long as they come, until this much silence...
IDLE_LIMIT = 10.0


def drain_limit(seconds: float) -> float:
    """...and at most this long past the phase's time, whatever a sender does."""
    return seconds + 60.0


def end_wait(seconds: float) -> float:
    """How long one end waits, after its own streams ended, for the other end's word on the phase."""
    return drain_limit(seconds) + IDLE_LIMIT


@dataclass
class StreamState:
    """One stream's counters; written only by its own thread until it has ended."""

    index: int  # 1-based
    sock: socket.socket
    bytes: int = 0
    last_ns: int = 0  # the receiver's time of its last byte; the sender's end of its last slice
    eof: bool = False
    error: int = 0
    rtt_us: list[int] = field(default_factory=list)  # the sender's smoothed RTT, once a slice
    retrans_start: int | None = None
    samples: collections.deque = field(default_factory=collections.deque)  # (t s, dt s, bytes)
    failure: str = ""  # an exception that ended the stream (error is then -1)

    def sample(self, t0_ns: int, start_ns: int, end_ns: int, nbytes: int) -> None:
        self.samples.append(((end_ns - t0_ns) / 1e9, (end_ns - start_ns) / 1e9, nbytes))


def stream_key(seed: int, phase: int, stream: int) -> int:
    """Each stream's own data key: no two streams (or phases) of a run carry the same bytes."""
    return block_key(seed, (phase << 8) | stream)


class StreamSet:
    """The streams of one phase at one end, started together at ``t0_ns`` for ``seconds``: senders
    stop at the phase's end, receivers at the sender's end of stream (or the limits above)."""

    def __init__(self, socks: list[socket.socket], t0_ns: int, seconds: float, *, byte_cap: int | None = None) -> None:
        self.t0_ns, self.byte_cap = t0_ns, byte_cap
        self.end_ns = t0_ns + int(seconds * 1e9)
        self.hard_ns = self.end_ns + int(drain_limit(seconds) * 1e9)
        self.stop = threading.Event()
        self.states = [StreamState(i + 1, s) for i, s in enumerate(socks)]
        self._threads: list[threading.Thread] = []
        for s in socks:
            s.setblocking(False)

    def start_sending(self, content: Content, seed: int, phase: int, send_size: int) -> None:
        for st in self.states:
            key = stream_key(seed, phase, st.index) if content.keyed else 0
            offset = (st.index * 7919 * CHUNK) % len(content.pool)
            win = netio.window(content.pool, offset, key, send_size)
            self._spawn(st, functools.partial(self._send, st, win, key, send_size))

    def start_receiving(self) -> None:
        for st in self.states:
            self._spawn(st, functools.partial(self._receive, st))

    def _spawn(self, st: StreamState, body: Callable[[], None]) -> None:
        def guarded() -> None:
            try:
                body()
            except Exception as err:  # a bug or an odd OS answer ends this stream, never silently
                st.error, st.failure = st.error or -1, f"{type(err).__name__}: {err}"

        t = threading.Thread(target=guarded, name=f"net-stream-{st.index}", daemon=True)
        self._threads.append(t)
        t.start()

    def _cap_left(self, st: StreamState) -> int:
        return -1 if self.byte_cap is None else max(self.byte_cap // len(self.states) - st.bytes, 0)

    def _send(self, st: StreamState, win: bytearray, key: int, send_size: int) -> None:
        info = netio.tcp_info(st.sock)
        st.retrans_start = info.total_retrans if info else None
        while not self.stop.is_set() and self._cap_left(st) != 0:
            start = time.perf_counter_ns()
            if start >= self.end_ns:
                break
            sent, err, end = netio.send_for(st.sock, win, st.bytes, key, send_size, min(self.end_ns, start + SLICE_NS))
            st.bytes += sent
            st.last_ns = end
            if sent:
                st.sample(self.t0_ns, start, end, sent)
            if (info := netio.tcp_info(st.sock)) is not None and info.rtt_us:
                st.rtt_us.append(info.rtt_us)
            if err:
                st.error = err
                break

    def _receive(self, st: StreamState) -> None:
        buf = bytearray(RECV_BUFFER)
        while not self.stop.is_set():
            start = time.perf_counter_ns()
            left = self._cap_left(st)
            if start >= self.hard_ns or left == 0 or self._silent(st, start):
                break
            got, err, eof, last = netio.recv_for(st.sock, buf, min(self.hard_ns, start + SLICE_NS), left)
            st.bytes += got
            if got:
                st.last_ns = last
                st.sample(self.t0_ns, start, last, got)
            if err or eof:
                st.error, st.eof = err, eof
                break

    def _silent(self, st: StreamState, now: int) -> bool:
        """Past the phase's time with nothing from the sender for ``IDLE_LIMIT``: it is not coming."""
        return now > self.end_ns and now - max(st.last_ns, self.end_ns) > IDLE_LIMIT * 1e9

    # -- the owner's side -------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return any(t.is_alive() for t in self._threads)

    def join(self, timeout: float | None = None) -> None:
        for t in self._threads:
            t.join(timeout)

    def halt(self) -> None:
        """Stop every stream within one slice (and wait for them)."""
        self.stop.set()
        self.join()

    def drain(self) -> list[SampleEntry]:
        out = []
        for st in self.states:
            while st.samples:
                t, dt, n = st.samples.popleft()
                out.append(SampleEntry(st.index, t, dt, n))
        out.sort(key=lambda e: e.t)
        return out

    @property
    def total_bytes(self) -> int:
        return sum(st.bytes for st in self.states)

    def errors(self) -> list[tuple[int, str]]:
        """(stream, what ended it) of the streams a socket error (or a failure) ended."""
        return [(st.index, st.failure or netio.error_text(st.error)) for st in self.states if st.error]

    def shutdown_sending(self) -> None:
        """Tell the receiver every stream is complete (its end of stream), keeping the sockets open."""
        for st in self.states:
            try:
                st.sock.shutdown(socket.SHUT_WR)
            except OSError:
                pass  # already reset by the peer: the receiver saw the end another way

    def close(self) -> None:
        for st in self.states:
            st.sock.close()

    def received(self) -> tuple[StreamEnd, ...]:
        """Each stream as its receiver saw it: bytes, and seconds from the phase start to its last byte."""
        return tuple(StreamEnd(st.index, st.bytes, max(st.last_ns - self.t0_ns, 0) / 1e9 if st.bytes else 0.0)
                     for st in self.states)

    def sent(self) -> tuple[StreamEnd, ...]:
        """Each stream as its sender's kernel saw it: mean smoothed RTT, minimum RTT, retransmissions."""
        out = []
        for st in self.states:
            info = netio.tcp_info(st.sock)
            if info is None:
                out.append(StreamEnd(st.index, st.bytes, 0.0))
                continue
            rtts = st.rtt_us or [info.rtt_us]
            retrans = info.total_retrans - (st.retrans_start or 0)
            min_rtt = info.min_rtt_us if info.min_rtt_us is not None else NOT_REPORTED
            out.append(StreamEnd(st.index, st.bytes, 0.0, round(sum(rtts) / len(rtts)), min_rtt, max(retrans, 0)))
        return tuple(out)

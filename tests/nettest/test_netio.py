"""The stream loops (``native.netio``, C in ``native/src/_netio.c``) on real sockets.

What a stream carries is held to the disk writer's bytes (``native.diskio``): a network
stream is a disk test file that never ends, so tape, disk and network tests send the
same data. The patterns keep their compression ratio on the wire (SLDC model) and no
4 KiB block repeats, so neither a compressing link nor a deduplicating WAN optimiser can
flatter the figure.
"""
from __future__ import annotations

import hashlib
import select
import socket
import tempfile
import threading
import time

import pytest

from app.disk import content as content_mod
from app.nettest.streams import stream_key
from native import diskio, netio, sldc

CHUNK = 128 << 10


def _capture(nbytes: int, pattern: str, key: int, offset: int = 0, native: bool = True) -> bytes:
    """``nbytes`` of one stream as they arrive at the other end of a socket pair."""
    content = content_mod.load(pattern)
    key = key if content.keyed else 0
    win = netio.window(content.pool, offset, key, CHUNK)
    a, b = socket.socketpair()
    a.setblocking(False)
    out = bytearray()

    def reader() -> None:
        while len(out) < nbytes:
            select.select([b], [], [], 1.0)
            out.extend(b.recv(1 << 20))

    t = threading.Thread(target=reader)
    t.start()
    sent = 0
    send = netio.send_for if native else netio._py_send_for
    while sent < nbytes:
        n, err, _ = send(a, win, sent, key, CHUNK, time.perf_counter_ns() + 20_000_000)
        assert err == 0
        sent += n
    t.join()
    a.close()
    b.close()
    return bytes(out[:nbytes])


def _disk_file(nbytes: int, pattern: str, key: int, offset: int = 0) -> bytes:
    content = content_mod.load(pattern)
    key = key if content.keyed else 0
    with tempfile.TemporaryFile() as f:
        win = diskio.window(content.pool, offset, key, nbytes, CHUNK)
        written, err = diskio.write_fd(f.fileno(), win, 0, nbytes, key, CHUNK)
        assert (written, err) == (nbytes, 0)
        f.seek(0)
        return f.read()


@pytest.mark.parametrize("pattern", ["2:1", "random", "zeros"])
def test_a_stream_carries_the_disk_tests_bytes(pattern: str) -> None:
    key = stream_key(7, 0, 2)
    nbytes = 3 * netio.WINDOW_BYTES + 12345  # past the window's end, twice, and a short tail
    assert _capture(nbytes, pattern, key, offset=4096 * 11) == _disk_file(nbytes, pattern, key, offset=4096 * 11)


def test_the_python_loop_sends_what_the_c_loop_sends() -> None:
    key = stream_key(0, 1, 1)
    assert netio.NATIVE, "the C module is built by setup.py"
    assert _capture(2 * netio.WINDOW_BYTES, "4.3:1", key, native=False) == _capture(2 * netio.WINDOW_BYTES, "4.3:1", key)


@pytest.mark.parametrize("pattern, low, high", [("2:1", 1.8, 2.2), ("4.3:1", 3.9, 4.7), ("random", 0.9, 1.05)])
def test_the_pattern_keeps_its_ratio_on_the_wire(pattern: str, low: float, high: float) -> None:
    data = _capture(4 << 20, pattern, stream_key(0, 0, 1))
    ratio = len(data) / sum(sldc.compressed_sizes(data, 256 << 10, sldc.HISTORY_LTO1_5))
    assert low <= ratio <= high


def test_no_four_kib_block_of_a_run_repeats() -> None:
    """Within a stream and across the streams of a run: a deduplicating optimiser finds nothing."""
    blocks: set[bytes] = set()
    total = 0
    for stream in (1, 2):
        data = _capture(8 << 20, "2:1", stream_key(0, 0, stream))
        for i in range(0, len(data), 4096):
            blocks.add(hashlib.blake2b(data[i:i + 4096], digest_size=16).digest())
            total += 1
    assert len(blocks) == total


def test_recv_for_reports_the_end_of_stream_and_the_last_byte_time() -> None:
    a, b = socket.socketpair()
    b.setblocking(False)
    a.sendall(b"x" * 1000)
    a.shutdown(socket.SHUT_WR)
    buf = bytearray(4096)
    before = time.perf_counter_ns()
    got, err, eof, last = netio.recv_for(b, buf, time.perf_counter_ns() + 5_000_000_000)
    assert (got, err, eof) == (1000, 0, True)
    assert before <= last <= time.perf_counter_ns()
    a.close()
    b.close()


def test_a_slice_ends_on_time_when_the_peer_stops_reading() -> None:
    """A receiver that stalls cannot hold a sender's slice: the loop waits only until its end."""
    a, b = socket.socketpair()
    a.setblocking(False)
    content = content_mod.load("random")
    win = netio.window(content.pool, 0, 5, CHUNK)
    sent, err, end = netio.send_for(a, win, 0, 5, CHUNK, time.perf_counter_ns() + 200_000_000)
    assert err == 0 and sent > 0  # the socket buffer filled, then the slice ran out
    sent2, err2, _ = netio.send_for(a, win, sent, 5, CHUNK, time.perf_counter_ns() + 50_000_000)
    assert (sent2, err2) == (0, 0)
    a.close()
    b.close()


def test_a_closed_peer_is_an_error_code_not_an_exception() -> None:
    a, b = socket.socketpair()
    a.setblocking(False)
    b.close()
    content = content_mod.load("zeros")
    win = netio.window(content.pool, 0, 0, CHUNK)
    sent, err, _ = netio.send_for(a, win, 0, 0, CHUNK, time.perf_counter_ns() + 1_000_000_000)
    assert err != 0 and netio.error_text(err)
    a.close()


def test_tcp_info_reports_rtt_and_retransmissions_of_a_tcp_connection() -> None:
    if not netio.TCP_INFO_REPORTED:
        assert netio.tcp_info(socket.socket()) is None
        pytest.skip(netio.TCP_INFO_NOTE)
    server = socket.create_server(("127.0.0.1", 0))
    client = socket.create_connection(server.getsockname())
    peer, _ = server.accept()
    client.sendall(b"x" * 100_000)
    peer.recv(100_000)
    info = netio.tcp_info(client)
    assert info is not None and info.rtt_us > 0 and info.total_retrans >= 0
    for s in (client, peer, server):
        s.close()


def test_a_receiver_follows_a_draining_sender_and_gives_up_on_a_silent_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the phase's time the receiver counts the last bytes while they come (a slow link draining
    its buffers), and stops after IDLE_LIMIT of silence from a sender that neither sends nor closes."""
    from app.nettest import streams as streams_mod

    monkeypatch.setattr(streams_mod, "IDLE_LIMIT", 2.0)
    drain_a, drain_b = socket.socketpair()
    silent_a, silent_b = socket.socketpair()

    def trickle() -> None:
        for _ in range(10):  # 0.5 s of bytes, well past the phase's 0.1 s
            drain_a.sendall(b"x" * 1000)
            time.sleep(0.05)
        drain_a.shutdown(socket.SHUT_WR)

    sender = threading.Thread(target=trickle)
    sender.start()
    s = streams_mod.StreamSet([drain_b, silent_b], time.perf_counter_ns(), 0.1)
    s.start_receiving()
    s.join(timeout=30)
    sender.join()
    drained, silent = s.states
    assert (drained.bytes, drained.eof) == (10_000, True)
    assert (silent.bytes, silent.eof, s.running) == (0, False, False)
    for sock in (drain_a, drain_b, silent_a, silent_b):
        sock.close()

"""Hostile input against the real processes (``tapediag net-serve|net-test`` on 127.0.0.1):
one clear line each, the documented exit code (``app.nettest``: 1 failed or refused, 2 bad
input, 130 cancelled), never a traceback, and a server that keeps no state.

Every step waits for what a process *said* (the server's console, the client's progress),
never for a fixed time.
"""
from __future__ import annotations

import os
import signal
import socket
import struct

import pytest

from app.nettest import protocol as proto
from tests.helpers.nettest import run_client, run_server, start_client, start_server

EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 1, 2, 130


def _one_line(stderr: str | list[str], starts: str = "tapediag: error: ") -> str:
    """The one line a failure prints (the client's progress lines, indented, aside)."""
    lines = stderr.splitlines() if isinstance(stderr, str) else stderr
    said = [ln for ln in lines if ln.strip() and not ln.startswith("  ")]
    assert "Traceback" not in "\n".join(lines)
    assert len(said) == 1, lines
    assert said[0].startswith(starts), said
    return said[0]


def _closed(sock: socket.socket) -> bool:
    """The server closed the connection without a word (an end of stream, or a reset when our bytes were unread)."""
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def _quick(port: int, token: str) -> None:
    """A correct client, afterwards: the server still serves."""
    ok = run_client(port, token, "--time", "1", "--direction", "backup")
    assert ok.returncode == 0, ok.stderr


def test_a_wrong_token_is_refused_and_the_right_one_still_works() -> None:
    server = start_server()
    got = run_client(server.port, "AAAA-AAAA-AAAA-AAAA")
    assert got.returncode == EXIT_FAILED
    assert _one_line(got.stderr) == "tapediag: error: the server refused the session: wrong token (1 of 3 allowed)"
    server.wait_line(r"refused 127\.0\.0\.1:\d+: wrong token")
    _quick(server.port, server.token)
    rc, err = server.finish()
    assert rc == 0 and err == ""
    assert server.out.seen[-1] == "net-serve: session complete"


def test_too_many_wrong_tokens_end_the_server() -> None:
    server = start_server("--max-wrong-tokens", "2")
    for _ in range(2):
        assert run_client(server.port, "WRONG").returncode == EXIT_FAILED
    rc, err = server.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err) == "tapediag: error: 2 wrong tokens: stopped (start net-serve again for a new token)"


def test_a_second_client_during_a_test_is_refused_busy() -> None:
    server = start_server()
    first = start_client(server.port, server.token, "--time", "60", "--direction", "backup")
    first.err.wait_line(r"^  backup: ")  # data flows
    second = run_client(server.port, server.token)
    assert second.returncode == EXIT_FAILED
    assert _one_line(second.stderr) == "tapediag: error: the server refused the session: busy with another test session"
    first.proc.send_signal(signal.SIGINT)
    rc, out, err = first.finish()
    assert rc == EXIT_CANCELLED and _one_line(err, "tapediag: cancelled") == "tapediag: cancelled"
    assert "backup (client -> server)" in out  # what was measured until then
    rc, err = server.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err) == "tapediag: error: the client ended the session: cancelled at the client"


def test_a_silent_connection_is_dropped_and_a_garbage_one_too() -> None:
    server = start_server("--handshake-seconds", "0.5")
    silent = socket.create_connection(("127.0.0.1", server.port))
    server.wait_line(r"dropped 127\.0\.0\.1:\d+: no complete greeting in time")
    assert _closed(silent)
    garbage = socket.create_connection(("127.0.0.1", server.port))
    garbage.sendall(os.urandom(64))
    server.wait_line(r"dropped 127\.0\.0\.1:\d+: not a tapediag network test client \(wrong greeting\)")
    assert _closed(garbage)
    cut = socket.create_connection(("127.0.0.1", server.port))
    cut.sendall(proto.GREETING.pack(proto.MAGIC, proto.VERSION, proto.KIND_CONTROL, 9) + b"\x40" + os.urandom(8))
    server.wait_line(r"dropped 127\.0\.0\.1:\d+: session request: ")
    assert _closed(cut)
    for s in (silent, garbage, cut):
        s.close()
    _quick(server.port, server.token)
    assert server.finish()[0] == 0


def test_a_client_that_stalls_mid_session_ends_it() -> None:
    """The right token, then nothing: the server gives up at its handshake limit and exits."""
    server = start_server("--handshake-seconds", "0.5")
    sock = socket.create_connection(("127.0.0.1", server.port))
    hello = proto.Hello(server.token.encode(), "backup", 1, 1000, 128 << 10, 0, "2:1", "a stalling client")
    sock.sendall(proto.greeting(proto.KIND_CONTROL, hello.body()))
    assert isinstance(proto.Channel(sock, "the server").receive(10.0), proto.Accept)
    rc, err = server.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err) == ("tapediag: error: the session ended early: the client opened 0 of 1 data connections "
                              "within 0.5 s")
    sock.close()


def test_garbage_from_the_client_mid_session_ends_it_in_one_line() -> None:
    server = start_server()
    sock = socket.create_connection(("127.0.0.1", server.port))
    hello = proto.Hello(server.token.encode(), "backup", 1, 1000, 128 << 10, 0, "2:1", "a garbling client")
    sock.sendall(proto.greeting(proto.KIND_CONTROL, hello.body()))
    assert isinstance(proto.Channel(sock, "the server").receive(10.0), proto.Accept)
    sock.sendall(b"\xee" + struct.pack("!H", 3) + b"???")
    rc, err = server.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err) == "tapediag: error: the session ended early: unknown control message type 238"
    sock.close()


def test_another_protocol_version_is_told_so() -> None:
    server = start_server()
    sock = socket.create_connection(("127.0.0.1", server.port))
    sock.sendall(proto.GREETING.pack(proto.MAGIC, proto.VERSION + 1, proto.KIND_CONTROL, 3) + b"new")
    reply = proto.Channel(sock, "the server").receive(10.0)
    assert isinstance(reply, proto.Refuse) and reply.code == proto.BAD_VERSION
    assert "use the same tapediag version at both ends" in reply.text
    sock.close()
    _quick(server.port, server.token)
    assert server.finish()[0] == 0


def test_a_server_that_vanishes_mid_test_is_one_line() -> None:
    server = start_server()
    client = start_client(server.port, server.token, "--time", "60", "--direction", "restore")
    client.err.wait_line(r"^  restore: ")
    server.proc.kill()
    rc, out, err = client.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err).startswith("tapediag: error: the test stopped: ")
    assert "restore (server -> client)" in out


def test_garbage_from_a_server_is_one_line() -> None:
    fake = socket.create_server(("127.0.0.1", 0))
    port = fake.getsockname()[1]
    client = start_client(port, "AAAA")
    conn, _ = fake.accept()
    conn.sendall(b"\x63" + struct.pack("!H", 4) + b"junk")
    rc, _out, err = client.finish()
    assert rc == EXIT_FAILED
    assert "unknown control message type 99" in _one_line(err)
    conn.close()
    fake.close()


def test_a_port_in_use_is_one_line() -> None:
    taken = socket.create_server(("127.0.0.1", 0))
    port = taken.getsockname()[1]
    got = run_server("--listen", f"127.0.0.1:{port}")
    assert got.returncode == EXIT_FAILED
    assert _one_line(got.stderr) == (f"tapediag: error: cannot listen on 127.0.0.1 port {port}: the port is in use "
                                     "(another net-serve or program has it: choose another port in --listen)")
    taken.close()


@pytest.mark.parametrize("extra, code, words", [
    ((), EXIT_USAGE, "tapediag: error: no token given"),
    (("--streams", "40"), EXIT_USAGE, "tapediag: error: streams must be 1 to 16, not 40"),
])
def test_bad_client_input_is_one_line(extra: tuple[str, ...], code: int, words: str) -> None:
    got = run_client(9, None, *extra)
    assert got.returncode == code
    assert _one_line(got.stderr).startswith(words)


def test_nothing_listening_is_one_line() -> None:
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    got = run_client(port, "AAAA")
    assert got.returncode == EXIT_FAILED
    assert _one_line(got.stderr).startswith(f"tapediag: error: nothing listens at 127.0.0.1 port {port}")


def test_the_server_exits_when_no_client_comes_and_keeps_no_state(tmp_path) -> None:
    data = tmp_path / "data"
    server = start_server("--wait-seconds", "1", cwd=tmp_path, env={"TAPEDIAG_DATA_DIR": str(data)})
    rc, err = server.finish()
    assert rc == EXIT_FAILED
    assert _one_line(err) == "tapediag: error: no client started a session within 1 s"
    assert list(tmp_path.iterdir()) == []  # no file, no data directory: nothing kept


def test_the_server_stops_on_sigterm_while_waiting() -> None:
    server = start_server()
    server.proc.send_signal(signal.SIGTERM)
    rc, err = server.finish()
    assert rc == EXIT_CANCELLED
    assert _one_line(err, "tapediag: cancelled") == "tapediag: cancelled: stopped before any session"

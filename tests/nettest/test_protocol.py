"""The wire format, the token and the parameters: every message round-trips, nothing malformed parses."""
from __future__ import annotations

import socket
import struct
import time

import pytest

from app.nettest import protocol as proto
from app.nettest.params import NetTestParams, ServeParams
from app.nettest.token import ENV, matches, new_token, normalise, read_token
from native.errors import InvalidParameter, ProtocolError

MESSAGES: list[proto.Message] = [
    proto.Accept(b"n" * 16, "tapediag 0.1.0 on Linux", True),
    proto.Refuse(proto.WRONG_TOKEN, "wrong token (1 of 3 allowed)"),
    proto.Ready(1),
    proto.Samples(0, (proto.SampleEntry(3, 0.25, 0.05, 123456), proto.SampleEntry(1, 0.3, 0.05, 0))),
    proto.Done(1),
    proto.PhaseEnd(0, "cut", (proto.StreamEnd(1, 10**12, 10.5, 450, 120, 3), proto.StreamEnd(2, 5, 0.1))),
    proto.Abort("cancelled at the client"),
    proto.Bye(),
]


@pytest.mark.parametrize("msg", MESSAGES, ids=lambda m: type(m).__name__)
def test_every_message_round_trips(msg: proto.Message) -> None:
    frame = proto.encode(msg)
    kind, length = proto.FRAME.unpack_from(frame)
    assert length == len(frame) - proto.FRAME.size
    assert proto.decode(kind, frame[proto.FRAME.size:]) == msg


@pytest.mark.parametrize("msg", MESSAGES[:-1], ids=lambda m: type(m).__name__)
def test_a_cut_or_padded_message_is_a_protocol_error(msg: proto.Message) -> None:
    frame = proto.encode(msg)
    kind, body = frame[0], frame[proto.FRAME.size:]
    with pytest.raises(ProtocolError):
        proto.decode(kind, body[:-1])
    with pytest.raises(ProtocolError):
        proto.decode(kind, body + b"\0")


def test_unknown_message_types_are_refused() -> None:
    with pytest.raises(ProtocolError, match="unknown control message type 99"):
        proto.decode(99, b"")


def test_greetings_round_trip_and_garbage_does_not_parse() -> None:
    hello = proto.Hello(b"ABCD1234EFGH5678", "both", 4, 10_000, 128 << 10, 7, "4.3:1", "tapediag 0.1.0 on Linux")
    assert proto.Hello.parse(hello.body()) == hello
    data = proto.DataHello(b"k" * 16, 1, 3)
    assert proto.DataHello.parse(data.body()) == data
    with pytest.raises(ProtocolError):
        proto.Hello.parse(hello.body()[:-3])
    with pytest.raises(ProtocolError, match="direction"):
        proto.Hello.parse(hello.body().replace(struct.pack("!BB", 3, 4), struct.pack("!BB", 9, 4), 1))
    a, b = socket.socketpair()
    a.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    with pytest.raises(ProtocolError, match="not a tapediag network test client"):
        proto.read_greeting(b, time.monotonic() + 5)
    a.close()
    b.close()


def test_a_silent_connection_gives_up_at_its_deadline() -> None:
    a, b = socket.socketpair()
    with pytest.raises(ProtocolError, match="no complete greeting in time"):
        proto.read_greeting(b, time.monotonic() + 0.2)
    a.close()
    b.close()


def test_peer_text_is_printable() -> None:
    assert proto.printable("ok\x1b[2J\x07done") == "ok?[2J?done"
    assert len(proto.printable("x" * 1000)) == 200


def test_a_token_is_fresh_readable_and_compared_without_case_or_dashes() -> None:
    token = new_token()
    assert token != new_token()
    assert len(token) == 19 and token.count("-") == 3
    assert matches(normalise(token.lower().replace("-", " ")), token)
    assert not matches(normalise(token[:-1] + ("0" if token[-1] != "0" else "1")), token)
    assert normalise("abcd-efgh-ijkl-mnop") == b"ABCDEFGH1JK1MN0P"  # I, L, O read as 1, 1, 0


def test_the_token_comes_from_a_file_the_environment_or_a_prompt(tmp_path) -> None:
    f = tmp_path / "token"
    f.write_text("7KQ4-M2XP-9DTR-H3WC\n")
    assert read_token(str(f), environ={}) == "7KQ4-M2XP-9DTR-H3WC"
    assert read_token(None, environ={ENV: " 7KQ4 "}) == "7KQ4"
    assert read_token(None, environ={}, prompt=lambda _: "ABCD", interactive=True) == "ABCD"
    with pytest.raises(InvalidParameter, match="no token given"):
        read_token(None, environ={}, interactive=False)
    with pytest.raises(InvalidParameter, match="cannot read the token file"):
        read_token(str(tmp_path / "missing"), environ={})


def test_parameters_are_declared_once_and_checked_against_their_declaration() -> None:
    names = [f.name for f in NetTestParams.FIELDS]
    assert names[:3] == ["host", "port", "streams"]
    p = NetTestParams.from_values({"host": "127.0.0.1", "streams": "4", "seconds": "2min", "send_size": "256K"})
    assert (p.streams, p.seconds, p.send_size) == (4, 120.0, 256 << 10)
    p.validate()
    assert "token" not in p.to_dict()
    for bad, words in [({"streams": 17}, "streams must be 1 to 16"), ({"direction": "sideways"}, "direction must be"),
                       ({"pattern": "50:1"}, "outside"), ({"seconds": 0}, "seconds must be")]:
        with pytest.raises(InvalidParameter, match=words):
            NetTestParams.from_values({"host": "127.0.0.1", **bad}).validate()
    with pytest.raises(InvalidParameter, match="no host given"):
        NetTestParams.from_values({})


def test_the_server_listens_only_where_told() -> None:
    with pytest.raises(InvalidParameter, match="no address to listen on given"):
        ServeParams.from_values({"port": 5210}).validate()
    assert ServeParams("0.0.0.0").all_interfaces and ServeParams("::").all_interfaces
    assert not ServeParams("127.0.0.1").all_interfaces


def test_the_server_says_where_it_listens_and_what_windows_will_ask(monkeypatch: pytest.MonkeyPatch) -> None:
    from app.nettest import text
    from app.nettest.server import Listening

    ev = Listening("127.0.0.1", 5210, "7KQ4-M2XP-9DTR-H3WC", ServeParams("127.0.0.1", wait_seconds=300))
    lines = text.listening_lines(ev)
    assert lines[0] == "tapediag net-serve: listening on 127.0.0.1 port 5210 (TCP) for one network test session"
    assert "token: 7KQ4-M2XP-9DTR-H3WC" in lines[1] and "waits up to 300 s" in lines[2]
    assert not any("EVERY interface" in ln for ln in lines)
    monkeypatch.setattr(text.sys, "platform", "win32")
    assert "Windows Firewall may now ask" in text.listening_lines(ev)[-1]

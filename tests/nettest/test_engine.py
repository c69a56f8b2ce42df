"""The client engine against a real server on 127.0.0.1, both in this process: events, figures,
the typed result, cancellation from either end, the server's limits."""
from __future__ import annotations

import json
import socket
from collections import defaultdict

import pytest

from app.events import CancelToken, PhaseFinished, PhaseStarted, Progress, SampleBatch
from app.nettest import protocol as proto
from app.nettest.client import NetTest
from app.nettest.params import NetTestParams
from app.nettest.result import NetTestResult
from app.nettest.text import headline, phase_line, render
from app.runs.typed import from_dict
from native import netio
from native.errors import NetRefused
from tests.helpers.nettest import served


def _params(port: int, **kw: object) -> NetTestParams:
    return NetTestParams(**{"host": "127.0.0.1", "port": port, "seconds": 1.0, **kw})  # type: ignore[arg-type]


@pytest.mark.parametrize("streams", [1, 4])
def test_both_directions_are_measured_per_stream_at_the_receiver(streams: int) -> None:
    events: list = []
    with served() as srv:
        result = NetTest(_params(srv.port, streams=streams, pattern="4.3:1"), srv.token).run(events.append)
        outcome = srv.result()
    assert result.status == "complete", result.error
    assert outcome.status == "complete"
    assert [(p.phase, p.receiver) for p in result.phases] == [("backup", "server"), ("restore", "client")]
    assert result.pattern == "4.3:1" and result.native == netio.NATIVE
    sampled: dict[tuple[str, int], int] = defaultdict(int)
    for ev in events:
        if isinstance(ev, SampleBatch):
            for s in ev.samples:
                sampled[(s.phase, s.stream)] += s.nbytes
    for phase in result.phases:
        assert [s.stream for s in phase.streams] == list(range(1, streams + 1))
        for s in phase.streams:
            assert s.bytes > 0 and 0 < s.seconds and s.bytes == sampled[(phase.phase, s.stream)]
            assert (s.rtt_ms is not None) == netio.TCP_INFO_REPORTED
        assert phase.mb_s == pytest.approx(phase.bytes / phase.seconds / 1e6)
        assert phase.tcp_info_note == ("" if netio.TCP_INFO_REPORTED else phase.tcp_info_note)
    # the server's own count of the backup is the client's figure
    assert outcome.phases[0].bytes == result.phases[0].bytes
    kinds = [type(e) for e in events if isinstance(e, (PhaseStarted, PhaseFinished))]
    assert kinds == [PhaseStarted, PhaseFinished, PhaseStarted, PhaseFinished]
    assert sum(isinstance(e, Progress) for e in events) >= 2 * 5  # 1 s a phase at 10 Hz, with room for a busy machine


def test_the_result_is_json_and_comes_back_typed() -> None:
    with served() as srv:
        result = NetTest(_params(srv.port, streams=2, direction="restore", pattern="zeros"), srv.token).run()
    stored = json.loads(json.dumps(result.to_dict()))
    assert stored["restore_mb_s"] == round(result.phases[0].mb_s, 3)
    assert stored["params"]["streams"] == 2 and "token" not in json.dumps(stored)
    back = from_dict(NetTestResult, stored)
    assert back == result
    line = phase_line(back.phases[0], back.pattern)
    assert line.startswith("restore (server -> client): ") and "Mbit/s, 2 streams (" in line
    assert "pattern zeros" in line and ("retransmit" in line or "not reported" in line)
    assert "restore" in headline(back) and "Network test to 127.0.0.1" in render(back)


def test_cancel_at_the_client_stops_within_a_slice_and_tells_the_server() -> None:
    cancel = CancelToken()

    def sink(ev: object) -> None:
        if isinstance(ev, SampleBatch):
            cancel.cancel()

    with served() as srv:
        result = NetTest(_params(srv.port, seconds=60.0, direction="backup"), srv.token).run(sink, cancel)
        outcome = srv.result()
    assert result.status == "cancelled"
    assert result.phases and result.phases[0].note == "cancelled" and result.phases[0].seconds < 30
    assert outcome.status == "stopped" and "cancelled at the client" in outcome.text


def test_the_server_stopped_mid_test_ends_the_clients_run_with_its_reason() -> None:
    with served() as srv:
        def sink(ev: object) -> None:
            if isinstance(ev, SampleBatch):
                srv.cancel.cancel()

        result = NetTest(_params(srv.port, seconds=60.0, direction="restore"), srv.token).run(sink)
        outcome = srv.result()
    assert result.status == "stopped"
    assert "the server was stopped" in (result.error or "")
    assert result.phases[0].bytes > 0  # what came until then is kept
    assert outcome.status == "cancelled"


def test_a_request_beyond_the_limits_is_refused_and_the_server_waits_on() -> None:
    with served(max_streams=2, max_seconds=5.0) as srv:
        with pytest.raises(NetRefused, match="3 streams asked, this server allows 1 to 2") as refused:
            NetTest(_params(srv.port, streams=3), srv.token).run()
        assert refused.value.code == proto.LIMITS
        with pytest.raises(NetRefused, match="10 s asked"):
            NetTest(_params(srv.port, seconds=10.0), srv.token).run()
        result = NetTest(_params(srv.port, streams=2, direction="backup"), srv.token).run()
        assert result.status == "complete"
        assert srv.result().status == "complete"


def test_the_size_limit_ends_a_phase_early_and_says_so() -> None:
    with served(max_bytes=8 << 20) as srv:
        result = NetTest(_params(srv.port, seconds=30.0, direction="backup"), srv.token).run()
    assert result.status == "complete"
    phase = result.phases[0]
    assert "stopped at the server's limit of 8,388,608 bytes" in phase.note
    assert phase.bytes <= 8 << 20


def test_a_stranger_data_connection_is_dropped_and_the_session_goes_on() -> None:
    with served() as srv:
        opened: list[socket.socket] = []

        def sink(ev: object) -> None:
            if isinstance(ev, SampleBatch) and not opened:
                stranger = socket.create_connection(("127.0.0.1", srv.port))
                stranger.sendall(proto.greeting(proto.KIND_DATA, proto.DataHello(b"\0" * 16, 0, 1).body()))
                opened.append(stranger)

        result = NetTest(_params(srv.port, direction="backup"), srv.token).run(sink)
        outcome = srv.result()
    assert result.status == "complete" and outcome.status == "complete"
    assert any("dropped a data connection" in n for n in srv.notes)
    assert opened[0].recv(1) == b""  # closed without a word
    opened[0].close()

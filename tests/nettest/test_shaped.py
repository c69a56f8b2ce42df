"""A path that is the bottleneck, made real: a private namespace whose loopback the kernel shapes
to 100 Mbit/s (``tests.helpers.netns``); both ends run inside it. The test measures the
configured rate within 10 %, in both directions, with 1 and 4 streams.

The server runs as its own process (``ip netns exec``); the client runs in this process
in a thread that entered the namespace, so the test reads its events and typed result.
The shaper, not this machine's CPU, sets the pace, so the figure holds on a busy machine.
"""
from __future__ import annotations

import subprocess
from collections import defaultdict

import pytest

from app.events import PhaseFinished, PhaseStarted, SampleBatch
from app.nettest.client import NetTest
from app.nettest.params import NetTestParams
from app.nettest.text import phase_line
from tests.helpers.netns import shaped_namespace, unavailable_reason
from tests.helpers.nettest import ROOT, child_env, server_argv, start_server

REASON = unavailable_reason()
needs_netns = pytest.mark.skipif(REASON is not None, reason=f"no private network namespace here: {REASON}")
RATE_MBIT = 100.0
DELAY_MS = 5.0
TOLERANCE = 0.10


@needs_netns
@pytest.mark.slow
@pytest.mark.parametrize("streams", [1, 4])
def test_shaped_path_is_measured_within_ten_percent(streams: int) -> None:
    events: list = []
    with shaped_namespace(RATE_MBIT, DELAY_MS) as ns:
        assert ns.shaping is not None
        server = start_server(ns=ns)
        params = NetTestParams("127.0.0.1", server.port, streams=streams, seconds=4, direction="both")
        result = ns.call(lambda: NetTest(params, server.token).run(events.append))
        rc, err = server.finish()
    assert result.status == "complete", result.error
    assert rc == 0, err
    for phase in result.phases:
        line = phase_line(phase, result.pattern)
        assert abs(phase.mbit_s - RATE_MBIT) <= TOLERANCE * RATE_MBIT, line
        assert len(phase.streams) == streams
        assert phase.rtt_ms is not None and phase.rtt_ms > 0, line
        assert phase.retransmits is not None and phase.retransmits >= 0, line
        if ns.shaping.delay_ms:  # netem: data and ACKs each wait the delay on the way out of lo
            assert phase.min_rtt_ms is not None and phase.min_rtt_ms >= 2 * ns.shaping.delay_ms * 0.9, line
    # the live curve adds up to the figure: every byte the receiver counted was in a published sample
    by_phase: dict[str, int] = defaultdict(int)
    for ev in events:
        if isinstance(ev, SampleBatch):
            for s in ev.samples:
                by_phase[s.phase] += s.nbytes
    assert by_phase == {p.phase: p.bytes for p in result.phases}
    assert [type(e).__name__ for e in events if isinstance(e, (PhaseStarted, PhaseFinished))] == \
        ["PhaseStarted", "PhaseFinished"] * 2


@needs_netns
def test_namespace_is_private_and_always_removed() -> None:
    """The host's loopback is never shaped, and the namespace goes also when the test inside fails."""
    with pytest.raises(RuntimeError, match="inside"):
        with shaped_namespace(RATE_MBIT, DELAY_MS) as ns:
            name = ns.name
            inside = subprocess.run(["tc", "-n", name, "qdisc", "show", "dev", "lo"], capture_output=True, text=True)
            assert ns.shaping is not None and ns.shaping.qdisc in inside.stdout
            host = subprocess.run(["tc", "qdisc", "show", "dev", "lo"], capture_output=True, text=True)
            assert "netem" not in host.stdout and "tbf" not in host.stdout
            raise RuntimeError("a failure inside the namespace")
    listing = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert name not in listing


def _lo_bytes(ns: object) -> int:
    """Bytes the namespace's loopback has carried (its own counter: nothing else runs in there)."""
    out = ns.run(["cat", "/proc/net/dev"], capture_output=True, text=True).stdout  # type: ignore[attr-defined]
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("lo:"))
    return int(line.split(":", 1)[1].split()[0])


@needs_netns
def test_the_figure_is_what_the_wire_carried() -> None:
    """The kernel's own count of the bytes on the namespace's loopback holds the figure: every byte
    reported crossed the wire, and the wire carried little besides (headers, the control connection)."""
    with shaped_namespace(None) as ns:
        server = start_server(ns=ns)
        before = _lo_bytes(ns)
        params = NetTestParams("127.0.0.1", server.port, streams=2, seconds=1, direction="both")
        result = ns.call(lambda: NetTest(params, server.token).run())
        carried = _lo_bytes(ns) - before
        assert server.finish()[0] == 0
    payload = sum(p.bytes for p in result.phases)
    assert result.status == "complete"
    assert payload <= carried <= payload * 1.01 + 1_000_000


@needs_netns
def test_every_interface_only_when_told_and_then_said() -> None:
    """0.0.0.0 listens everywhere, so the server says so; done in a namespace whose only interface is lo."""
    with shaped_namespace(None) as ns:
        proc = ns.popen(server_argv("--wait-seconds", "1", bind="0.0.0.0"),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env(), cwd=ROOT)
        out, err = proc.communicate(timeout=60)
    assert "listening on 0.0.0.0 port" in out
    assert "on EVERY interface of this machine (0.0.0.0): any machine that reaches it may try the token" in out
    assert proc.returncode == 1 and "no client started a session within 1 s" in err

"""The shaped path with netem's rate *and* delay (``tc qdisc add dev lo root netem rate 100mbit delay 5ms``),
on a real Debian kernel under qemu (``tests/kernel/guest.py``), because this machine's kernel
may have no netem (the namespace helper then shapes with tbf, rate only).

The session's one boot (``tests/kernel/session.py``) runs ``guest_netem.sh`` (about a minute under
software emulation) from a clean guest: the guest loads ``sch_netem`` from the unpacked Debian kernel and measures, inside a namespace of
its own, 1 and 4 streams in both directions. Expected: about 100 Mbit/s within 10 %, and a
minimum RTT of at least the two 5 ms delays (data and ACKs both leave through the
namespace's lo). The guest's CPU is emulated, so nothing here is about the tool's speed:
the shaper sets the pace, as long as this machine gives the guest (whose kernel shapes) the
CPU it asks for. Beside stress-ng it did not (70 Mbit/s, smoothed RTT 230 ms): the rate may
then fall short of the 10 % by the share of the CPU time the guest wanted that it waited for,
counted on this machine for the same run (``GuestRun.withheld``); never above the shaper's rate.
"""
from __future__ import annotations

import json

import pytest

from tests.kernel.session import KERNEL_TIMEOUT, KernelGuest

pytestmark = [pytest.mark.kernel, pytest.mark.slow, pytest.mark.timeout(KERNEL_TIMEOUT)]
RATE_MBIT, DELAY_MS, TOLERANCE = 100.0, 5.0, 0.10


@pytest.fixture(scope="module")
def measured(kernel_guest: KernelGuest) -> dict:
    run = kernel_guest.run("netem")
    rc = (run.out / "netem.rc").read_text().strip() if (run.out / "netem.rc").exists() else "none"
    assert run.returncode == 0 and rc == "0", (f"the guest did not measure (rc {rc}):\n{run.console[-2000:]}\n"
                                               f"{(run.out / 'netem.err').read_text()[-3000:]}")
    result = json.loads((run.out / "netem.json").read_text())
    result["withheld"] = run.withheld
    print(f"the guest waited for a CPU {run.waited_seconds:.0f} s, ran {run.cpu_seconds:.0f} s: "
          f"{run.withheld:.0%} of what it wanted withheld")
    return result


def test_netem_shapes_rate_and_delay_in_the_guest(measured: dict) -> None:
    assert measured["shaping"] == {"qdisc": "netem", "rate_mbit": RATE_MBIT, "delay_ms": DELAY_MS}


@pytest.mark.parametrize("streams", [1, 4])
def test_the_netem_path_is_measured_within_ten_percent(measured: dict, streams: int) -> None:
    run = next(r for r in measured["runs"] if r["streams"] == streams)
    assert run["status"] == "complete" and run["server_rc"] == 0, run["error"]
    assert [p["phase"] for p in run["phases"]] == ["backup", "restore"]
    withheld = measured["withheld"]
    for phase in run["phases"]:
        assert phase["mbit_s"] <= (1 + TOLERANCE) * RATE_MBIT, phase
        assert phase["mbit_s"] >= (1 - TOLERANCE - withheld) * RATE_MBIT, (phase, f"{withheld:.0%} withheld")
        assert phase["min_rtt_ms"] >= 2 * DELAY_MS * 0.9, phase
        assert phase["rtt_ms"] >= phase["min_rtt_ms"] and phase["retransmits"] >= 0, phase
        assert len(phase["streams"]) == streams

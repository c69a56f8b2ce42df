"""tapediag's network figure against iperf3 on the same path, in the same run.

Run: .venv/bin/python benchmarks/bench_net.py [--seconds 3] [--pairs 3] [--paths loopback,shaped]
                                               [--streams 1,4] [--directions backup,restore]

Paths: ``loopback`` (this machine's 127.0.0.1, unshaped: the tools themselves are the
limit) and ``shaped`` (a private namespace whose loopback the kernel shapes to 100 Mbit/s,
``tests/helpers/netns.py``; needs root). For each path, stream count and direction the
two tools run as pairs, alternating which goes first (the machine's load drifts), each
as its own server and client processes: ``tapediag net-serve``/``net-test`` with its
default pattern (2:1, every 4 KiB stamped) and ``iperf3 -s -1`` / ``iperf3 -c [-R] -P N``.
Both figures are the receiver's: tapediag's phase rate, iperf3's ``sum_received``.

Printed per configuration: both medians, the median ratio tapediag / iperf3, its
min-max, n pairs, and the load average (1 min) around the figures: the machine is
shared. Goal: ratio >= 0.95. Asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.helpers.netns import Namespace, shaped_namespace, unavailable_reason  # noqa: E402
from tests.helpers.nettest import client_argv, start_server  # noqa: E402

GOAL = 0.95
#: net-test records each run: in a history of the benchmark's own, never the user's.
DATA_DIR = tempfile.mkdtemp(prefix="tapediag-bench-net-")


@dataclass
class Runner:
    """Starts programs on one path: here, or inside a namespace."""

    ns: Namespace | None = None

    def popen(self, argv: list[str], **kw: Any) -> subprocess.Popen:
        return self.ns.popen(argv, **kw) if self.ns else subprocess.Popen(argv, **kw)

    def run(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess:
        return self.ns.run(argv, **kw) if self.ns else subprocess.run(argv, **kw)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def tapediag_mb_s(r: Runner, streams: int, direction: str, seconds: float) -> float:
    server = start_server(ns=r.ns)
    env = {**os.environ, "TAPEDIAG_NET_TOKEN": server.token, "PYTHONPATH": str(ROOT), "TAPEDIAG_DATA_DIR": DATA_DIR}
    argv = client_argv(server.port, "--streams", str(streams), "--direction", direction, "--time", str(seconds),
                       "--json")
    got = r.run(argv, capture_output=True, text=True, env=env, timeout=seconds * 4 + 60, stdin=subprocess.DEVNULL)
    rc, err = server.finish()
    if got.returncode != 0 or rc != 0:
        raise RuntimeError(f"tapediag failed: {got.stderr.strip()} / {err.strip()}")
    return float(json.loads(got.stdout)["phases"][0]["mb_s"])


def iperf3_mb_s(r: Runner, streams: int, direction: str, seconds: float) -> float:
    port = free_port()
    server = r.popen(["iperf3", "-s", "-1", "--forceflush", "-B", "127.0.0.1", "-p", str(port)], stdout=subprocess.PIPE,
                     stderr=subprocess.STDOUT, text=True)
    assert server.stdout is not None
    for line in server.stdout:  # "Server listening on PORT"
        if re.search(r"listening", line, re.I):
            break
    threading.Thread(target=server.stdout.read, daemon=True).start()  # the rest, so its pipe never fills
    argv = ["iperf3", "-c", "127.0.0.1", "-p", str(port), "-t", str(seconds), "-P", str(streams), "--json"]
    if direction == "restore":
        argv.append("-R")
    got = r.run(argv, capture_output=True, text=True, timeout=seconds * 4 + 60)
    server.wait(timeout=60)
    if got.returncode != 0:
        raise RuntimeError(f"iperf3 failed: {got.stdout[-300:]} {got.stderr.strip()}")
    return float(json.loads(got.stdout)["end"]["sum_received"]["bits_per_second"]) / 8e6


def measure(r: Runner, label: str, streams: int, direction: str, seconds: float, pairs: int) -> None:
    ours: list[float] = []
    theirs: list[float] = []
    loads = [os.getloadavg()[0]]
    tools: list[tuple[list[float], Callable[..., float]]] = [(ours, tapediag_mb_s), (theirs, iperf3_mb_s)]
    for i in range(pairs):
        order = tools if i % 2 == 0 else tools[::-1]
        for out, fn in order:
            out.append(fn(r, streams, direction, seconds))
            loads.append(os.getloadavg()[0])
    ratios = [a / b for a, b in zip(ours, theirs)]
    verdict = "meets" if statistics.median(ratios) >= GOAL else "BELOW"
    print(f"{label}, {streams} stream{'s' if streams > 1 else ''}, {direction}: "
          f"tapediag {statistics.median(ours):,.1f} MB/s, iperf3 {statistics.median(theirs):,.1f} MB/s (medians); "
          f"ratio {statistics.median(ratios):.3f} (min {min(ratios):.3f}, max {max(ratios):.3f}), n={pairs} pairs, "
          f"load {min(loads):.1f}-{max(loads):.1f} on {os.cpu_count()} CPUs: {verdict} the {GOAL} goal", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--paths", default="loopback,shaped")
    ap.add_argument("--streams", default="1,4")
    ap.add_argument("--directions", default="backup,restore")
    args = ap.parse_args()
    if shutil.which("iperf3") is None:
        print("iperf3 is not installed (scripts/setup.sh --tests installs it)")
        return 1
    streams = [int(s) for s in args.streams.split(",")]
    directions = args.directions.split(",")
    version = subprocess.run(["iperf3", "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"{version}; tapediag net-test, pattern 2:1; {args.seconds:g} s a run", flush=True)
    for path in args.paths.split(","):
        if path == "loopback":
            for n in streams:
                for d in directions:
                    measure(Runner(), "loopback 127.0.0.1", n, d, args.seconds, args.pairs)
        elif (why := unavailable_reason()) is not None:
            print(f"shaped path skipped: {why}")
        else:
            with shaped_namespace(100.0, 5.0) as ns:
                assert ns.shaping is not None
                label = f"shaped {ns.shaping.rate_mbit:g} Mbit/s ({ns.shaping.qdisc}, delay {ns.shaping.delay_ms:g} ms)"
                for n in streams:
                    for d in directions:
                        measure(Runner(ns), label, n, d, args.seconds, args.pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())

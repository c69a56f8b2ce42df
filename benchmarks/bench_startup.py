"""CLI start-up cost as a ratio to the interpreter's own start-up (issues 13.4 and 32.3).

Usage: python benchmarks/bench_startup.py [--rounds N] [--bytecode]   (N >= 7; default 11)

Goals (issue 32): ``devices`` <= 3x and ``info virtual:lto9`` <= 4x ``python -c pass``; ``--version``
and ``--help`` <= 3x (issue 13.4).

Each round runs the anchor (``python -c pass``) and every case once, in turn, and each case's ratio is
taken against the anchor of its own round, so a change in the machine's load during the measurement
moves both alike instead of skewing one ratio. The table gives, per case, the median ratio and the
min-max of the per-round ratios over the ``n`` rounds, with the load average before and after.

The children get their own ``TAPEDIAG_DATA_DIR`` (a temporary directory: ``info`` records its
snapshot in the history, and the virtual drive's cartridge lives there; one warm-up run creates both).

``--bytecode``: the children may cache bytecode (in a temporary ``PYTHONPYCACHEPREFIX``, nothing is
written into the checkout; the warm-up writes it), as an installed tapediag has it. Without it, a
``PYTHONDONTWRITEBYTECODE=1`` environment makes every run compile each tapediag module from source,
which no installed copy pays; the output says which of the two was measured.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

#: (name, arguments after ``python``, goal as a ratio to the anchor)
CASES: list[tuple[str, list[str], float]] = [
    ("--version", ["-m", "app", "--version"], 3.0),
    ("--help", ["-m", "app", "--help"], 3.0),
    ("devices", ["-m", "app", "devices"], 3.0),
    ("info virtual:lto9", ["-m", "app", "info", "virtual:lto9"], 4.0),
]
ANCHOR = ["-c", "pass"]


def seconds(args: list[str], env: dict[str, str]) -> float:
    """Wall time of one ``python ARGS`` (output discarded)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - start


def measure(rounds: int, env: dict[str, str]) -> tuple[list[float], dict[str, list[float]]]:
    """The anchor's times and each case's per-round ratios to the anchor of the same round."""
    anchors: list[float] = []
    ratios: dict[str, list[float]] = {name: [] for name, _, _ in CASES}
    for _ in range(rounds):
        anchor = seconds(ANCHOR, env)
        anchors.append(anchor)
        for name, args, _ in CASES:
            ratios[name].append(seconds(args, env) / anchor)
    return anchors, ratios


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=11, help="rounds (at least 7; default 11)")
    ap.add_argument("--bytecode", action="store_true", help="let the children cache bytecode, as an installed copy does")
    args = ap.parse_args()
    rounds = max(7, args.rounds)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="tapediag-pyc-") as cache, \
            tempfile.TemporaryDirectory(prefix="tapediag-startup-") as data:
        env["TAPEDIAG_DATA_DIR"] = data
        if args.bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
        mode = "cached bytecode" if args.bytecode else (
            "no bytecode cache (PYTHONDONTWRITEBYTECODE is set: each run compiles tapediag's modules)"
            if env.get("PYTHONDONTWRITEBYTECODE") else "bytecode as this environment caches it")
        for _, case, _ in CASES:
            seconds(case, env)  # warm-up: the cartridge, the history and (--bytecode) the bytecode
        load0 = os.getloadavg()
        anchors, ratios = measure(rounds, env)
        load1 = os.getloadavg()
    print(f"mode: {mode}; n = {rounds} rounds; load average {load0[0]:.2f} -> {load1[0]:.2f} "
          f"(5 min {load1[1]:.2f}) on {os.cpu_count()} CPUs")
    print(f"anchor: python -c pass  median {statistics.median(anchors) * 1000:.1f} ms "
          f"(min {min(anchors) * 1000:.1f}, max {max(anchors) * 1000:.1f})")
    print(f"{'case':20s} {'median':>7s} {'min-max':>13s} {'goal':>6s}")
    for name, _, goal in CASES:
        r = ratios[name]
        med = statistics.median(r)
        print(f"{name:20s} {med:6.2f}x {min(r):5.2f}-{max(r):5.2f}x {goal:5.1f}x  {'met' if med <= goal else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

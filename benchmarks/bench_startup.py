"""CLI start-up cost as a ratio to the interpreter's own start-up (issues 13.4 and 32.3).

Usage: python benchmarks/bench_startup.py [--rounds N] [--bytecode]   (N >= 7; default 11)

Goals (issue 32): ``devices`` <= 3x and ``info virtual:lto9`` <= 4x ``python -c pass``; ``--version``
and ``--help`` <= 3x (issue 13.4).

Each round runs the anchor (``python -c pass``) and every case once, in turn, and each case's ratio is
taken against the anchor of its own round, so a change in the machine's load during the measurement
moves both alike instead of skewing one ratio. The table gives, per case, the median ratio and the
min-max of the per-round ratios over the ``n`` rounds, with the load average before and after.

Two clocks, each its own table: the wall time (what a technician waits; the goals are set on it) and
the CPU time of the child (user + system, its rusage). On a quiet machine the two tell the same story;
on this shared 2-core VM, with other jobs' load at 5-14, the wall time also measures how long each
child waited for a CPU (``python -c pass`` alone ranged 42-1,600 ms in one run), and the CPU ratio is
the figure that still says what tapediag's start-up costs.

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


def seconds(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from the child's own rusage) of one ``python ARGS``
    (output discarded). On a shared machine the wall time also counts the other jobs' turns on the
    CPUs; the CPU time is this start-up's own work."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped by wait4: Popen must not wait for it again
    return wall, usage.ru_utime + usage.ru_stime


#: the two clocks measured, and the ratios per clock and case
Clocks = dict[str, dict[str, list[float]]]


def measure(rounds: int, env: dict[str, str]) -> tuple[dict[str, list[float]], Clocks]:
    """The anchor's times and each case's per-round ratios to the anchor of the same round, per clock."""
    anchors: dict[str, list[float]] = {"wall": [], "cpu": []}
    ratios: Clocks = {clock: {name: [] for name, _, _ in CASES} for clock in anchors}
    for _ in range(rounds):
        anchor = dict(zip(("wall", "cpu"), seconds(ANCHOR, env)))
        for clock in anchors:
            anchors[clock].append(anchor[clock])
        for name, args, _ in CASES:
            got = dict(zip(("wall", "cpu"), seconds(args, env)))
            for clock in anchors:
                ratios[clock][name].append(got[clock] / anchor[clock])
    return anchors, ratios


def table(clock: str, anchors: list[float], ratios: dict[str, list[float]]) -> None:
    """One clock's table: the anchor's median and range, then each case's median ratio, range and goal."""
    print(f"{clock} time: anchor python -c pass  median {statistics.median(anchors) * 1000:.1f} ms "
          f"(min {min(anchors) * 1000:.1f}, max {max(anchors) * 1000:.1f})")
    print(f"{'case':20s} {'median':>7s} {'min-max':>13s} {'goal':>6s}")
    for name, _, goal in CASES:
        r = ratios[name]
        med = statistics.median(r)
        print(f"{name:20s} {med:6.2f}x {min(r):5.2f}-{max(r):5.2f}x {goal:5.1f}x  {'met' if med <= goal else 'NOT met'}")


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
    for clock in ("wall", "cpu"):
        table(clock, anchors[clock], ratios[clock])
    return 0


if __name__ == "__main__":
    sys.exit(main())

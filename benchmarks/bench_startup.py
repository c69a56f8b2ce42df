"""CLI start-up cost as a ratio to the interpreter's own start-up (issues 13.4 and 32.3).

Usage: python benchmarks/bench_startup.py [--rounds N] [--bytecode] [--baseline DIR]   (N >= 7; default 11)

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

``--baseline DIR``: a paired comparison with another checkout of tapediag (the tree before a change:
``git archive main | tar -x -C DIR``, with the C helpers ``native/*.so`` copied or built there). Each
round runs every case from this tree and from DIR back to back, the order alternating from round to
round (so neither always runs on the other's warm caches), both against the same round's anchor; the
table adds DIR's ratios and the paired change (median of the per-round this/DIR ratios). Each tree's
children start in its own directory (``python -m app`` imports the ``app`` it finds there first).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: (name, arguments after ``python``, goal as a ratio to the anchor)
CASES: list[tuple[str, list[str], float]] = [
    ("--version", ["-m", "app", "--version"], 3.0),
    ("--help", ["-m", "app", "--help"], 3.0),
    ("devices", ["-m", "app", "devices"], 3.0),
    ("info virtual:lto9", ["-m", "app", "info", "virtual:lto9"], 4.0),
]
ANCHOR = ["-c", "pass"]
#: this checkout: its children start here, as a baseline's start in its own directory
HERE = Path(__file__).resolve().parent.parent


def seconds(args: list[str], env: dict[str, str], cwd: Path = HERE) -> tuple[float, float]:
    """Wall time and CPU time (user + system, from the child's own rusage) of one ``python ARGS``
    started in ``cwd`` (output discarded). On a shared machine the wall time also counts the other
    jobs' turns on the CPUs; the CPU time is this start-up's own work."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            cwd=cwd)
    _, _, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = 0  # reaped by wait4: Popen must not wait for it again
    return wall, usage.ru_utime + usage.ru_stime


#: per clock, per tree ("this", "baseline"), per case: the per-round ratios to the round's anchor
Clocks = dict[str, dict[str, dict[str, list[float]]]]
CLOCKS = ("wall", "cpu")


def measure(rounds: int, env: dict[str, str], trees: dict[str, Path]) -> tuple[dict[str, list[float]], Clocks]:
    """The anchor's times and each tree's and case's per-round ratios to the anchor of the same round, per
    clock. With two trees, each case runs from both back to back, the first of the pair alternating."""
    anchors: dict[str, list[float]] = {clock: [] for clock in CLOCKS}
    ratios: Clocks = {clock: {tree: {name: [] for name, _, _ in CASES} for tree in trees} for clock in CLOCKS}
    for n in range(rounds):
        anchor = dict(zip(CLOCKS, seconds(ANCHOR, env)))
        for clock in CLOCKS:
            anchors[clock].append(anchor[clock])
        order = list(trees.items()) if n % 2 == 0 else list(reversed(trees.items()))
        for name, args, _ in CASES:
            for tree, cwd in order:
                got = dict(zip(CLOCKS, seconds(args, env, cwd)))
                for clock in CLOCKS:
                    ratios[clock][tree][name].append(got[clock] / anchor[clock])
    return anchors, ratios


def _spread(r: list[float]) -> str:
    return f"{statistics.median(r):6.2f}x {min(r):5.2f}-{max(r):5.2f}x"


def table(clock: str, anchors: list[float], ratios: dict[str, dict[str, list[float]]]) -> None:
    """One clock's table: the anchor's median and range, then each case's median ratio, range and goal;
    with a baseline, its ratios and the paired change (median of the per-round this/baseline ratios)."""
    print(f"{clock} time: anchor python -c pass  median {statistics.median(anchors) * 1000:.1f} ms "
          f"(min {min(anchors) * 1000:.1f}, max {max(anchors) * 1000:.1f})")
    paired = "baseline" in ratios
    extra = f" {'baseline':>7s} {'min-max':>13s} {'this/baseline':>14s}" if paired else ""
    print(f"{'case':20s} {'median':>7s} {'min-max':>13s}{extra} {'goal':>6s}")
    for name, _, goal in CASES:
        r = ratios["this"][name]
        if paired:
            b = ratios["baseline"][name]
            change = statistics.median(x / y for x, y in zip(r, b))
            extra = f" {_spread(b)} {change:13.2f}x"
        verdict = "met" if statistics.median(r) <= goal else "NOT met"
        print(f"{name:20s} {_spread(r)}{extra} {goal:5.1f}x  {verdict}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=11, help="rounds (at least 7; default 11)")
    ap.add_argument("--bytecode", action="store_true", help="let the children cache bytecode, as an installed copy does")
    ap.add_argument("--baseline", metavar="DIR", type=Path,
                    help="another checkout (the tree before a change): paired, alternating rounds against it")
    args = ap.parse_args()
    rounds = max(7, args.rounds)
    trees = {"this": HERE}
    if args.baseline is not None:
        if not (args.baseline / "app" / "__main__.py").is_file():
            ap.error(f"{args.baseline} is not a tapediag checkout (no app/__main__.py)")
        trees["baseline"] = args.baseline.resolve()
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
            for cwd in trees.values():
                seconds(case, env, cwd)  # warm-up: the cartridge, the history and (--bytecode) the bytecode
        load0 = os.getloadavg()
        anchors, ratios = measure(rounds, env, trees)
        load1 = os.getloadavg()
    against = f"; baseline {trees['baseline']}, alternating order" if "baseline" in trees else ""
    print(f"mode: {mode}; n = {rounds} rounds{against}; load average {load0[0]:.2f} -> {load1[0]:.2f} "
          f"(5 min {load1[1]:.2f}) on {os.cpu_count()} CPUs; this tree {HERE}")
    for clock in CLOCKS:
        table(clock, anchors[clock], ratios[clock])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""CLI start-up cost as a ratio to the interpreter's own start-up (issue 13.4; goal <= 3x).

Usage: python benchmarks/bench_startup.py [runs] [--bytecode]   (medians of >= 7 runs each)

The anchor and every case are run in turn within each round, so a change in the machine's load
during the measurement moves them alike instead of skewing one ratio.

``--bytecode``: the children may cache bytecode (in a temporary ``PYTHONPYCACHEPREFIX``, nothing is
written into the checkout; one warm-up run per case first), as an installed tapediag has it. Without
it, a ``PYTHONDONTWRITEBYTECODE=1`` environment makes every run compile each tapediag module from
source, which no installed copy pays; the output says which of the two was measured.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES: list[tuple[str, list[str]]] = [
    ("--version", ["-m", "app", "--version"]),
    ("--help", ["-m", "app", "--help"]),
    ("devices", ["-m", "app", "devices"]),
]
ANCHOR = ["-c", "pass"]


def seconds(args: list[str], env: dict[str, str]) -> float:
    """Wall time of one ``python ARGS`` (output discarded)."""
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False, env=env)
    return time.perf_counter() - start


def measure(runs: int, env: dict[str, str]) -> dict[str, float]:
    """Median wall time of the anchor and of each case, interleaved round by round."""
    times: dict[str, list[float]] = {"anchor": [], **{name: [] for name, _ in CASES}}
    for _ in range(runs):
        times["anchor"].append(seconds(ANCHOR, env))
        for name, args in CASES:
            times[name].append(seconds(args, env))
    return {name: statistics.median(values) for name, values in times.items()}


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--bytecode"]
    bytecode = "--bytecode" in sys.argv[1:]
    runs = max(7, int(args[0]) if args else 7)
    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix="tapediag-pyc-") as cache:
        if bytecode:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = cache
            for _, case in CASES:
                seconds(case, env)  # warm-up: writes the bytecode
        mode = "cached bytecode" if bytecode else (
            "no bytecode cache (PYTHONDONTWRITEBYTECODE is set: each run compiles tapediag's modules)"
            if env.get("PYTHONDONTWRITEBYTECODE") else "bytecode as this environment caches it")
        medians = measure(runs, env)
    anchor = medians["anchor"]
    print(f"mode: {mode}")
    print(f"anchor: python -c pass  {anchor * 1000:.1f} ms (median of {runs})")
    for name, _ in CASES:
        t = medians[name]
        print(f"{name:10s} {t * 1000:7.1f} ms  {t / anchor:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""CLI start-up cost as a ratio to the interpreter's own start-up (issue 13.4; goal <= 3x).

Usage: python benchmarks/bench_startup.py [runs]   (medians of >= 7 runs each)
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

CASES: list[tuple[str, list[str]]] = [
    ("--version", ["-m", "app", "--version"]),
    ("--help", ["-m", "app", "--help"]),
    ("devices", ["-m", "app", "devices"]),
]


def median_seconds(args: list[str], runs: int) -> float:
    """Median wall time of ``python ARGS`` (output discarded)."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    runs = max(7, int(sys.argv[1]) if len(sys.argv) > 1 else 7)
    anchor = median_seconds(["-c", "pass"], runs)
    print(f"anchor: python -c pass  {anchor * 1000:.1f} ms (median of {runs})")
    for name, args in CASES:
        t = median_seconds(args, runs)
        print(f"{name:10s} {t * 1000:7.1f} ms  {t / anchor:5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

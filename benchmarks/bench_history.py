"""What recording samples into the history costs, against bare SQLite in the same run.

Run: .venv/bin/python benchmarks/bench_history.py [--samples 500000] [--reps 3]

Anchor (same run, same machine): ``sqlite3.executemany`` of the same rows into a table
of the same shape, in one transaction per 20,000 rows, WAL mode. Measured: a
``record()`` session fed ``SampleBatch`` events of 100 samples (what engines publish
at 10 Hz), through ``Recorder.sink`` (buffering, flush every 20,000 samples or 1 s).
Also: ``History.throughput`` over the stored samples (what a report or plot pays).
Prints samples/s and the ratio to the anchor; asserts nothing.

An LTO-9 writing 1 GB/s in 256 KiB transfers produces ~4,000 samples/s, so any
rate far above that means recording never slows a test down.
"""
from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.events import Sample, SampleBatch  # noqa: E402
from app.history import History, record  # noqa: E402


def _samples(n: int) -> list[Sample]:
    return [Sample(t=i * 0.00025, nbytes=262144, latency=0.00025, phase="write") for i in range(n)]


def anchor(path: Path, samples: list[Sample]) -> float:
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("CREATE TABLE s (run_id INTEGER, t REAL, nbytes INTEGER, latency REAL, phase TEXT, stream INTEGER)")
    t0 = time.perf_counter()
    for i in range(0, len(samples), 20000):
        conn.execute("BEGIN")
        conn.executemany("INSERT INTO s VALUES (?, ?, ?, ?, ?, ?)",
                         [(1, s.t, s.nbytes, s.latency, s.phase, s.stream) for s in samples[i:i + 20000]])
        conn.execute("COMMIT")
    elapsed = time.perf_counter() - t0
    conn.close()
    return elapsed


def recorded(path: Path, samples: list[Sample]) -> tuple[float, float]:
    batches = [SampleBatch(tuple(samples[i:i + 100])) for i in range(0, len(samples), 100)]
    with History.open(path) as hist:
        t0 = time.perf_counter()
        with record("tape-perf", "bench", {}, history=hist) as rec:
            sink = rec.sink()
            for batch in batches:
                sink(batch)
        elapsed = time.perf_counter() - t0
        t0 = time.perf_counter()
        hist.throughput(rec.run_id)
        series = time.perf_counter() - t0
    return elapsed, series


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=500_000)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    samples = _samples(args.samples)
    a, r, s = [], [], []
    for _rep in range(args.reps):
        with tempfile.TemporaryDirectory() as tmp:
            a.append(anchor(Path(tmp) / "anchor.sqlite", samples))
            rec, ser = recorded(Path(tmp) / "history.sqlite", samples)
            r.append(rec)
            s.append(ser)
    n = args.samples
    ma, mr, ms = statistics.median(a), statistics.median(r), statistics.median(s)
    print(f"{n} samples, median of {args.reps}")
    print(f"  anchor  sqlite executemany : {n / ma:12,.0f} samples/s")
    print(f"  record() via SampleBatch   : {n / mr:12,.0f} samples/s  ({ma / mr:.2f} x anchor)")
    print(f"  History.throughput (read+bin): {n / ms:11,.0f} samples/s")


if __name__ == "__main__":
    main()

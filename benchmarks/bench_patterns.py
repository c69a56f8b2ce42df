"""Pattern generation throughput per core, against a memcpy of the same size (same run).

Run: .venv/bin/python benchmarks/bench_patterns.py
The target is >= 4 GB/s per core: generation must never be what a tape test measures.
Prints ratios, asserts nothing.
"""
from __future__ import annotations

import time

import numpy as np

from app.patterns import Pattern

IO = 1 << 20  # one 1 MiB I/O buffer, refilled in place (as the engine does)
ROUNDS = 2000


def _rate(fn) -> float:
    fn(0)  # warm up (pool built, pages touched)
    best = 0.0
    for _ in range(3):
        t0 = time.perf_counter()
        for i in range(ROUNDS):
            fn(i)
        best = max(best, ROUNDS * IO / (time.perf_counter() - t0))
    return best / 1e9


def main() -> None:
    src = np.frombuffer(np.random.default_rng(0).bytes(32 << 20), dtype=np.uint8)
    dst = np.empty(IO, dtype=np.uint8)
    slots = (len(src) - IO) // IO

    def memcpy(i: int) -> None:
        # The anchor: copying the same number of bytes out of a 32 MiB source.
        off = (i % slots) * IO
        np.copyto(dst, src[off : off + IO])

    anchor = _rate(memcpy)
    print(f"anchor: memcpy 1 MiB from a 32 MiB source   {anchor:6.2f} GB/s")
    buf = bytearray(IO)
    for text, block in (("random", 256 << 10), ("2:1", 256 << 10), ("4.3:1", 256 << 10), ("2:1", 64 << 10), ("2:1", 1 << 20)):
        gen = Pattern.parse(text).generator(block, 16384, seed=1)
        per_io = IO // block
        rate = _rate(lambda i, gen=gen, per_io=per_io: gen.fill(buf, i * per_io))
        print(f"fill {text:>6} block {block >> 10:5d} KiB              {rate:6.2f} GB/s  = {rate / anchor:5.2f} x memcpy"
              f"  ({'meets' if rate >= 4 else 'BELOW'} the 4 GB/s target)")
    gen = Pattern.parse("2:1").generator(256 << 10, 16384, seed=1)
    gen.fill(buf, 0)
    rate = _rate(lambda i: gen.mismatch(buf, 0))
    print(f"verify 2:1 block 256 KiB                {rate:6.2f} GB/s  = {rate / anchor:5.2f} x memcpy")


if __name__ == "__main__":
    main()

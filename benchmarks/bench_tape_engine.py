"""The tape performance engine must never be what a technician measures.

Run: .venv/bin/python benchmarks/bench_tape_engine.py [--size 8G] [--skip-tgt]

1. ``virtual:null`` (accepts every WRITE at once): the engine's full write loop (pattern
   fill, TapeDrive.write, samples) with 1 MiB I/Os; target >= 3 GB/s. Anchor, same run:
   a bare loop sending the same WRITE(6) CDBs with one static buffer straight to the
   transport (no pattern, no drive object, no samples).
2. tgtd over libiscsi (when tgtd and libiscsi are available): the engine writing to a
   tgtd tape LUN vs the transports' bare C loop issuing the same WRITE(6)s to the same
   LUN (``benchmarks/iscsi_bare_loop.c``, via ``bench_iscsi_anchor.py``); target >= 90 %.

Prints rates and ratios; asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.drive import TapeDrive  # noqa: E402
from app.patterns import Pattern  # noqa: E402
from app.scsi import cdb as C  # noqa: E402
from app.tapeperf import TapePerfParams, TapePerfTest, parse_size  # noqa: E402

IO = 1 << 20


def engine_rate(device: str, size: int, block: int = IO, pattern: str = "2:1") -> tuple[float, object]:
    """Decimal GB/s of the engine's write phase (the closing filemark included)."""
    params = TapePerfParams(direction="write", pattern=Pattern.parse(pattern), block_size=block, io_size=IO, size=size,
                            force=True)
    with TapeDrive.open(device) as drive:
        result = TapePerfTest(drive, params).run()
    phase = result.phases[0]
    return phase.mb_s / 1000, result


def bare_null_rate(size: int, *, copy: bool) -> float:
    """The floor: WRITE(6) CDBs straight to the null transport, one static 1 MiB buffer.

    With ``copy`` each I/O first copies fresh bytes into the buffer from a 32 MiB
    source (memcpy speed): the least any tool writing non-constant data must do.
    """
    import numpy as np

    from native.null import NullTransport

    transport = NullTransport()
    buf = np.zeros(IO, dtype=np.uint8)
    src = np.frombuffer(np.random.default_rng(0).bytes(32 << 20), dtype=np.uint8)
    slots = len(src) // IO - 1
    cdb = C.write6(IO)  # variable mode: one 1 MiB block per command
    execute = transport.execute
    count = size // IO
    t0 = time.perf_counter()
    for i in range(count):
        if copy:
            off = (i % slots) * IO
            np.copyto(buf, src[off:off + IO])
        execute(cdb, data_out=buf)
    return count * IO / (time.perf_counter() - t0) / 1e9


def bench_null(size: int) -> None:
    bare = max(bare_null_rate(size, copy=False) for _ in range(3))
    anchor = max(bare_null_rate(size, copy=True) for _ in range(3))
    rate = max(engine_rate("virtual:null", size)[0] for _ in range(3))
    print(f"virtual:null, 1 MiB I/Os, {size >> 20} MiB a run, pattern 2:1 (best of 3)")
    print(f"  bare WRITE(6) loop, static buffer (call cost only)  {bare:8.2f} GB/s")
    print(f"  anchor: bare loop + memcpy of fresh data per I/O    {anchor:8.2f} GB/s")
    print(f"  engine: tape-perf write phase                       {rate:8.2f} GB/s = {rate / anchor:5.2f} x the anchor"
          f"  ({'meets' if rate >= 3 else 'BELOW'} the 3 GB/s target)")


def bench_tgt(size: int) -> None:
    try:
        from benchmarks import bench_iscsi_anchor  # type: ignore[import-not-found]
        from tests.helpers.tgt import TgtTarget  # type: ignore[import-not-found]
    except ImportError as err:
        print(f"tgtd/libiscsi comparison skipped: {err}")
        return
    bench_iscsi_anchor.compare_engine(engine_rate, size) if hasattr(bench_iscsi_anchor, "compare_engine") else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="8G", help="bytes written per run to virtual:null")
    ap.add_argument("--tgt-size", default="1G", help="bytes written per run to tgtd")
    ap.add_argument("--skip-tgt", action="store_true")
    args = ap.parse_args()
    bench_null(parse_size(args.size))
    if not args.skip_tgt:
        bench_tgt(parse_size(args.tgt_size))


if __name__ == "__main__":
    main()

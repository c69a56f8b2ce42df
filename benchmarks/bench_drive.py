"""What TapeDrive adds per command, against the bare transport call it wraps.

Run: .venv/bin/python benchmarks/bench_drive.py [--count 200000]

Anchors (same run): ``transport.execute`` of a prebuilt WRITE(6) / READ(6) CDB on
``virtual:null``. Measured: ``TapeDrive.write(buf)`` (GOOD path: CDB built, status
checked, outcome returned) and ``TapeDrive.read(buf)`` - on the null device every READ
ends in CHECK CONDITION at end of data, so this is the sense-decoding path that short
(ILI) blocks, filemarks and EOD take. Prints microseconds per command and the ratio;
asserts nothing.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.drive import TapeDrive  # noqa: E402
from native.scsi import cdb as C  # noqa: E402
from native import open_transport  # noqa: E402


def per_call(fn, count: int) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(count):
            fn()
        best = min(best, (time.perf_counter() - start) / count)
    return best * 1e6


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=200_000)
    parser.add_argument("--block", type=int, default=65536)
    args = parser.parse_args()
    transport = open_transport("virtual:null")
    drive = TapeDrive(transport)
    buf = bytearray(args.block)
    view = memoryview(buf)
    wcdb, rcdb = C.write6(args.block), C.read6(args.block)
    bare_w = per_call(lambda: transport.execute(wcdb, data_out=view), args.count)
    write = per_call(lambda: drive.write(view), args.count)
    bare_r = per_call(lambda: transport.execute(rcdb, data_in=view), args.count)
    read = per_call(lambda: drive.read(view), args.count)
    print(f"bare transport WRITE(6):     {bare_w:7.2f} us/command (anchor)")
    print(f"TapeDrive.write (GOOD):      {write:7.2f} us/command  ratio {write / bare_w:5.2f}x  (+{write - bare_w:.2f} us)")
    print(f"bare transport READ(6):      {bare_r:7.2f} us/command (anchor)")
    print(f"TapeDrive.read (sense path): {read:7.2f} us/command  ratio {read / bare_r:5.2f}x  (+{read - bare_r:.2f} us)")


if __name__ == "__main__":
    main()

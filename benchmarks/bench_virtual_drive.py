"""What the virtual drive costs per 1 MiB WRITE/READ, against the file I/O it must do.

Run: .venv/bin/python benchmarks/bench_virtual_drive.py [--count 400] [--dir /var/tmp]

Anchor (same run): a bare ``os.pwritev`` / ``os.preadv`` of the same 1 MiB to a file
in the same directory (the storage cost no emulation storing real data can avoid).
Measured: ``VirtualDrive.execute(WRITE(6))`` and ``READ(6)`` with ``realtime=0`` (no
pacing), on random and 2:1 data: the SLDC estimate, the cartridge index, the timing
model and the sense/dispatch code on top of the I/O. Prints CPU microseconds per
command (process time: user + system) and the ratio to the anchor; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.patterns import Pattern  # noqa: E402
from native.virtual import open_virtual  # noqa: E402

MiB = 1 << 20


def cpu_per_call(fn, count: int) -> float:
    start = time.process_time()
    for i in range(count):
        fn(i)
    return (time.process_time() - start) / count


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        buf = bytearray(MiB)
        fd = os.open(os.path.join(tmp, "anchor.bin"), os.O_RDWR | os.O_CREAT, 0o644)
        anchor_w = cpu_per_call(lambda i: os.pwritev(fd, [buf], i * MiB), args.count)
        anchor_r = cpu_per_call(lambda i: os.preadv(fd, [buf], i * MiB), args.count)
        os.close(fd)
        print(f"anchor pwritev 1 MiB: {anchor_w * 1e6:8.0f} us CPU   preadv: {anchor_r * 1e6:8.0f} us CPU")
        for name in ("random", "2:1"):
            gen = Pattern.parse(name).generator(MiB, 16384, 0, 64 * MiB)
            blocks = [bytearray(MiB) for _ in range(8)]
            for i, b in enumerate(blocks):
                gen.fill(b, i)
            cart = os.path.join(tmp, f"{name.replace(':', '-')}.cart")
            drive = open_virtual(f"virtual:lto9?cartridge={cart}&realtime=0&capacity=64G")
            write_cdb, read_cdb = bytes([0x0A, 0, 0x10, 0, 0, 0]), bytes([0x08, 0, 0x10, 0, 0, 0])
            w = cpu_per_call(lambda i, d=drive, c=write_cdb, bl=blocks: d.execute(c, data_out=bl[i % 8]), args.count)
            drive.execute(bytes([0x01, 0, 0, 0, 0, 0]))
            r = cpu_per_call(lambda i, d=drive, c=read_cdb: d.execute(c, data_in=buf), args.count)
            drive.close()
            print(f"virtual:lto9 {name:>6}: WRITE {w * 1e6:8.0f} us CPU ({w / anchor_w:4.1f} x anchor)"
                  f"   READ {r * 1e6:8.0f} us CPU ({r / anchor_r:4.1f} x anchor)")


if __name__ == "__main__":
    main()

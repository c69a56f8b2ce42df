"""Small-file create/read rates with the C loops (``native._diskio``) against the Python loops.

    python benchmarks/bench_disk_native.py [--dir DIR] [--files 2000] [--reps 5]

(--files up to 13,440: the tree is depth 3 x breadth 4, 160 files a directory.)

Why: ``create-data``/``read-data`` warn "small-file rates ... understated" where the C
module is missing; on Windows it was missing by design until 18.7. This measures how
much the native loop changes, on the platform it runs on: the anchor is the same
engine with ``diskio.NATIVE`` off (the Python loops), measured in the same run,
alternating order per repetition; the table shows medians of files/s and their ratio.

It says where it ran: Linux, Windows, or Windows' Python under Wine (detected from
ntdll's ``wine_get_version``): a Wine figure is Wine's Win32 layer on a Linux file
system, not a Windows machine's.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import platform
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.disk import CreateDataParams, CreateDataTest, ReadDataParams, ReadDataTest  # noqa: E402
from native import diskio  # noqa: E402


def where() -> str:
    if sys.platform == "win32":
        try:
            wine = ctypes.WinDLL("ntdll").wine_get_version  # type: ignore[attr-defined]
            wine.restype = ctypes.c_char_p
            return f"Windows Python {platform.python_version()} under Wine {wine().decode()} (not Windows)"
        except (AttributeError, OSError):
            return f"Windows {platform.version()}, Python {platform.python_version()}"
    return f"{platform.system()} {platform.release()}, Python {platform.python_version()}"


def run_once(base: Path, native: bool, streams: int, files: int) -> tuple[float, float]:
    """(create files/s, read files/s) of one fresh tree."""
    diskio.NATIVE = native
    target = Path(tempfile.mkdtemp(dir=base)) / "t"
    try:
        made = CreateDataTest(CreateDataParams(str(target), depth=3, breadth=4, files=files, streams=streams,
                                               min_size=4 << 10, max_size=16 << 10, seed=1)).run()
        read = ReadDataTest(ReadDataParams(str(target), streams=streams)).run()
        return made.total_files / made.seconds, read.total_files / read.seconds
    finally:
        shutil.rmtree(target.parent, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default=tempfile.gettempdir())
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    if not diskio.NATIVE:
        print("the C module native._diskio is not built here: nothing to compare", file=sys.stderr)
        return 1
    base = Path(tempfile.mkdtemp(prefix="tapediag-bench-native-", dir=args.dir))
    print(f"where: {where()}; {args.files} files of 4-16 KiB, {args.reps} repetitions, medians")
    print(f"{'streams':>7}  {'op':<6} {'C files/s':>10} {'Python files/s':>15} {'C / Python':>10}")
    try:
        for streams in (1, 4):
            got: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
            for rep in range(args.reps):
                for native in ((True, False) if rep % 2 == 0 else (False, True)):
                    got[native].append(run_once(base, native, streams, args.files))
            for k, op in enumerate(("create", "read")):
                c = statistics.median(r[k] for r in got[True])
                py = statistics.median(r[k] for r in got[False])
                print(f"{streams:>7}  {op:<6} {c:>10,.0f} {py:>15,.0f} {c / py:>9.2f}x")
    finally:
        diskio.NATIVE = True
        shutil.rmtree(base, ignore_errors=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""tape-perf on four drives at once vs four independent bare C loops at once, same tgtd LUNs, same run.

Run: .venv/bin/python benchmarks/bench_multi_drive.py [--drives 4] [--size 1G] [--rounds 7]
     [--block 256K] [--io 1M] [--mode fixed|variable] [--separate]

Four tape LUNs behind one tgtd target on 127.0.0.1 (``--separate``: one tgtd each), each on its
own backing file. Each round runs both sides, in alternating order because the machine's load
drifts:

* tapediag: ``app.tapeperf.multi.MultiDriveTest`` (what ``tapediag tape-perf DEV1 DEV2 ...``
  runs: one engine per drive, each in its own thread of one process), write only, no run alone;
* the anchor: ``benchmarks/iscsi_bare_loop.c`` (unchanged, built as ``bench_iscsi_anchor.py`` builds
  it, with ``multi_anchor_sync.c`` linked in: the timed loops start together at a given moment and
  print their span on CLOCK_MONOTONIC), four processes, one per LUN, the same WRITE(6)s.

The figure on each side: all the bytes the four drives' data I/Os moved, over the span from the
first drive's first WRITE to the last drive's last (each side's start skew and stragglers count
against it alike). Beside it, each side's sum of the four drives' own rates, and the engine's
aggregate over the window in which all four streamed (the figure ``tape-perf`` reports).
Reported: the median of each side over the rounds, and the median of the per-round ratios
(target >= 0.95); and the initiator CPU per command on each side, which a loaded machine
distorts far less than throughput.
Asserts nothing: on a shared 2-core machine the figures are noisy; the load average is printed.
"""
from __future__ import annotations

import argparse
import atexit
import functools
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_iscsi_anchor import SOURCE  # noqa: E402

SYNC = Path(__file__).resolve().parent / "multi_anchor_sync.c"
#: Seconds between starting the C loops and their common start: spawn, login, REWIND, MODE SELECT.
START_MARGIN = 1.5


@functools.lru_cache(maxsize=None)
def compile_synced_anchor() -> Path:
    """``iscsi_bare_loop.c`` as ``bench_iscsi_anchor.compile_anchor`` builds it, plus the start gate and
    the loop's span on the machine-wide clock (``multi_anchor_sync.c``, through --wrap=clock_gettime)."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        raise RuntimeError("no C compiler: apt-get install gcc")
    where = Path(tempfile.mkdtemp(prefix="tapediag-anchor-"))
    atexit.register(shutil.rmtree, where, True)  # this benchmark's build, gone with it
    out = where / "iscsi_bare_loop_synced"
    proc = subprocess.run([gcc, "-O2", "-o", str(out), str(SOURCE), str(SYNC), "-Wl,--wrap=clock_gettime", "-liscsi"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building the anchor failed (apt-get install libiscsi-dev?): {proc.stderr.strip()}")
    return out


def c_loops(urls: list[str], *, fixed: bool, block: int, io: int, count: int) -> tuple[float, float, float]:
    """(aggregate MB/s over the span from the first loop's start to the last one's end, sum of each
    loop's own MB/s, CPU microseconds per command in the timed loops) of one C loop per URL, their
    timed loops started together."""
    env = {**os.environ, "ANCHOR_START_AT": f"{time.monotonic() + START_MARGIN:.6f}"}
    argv = [str(compile_synced_anchor()), "", "fixed" if fixed else "variable", str(block), str(io), str(count)]
    procs = [subprocess.Popen([argv[0], u, *argv[2:]], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=env) for u in urls]
    spans, rates, cpu, moved = [], [], [], 0
    for proc in procs:
        out, err = proc.communicate(timeout=900)
        if proc.returncode != 0:
            raise RuntimeError(f"iscsi_bare_loop failed: {err.strip()}")
        fields = dict(item.split("=") for item in out.split())
        spans.append((float(fields["t0"]), float(fields["t1"])))
        rates.append(float(fields["MBps"]))
        cpu.append(float(fields["cpu_us_per_cmd"]))
        moved += int(fields["bytes"])
    late = max(s[0] for s in spans) - min(s[0] for s in spans)
    if late > 0.05:
        print(f"    (the C loops started {late * 1000:.0f} ms apart: raise START_MARGIN on this machine)")
    return moved / (max(s[1] for s in spans) - min(s[0] for s in spans)) / 1e6, sum(rates), statistics.mean(cpu)


def engines(urls: list[str], *, fixed: bool, block: int, io: int, count: int) -> tuple[float, float, float, float]:
    """(aggregate MB/s over the span from the first drive's first WRITE to the last one's last, sum of
    each drive's streaming MB/s, the aggregate ``tape-perf`` reports, the process's CPU microseconds
    per command while the drives ran, set-up included) of one multi-drive run."""
    from app.tapeperf import TapePerfParams
    from app.execute import open_drives
    from app.tapeperf.multi import MultiDriveTest, MultiParams

    test = TapePerfParams(direction="write", mode="fixed" if fixed else "variable", block_size=block, io_size=io,
                          size=io * count, force=True, compression="leave")
    drives = open_drives(urls)
    try:
        cpu0 = time.process_time()
        result = MultiDriveTest(drives, MultiParams(tuple(urls), test, None, None)).run()
        cpu = (time.process_time() - cpu0) / (count * len(urls)) * 1e6
    finally:
        for drive in drives:
            drive.close()
    if result.status != "complete":
        raise RuntimeError(f"tape-perf failed: {result.error}")
    runs = [d.together for d in result.drives]
    start = min(r.samples[0].t - r.samples[0].latency for r in runs)  # data I/Os only, as the C loop times them
    end = max(r.samples[-1].t for r in runs)
    moved = sum(s.nbytes for r in runs for s in r.samples)
    rates = [r.phase("write").streaming_mb_per_s or 0.0 for r in runs]  # type: ignore[union-attr]
    agg = result.phase("write")
    return moved / (end - start) / 1e6, sum(rates), (agg.mb_s or 0.0) if agg else 0.0, cpu


def size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--drives", type=int, default=4, help="tape LUNs (default 4)")
    # 1 GiB: at 256 MiB a run of four drives lasts about 0.6 s, and the moment the four engine threads
    # take to leave their start gate weighs on it as it never does on a test of minutes.
    ap.add_argument("--size", default="1G", help="bytes written per drive per run (K/M/G suffix; default 1G)")
    ap.add_argument("--rounds", type=int, default=7, help="paired rounds (median reported; default 7)")
    ap.add_argument("--block", default="256K", help="block size (default 256K)")
    ap.add_argument("--io", default="1M", help="bytes per WRITE(6) in fixed mode (default 1M; variable: the block)")
    ap.add_argument("--mode", choices=("fixed", "variable"), default="fixed")
    ap.add_argument("--separate", action="store_true", help="one tgtd per LUN instead of one target with all LUNs")
    args = ap.parse_args()

    from tests.helpers.tgt import TgtTarget, tgt_available

    if not tgt_available():
        print("skipped: tgt is not installed (apt-get install tgt)")
        return
    fixed = args.mode == "fixed"
    block = size(args.block)
    io = size(args.io) if fixed else block
    count = max(2, size(args.size) // io)
    cart_mb = (count * io >> 20) + 128
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        os.environ.setdefault("TAPEDIAG_DATA_DIR", str(Path(tmp) / "data"))
        os.environ.setdefault("TAPEDIAG_LOCK_DIR", str(Path(tmp) / "claims"))  # every tgtd serves one WWN: 
        # a machine-wide claim would refuse another engineer's run on their own tgtd
        if args.separate:
            urls = [stack.enter_context(TgtTarget(Path(tmp) / f"t{k}", size_mb=cart_mb, large_segments=True)).url
                    for k in range(args.drives)]
        else:
            urls = stack.enter_context(TgtTarget(Path(tmp), size_mb=cart_mb, large_segments=True,
                                                 luns=args.drives)).urls
        where = f"{args.drives} tgtd daemons" if args.separate else f"one tgtd target with {args.drives} LUNs"
        print(f"{where} on 127.0.0.1 (256 KiB iSCSI data segments), separate backing files; per drive and run "
              f"{count} x WRITE(6) of {io} bytes ({args.mode}, {block // 1024} KiB blocks); {args.rounds} rounds, "
              f"alternating; load average before: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        runs: dict[str, list[float]] = {k: [] for k in ("c", "c_sum", "c_cpu", "py", "py_sum", "py_window", "py_cpu",
                                                         "ratio")}
        # One uncounted run of each side first (the first tape-perf run builds its pattern pools), and every
        # run after os.sync(): the kernel writing back the last run's 1 GiB during the next one slowed
        # whichever side came second (round 1 of the earlier runs: C loops at 980 MB/s, then 1,600-1,900).
        os.sync()
        c_loops(urls, fixed=fixed, block=block, io=io, count=count)
        os.sync()
        engines(urls, fixed=fixed, block=block, io=io, count=count)
        for r in range(max(1, args.rounds)):
            order = ("c", "py") if r % 2 == 0 else ("py", "c")
            got: dict[str, float] = {}
            for side in order:
                os.sync()
                if side == "c":
                    got["c"], got["c_sum"], got["c_cpu"] = c_loops(urls, fixed=fixed, block=block, io=io, count=count)
                else:
                    got["py"], got["py_sum"], got["py_window"], got["py_cpu"] = engines(
                        urls, fixed=fixed, block=block, io=io, count=count)
            got["ratio"] = got["py"] / got["c"]
            for key, value in got.items():
                runs[key].append(value)
            print(f"  round {r + 1} ({' then '.join('C' if s == 'c' else 'tape-perf' for s in order)}): "
                  f"C loops {got['c']:7.1f} MB/s (sum of each {got['c_sum']:7.1f})   tape-perf {got['py']:7.1f} MB/s "
                  f"(sum of each {got['py_sum']:7.1f}, reported {got['py_window']:7.1f})   ratio {got['ratio']:.3f}")
        med = {key: statistics.median(values) for key, values in runs.items()}
        print(f"aggregate of {args.drives} drives, first start to last end, data I/Os only: C loops (anchor) "
              f"{med['c']:.1f} MB/s, tape-perf {med['py']:.1f} MB/s (as tape-perf reports it, over the window in which "
              f"all streamed: {med['py_window']:.1f} MB/s); ratio of medians {med['py'] / med['c']:.3f}, "
              f"median of per-round ratios {med['ratio']:.3f} (target >= 0.95)")
        print(f"initiator CPU per command (less load-sensitive): C loops {med['c_cpu']:.1f} us, tape-perf "
              f"{med['py_cpu']:.1f} us (one process for all drives, set-up included)")
        print(f"load average after: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()

"""The tape engine against a bare C libiscsi loop, write and read, on one tgtd tape LUN (issue 19, goal 1).

Run: .venv/bin/python benchmarks/bench_tape_vs_c.py [--rounds 7] [--size 256M] [--cases ...] [--callgrind]

Against one tgtd tape LUN on 127.0.0.1 (cartridge file on disk, 256 KiB iSCSI data
segments), for each case {256 KiB, 1 MiB I/Os} x {variable, fixed}, a round is one
engine run and one C loop run, order alternating between rounds (the machine's load
drifts), each writing ``--size`` from BOT and reading it back:

* engine: ``tapediag tape-perf --direction write,read`` as the CLI runs it
  (``TapePerfParams.from_text`` and ``app.tapeperf.session.run_on_device``: drive
  open, safety probe, settings, the write phase with its pattern fill, the read-back,
  the history record), default pattern (2:1);
* anchor: ``benchmarks/iscsi_bare_loop.c write+read filemark`` on the same LUN: the
  same WRITE(6)/READ(6) CDBs from/into one static buffer through libiscsi's public API;
* second write anchor, same round: the C loop with ``copy`` (each WRITE's buffer refilled
  by memcpy from a 32 MiB pool first): what any tool writing fresh data must do at least,
  since the engine generates its pattern into every I/O and the static loop does not. (The
  engine's own pattern pool is 1 MiB, in the core's cache, and it fills the next buffer
  while a WRITE is in flight: it can beat this anchor, and the static loop is the goal's.)

Fixed mode uses ``--fixed-block`` (256 KiB) blocks: a 256 KiB I/O is one block, a 1 MiB
I/O four, as the CLI's default shape. Figures, each side timed the same way:

* data I/Os only: from the start of the first WRITE/READ to the end of the last;
* with the closing filemark: plus the WRITE FILEMARKS after the write (the buffer flush),
  plus the READ that meets the filemark after the read.

Each run starts after ``os.sync()`` (no write-back of the previous run's data during it), and
one uncounted run of each side comes first (the engine's first run builds its pattern pool).

Printed per case and direction: medians of the engine's and the C loop's MB/s, the ratio
of the medians and the median of the per-round ratios. ``--callgrind`` adds the
load-independent figure: user-space instructions per READ(6) (and per WRITE(6)) of the C
loop and of each Python layer (transport, drive, engine phase), each the difference of two
runs that differ only in I/O count. Asserts nothing: a shared 2-core machine makes
throughput noisy, so the instruction counts are the evidence of the per-command cost.
"""
from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

KIB, MIB = 1 << 10, 1 << 20
CASES = ("256K-variable", "256K-fixed", "1M-variable", "1M-fixed")


@dataclass
class Figures:
    """One side's data-only and with-filemark MB/s per direction, one entry per round."""

    data: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "read": []})
    with_fm: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "read": []})
    cpu: dict[str, list[float]] = field(default_factory=lambda: {"write": [], "read": []})


def case_shape(case: str, fixed_block: int) -> tuple[bool, int, int]:
    """(fixed, block size, I/O size) of a case name like ``256K-variable``."""
    size_text, mode = case.split("-")
    io = int(size_text[:-1]) * (MIB if size_text.endswith("M") else KIB)
    fixed = mode == "fixed"
    return fixed, (fixed_block if fixed else io), io


def engine_round(url: str, fixed: bool, block: int, io: int, size: int, pattern: str) -> dict[str, tuple[float, float, float]]:
    """The engine, as the CLI runs it: per direction (data-only MB/s, with-filemark MB/s, CPU us per I/O)."""
    from app.events import PhaseFinished, PhaseStarted
    from app.tapeperf import TapePerfParams
    from app.tapeperf.session import run_on_device

    params = TapePerfParams.from_text({
        "direction": "write,read", "mode": "fixed" if fixed else "variable", "block_size": str(block),
        "io_size": str(io), "size": str(size), "pattern": pattern, "force": True,
    })
    cpu: dict[str, float] = {}

    def sink(event: object) -> None:
        if isinstance(event, PhaseStarted):
            cpu[event.phase + "0"] = time.process_time()
        elif isinstance(event, PhaseFinished):
            cpu[event.phase] = time.process_time() - cpu[event.phase + "0"]

    _, result = run_on_device(url, params, sink=sink)
    if result.status != "complete":
        raise RuntimeError(f"the engine's run ended {result.status}: {result.error}")
    out: dict[str, tuple[float, float, float]] = {}
    for ph in result.phases:
        samples = [s for s in result.samples if s.phase == ph.phase]
        nbytes = sum(s.nbytes for s in samples)
        data = samples[-1].t - (samples[0].t - samples[0].latency)  # first command's start to last one's end
        if ph.phase == "write":
            closing = data + (ph.flush_seconds or 0.0)
        else:  # to the end of the read loop: the READ that met the filemark included
            assert ph.time_to_first_byte is not None
            closing = ph.elapsed - ph.time_to_first_byte + samples[0].latency
        out[ph.phase] = (nbytes / data / 1e6, nbytes / closing / 1e6, cpu[ph.phase] / max(ph.ios, 1) * 1e6)
    return out


def c_round(url: str, fixed: bool, block: int, io: int, size: int, copy: bool = False
            ) -> dict[str, tuple[float, float, float]]:
    from benchmarks.bench_iscsi_anchor import c_loop_phases

    phases = c_loop_phases(url, fixed=fixed, block=block, io=io, count=size // io, op="write" if copy else "write+read",
                           copy=copy)
    return {op: (f["bytes"] / f["seconds"] / 1e6, f["bytes"] / (f["seconds"] + f["fm_seconds"]) / 1e6,
                 f["cpu_us_per_cmd"]) for op, f in phases.items()}


def run_case(url: str, case: str, rounds: int, size: int, fixed_block: int, pattern: str) -> None:
    fixed, block, io = case_shape(case, fixed_block)
    sides = {"engine": Figures(), "c": Figures(), "copy": Figures()}

    def one(side: str) -> dict[str, tuple[float, float, float]]:
        # Every run starts with the last one's data on disk: tgtd's backing file is in the page
        # cache, and the kernel writing back the previous run's 256 MiB during the next one
        # slowed whichever side ran second (per-round ratios alternated 0.66-0.9 / 1.2-1.4).
        os.sync()
        return (engine_round(url, fixed, block, io, size, pattern) if side == "engine"
                else c_round(url, fixed, block, io, size, copy=side == "copy"))

    for side in ("engine", "c", "copy"):  # warm-up, not counted: the first engine run builds its pattern pool
        one(side)
    for i in range(rounds):
        for side in (("engine", "c", "copy") if i % 2 == 0 else ("copy", "c", "engine")):
            got = one(side)
            for direction, (data, with_fm, cpu) in got.items():
                sides[side].data[direction].append(data)
                sides[side].with_fm[direction].append(with_fm)
                sides[side].cpu[direction].append(cpu)
    med = statistics.median
    e, c = sides["engine"], sides["c"]
    shape = f"{block // KIB} KiB fixed blocks, {io // KIB} KiB I/Os" if fixed else f"{io // KIB} KiB variable blocks"
    print(f"  {case}: {shape}")
    for direction in ("write", "read"):
        for label, e_runs, c_runs in (("data I/Os only    ", e.data[direction], c.data[direction]),
                                      ("with the filemark ", e.with_fm[direction], c.with_fm[direction])):
            paired = med(a / b for a, b in zip(e_runs, c_runs))
            print(f"    {direction:5s} {label} engine {med(e_runs):7.0f} MB/s   C loop {med(c_runs):7.0f} MB/s   "
                  f"ratio {med(e_runs) / med(c_runs):4.2f} (per-round median {paired:4.2f})")
        if direction == "write":  # the C loop refilling its buffer from a pool first: call cost + fresh data
            k = sides["copy"]
            for label, e_runs, c_runs in (("data I/Os only    ", e.data["write"], k.data["write"]),
                                          ("with the filemark ", e.with_fm["write"], k.with_fm["write"])):
                paired = med(a / b for a, b in zip(e_runs, c_runs))
                print(f"    write {label} engine {med(e_runs):7.0f} MB/s   C+copy {med(c_runs):7.0f} MB/s   "
                      f"ratio {med(e_runs) / med(c_runs):4.2f} (per-round median {paired:4.2f})")
        print(f"    {direction:5s} initiator CPU per command (median): engine {med(e.cpu[direction]):5.0f} us,"
              f" C loop {med(c.cpu[direction]):5.0f} us"
              + (f", C+copy {med(sides['copy'].cpu['write']):5.0f} us" if direction == "write" else ""))
        print(f"    {direction:5s} runs (data only)  engine {', '.join(f'{v:.0f}' for v in e.data[direction])}")
        print(f"    {direction:5s} runs (data only)  C loop {', '.join(f'{v:.0f}' for v in c.data[direction])}")


# -- callgrind: instructions per command, load-independent ---------------------------------------------


def child(mode: str, url: str, count: int, case: str, fixed_block: int) -> None:
    """One measured loop in its own process (under callgrind): ``count`` commands of one layer.

    ``transport-read``/``drive-read``/``engine-read`` read from BOT what the parent wrote
    there; ``engine-read`` is the tape-perf read phase alone (``--direction read --size``).
    ``*-write`` are the same for WRITE(6) (the engine's write phase includes its pattern fill).
    """
    from app.drive import TapeDrive
    from app.tapeperf import TapePerfParams, TapePerfTest
    from native.scsi import cdb as C

    fixed, block, io = case_shape(case, fixed_block)
    layer, direction = mode.split("-")
    if layer == "engine":
        # Under callgrind everything runs ~50x slower: a clock advancing 0.25 ms a reading keeps the
        # 10 Hz sample publishing at its native share of the I/Os and makes the count repeatable.
        # A C-level callable (count's __next__), so it costs about what time.perf_counter costs.
        tick = itertools.count(0.0, 0.00025).__next__
        params = TapePerfParams.from_text({
            "direction": direction, "mode": "fixed" if fixed else "variable", "block_size": str(block),
            "io_size": str(io), "size": str(count * io), "force": True,
        })
        with TapeDrive.open(url) as drive:
            TapePerfTest(drive, params, clock=tick).run()
        return
    with TapeDrive.open(url) as drive:
        drive.rewind()
        drive.set_block_size(block if fixed else 0)
        buf = memoryview(bytearray(io))  # one view reused, as the engine's loops pass it
        if layer == "drive":
            op = drive.read if direction == "read" else drive.write
            for _ in range(count):
                op(buf, block_size=block if fixed else None)
            return
        execute = drive.transport.execute
        if direction == "read":
            cdb = C.read6(io // block if fixed else io, fixed=fixed)
            for _ in range(count):
                execute(cdb, data_in=buf)
        else:
            cdb = C.write6(io // block if fixed else io, fixed=fixed)
            for _ in range(count):
                execute(cdb, data_out=buf)


def callgrind_figures(url: str, case: str, fixed_block: int, directions: tuple[str, ...]) -> None:
    from benchmarks.bench_iscsi_anchor import c_loop_argv, c_loop_phases, instructions_per_io

    fixed, block, io = case_shape(case, fixed_block)
    low, high = 8, 208
    c_loop_phases(url, fixed=fixed, block=block, io=io, count=high + 8, op="write", filemark=True)  # data to read
    env = dict(os.environ, PYTHONHASHSEED="0")
    script = str(Path(__file__).resolve())
    print(f"  user-space instructions per command under callgrind, {case} (load-independent; kernel copy excluded)")
    for direction in directions:
        c = instructions_per_io(lambda n, d=direction: c_loop_argv(url, fixed=fixed, block=block, io=io, count=n, op=d),
                                counts=(low, high))
        print(f"    {direction:5s} C loop (libiscsi, static buffer)   {c:9.0f}")
        for layer in ("transport", "drive", "engine"):
            n = instructions_per_io(
                lambda k, m=f"{layer}-{direction}": [sys.executable, script, "--child", m, url, str(k), case,
                                                     str(fixed_block)],
                counts=(low, high), env=env)
            print(f"    {direction:5s} {layer:9s} loop {'':21s} {n:9.0f}  ({n / c:5.2f} x the C loop, +{n - c:.0f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=7, help="paired engine/C rounds per case (>= 7 for the report)")
    ap.add_argument("--size", default="256M", help="bytes written and read back per run")
    ap.add_argument("--fixed-block", default="256K", help="the block size of the fixed-mode cases")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}")
    ap.add_argument("--pattern", default="2:1", help="the engine's write pattern (the CLI's default: 2:1)")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions per command (slow)")
    ap.add_argument("--callgrind-only", action="store_true", help="only the instruction counts")
    ap.add_argument("--callgrind-directions", default="read,write")
    ap.add_argument("--child", nargs=5, metavar=("MODE", "URL", "COUNT", "CASE", "FIXED_BLOCK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, url, count, case, fixed_block = args.child
        child(mode, url, int(count), case, int(fixed_block))
        return

    from native.units import parse_size
    from tests.helpers.tgt import TgtTarget, tgt_available

    if not tgt_available():
        print("skipped: tgt is not installed (apt-get install tgt)")
        return
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        raise SystemExit(f"unknown case {unknown[0]!r}: the cases are {', '.join(CASES)}")
    size, fixed_block = parse_size(args.size), parse_size(args.fixed_block)
    if size < MIB or fixed_block < 1 or MIB % fixed_block or (256 * KIB) % fixed_block:
        raise SystemExit("--size must be at least 1M and --fixed-block divide 256K")
    with tempfile.TemporaryDirectory(prefix="tapediag-bench-") as tmp:
        os.environ.setdefault("TAPEDIAG_DATA_DIR", str(Path(tmp) / "data"))  # the engine's history records go here
        os.environ.setdefault("TAPEDIAG_LOCK_DIR", str(Path(tmp) / "claims"))  # every tgtd serves one WWN: 
        # a machine-wide claim would refuse another engineer's run on their own tgtd
        with TgtTarget(Path(tmp) / "tgt", size_mb=(size >> 20) + 128, large_segments=True) as target:
            load = os.getloadavg()
            if not args.callgrind_only:
                print(f"tgtd {target.url}, cartridge file on disk ({target.cartridge_path.parent}), 256 KiB iSCSI "
                      f"segments; {size >> 20} MiB written and read back per run; {args.rounds} rounds per case, "
                      f"engine and C loop alternating; load average at start {load[0]:.1f} on {os.cpu_count()} CPUs")
                for case in cases:
                    run_case(target.url, case, max(1, args.rounds), size, fixed_block, args.pattern)
            if args.callgrind or args.callgrind_only:
                from benchmarks.bench_iscsi_anchor import callgrind_available

                if not callgrind_available():
                    print("callgrind figures skipped: valgrind is not installed")
                    return
                directions = tuple(d.strip() for d in args.callgrind_directions.split(",") if d.strip())
                for case in cases:
                    callgrind_figures(target.url, case, fixed_block, directions)
            print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

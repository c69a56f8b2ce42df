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
from app.events import PhaseFinished, PhaseStarted  # noqa: E402
from app.patterns import Pattern  # noqa: E402
from app.scsi import cdb as C  # noqa: E402
from app.tapeperf import TapePerfParams, TapePerfTest, parse_size  # noqa: E402

IO = 1 << 20


def engine_rate(device: str, size: int, block: int = IO, pattern: str = "2:1") -> tuple[float, object]:
    """Decimal GB/s of the engine's write phase (the closing filemark included).

    The result gains ``cpu_us_per_io``: this process's CPU time per WRITE during the
    write phase (taken from the phase events), a figure less sensitive to the
    machine's load than throughput.
    """
    params = TapePerfParams(direction="write", pattern=Pattern.parse(pattern), block_size=block, io_size=IO, size=size,
                            force=True)
    cpu: dict[str, float] = {}

    def sink(event: object) -> None:
        if isinstance(event, PhaseStarted):
            cpu["start"] = time.process_time()
        elif isinstance(event, PhaseFinished):
            cpu["end"] = time.process_time()

    with TapeDrive.open(device) as drive:
        result = TapePerfTest(drive, params).run(sink)
    phase = result.phases[0]
    result.cpu_us_per_io = (cpu["end"] - cpu["start"]) / max(phase.ios, 1) * 1e6  # type: ignore[attr-defined]
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


def _python_bare_loop(url: str, count: int, block: int) -> float:
    """Fallback anchor: the same WRITE(6)s from a static buffer, straight to the transport."""
    with TapeDrive.open(url) as drive:
        drive.rewind()
        drive.set_block_size(block)
        buf = bytearray(IO)
        cdb = C.write6(IO // block, fixed=True)
        execute = drive.transport.execute
        t0 = time.perf_counter()
        for _ in range(count):
            execute(cdb, data_out=buf)
        rate = count * IO / (time.perf_counter() - t0) / 1e9
        drive.write_filemarks(1)
    return rate


def _anchor():  # -> (name, callable(url, count, block) -> (GB/s, CPU us per command or None))
    try:
        from benchmarks import bench_iscsi_anchor  # type: ignore[import-not-found]

        measure = getattr(bench_iscsi_anchor, "c_loop_measure", None)
        if measure is not None:
            def c_loop(url: str, count: int, block: int) -> tuple[float, float | None]:
                mbps, cpu = measure(url, fixed=True, block=block, io=IO, count=count)
                return mbps / 1000, cpu

            return "bare C loop over libiscsi (benchmarks/iscsi_bare_loop.c)", c_loop
    except ImportError:
        pass
    return ("bare Python loop over the same transport (the C anchor is not built)",
            lambda url, count, block: (_python_bare_loop(url, count, block), None))


def bench_tgt(size: int, rounds: int) -> None:
    import statistics
    import tempfile

    from tests.helpers.tgt import TgtTarget, tgt_available

    if not tgt_available():
        print("tgtd comparison skipped: tgt is not installed")
        return
    block, count = 256 << 10, size // IO
    name, anchor = _anchor()
    engine_stream, engine_phase, bare = [], [], []
    engine_cpu, bare_cpu = [], []
    with tempfile.TemporaryDirectory() as tmp, TgtTarget(Path(tmp), size_mb=2 * (size >> 20) + 64,
                                                         large_segments=True) as target:
        for i in range(rounds):  # interleaved, order alternating: the machine's load drifts between runs
            for which in (("engine", "anchor") if i % 2 == 0 else ("anchor", "engine")):
                if which == "anchor":
                    rate, cpu = anchor(target.url, count, block)
                    bare.append(rate)
                    if cpu is not None:
                        bare_cpu.append(cpu)
                    continue
                _, result = engine_rate(target.url, count * IO, block)
                engine_cpu.append(result.cpu_us_per_io)  # type: ignore[attr-defined]
                phase = result.phases[0]  # type: ignore[attr-defined]
                engine_stream.append(phase.streaming_mb_per_s / 1000)
                engine_phase.append(phase.mb_s / 1000)
    print(f"tgtd over libiscsi (256 KiB iSCSI segments), 256 KiB blocks, 1 MiB I/Os, {size >> 20} MiB a run, {rounds} runs")
    print(f"  anchor: {name}")
    print(f"    best {max(bare):6.3f} GB/s, median {statistics.median(bare):6.3f} GB/s")
    print(f"  engine WRITEs only:         best {max(engine_stream):6.3f} GB/s, median {statistics.median(engine_stream):6.3f}"
          f" GB/s = {max(engine_stream) / max(bare):5.2f} x (best) / "
          f"{statistics.median(engine_stream) / statistics.median(bare):5.2f} x (median) the anchor (target >= 0.90)")
    print(f"  engine phase incl. closing filemark: best {max(engine_phase):6.3f} GB/s")
    if bare_cpu:
        print(f"  initiator CPU per 1 MiB WRITE (median, less load-sensitive): anchor {statistics.median(bare_cpu):6.0f} us,"
              f" engine {statistics.median(engine_cpu):6.0f} us (pattern fill and samples included)")
    print(f"  runs anchor {', '.join(f'{v:.3f}' for v in bare)}")
    print(f"  runs engine {', '.join(f'{v:.3f}' for v in engine_stream)}")


def child(mode: str, url: str, count: int, block: int) -> None:
    """One measured loop in its own process (run under callgrind by ``callgrind_figures``).

    ``transport``: WRITE(6)s from one static buffer straight to ``IscsiTransport.execute``;
    ``drive``: the same through ``TapeDrive.write``; ``engine``: the tape-perf write
    phase (pattern fill, samples, the closing filemark).
    """
    if mode == "engine":
        engine_rate(url, count * IO, block)
        return
    with TapeDrive.open(url) as drive:
        drive.rewind()
        drive.set_block_size(block)
        buf = bytearray(IO)
        if mode == "drive":
            write = drive.write
            for _ in range(count):
                write(buf, block_size=block)
        else:
            cdb = C.write6(IO // block, fixed=True)
            execute = drive.transport.execute
            for _ in range(count):
                execute(cdb, data_out=buf)


def callgrind_figures(url: str, block: int, modes: tuple[str, ...] = ("transport", "drive", "engine")) -> dict[str, float]:
    """Instructions per 1 MiB WRITE(6) for the C loop and each Python layer (load-independent)."""
    import os

    from benchmarks.bench_iscsi_anchor import c_loop_argv, instructions_per_io

    env = dict(os.environ, PYTHONHASHSEED="0")
    figures = {"c": instructions_per_io(lambda n: c_loop_argv(url, fixed=True, block=block, io=IO, count=n))}
    script = str(Path(__file__).resolve())
    for mode in modes:
        figures[mode] = instructions_per_io(
            lambda n, mode=mode: [sys.executable, script, "--child", mode, url, str(n), str(block)], env=env)
    return figures


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", default="8G", help="bytes written per run to virtual:null")
    ap.add_argument("--tgt-size", default="512M", help="bytes written per run to tgtd")
    ap.add_argument("--rounds", type=int, default=8, help="interleaved engine/anchor runs against tgtd")
    ap.add_argument("--skip-tgt", action="store_true")
    ap.add_argument("--child", nargs=4, metavar=("MODE", "URL", "COUNT", "BLOCK"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, url, count, block = args.child
        child(mode, url, int(count), int(block))
        return
    bench_null(parse_size(args.size))
    if not args.skip_tgt:
        bench_tgt(parse_size(args.tgt_size), args.rounds)


if __name__ == "__main__":
    main()

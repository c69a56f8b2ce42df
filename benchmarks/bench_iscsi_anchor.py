"""IscsiTransport vs a bare C libiscsi loop, same WRITE(6) CDBs, same tgtd LUN, same run.

Run: .venv/bin/python benchmarks/bench_iscsi_anchor.py [--size 256M] [--reps 5]

The anchor is ``benchmarks/iscsi_bare_loop.c`` (compiled here with gcc -liscsi): the
leanest loop libiscsi allows. Python then issues the identical CDBs through
``native.iscsi.IscsiTransport`` from one static buffer. Both rewind and set the
block mode first, then time only the WRITE loop. Reported: MB/s (decimal) per side
and the ratio, median of the repetitions, runs interleaved with alternating order
because the machine's load drifts; plus the initiator CPU time per command of each
side in the timed loop, which a loaded machine distorts far less than
throughput. Target: Python >= 0.90 x the anchor. Asserts nothing.

``bare_loop_rate(url, count, block, io=1 MiB) -> GB/s`` is the anchor for other
benchmarks (``bench_tape_engine.py``), and ``instructions_per_io`` with
``c_loop_argv`` gives the load-independent version of the comparison: user-space
instructions per command under callgrind.
"""
from __future__ import annotations

import argparse
import functools
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

SOURCE = Path(__file__).resolve().parent / "iscsi_bare_loop.c"
MIB = 1 << 20


@functools.lru_cache(maxsize=None)
def compile_anchor() -> Path:
    """Build the C loop once per process into a temp dir (gcc + libiscsi-dev needed)."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        raise RuntimeError("no C compiler: apt-get install gcc")
    out = Path(tempfile.mkdtemp(prefix="tapediag-anchor-")) / "iscsi_bare_loop"
    proc = subprocess.run([gcc, "-O2", "-o", str(out), str(SOURCE), "-liscsi"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"building the anchor failed (apt-get install libiscsi-dev?): {proc.stderr.strip()}")
    return out


def c_loop_mbps(url: str, *, fixed: bool, block: int, io: int, count: int) -> float:
    """Decimal MB/s of COUNT WRITE(6)s of IO bytes from the C loop."""
    return c_loop_measure(url, fixed=fixed, block=block, io=io, count=count)[0]


def c_loop_measure(url: str, *, fixed: bool, block: int, io: int, count: int) -> tuple[float, float]:
    """(MB/s, initiator CPU microseconds per command in the timed loop) of the C loop."""
    proc = subprocess.run(
        c_loop_argv(url, fixed=fixed, block=block, io=io, count=count),
        capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"iscsi_bare_loop failed: {proc.stderr.strip()}")
    fields = dict(item.split("=") for item in proc.stdout.split())
    return float(fields["MBps"]), float(fields["cpu_us_per_cmd"])


def c_loop_argv(url: str, *, fixed: bool, block: int, io: int, count: int, op: str | None = None,
                filemark: bool = False, copy: bool = False) -> list[str]:
    """The command line of the C loop (for running it under callgrind too); ``op`` None: the
    original write-only form with its one untagged output line."""
    argv = [str(compile_anchor()), url, "fixed" if fixed else "variable", str(block), str(io), str(count)]
    if op is not None:
        argv.append(op)
        flags = "+".join(flag for flag, on in (("filemark", filemark), ("copy", copy)) if on)
        if flags:
            argv.append(flags)
    return argv


def c_loop_phases(url: str, *, fixed: bool, block: int, io: int, count: int, op: str = "write+read",
                  filemark: bool = True, copy: bool = False) -> dict[str, dict[str, float]]:
    """The C loop's write and/or read phase ("write", "read", "write+read"): per phase
    ``{"bytes", "seconds", "MBps", "cpu_us_per_cmd", "fm_seconds"}`` (data I/Os timed apart
    from the closing filemark: a WRITE FILEMARKS after the write, the READ of it after the read).
    ``copy``: every WRITE's buffer refilled from a pool first (memcpy of fresh data)."""
    proc = subprocess.run(c_loop_argv(url, fixed=fixed, block=block, io=io, count=count, op=op, filemark=filemark,
                                      copy=copy),
                          capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"iscsi_bare_loop failed: {proc.stderr.strip()}")
    phases: dict[str, dict[str, float]] = {}
    for line in proc.stdout.splitlines():
        fields = dict(item.split("=") for item in line.split())
        op = fields.pop("op")
        phases[op] = {k: float(v) for k, v in fields.items()}
    return phases


def callgrind_available() -> bool:
    return shutil.which("valgrind") is not None


def callgrind_total(argv: list[str], env: dict[str, str] | None = None) -> int:
    """Instructions (callgrind's Ir) a whole process executed in user space.

    The count does not depend on the machine's load, only on the code path, which
    makes it the honest anchor on a shared box. Kernel work (the socket copy) and
    the target's work are not included: it measures what our code costs.
    """
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
                              capture_output=True, text=True, timeout=1800, env=env)
        if proc.returncode != 0:
            raise RuntimeError(f"callgrind run failed: {proc.stderr.strip()[-500:]}")
        for line in out.read_text().splitlines():
            if line.startswith(("totals:", "summary:")):
                return int(line.split()[1])
    raise RuntimeError("callgrind wrote no totals line")


def instructions_per_io(make_argv, counts: tuple[int, int] = (8, 40), env: dict[str, str] | None = None) -> float:
    """Instructions per I/O: the difference of two runs that differ only in I/O count.

    Start-up, login, pool building and teardown are the same in both and cancel out,
    so the figure is the marginal cost of one more I/O in the loop.
    """
    low, high = counts
    return (callgrind_total(make_argv(high), env) - callgrind_total(make_argv(low), env)) / (high - low)


def bare_loop_rate(url: str, count: int, block: int, io: int = MIB) -> float:
    """GB/s (decimal) of the C anchor writing COUNT fixed-block I/Os of IO bytes."""
    return c_loop_mbps(url, fixed=True, block=block, io=io, count=count) / 1000


def _write6(length: int, fixed: bool) -> bytes:
    return bytes([0x0A, 1 if fixed else 0]) + length.to_bytes(3, "big") + b"\0"


def python_loop_mbps(url: str, *, fixed: bool, block: int, io: int, count: int) -> float:
    return python_loop_measure(url, fixed=fixed, block=block, io=io, count=count)[0]


def python_loop_measure(url: str, *, fixed: bool, block: int, io: int, count: int) -> tuple[float, float]:
    """The same sequence as the C loop, through IscsiTransport: (MB/s, CPU us per command)."""
    from native.iscsi import IscsiTransport

    with IscsiTransport(url) as transport:
        for cdb, out in (
            (bytes([0x01, 0, 0, 0, 0, 0]), None),  # REWIND
            (bytes([0x15, 0x10, 0, 0, 12, 0]),  # MODE SELECT(6): header + block descriptor
             bytes([0, 0, 0x10, 8, 0, 0, 0, 0, 0]) + (block if fixed else 0).to_bytes(3, "big")),
        ):
            result = transport.execute(cdb, data_out=out)
            if not result.good:
                raise RuntimeError(f"setup command {cdb[0]:#04x} failed: sense {result.sense.hex()}")
        buf = bytes((i * 2654435761 >> 24) & 0xFF for i in range(min(io, 4096))) * (io // 4096 + 1)
        buf = buf[:io]
        cdb = _write6(io // block if fixed else io, fixed)
        execute = transport.execute
        cpu0 = time.process_time()
        t0 = time.perf_counter()
        for _ in range(count):
            result = execute(cdb, data_out=buf)
            if result.status:
                raise RuntimeError(f"WRITE(6) failed: sense {result.sense.hex()}")
        elapsed = time.perf_counter() - t0
        cpu = (time.process_time() - cpu0) / count * 1e6
    return io * count / elapsed / 1e6, cpu


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="256M", help="bytes written per run (K/M/G suffix)")
    ap.add_argument("--reps", type=int, default=5, help="repetitions per side (median reported, >= 3)")
    ap.add_argument("--block", default="256K", help="block size (fixed mode)")
    ap.add_argument("--io", default="1M", help="bytes per WRITE(6)")
    args = ap.parse_args()

    from tests.helpers.tgt import TgtTarget, tgt_available

    def size(text: str) -> int:
        units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
        return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)

    total, block, io = size(args.size), size(args.block), size(args.io)
    count = max(1, total // io)
    if not tgt_available():
        print("skipped: tgt is not installed (apt-get install tgt)")
        return
    cases = [("fixed", True, block, io), ("variable", False, io, io)]
    with tempfile.TemporaryDirectory() as tmp, TgtTarget(Path(tmp), size_mb=(count * io >> 20) + 256,
                                                         large_segments=True) as target:
        print(f"tgtd {target.url} (256 KiB iSCSI data segments), {count} x WRITE(6) of {io} bytes per run, "
              f"{max(3, args.reps)} runs per side, interleaved")
        for name, fixed, blk, this_io in cases:
            runs: dict[str, list[tuple[float, float]]] = {"c": [], "py": []}
            for rep in range(max(3, args.reps)):
                for side in (("c", "py") if rep % 2 == 0 else ("py", "c")):
                    fn = c_loop_measure if side == "c" else python_loop_measure
                    runs[side].append(fn(target.url, fixed=fixed, block=blk, io=this_io, count=count))
            c_med = statistics.median(r[0] for r in runs["c"])
            py_med = statistics.median(r[0] for r in runs["py"])
            c_cpu = statistics.median(r[1] for r in runs["c"])
            py_cpu = statistics.median(r[1] for r in runs["py"])
            label = f"{name}, {blk // 1024} KiB blocks"
            print(f"  {label}")
            print(f"    throughput  C anchor {c_med:8.1f} MB/s   IscsiTransport {py_med:8.1f} MB/s   "
                  f"ratio {py_med / c_med:5.2f} (target >= 0.90)")
            print(f"    initiator CPU per command  C {c_cpu:7.1f} us   Python {py_cpu:7.1f} us   "
                  f"(+{py_cpu - c_cpu:.1f} us; less load-sensitive)")
            print(f"    runs MB/s  C {', '.join(f'{r[0]:.0f}' for r in runs['c'])}   "
                  f"Py {', '.join(f'{r[0]:.0f}' for r in runs['py'])}")

if __name__ == "__main__":
    main()

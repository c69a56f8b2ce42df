"""Does the virtual LTO-9 reach its own model? Write and read rate against the model's figure.

Run: .venv/bin/python benchmarks/bench_virtual_drive.py [--size 4G] [--rounds 7] [--disk-dir /var/tmp]
     [--tmpfs-dir /dev/shm] [--patterns zeros,2:1,4.3:1,random]

Anchor (same run): the rate the model predicts for the data, native x ratio capped by the
link and the top speed step (the drive's own ratio: host bytes / tape bytes it charged).
For each pattern and each cartridge location (a directory on disk and one on tmpfs), one
round writes ``--size`` from BOT in 1 MiB variable-mode WRITE(6)s, closes with a filemark
(the buffer flush counts: data counts once it is on tape, as tape-perf counts it), rewinds
and reads it back; the rate is tape-perf's streaming rate (from the end of the first I/O).
Locations alternate in each round (paired), patterns run in the same order everywhere;
the figures are medians over ``--rounds``.

Besides the ratio to the model, each row shows:
* ``emu``: the wall-clock rate over the rate on the model's own clock for the same
  commands (1.00: the emulator kept to its model; below: this machine made it late);
* ``cpu``/``sleep``: the process's CPU time and the pacer's sleeps as shares of the write,
  i.e. where the host's time per WRITE went;
* ``file``: the rate the cartridge file's own I/O ran at during the write
  (``VirtualDrive.emulator_storage``) and ``storage``, a bare ``os.pwritev`` of the same
  size in 1 MiB pieces to a file in the same directory (same round), for reference.
  When a rate misses the model by more than 5 % and the cartridge file's I/O took at
  least half the phase (the rule tape-perf's result uses), the row says "limited by the
  host's storage at N MB/s" instead of presenting the figure as the drive's; when the
  emulator was late otherwise, "limited by this machine".

Cold reads are not measured: the cartridge just written is in the page cache (dropping
it would disturb everything else on the machine). Prints figures; asserts nothing.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.patterns import Pattern  # noqa: E402
from native.errors import TapediagError  # noqa: E402
from native.units import parse_size  # noqa: E402
from native.virtual import open_virtual  # noqa: E402
from native.virtual.drive import VirtualDrive  # noqa: E402

MiB = 1 << 20
MB = 1e6
WRITE = bytes([0x0A, 0, 0x10, 0, 0, 0])  # WRITE(6), variable, 1 MiB
READ = bytes([0x08, 0, 0x10, 0, 0, 0])
REWIND = bytes([0x01, 0, 0, 0, 0, 0])
FILEMARK = bytes([0x10, 0, 0, 0, 1, 0])
DISTINCT_BLOCKS = 64  # blocks generated up front and cycled: the host spends nothing per WRITE
WITHIN = 0.05
STORAGE_SHARE = 0.5  # as app.tapeperf.results.STORAGE_SHARE


@dataclass
class Run:
    """One write + read of one pattern at one location."""

    write: float  # MB/s, wall clock
    read: float
    write_model: float  # MB/s on the model's clock, same commands
    read_model: float
    predicted: float  # MB/s: native x ratio, capped by the link and the top step
    ratio: float
    file_rate: float  # MB/s of the cartridge file's I/O during the write
    file_share: float  # share of the write's wall time in that I/O
    read_file_rate: float
    read_file_share: float
    cpu: float  # share of the write's wall time
    sleep: float
    lost_write: float  # share of the phase the pacer counted as the emulator's (Pacer.lost)
    lost_read: float
    backhitches: int  # in the write and the read


@dataclass
class Cell:
    runs: list[Run] = field(default_factory=list)
    storage: list[float] = field(default_factory=list)  # MB/s of the bare pwritev anchor


def predicted_rate(drive: VirtualDrive, ratio: float) -> float:
    spec = drive.spec
    return min(spec.native_rate * ratio, spec.speed_steps[-1] * ratio, spec.interface_rate) / MB


def one_run(folder: str, blocks: list[bytearray], count: int) -> Run:
    cart = os.path.join(folder, "bench.cart")
    drive = open_virtual(f"virtual:lto9?cartridge={cart}&capacity=64G")
    try:
        drive.execute(REWIND)
        pacer = drive.pacer
        slept0, lost0, cpu0 = pacer.slept, pacer.lost, time.process_time()
        io0 = drive.emulator_storage or (0, 0.0)
        start = time.monotonic()
        first = m_first = 0.0
        for i in range(count):
            if not drive.execute(WRITE, data_out=blocks[i % len(blocks)]).good:
                raise SystemExit(f"WRITE {i} failed: {drive.last_io_error or 'check condition'}")
            if i == 0:
                first, m_first = time.monotonic(), drive._t_done
        drive.execute(FILEMARK)  # the flush: data counts once it is on tape
        end, m_end = time.monotonic(), drive._t_done
        span = end - start
        cpu, slept, lost_write = time.process_time() - cpu0, pacer.slept - slept0, (pacer.lost - lost0) / span
        host, tape = drive.load["host_w"], drive.load["tape_w"]
        ratio = host / tape if tape else 1.0
        io1 = drive.emulator_storage or (0, 0.0)
        file_rate = (io1[0] - io0[0]) / max(io1[1] - io0[1], 1e-9) / MB
        file_share = (io1[1] - io0[1]) / span
        moved = (count - 1) * MiB
        write, write_model = moved / (end - first) / MB, moved / (m_end - m_first) / MB
        drive.execute(REWIND)
        buf = bytearray(MiB)
        lost0, start, io0 = pacer.lost, time.monotonic(), drive.emulator_storage or (0, 0.0)
        for i in range(count):
            if not drive.execute(READ, data_in=buf).good:
                raise SystemExit(f"READ {i} failed")
            if i == 0:
                first, m_first = time.monotonic(), drive._t_done
        end, m_end = time.monotonic(), drive._t_done
        read, read_model = moved / (end - first) / MB, moved / (m_end - m_first) / MB
        lost_read = (pacer.lost - lost0) / (end - start)
        io1 = drive.emulator_storage or (0, 0.0)
        read_file = ((io1[0] - io0[0]) / max(io1[1] - io0[1], 1e-9) / MB, (io1[1] - io0[1]) / (end - start))
        return Run(write, read, write_model, read_model, predicted_rate(drive, ratio), ratio, file_rate, file_share,
                   *read_file, cpu / span, slept / span, lost_write, lost_read, drive.model.stats.backhitches)
    finally:
        drive.close()
        os.unlink(cart)


def storage_rate(folder: str, nbytes: int) -> float:
    """MB/s of a bare buffered pwritev of ``nbytes`` in 1 MiB pieces (what storing the data costs)."""
    path = os.path.join(folder, "anchor.bin")
    buf = bytearray(os.urandom(MiB))
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        start = time.monotonic()
        for i in range(max(1, nbytes // MiB)):
            os.pwritev(fd, [buf], i * MiB)
        return max(1, nbytes // MiB) * MiB / (time.monotonic() - start) / MB
    finally:
        os.close(fd)
        os.unlink(path)


def verdict(ratio: float, file_rate: float, file_share: float, lost_share: float) -> str:
    """What a median ratio to the model says, naming this machine when it, not the drive, set the figure."""
    if abs(ratio - 1) <= WITHIN:
        return "within 5 %"
    if ratio > 1:
        return f"{ratio - 1:.0%} above the model"
    if file_share >= STORAGE_SHARE:
        return f"limited by the host's storage at {file_rate:,.0f} MB/s (the cartridge file took {file_share:.0%} of the time)"
    if lost_share > WITHIN:
        return f"{1 - ratio:.0%} below: limited by this machine (the emulator was late {lost_share:.0%} of the time)"
    return f"{1 - ratio:.0%} below the model"


def median(runs: list[Run], figure: Callable[[Run], float]) -> float:
    return statistics.median(figure(run) for run in runs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="4G", help="bytes per write and read (default 4G; 256M for a quick run)")
    ap.add_argument("--rounds", type=int, default=7, help="rounds; medians are printed (default 7)")
    ap.add_argument("--patterns", default="zeros,2:1,4.3:1,random")
    ap.add_argument("--disk-dir", default="/var/tmp", help="parent of the on-disk cartridge's directory ('' to skip)")
    ap.add_argument("--tmpfs-dir", default="/dev/shm", help="parent of the tmpfs cartridge's directory ('' to skip)")
    args = ap.parse_args()
    try:
        size = parse_size(args.size)
        patterns = [Pattern.parse(p) for p in args.patterns.split(",") if p.strip()]
    except TapediagError as err:
        raise SystemExit(f"bench_virtual_drive: {err}") from None
    if size < 16 * MiB or args.rounds < 1:
        raise SystemExit("bench_virtual_drive: --size must be at least 16M and --rounds at least 1")
    count = size // MiB
    data: dict[str, list[bytearray]] = {}
    for pattern in patterns:
        gen = pattern.generator(MiB, 16384, 0, 64 * MiB)
        data[pattern.name] = [bytearray(MiB) for _ in range(DISTINCT_BLOCKS)]
        for i, block in enumerate(data[pattern.name]):
            gen.fill(block, i)
    places = [(name, parent) for name, parent in (("disk", args.disk_dir), ("tmpfs", args.tmpfs_dir)) if parent]
    if not places:
        raise SystemExit("bench_virtual_drive: give --disk-dir or --tmpfs-dir")
    folders = {name: tempfile.mkdtemp(prefix="tapediag-bench-vd-", dir=parent) for name, parent in places}
    cells: dict[tuple[str, str], Cell] = {(n, p.name): Cell() for n, _ in places for p in patterns}
    load0 = os.getloadavg()[0]
    try:
        for r in range(args.rounds):
            order = places if r % 2 == 0 else places[::-1]  # paired, alternating
            for name, _ in order:
                anchor = storage_rate(folders[name], size)
                for pattern in patterns:
                    cell = cells[(name, pattern.name)]
                    cell.runs.append(one_run(folders[name], data[pattern.name], count))
                    cell.storage.append(anchor)
            print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    finally:
        for folder in folders.values():
            os.rmdir(folder)
    load1 = os.getloadavg()[0]
    print(f"virtual:lto9, {count * MiB / 1e9:.2f} GB per write and read, 1 MiB variable blocks, median of "
          f"{args.rounds} paired rounds; load average {load0:.1f} -> {load1:.1f} on {os.cpu_count()} CPUs")
    print(f"{'where':6} {'pattern':7} {'ratio':>6} {'model':>6} | {'write':>6} {'x model':>7} {'emu':>5} {'cpu':>4} "
          f"{'sleep':>5} {'bh':>3} {'file':>5} | {'read':>6} {'x model':>7} {'emu':>5} | {'storage':>7} | verdict (write; read)")
    for (name, pname), cell in cells.items():
        runs = cell.runs
        pred = median(runs, lambda x: x.predicted)
        storage = statistics.median(cell.storage)
        wr, rr = median(runs, lambda x: x.write / x.predicted), median(runs, lambda x: x.read / x.predicted)
        lost = median(runs, lambda x: x.lost_write)
        print(f"{name:6} {pname:7} {median(runs, lambda x: x.ratio):5.1f}:1 {pred:6.0f} | "
              f"{median(runs, lambda x: x.write):6.0f} {wr:7.2f} {median(runs, lambda x: x.write / x.write_model):5.2f} "
              f"{median(runs, lambda x: x.cpu):4.0%} {median(runs, lambda x: x.sleep):5.0%} "
              f"{median(runs, lambda x: x.backhitches):3.0f} {median(runs, lambda x: x.file_rate):5.0f} | "
              f"{median(runs, lambda x: x.read):6.0f} {rr:7.2f} {median(runs, lambda x: x.read / x.read_model):5.2f} | "
              f"{storage:7.0f} | {verdict(wr, median(runs, lambda x: x.file_rate), median(runs, lambda x: x.file_share), lost)}; "
              f"{verdict(rr, median(runs, lambda x: x.read_file_rate), median(runs, lambda x: x.read_file_share), median(runs, lambda x: x.lost_read))}")
    print("MB/s decimal; 'x model': rate / (native x ratio, capped by the link and the top step); 'emu': wall rate / "
          "rate on the model's clock; 'bh': back-hitches; 'file': the cartridge file's I/O rate during the write; 'storage': bare pwritev of the same size in the same directory.")


if __name__ == "__main__":
    main()

"""The tape engine against bare loops it did not write, write and read, on one tgtd tape LUN (issues 19, 32 §2).

Run: .venv/bin/python benchmarks/bench_tape_vs_c.py [--pairs 7] [--size 256M] [--cases ...] [--patterns 2:1,random]
         [--anchor NAME=COMMAND ...] [--target tuned|default|both] [--backing disk|tmpfs] [--json FILE]
     .venv/bin/python benchmarks/anchor_cmd.py     (the placeholders and what an anchor must print)

Sides. Every side is a fresh process per run, started after ``os.sync()``:

* the engine: ``tapediag tape-perf --direction write,read --force`` as the CLI runs it
  (``TapePerfParams.from_text`` and ``app.tapeperf.session.run_on_device``: drive open, safety probe,
  settings, the write phase generating a unique block per WRITE, the read-back, the history record),
  in a child of this script (``--engine-side``) that prints its figures as an anchor does;
* the anchors (``--anchor``, repeatable; default ``plain`` and ``project``): any command line, with
  the placeholders of ``benchmarks/anchor_cmd.py``. ``plain`` is ``benchmarks/plain_iscsi_loop.c``,
  written independently of the project's code (libiscsi's synchronous API, one static buffer, queue
  depth 1); ``project`` is the project's own ``benchmarks/iscsi_bare_loop.c``.

Pairs. One uncounted warm-up round of every side, then ``--pairs`` rounds, the order of the sides
reversed every other round: each anchor is paired with the engine run of its own round, and a pair's
ratio is engine / anchor. The pairs where the engine ran first and those where the anchor did are
also reported apart (reads favoured whichever side ran second in issue 32's runs).

Configurations: {256 KiB, 1 MiB I/Os} x {variable, fixed blocks} (``--cases``) x the engine's pattern
(``--patterns``; the anchors write their one static buffer whatever it is), on tgtd set up ``tuned``
(256 KiB data segments, FirstBurstLength 256 KiB, InitialR2T=No: what this project's benchmarks used
before issue 32) and/or ``default`` (tgtd as installed: 8 KiB data segments, FirstBurstLength 64 KiB,
InitialR2T=Yes, which is also what LIO ships: the customer-like target), the cartridge file on disk or
on tmpfs. Fixed mode uses ``--fixed-block`` blocks (256 KiB): a 1 MiB I/O is four blocks.

Figures, each side timed the same way (from the start of its first data command to the end of its last):

* write, data I/Os only; write with the closing filemark (plus the WRITE FILEMARKS that flushes);
* read, data I/Os only; read with the closing filemark (plus the READ that meets the filemark).

Printed per configuration and anchor: the median of the paired ratios, their min-max and n, the same
for engine-first and anchor-first pairs, each side's median MB/s and CPU per command, and the load
average at the configuration's start and end; at the end a summary table. ``--callgrind`` adds the
load-independent figure: user-space instructions per READ(6) and WRITE(6) of the two C loops and of
each Python layer (transport, drive, engine phase). Asserts nothing: the machine is shared.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.anchor_cmd import (BUILT_IN, Anchor, AnchorError, Shape, Timing, parse_anchor,  # noqa: E402
                                   parse_timings, run_argv, sync_now)

if TYPE_CHECKING:
    from app.drive import TapeDrive
    from tests.helpers.tgt import TgtTarget

KIB, MIB = 1 << 10, 1 << 20
#: How much slower a process runs under callgrind, about (the engine's publishing is slowed as much).
CALLGRIND_SLOWDOWN = 50
CASES = ("256K-variable", "256K-fixed", "1M-variable", "1M-fixed")
FIGURES = (("write", "data"), ("write", "fm"), ("read", "data"), ("read", "fm"))
FIGURE_LABEL = {("write", "data"): "write, data I/Os only ", ("write", "fm"): "write + closing filemark",
                ("read", "data"): "read, data I/Os only  ", ("read", "fm"): "read + closing filemark "}
#: tgtd's session parameters per target kind (``tgtadm --op update --mode target``); "default": none.
TARGETS: dict[str, tuple[tuple[str, str], ...]] = {
    "tuned": (("MaxRecvDataSegmentLength", "262144"), ("MaxXmitDataSegmentLength", "262144"),
              ("FirstBurstLength", "262144"), ("MaxBurstLength", "16776192"), ("InitialR2T", "No")),
    "default": (),
}
SHOWN_PARAMS = ("MaxRecvDataSegmentLength", "MaxXmitDataSegmentLength", "FirstBurstLength", "MaxBurstLength",
                "InitialR2T", "ImmediateData", "MaxOutstandingR2T")


def case_shape(case: str, fixed_block: int) -> tuple[bool, int, int]:
    """(fixed, block size, I/O size) of a case name like ``256K-variable``."""
    size_text, mode = case.split("-")
    io = int(size_text[:-1]) * (MIB if size_text.endswith("M") else KIB)
    fixed = mode == "fixed"
    return fixed, (fixed_block if fixed else io), io


# -- the engine's side: a child process that prints what an anchor prints ---------------------------------


def engine_side(url: str, mode: str, block: int, io: int, count: int, pattern: str) -> None:
    """One ``tape-perf --direction write,read`` as the CLI runs it; prints ``op=... seconds=...`` lines."""
    from app.events import PhaseFinished, PhaseStarted
    from app.tapeperf import TapePerfParams
    from app.tapeperf.session import run_on_device

    params = TapePerfParams.from_text({
        "direction": "write,read", "mode": mode, "block_size": str(block), "io_size": str(io),
        "size": str(io * count), "pattern": pattern, "force": True,
    })
    cpu: dict[str, float] = {}
    in_bursts = burst_cpu_meter()

    def sink(event: object) -> None:
        if isinstance(event, PhaseStarted):
            cpu[event.phase + "0"] = time.process_time()
        elif isinstance(event, PhaseFinished):
            cpu[event.phase] = time.process_time() - cpu[event.phase + "0"]

    _, result = run_on_device(url, params, sink=sink)
    if result.status != "complete":
        raise SystemExit(f"the engine's run ended {result.status}: {result.error}")
    for ph in result.phases:
        samples = [s for s in result.samples if s.phase == ph.phase]
        nbytes = sum(s.nbytes for s in samples)
        data = samples[-1].t - (samples[0].t - samples[0].latency)  # first command's start to last one's end
        if ph.phase == "write":
            fm = ph.flush_seconds or 0.0
        else:  # to the end of the read loop: the READ that met the filemark
            assert ph.time_to_first_byte is not None
            fm = ph.elapsed - ph.time_to_first_byte + samples[0].latency - data
        burst_cpu, burst_ios = in_bursts[ph.phase]
        print(f"op={ph.phase} bytes={nbytes} seconds={data:.6f} MBps={nbytes / data / 1e6:.1f} "
              f"cpu_us_per_cmd={burst_cpu / max(burst_ios, 1) * 1e6:.1f} "
              f"phase_cpu_us_per_cmd={cpu[ph.phase] / max(ph.ios, 1) * 1e6:.1f} fm_seconds={fm:.6f}")


def burst_cpu_meter() -> dict[str, list[float]]:
    """Process CPU seconds and commands inside the engine's bursts (``TapeDrive.write_burst``/``read_burst``), per
    direction: the figure comparable with a C loop's CPU over its timed loop. The phase's own figure also holds
    its set-up and its summary (samples, percentiles), which come after the last command."""
    from app.drive import TapeDrive

    meter: dict[str, list[float]] = {"write": [0.0, 0], "read": [0.0, 0]}

    def metered(direction: str, method: Callable[..., Any]) -> Callable[..., Any]:
        def burst(self: TapeDrive, *args: Any, **kwargs: Any) -> Any:
            c0 = time.process_time()
            done = method(self, *args, **kwargs)
            meter[direction][0] += time.process_time() - c0
            meter[direction][1] += done.clean + (done.tail is not None)
            return done
        return burst

    TapeDrive.write_burst = metered("write", TapeDrive.write_burst)  # type: ignore[method-assign]
    TapeDrive.read_burst = metered("read", TapeDrive.read_burst)  # type: ignore[method-assign]
    return meter


@dataclass
class EngineSide:
    """The engine as a side: the same interface as ``Anchor``."""

    pattern: str
    name: str = "engine"

    def run(self, shape: Shape, sync: bool = True) -> dict[str, Timing]:
        if sync:
            sync_now()
        argv = [sys.executable, str(Path(__file__).resolve()), "--engine-side", shape.url,
                "fixed" if shape.fixed else "variable", str(shape.block), str(shape.io), str(shape.count), self.pattern]
        out, _ = run_argv(argv, "the engine")
        got = parse_timings(out, shape.io * shape.count)
        if set(got) != {"write", "read"}:
            raise AnchorError(f"the engine's side printed no figures: {out.strip()[-300:]}")
        return got


# -- pairs ---------------------------------------------------------------------------------------------------


@dataclass
class Runs:
    """Every counted run of one configuration: per side, one {direction: Timing} per round, and the
    1-minute load average each round started at."""

    sides: list[str]
    rounds: list[dict[str, dict[str, Timing]]] = field(default_factory=list)
    loads: list[float] = field(default_factory=list)

    def reference_first(self, i: int) -> bool:
        """Whether the reference side (the first) ran before the others in round ``i`` (orders alternate)."""
        return i % 2 == 0

    def figure(self, side: str, i: int, key: tuple[str, str]) -> float | None:
        t = self.rounds[i][side][key[0]]
        return t.mb_s if key[1] == "data" else t.with_fm_mb_s

    def load_text(self) -> str:
        return f"{min(self.loads):.1f}–{max(self.loads):.1f}" if self.loads else "?"


@dataclass(frozen=True)
class Quiet:
    """Before each round, wait until the machine's 1-minute load average is at most ``below`` (None: do not
    wait), for ``patience`` seconds at most: on a shared machine a round taken during another job's burst
    says more about that job than about the sides."""

    below: float | None = None
    patience: float = 600.0

    def wait(self) -> float:
        """The load average the round starts at."""
        load = os.getloadavg()[0]
        deadline = time.monotonic() + self.patience
        while self.below is not None and load > self.below and time.monotonic() < deadline:
            time.sleep(5)
            load = os.getloadavg()[0]
        return load


def run_config(sides: list[Anchor | EngineSide], shape: Shape, pairs: int, quiet: Quiet = Quiet()) -> Runs:
    """One uncounted warm-up round, then ``pairs`` rounds in alternating order."""
    runs = Runs([s.name for s in sides])
    for side in sides:  # warm-up: the target's first session, the page cache, the built loops
        side.run(shape)
    for i in range(pairs):
        runs.loads.append(quiet.wait())
        got: dict[str, dict[str, Timing]] = {}
        for side in (sides if i % 2 == 0 else list(reversed(sides))):
            got[side.name] = side.run(shape)
        runs.rounds.append(got)
    return runs


def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def shown(values: list[float]) -> str:
    """A median as printed, or a dash for no values."""
    return f"{med(values):5.3f}" if values else "  —  "


def ratio_lines(runs: Runs, anchor: str) -> list[str]:
    """The paired ratios of the reference side against ``anchor``, per figure."""
    ref, lines = runs.sides[0], []
    n = len(runs.rounds)
    for key in FIGURES:
        pairs = [(i, runs.figure(ref, i, key), runs.figure(anchor, i, key)) for i in range(n)]
        pairs = [(i, a, b) for i, a, b in pairs if a is not None and b is not None]
        if not pairs:
            lines.append(f"      {FIGURE_LABEL[key]}  (not timed by {anchor})")
            continue
        ratios = [a / b for _, a, b in pairs]
        first = [a / b for i, a, b in pairs if runs.reference_first(i)]
        second = [a / b for i, a, b in pairs if not runs.reference_first(i)]
        lines.append(
            f"      {FIGURE_LABEL[key]}  ratio {med(ratios):5.3f} (min {min(ratios):5.3f}, max {max(ratios):5.3f}, "
            f"n {len(ratios)}); {ref} first {shown(first)} (n {len(first)}), {anchor} first {shown(second)} "
            f"(n {len(second)}); {ref} {med([a for _, a, _ in pairs]):6.0f} MB/s, {anchor} "
            f"{med([b for _, _, b in pairs]):6.0f} MB/s")
    return lines


def cpu_line(runs: Runs) -> str:
    parts = []
    for direction in ("write", "read"):
        per_side = []
        for side in runs.sides:
            values = [r[side][direction].cpu_us_per_cmd for r in runs.rounds]
            known = [v for v in values if v is not None]
            per_side.append(f"{side} {med(known):.0f}" if known else f"{side} -")
        parts.append(f"{direction}: " + ", ".join(per_side))
    return "      CPU us per command (medians; the engine's inside its bursts): " + "; ".join(parts)


def report(title: str, runs: Runs, whole: dict[str, bool]) -> None:
    print(f"  {title}: {len(runs.rounds)} pairs, load average {runs.load_text()} at the rounds' starts")
    for anchor in runs.sides[1:]:
        note = " (timed as a whole process by the benchmark: login and set-up included)" if whole.get(anchor) else ""
        print(f"    {runs.sides[0]} / {anchor}{note}")
        for line in ratio_lines(runs, anchor):
            print(line)
    print(cpu_line(runs))
    for direction in ("write", "read"):
        for side in runs.sides:
            print(f"      {direction:5s} runs MB/s {side:8s} "
                  + ", ".join(f"{r[side][direction].mb_s:.0f}" for r in runs.rounds))
    sys.stdout.flush()


def summary(results: list[tuple[str, Runs]]) -> None:
    """One line per configuration and anchor: median paired ratio (min-max) of the four figures."""
    print("\nsummary: median paired ratio (min-max), n pairs, load average at the rounds' starts (min-max)")
    print("| configuration | anchor | write, data | write + filemark | read, data | read + filemark | n | load |")
    print("|---|---|---|---|---|---|---|---|")
    for title, runs in results:
        ref = runs.sides[0]
        for anchor in runs.sides[1:]:
            cells = []
            for key in FIGURES:
                r = [a / b for i in range(len(runs.rounds))
                     if (a := runs.figure(ref, i, key)) is not None and (b := runs.figure(anchor, i, key)) is not None]
                cells.append(f"{med(r):.2f} ({min(r):.2f}–{max(r):.2f})" if r else "—")
            print(f"| {title} | {anchor} | " + " | ".join(cells)
                  + f" | {len(runs.rounds)} | {runs.load_text()} |")


def dump(path: Path, results: list[tuple[str, Runs]]) -> None:
    data = [{"configuration": title, "sides": runs.sides, "loads": runs.loads,
             "rounds": [{side: {d: vars(t) for d, t in got.items()} for side, got in r.items()} for r in runs.rounds]}
            for title, runs in results]
    path.write_text(json.dumps(data, indent=1))


# -- the target ----------------------------------------------------------------------------------------------


def configure_target(target: "TgtTarget", kind: str) -> str:
    """Set the target kind's session parameters; returns the parameters as tgtadm shows them."""
    import subprocess

    control = str(target.control)
    for name, value in TARGETS[kind]:
        subprocess.run(["tgtadm", "-C", control, "--lld", "iscsi", "--op", "update", "--mode", "target", "--tid", "1",
                        "-n", name, "-v", value], check=True, capture_output=True, text=True)
    shown = subprocess.run(["tgtadm", "-C", control, "--lld", "iscsi", "--op", "show", "--mode", "target", "--tid", "1"],
                           check=True, capture_output=True, text=True).stdout
    kept = [line.strip() for line in shown.splitlines() if line.strip().split("=")[0] in SHOWN_PARAMS]
    return ", ".join(kept)


# -- callgrind: instructions per command, load-independent ---------------------------------------------------


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
        # Under callgrind everything runs ~50x slower, so the 10 Hz publishing (where a burst ends) is
        # slowed as much to keep its native share of the I/Os. The engine keeps its own clock: another
        # clock would take the transport's generic loop instead of the C burst the engine streams with.
        from app.tapeperf import engine

        engine.PUBLISH_INTERVAL *= CALLGRIND_SLOWDOWN
        params = TapePerfParams.from_text({
            "direction": direction, "mode": "fixed" if fixed else "variable", "block_size": str(block),
            "io_size": str(io), "size": str(count * io), "force": True,
        })
        with TapeDrive.open(url) as drive:
            TapePerfTest(drive, params).run()
        return
    with TapeDrive.open(url) as drive:
        drive.rewind()
        drive.set_block_size(block if fixed else 0)
        buf = memoryview(bytearray(io))  # one view reused, as the engine's loops pass it
        if layer == "burst":
            burst(drive, direction, fixed, block, io, count)
            return
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


def burst(drive: "TapeDrive", direction: str, fixed: bool, block: int, io: int, count: int) -> None:
    """``count`` commands as one burst of the engine's (``TapeDrive.read_burst``/``write_burst``: one C
    loop, the pattern fill into the spare buffer while a WRITE is in flight), without the engine around it."""
    from app.patterns import Pattern
    from app.tapeperf.engine import BurstTimes
    from native import sldc

    times, buf = BurstTimes(count), bytearray(io)
    if direction == "read":
        done = drive.read_burst(memoryview(buf), block_size=block if fixed else None, count=count, until=float("inf"),
                                starts=times.starts, ends=times.ends)
    else:
        gen = Pattern.parse("2:1").generator(block, sldc.HISTORY_LTO1_5, 0)
        done = drive.write_burst(buf, block_size=block if fixed else None, count=count, until=float("inf"),
                                 starts=times.starts, ends=times.ends, fill=gen.filler, step=io // block if fixed else 1,
                                 spare=bytearray(io))
    if done.clean != count:
        raise SystemExit(f"the burst stopped after {done.clean} of {count} commands: {done.error or done.tail}")


def callgrind_figures(url: str, case: str, fixed_block: int, directions: tuple[str, ...]) -> None:
    from benchmarks.anchor_cmd import argv_of
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
        plain = instructions_per_io(
            lambda n, d=direction: [*argv_of(BUILT_IN["plain"], Shape(url, fixed, block, io, n), d), "--filemark", "no"],
            counts=(low, high))
        print(f"    {direction:5s} C loop, the project's (static buffer) {c:9.0f}")
        print(f"    {direction:5s} C loop, plain (independent)          {plain:9.0f}")
        for layer in ("transport", "drive", "burst", "engine"):
            n = instructions_per_io(
                lambda k, m=f"{layer}-{direction}": [sys.executable, script, "--child", m, url, str(k), case,
                                                     str(fixed_block)],
                counts=(low, high), env=env)
            print(f"    {direction:5s} {layer:9s} loop {'':26s} {n:9.0f}  ({n / plain:5.2f} x the plain loop, "
                  f"+{n - plain:.0f})")


# -- main ------------------------------------------------------------------------------------------------------


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", "--rounds", type=int, default=7, help="counted rounds per configuration (>= 7)")
    ap.add_argument("--size", default="256M", help="bytes written and read back per run")
    ap.add_argument("--fixed-block", default="256K", help="the block size of the fixed-mode cases")
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated subset of {', '.join(CASES)}")
    ap.add_argument("--patterns", "--pattern", default="2:1,random", help="the engine's write patterns")
    ap.add_argument("--anchor", action="append", default=[], metavar="[NAME=]COMMAND",
                    help=f"an anchor command (repeatable; default: {', '.join(BUILT_IN)}); "
                         "placeholders: python benchmarks/anchor_cmd.py")
    ap.add_argument("--no-engine", action="store_true",
                    help="no engine: the first anchor is the reference the others are held against (factor studies)")
    ap.add_argument("--target", choices=("tuned", "default", "both"), default="both")
    ap.add_argument("--backing", choices=("disk", "tmpfs"), default="disk", help="where tgtd's cartridge file lives")
    ap.add_argument("--json", type=Path, help="also write every run's figures here")
    ap.add_argument("--max-load", type=float, help="before each round, wait until the 1-minute load average is at "
                                                   "most this (at most --patience seconds)")
    ap.add_argument("--patience", type=float, default=600.0, help="seconds a round waits for --max-load at most")
    ap.add_argument("--callgrind", action="store_true", help="also count instructions per command (slow)")
    ap.add_argument("--callgrind-only", action="store_true", help="only the instruction counts")
    ap.add_argument("--callgrind-directions", default="read,write")
    ap.add_argument("--child", nargs=5, metavar=("MODE", "URL", "COUNT", "CASE", "FIXED_BLOCK"), help=argparse.SUPPRESS)
    ap.add_argument("--engine-side", nargs=6, metavar=("URL", "MODE", "BLOCK", "IO", "COUNT", "PATTERN"),
                    help=argparse.SUPPRESS)
    return ap.parse_args()


def anchors_of(args: argparse.Namespace) -> list[Anchor]:
    """The anchors of the command line (checked before any target starts), or the built-in ones."""
    anchors = [parse_anchor(text) for text in (args.anchor or list(BUILT_IN))]
    names = [a.name for a in anchors]
    if len(set(names)) != len(names) or "engine" in names:
        raise AnchorError("every anchor needs its own name, and not 'engine'")
    if args.no_engine and len(anchors) < 2:
        raise AnchorError("--no-engine holds the first anchor against the others: give two at least")
    return anchors


def main() -> None:
    args = arguments()
    if args.child:
        mode, url, count, case, fixed_block = args.child
        child(mode, url, int(count), case, int(fixed_block))
        return
    if args.engine_side:
        url, mode, block, io, count, pattern = args.engine_side
        engine_side(url, mode, int(block), int(io), int(count), pattern)
        return
    # SIGTERM unwinds like Ctrl-C, so the tgtd this run started is stopped and its files removed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        run(args)
    except AnchorError as err:
        raise SystemExit(f"bench_tape_vs_c: {err}") from None


def run(args: argparse.Namespace) -> None:
    from native.units import parse_size
    from tests.helpers.tgt import TgtTarget, tgt_available

    if not tgt_available():
        print("skipped: tgt is not installed (apt-get install tgt)")
        return
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        raise AnchorError(f"unknown case {unknown[0]!r}: the cases are {', '.join(CASES)}")
    size, fixed_block = parse_size(args.size), parse_size(args.fixed_block)
    if size < MIB or fixed_block < 1 or MIB % fixed_block or (256 * KIB) % fixed_block:
        raise AnchorError("--size must be at least 1M and --fixed-block divide 256K")
    patterns = [p.strip() for p in args.patterns.split(",") if p.strip()]
    anchors = anchors_of(args)
    kinds = ("tuned", "default") if args.target == "both" else (args.target,)
    base = Path("/dev/shm") if args.backing == "tmpfs" else None
    results: list[tuple[str, Runs]] = []
    print(f"{size >> 20} MiB written and read back per run, cartridge file on {args.backing}; {args.pairs} pairs per "
          f"configuration after one uncounted round; load average at start {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} CPUs")
    # With --backing tmpfs the engine's history goes there too: nothing of a run waits on the shared disk
    # (a full disk once failed the engine's history with "disk I/O error" mid-run).
    with tempfile.TemporaryDirectory(prefix="tapediag-bench-", dir=base) as tmp, \
            tempfile.TemporaryDirectory(prefix="tapediag-bench-tgt-", dir=base) as tgt_dir:
        os.environ.setdefault("TAPEDIAG_DATA_DIR", str(Path(tmp) / "data"))  # the engine's history records
        os.environ.setdefault("TAPEDIAG_LOCK_DIR", str(Path(tmp) / "claims"))  # not another engineer's claims
        for kind in kinds:
            with TgtTarget(Path(tgt_dir) / kind, size_mb=(size >> 20) + 128) as target:
                print(f"\ntgtd {kind}: {configure_target(target, kind)}")
                if not args.callgrind_only:
                    for case in cases:
                        fixed, block, io = case_shape(case, fixed_block)
                        shape = Shape(target.url, fixed, block, io, size // io)
                        for pattern in (patterns if not args.no_engine else patterns[:1]):
                            sides: list[Anchor | EngineSide] = (list(anchors) if args.no_engine
                                                                else [EngineSide(pattern), *anchors])
                            runs = run_config(sides, shape, max(1, args.pairs), Quiet(args.max_load, args.patience))
                            title = f"{kind}, {case}" + ("" if args.no_engine else f", {pattern}")
                            report(title, runs, {s.name: bool(getattr(s, "whole_process", False)) for s in sides})
                            results.append((title, runs))
                            if args.json:  # after every configuration: a run that stops keeps what it measured
                                dump(args.json, results)
                if args.callgrind or args.callgrind_only:
                    from benchmarks.bench_iscsi_anchor import callgrind_available

                    if not callgrind_available():
                        print("callgrind figures skipped: valgrind is not installed")
                    else:
                        directions = tuple(d.strip() for d in args.callgrind_directions.split(",") if d.strip())
                        for case in cases:
                            callgrind_figures(target.url, case, fixed_block, directions)
    if results:
        summary(results)
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

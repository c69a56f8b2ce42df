"""Does the virtual LTO-9 keep to its own model when run as a technician runs it? (issue 32.1-32.2)

Run: .venv/bin/python benchmarks/bench_virtual_drive.py [--size 2G] [--runs 10] [--patterns 2:1,zeros,4.3:1,random]
     [--direction write,read] [--tmpfs-dir /dev/shm] [--disk-dir /var/tmp]

Every run is the command line itself, in a child process, exactly as a technician types it:

    python -m app tape-perf 'virtual:lto9?cartridge=DIR/PATTERN.cart' --pattern P --size S --force --direction D --json

(the default 256 KiB fixed blocks, 1 MiB per command), so the benchmark cannot measure a path the
CLI does not take (issue 32.2: its in-process loop claimed 0.96-1.01 where the CLI gave 0.55). For
each cartridge location and pattern: one uncounted run creates the cartridge file (shown as
``first``), then ``--runs`` consecutive runs overwrite it with ``--force`` as a repeated command does.

Anchor, per run: the model's own figure for that run, the drive's timing model (``native.virtual.model``)
with a host that takes no time, the same commands (size, 1 MiB I/Os, the ratio the drive charged),
the same window as tape-perf's streaming rate (from the end of the first I/O; for a write to the end
of the closing filemark's flush). ``x model`` is the run's streaming rate over that figure: the goal
is 0.95-1.05 in every run, not only the median. Also shown: ``x poss`` (over tape-perf's "possible",
native x ratio capped by the link), ``lag`` (the share of the streaming time the run reports the
emulator behind its model, ``native/virtual/lag.py``), ``host`` (the share between commands), the
cartridge file's rate during the phase, and what tape-perf said limited each run.

Prints figures and the load average around each case; asserts nothing. Reads are not cold: the
cartridge just written is in the page cache (dropping it would disturb the whole machine).
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from native.errors import TapediagError  # noqa: E402
from native.units import parse_size  # noqa: E402
from native.virtual.model import ModelParams, TapeModel  # noqa: E402
from native.virtual.specs import spec_for  # noqa: E402

MiB = 1 << 20
IO = MiB  # tape-perf's default I/O size
WITHIN = 0.05


@dataclass(frozen=True)
class Phase:
    """One phase of one CLI run, and the model's figure for it."""

    rate: float  # MB/s streaming, as tape-perf reports it
    model: float  # MB/s: the model with an instant host, same commands and window
    possible: float  # MB/s: tape-perf's "possible"
    lag: float  # share of the streaming time the emulator was behind its model
    host: float  # share of the streaming time between commands
    storage: float | None  # MB/s of the cartridge file's I/O during the phase
    limited_by: str


def model_rates(size: int, ratio: float) -> tuple[float, float]:
    """(write, read) MB/s of the timing model alone for ``size`` bytes in 1 MiB commands of ``ratio``:1."""
    spec = spec_for(9)
    model = TapeModel(ModelParams(spec.speed_steps, spec.buffer_size, spec.interface_rate))
    count, tape = size // IO, IO / ratio
    t, first = 0.0, None
    for _ in range(count):
        t = model.transfer(t, IO, tape, "write")
        first = t if first is None else first
    assert first is not None
    t = model.flush(t)
    write = (count - 1) * IO / (t - first) / 1e6
    t = model.reposition(t)
    first = None
    for _ in range(count):
        t = model.transfer(t, IO, tape, "read")
        first = t if first is None else first
    assert first is not None
    return write, (count - 1) * IO / (t - first) / 1e6


def cli_run(cart: Path, pattern: str, size: str, direction: str, env: dict[str, str]) -> dict:
    cmd = [sys.executable, "-m", "app", "tape-perf", f"virtual:lto9?cartridge={cart}", "--pattern", pattern,
           "--size", size, "--force", "--direction", direction, "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise SystemExit(f"bench_virtual_drive: {' '.join(cmd)} failed ({out.returncode}): {out.stderr.strip()}")
    result = json.loads(out.stdout)
    if result["status"] != "complete":
        raise SystemExit(f"bench_virtual_drive: the run ended {result['status']}: {result.get('error')}")
    return result


def phases(result: dict, size: int) -> dict[str, Phase]:
    ratio = result["drive_ratio"] or result["predicted_ratio"] or 1.0
    models = dict(zip(("write", "read"), model_rates(size, ratio)))
    found = {}
    for pd in result["phases"]:
        seconds = pd["streaming_seconds"] or 0.0
        lag = (pd["emulator_lag_seconds"] or 0.0) / seconds if seconds else 0.0
        found[pd["phase"]] = Phase(pd["streaming_mb_per_s"], models[pd["phase"]], result["possible_mb_s"], lag,
                                   pd["host_share"] or 0.0, pd["emulator_storage_mb_s"], pd["limited_by"])
    return found


def summary(name: str, runs: list[Phase], first: Phase | None) -> str:
    ratios = [r.rate / r.model for r in runs]
    within = sum(abs(x - 1) <= WITHIN for x in ratios)
    verdicts = collections.Counter(r.limited_by for r in runs)
    storage = [r.storage for r in runs if r.storage]
    head = (f"  {name:5s} n={len(runs):2d} x model median {statistics.median(ratios):5.3f} "
            f"min-max {min(ratios):5.3f}-{max(ratios):5.3f} within 5 %: {within}/{len(runs)}; "
            f"x poss {statistics.median(r.rate / r.possible for r in runs):5.3f}; "
            f"MB/s {statistics.median(r.rate for r in runs):6.0f} (model {statistics.median(r.model for r in runs):6.0f}); "
            f"lag max {max(r.lag for r in runs):4.0%}; host median {statistics.median(r.host for r in runs):4.0%}; "
            f"file {statistics.median(storage) if storage else 0:,.0f} MB/s; "
            f"limited by {', '.join(f'{k} x{v}' for k, v in verdicts.items())}")
    if first is not None:
        head += f"\n        first run (new file): x model {first.rate / first.model:5.3f}, limited by {first.limited_by}"
    return head


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="2G", help="bytes per run (default 2G)")
    ap.add_argument("--runs", type=int, default=10, help="consecutive counted runs per case (default 10)")
    ap.add_argument("--patterns", default="2:1,zeros,4.3:1,random")
    ap.add_argument("--direction", default="write,read", help="write, read-back too (write,read; default)")
    ap.add_argument("--disk-dir", default="/var/tmp", help="parent of the on-disk cartridge's directory ('' to skip)")
    ap.add_argument("--tmpfs-dir", default="/dev/shm", help="parent of the tmpfs cartridge's directory ('' to skip)")
    args = ap.parse_args()
    try:
        size = parse_size(args.size)
    except TapediagError as err:
        raise SystemExit(f"bench_virtual_drive: {err}") from None
    if size < 16 * MiB or args.runs < 1:
        raise SystemExit("bench_virtual_drive: --size must be at least 16M and --runs at least 1")
    places = [(name, parent) for name, parent in (("tmpfs", args.tmpfs_dir), ("disk", args.disk_dir)) if parent]
    patterns = [p.strip() for p in args.patterns.split(",") if p.strip()]
    print(f"virtual:lto9 through the CLI: tape-perf --size {args.size} --force --direction {args.direction}, "
          f"default blocks (256 KiB fixed, 1 MiB I/Os); {args.runs} consecutive runs per case after one uncounted "
          f"run that creates the cartridge file; {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory(prefix="tapediag-bench-vd-data-") as data:
        env = {**os.environ, "TAPEDIAG_DATA_DIR": data}
        for place, parent in places:
            with tempfile.TemporaryDirectory(prefix="tapediag-bench-vd-", dir=parent) as folder:
                for pattern in patterns:
                    cart = Path(folder) / f"{pattern.replace(':', '-')}.cart"
                    load0 = os.getloadavg()[0]
                    first = phases(cli_run(cart, pattern, args.size, args.direction, env), size)
                    runs = [phases(cli_run(cart, pattern, args.size, args.direction, env), size)
                            for _ in range(args.runs)]
                    load1 = os.getloadavg()[0]
                    print(f"{place} {pattern} (load average {load0:.2f} -> {load1:.2f})")
                    for name in ("write", "read"):
                        if name in first:
                            print(summary(name, [r[name] for r in runs], first[name]))
                            print("        runs x model: " + " ".join(f"{r[name].rate / r[name].model:.3f}"
                                                                     for r in runs))
                    sys.stdout.flush()
    print("x model: streaming MB/s over the timing model's own figure for the same commands with an instant host; "
          "x poss: over tape-perf's 'possible'; lag: the emulator behind its model, share of the streaming time "
          "(worst run); host: share of the streaming time between commands; file: the cartridge file's I/O rate.")


if __name__ == "__main__":
    main()

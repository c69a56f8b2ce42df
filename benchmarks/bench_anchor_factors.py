"""Why two bare libiscsi loops gave different figures: one factor at a time, paired (issue 32 §2).

Run: .venv/bin/python benchmarks/bench_anchor_factors.py [--pairs 7] [--size 256M] [--cases 256K-variable,1M-variable]
         [--factors name,...]

Issue 32 measured an independent C loop at 530-660 MB/s (1 MiB) and 930-1,350 MB/s (256 KiB) where the
project's own ``iscsi_bare_loop.c`` had reached 1,166-1,550 MB/s. Two loops that send the same CDBs
through the same library can differ by what they ask of libiscsi or by the target they talk to, so
each factor is one variant of the baseline, measured against it in alternating pairs:

* the baseline: ``plain_iscsi_loop.c`` (independent, synchronous API, data in its own buffer) against
  tgtd set up as this project's benchmarks set it up (``tuned``: 256 KiB data segments both ways,
  FirstBurstLength 256 KiB, InitialR2T=No), the cartridge file on disk;
* ``project-loop``: the project's ``iscsi_bare_loop.c`` instead of the independent loop;
* ``tgtd-defaults``: tgtd's parameters as installed (8 KiB data segments, FirstBurstLength 64 KiB,
  InitialR2T=Yes, MaxBurstLength 256 KiB): what a target nobody tuned offers;
* ``8k-segments``: only the data segments at tgtd's default 8 KiB (MaxRecv/MaxXmitDataSegmentLength);
* ``r2t-first-burst``: only InitialR2T=Yes and FirstBurstLength 64 KiB (the unsolicited-data settings);
* ``data-in-copy``: READ data into libiscsi's own buffer, then copied into the loop's (libiscsi's examples);
* ``async-api``: libiscsi's asynchronous API with the loop's own poll() (the engine's way), one at a time;
* ``fixed-blocks``: fixed 256 KiB blocks instead of variable ones (same I/O size);
* ``tmpfs``: the cartridge file on tmpfs instead of disk (a second tgtd, tuned).

tgtd applies its parameters at login, and every run is a fresh login, so the target is re-set before
each run of a side that wants other parameters. Printed per factor and case: the paired ratio
variant / baseline of each figure (median, min-max, n, and by which ran first) and both sides' MB/s.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.anchor_cmd import BUILT_IN, Anchor, AnchorError, Shape, Timing  # noqa: E402
from benchmarks.bench_tape_vs_c import CASES, Quiet, Runs, case_shape, report, run_config, summary  # noqa: E402

if TYPE_CHECKING:
    from tests.helpers.tgt import TgtTarget

TUNED = {"MaxRecvDataSegmentLength": "262144", "MaxXmitDataSegmentLength": "262144", "FirstBurstLength": "262144",
         "MaxBurstLength": "16776192", "InitialR2T": "No"}
#: tgtd 1.0.85's defaults for the same keys (usr/iscsi/target.c, iscsi_target_create)
DEFAULTS = {"MaxRecvDataSegmentLength": "8192", "MaxXmitDataSegmentLength": "8192", "FirstBurstLength": "65536",
            "MaxBurstLength": "262144", "InitialR2T": "Yes"}
PLAIN = BUILT_IN["plain"]


@dataclass(frozen=True)
class Factor:
    """A variant of the baseline: its loop command, the target's parameters, which target."""

    name: str
    template: str = PLAIN
    params: tuple[tuple[str, str], ...] = tuple(TUNED.items())
    tmpfs: bool = False


FACTORS = (
    Factor("project-loop", template=BUILT_IN["project"]),
    Factor("tgtd-defaults", params=tuple(DEFAULTS.items())),
    Factor("8k-segments", params=tuple({**TUNED, "MaxRecvDataSegmentLength": "8192",
                                        "MaxXmitDataSegmentLength": "8192"}.items())),
    Factor("r2t-first-burst", params=tuple({**TUNED, "InitialR2T": "Yes", "FirstBurstLength": "65536"}.items())),
    Factor("data-in-copy", template=PLAIN + " --data-in libiscsi"),
    Factor("async-api", template=PLAIN + " --api async"),
    Factor("fixed-blocks", template=PLAIN.replace("{mode}", "fixed").replace("{block}", "262144")),
    Factor("tmpfs", tmpfs=True),
)
BASELINE = Factor("baseline")


class TargetParams:
    """The parameters a tgtd last had set, so a side re-sets them only when they change."""

    def __init__(self, target: "TgtTarget") -> None:
        self.target = target
        self.current: tuple[tuple[str, str], ...] | None = None

    def ensure(self, params: tuple[tuple[str, str], ...]) -> None:
        if params == self.current:
            return
        for name, value in params:
            subprocess.run(["tgtadm", "-C", str(self.target.control), "--lld", "iscsi", "--op", "update", "--mode",
                            "target", "--tid", "1", "-n", name, "-v", value], check=True, capture_output=True)
        self.current = params


@dataclass
class FactorSide:
    """A factor as a side of ``run_config``: its target set up, then its loop."""

    factor: Factor
    target: TargetParams
    name: str = ""

    def __post_init__(self) -> None:
        self.name = self.factor.name
        self.anchor = Anchor(self.factor.name, self.factor.template)

    def run(self, shape: Shape, sync: bool = True) -> dict[str, Timing]:
        self.target.ensure(self.factor.params)
        return self.anchor.run(replace(shape, url=self.target.target.url), sync)


def arguments() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--size", default="256M", help="bytes written and read back per run")
    ap.add_argument("--cases", default="256K-variable,1M-variable", help=f"a subset of {', '.join(CASES)}")
    ap.add_argument("--factors", default=",".join(f.name for f in FACTORS),
                    help=f"a subset of {', '.join(f.name for f in FACTORS)}")
    ap.add_argument("--max-load", type=float, help="before each round, wait until the 1-minute load average is at "
                                                   "most this (at most --patience seconds)")
    ap.add_argument("--patience", type=float, default=600.0)
    return ap.parse_args()


def main() -> None:
    from native.units import parse_size
    from tests.helpers.tgt import TgtTarget, tgt_available

    args = arguments()
    if not tgt_available():
        print("skipped: tgt is not installed (apt-get install tgt)")
        return
    by_name = {f.name: f for f in FACTORS}
    wanted = [w.strip() for w in args.factors.split(",") if w.strip()]
    if any(w not in by_name for w in wanted):
        raise SystemExit(f"bench_anchor_factors: the factors are {', '.join(by_name)}")
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    if any(c not in CASES for c in cases):
        raise SystemExit(f"bench_anchor_factors: the cases are {', '.join(CASES)}")
    size = parse_size(args.size)
    print(f"{size >> 20} MiB written and read back per run; {args.pairs} pairs per factor and case after one uncounted "
          f"round; baseline: the plain loop, tgtd tuned, cartridge on disk; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} CPUs")
    results: list[tuple[str, Runs]] = []
    with ExitStack() as stack:
        disk = stack.enter_context(tempfile.TemporaryDirectory(prefix="tapediag-factors-"))
        shm = stack.enter_context(tempfile.TemporaryDirectory(prefix="tapediag-factors-", dir="/dev/shm"))
        on_disk = TargetParams(stack.enter_context(TgtTarget(Path(disk), size_mb=(size >> 20) + 128)))
        on_tmpfs = TargetParams(stack.enter_context(TgtTarget(Path(shm), size_mb=(size >> 20) + 128)))
        baseline = FactorSide(BASELINE, on_disk)
        try:
            for case in cases:
                fixed, block, io = case_shape(case, 256 * 1024)
                shape = Shape(on_disk.target.url, fixed, block, io, size // io)
                for name in wanted:
                    factor = by_name[name]
                    side = FactorSide(factor, on_tmpfs if factor.tmpfs else on_disk)
                    runs = run_config([side, baseline], shape, max(1, args.pairs), Quiet(args.max_load, args.patience))
                    report(f"{case}, {name} / baseline", runs, {})
                    results.append((f"{case}, {name}", runs))
        except AnchorError as err:
            raise SystemExit(f"bench_anchor_factors: {err}") from None
    summary(results)


if __name__ == "__main__":
    main()

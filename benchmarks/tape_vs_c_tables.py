"""The tables of ``benchmarks/README.md`` from ``bench_tape_vs_c.py --json`` files (issue 32 §2).

Run: .venv/bin/python benchmarks/tape_vs_c_tables.py runs.json [more.json ...]

One row per configuration and anchor, for writes and reads (data I/Os only, the figure the goal is set
on): the median of the paired ratios engine / anchor with their min-max, the same median over the pairs
where the engine ran first and over those where the anchor did, both sides' median MB/s and CPU time per
command (user + system; the engine's measured inside its bursts), n pairs and the 1-minute load average at
the rounds' starts. A second table holds the anchors against each other in the same rounds. Nothing is
computed here that the benchmark did not measure: the JSON holds every run of every round, and this only
arranges it.
"""
from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any


def mb_s(timing: dict[str, Any]) -> float:
    """A run's data-I/O rate (``anchor_cmd.Timing.mb_s``)."""
    return float(timing["nbytes"]) / float(timing["seconds"]) / 1e6


def cell(values: list[float]) -> str:
    """'0.98 (0.91–1.04)', or a dash for no values."""
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def cpu(timings: list[dict[str, Any]]) -> str:
    """The median CPU time per command of one side's runs (the engine's inside its bursts), or a dash."""
    known = [float(t["cpu_us_per_cmd"]) for t in timings if t.get("cpu_us_per_cmd") is not None]
    return f"{statistics.median(known):.0f}" if known else "—"


def by_order(values: list[tuple[bool, float]]) -> str:
    """The median ratio over the pairs the engine ran first in, then over the others."""
    first = [r for engine_first, r in values if engine_first]
    second = [r for engine_first, r in values if not engine_first]
    return " / ".join(f"{statistics.median(v):.2f}" if v else "—" for v in (first, second))


def engine_first(config: dict[str, Any], i: int) -> bool:
    """Whether the engine ran first in round ``i``: the benchmark alternates, the engine first in even rounds
    (``Runs.reference_first``); a pooled table carries each round's own order."""
    order = config.get("engine_first")
    return bool(order[i]) if order is not None else i % 2 == 0


def rows(config: dict[str, Any]) -> list[str]:
    """The table rows of one configuration: one per anchor against the first side (the engine)."""
    ref, rounds = config["sides"][0], config["rounds"]
    loads = config["loads"]
    load = f"{min(loads):.1f}–{max(loads):.1f}" if loads else "?"
    out = []
    for anchor in config["sides"][1:]:
        cells = []
        for direction in ("write", "read"):
            pairs = [(i, mb_s(r[ref][direction]), mb_s(r[anchor][direction])) for i, r in enumerate(rounds)]
            ratios = [(engine_first(config, i), a / b) for i, a, b in pairs]
            cells += [cell([r for _, r in ratios]), by_order(ratios),
                      f"{statistics.median([a for _, a, _ in pairs]):,.0f} / {statistics.median([b for _, _, b in pairs]):,.0f}",
                      " / ".join(cpu([r[side][direction] for r in rounds]) for side in (ref, anchor))]
        out.append(f"| {config['configuration']} | {anchor} | " + " | ".join(cells) + f" | {len(rounds)} | {load} |")
    return out


def anchor_rows(config: dict[str, Any]) -> list[str]:
    """The anchors against each other (the second and later against the first anchor), same rounds: how far
    two bare loops that send the same commands differ on this target."""
    anchors, rounds = config["sides"][1:], config["rounds"]
    out = []
    for other in anchors[1:]:
        cells = []
        for direction in ("write", "read"):
            pairs = [(mb_s(r[other][direction]), mb_s(r[anchors[0]][direction])) for r in rounds]
            cells += [cell([a / b for a, b in pairs]),
                      f"{statistics.median([a for a, _ in pairs]):,.0f} / {statistics.median([b for _, b in pairs]):,.0f}"]
        out.append(f"| {config['configuration']} | {other} / {anchors[0]} | " + " | ".join(cells) + f" | {len(rounds)} |")
    return out


def pooled(configs: list[dict[str, Any]]) -> list[str]:
    """Every configuration's rounds as one: a row per anchor, the configuration column saying how many."""
    by_anchor: dict[str, dict[str, Any]] = {}
    for config in configs:
        for anchor in config["sides"][1:]:
            merged = by_anchor.setdefault(anchor, {"configuration": "", "sides": [config["sides"][0], anchor],
                                                   "loads": [], "rounds": [], "engine_first": [], "n": 0})
            merged["loads"] += config["loads"]
            merged["engine_first"] += [engine_first(config, i) for i in range(len(config["rounds"]))]
            merged["rounds"] += [{side: r[side] for side in merged["sides"]} for r in config["rounds"]]
            merged["n"] += 1
    out = []
    for merged in by_anchor.values():
        merged["configuration"] = f"**all {merged['n']} configurations pooled**"
        out += rows(merged)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", nargs="+", type=Path, help="files written by bench_tape_vs_c.py --json")
    args = ap.parse_args()
    print("| configuration | anchor | write ratio | write: engine first / anchor first | write MB/s engine / anchor "
          "| write CPU µs/cmd engine / anchor | read ratio | read: engine first / anchor first | read MB/s engine / anchor "
          "| read CPU µs/cmd engine / anchor | n | load |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for path in args.json:
        for config in json.loads(path.read_text()):
            for row in rows(config):
                print(row)
    for row in pooled([c for path in args.json for c in json.loads(path.read_text())]):
        print(row)
    print("\n| configuration | anchors | write ratio | write MB/s | read ratio | read MB/s | n |")
    print("|---|---|---|---|---|---|---|")
    for path in args.json:
        for config in json.loads(path.read_text()):
            for row in anchor_rows(config):
                print(row)


if __name__ == "__main__":
    main()

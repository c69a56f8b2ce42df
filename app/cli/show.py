"""`tapediag show RUN_ID`: one stored run, its parameters and results."""
from __future__ import annotations

import argparse
import json

from app.cli.commands import HELP
from app.catalog import KINDS  # noqa: F401  (installs the run kinds whose runs show prints)
from app.history import History
from app.history.store import printable
from app.runs import registry
from app.runs.fields import stored_rows
from app.runs.stored import load
from native.units import plural, rate_text


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("show", help=HELP["show"],
                                   description="Print a recorded run as it was printed when it ran (parameters, "
                                               "results, headline figures); --json gives the whole stored run.")
    parser.add_argument("run_id", type=int, metavar="RUN_ID")
    parser.add_argument("--json", action="store_true", help="the whole run, samples included, as JSON")
    parser.set_defaults(func=run)


def _params_line(kind: str, params: dict | None) -> str:
    """The parameters as the kind's field table labels them (``app.runs.fields``), each value with its unit."""
    found = registry.get(kind)
    return ", ".join(f"{label} {value}" for label, value in stored_rows(found.fields if found else (), params or {})
                     ) or "(defaults)"


def _value(value: object) -> str:
    """A stored value for people: floats rounded to what a measurement means, not 17 digits."""
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    return value if isinstance(value, str) else json.dumps(value)


def _flatten(prefix: str, value: object, out: list[tuple[str, str]]) -> None:
    if isinstance(value, dict):
        for key, sub in value.items():
            _flatten(f"{prefix}.{key}" if prefix else str(key), sub, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, sub in enumerate(value):
            _flatten(f"{prefix}[{i}]", sub, out)
    else:
        out.append((printable(prefix), printable(_value(value))))


def run(args: argparse.Namespace) -> int:
    with History.open() as hist:
        got = hist.get_run(args.run_id, samples=args.json)
        by_phase = hist.throughput(args.run_id) if not args.json and got.sample_count else {}
        stats = hist.sample_stats(args.run_id)
    if args.json:
        print(json.dumps(got.to_dict(), indent=2, sort_keys=True))
        return 0
    rendered = load(got).text()  # the result as the run printed it (a damaged one: one line naming the run)
    # Stored params and results may hold names that were not UTF-8 (surrogate escapes): printable().
    where = f" on {printable(got.device)}" if got.device else ""
    print(f"Run {got.id}: {registry.title(got.kind)}{where} — {got.status}")
    print(f"  started {got.started_at}, finished {got.finished_at or '-'} (tapediag {got.version})")
    if got.error:
        print(f"  error: {printable(got.error)}")
    if rendered is not None:
        print(f"  parameters: {printable(_params_line(got.kind, got.params))}")
        print()
        print(printable(rendered))
        return 0
    for title, section in (("Parameters", got.params), ("Results", got.results or {})):
        lines: list[tuple[str, str]] = []
        _flatten("", section, lines)
        print(f"{title}:")
        width = max((len(k) for k, _ in lines), default=0)
        for key, value in lines:
            print(f"  {key.ljust(width)}  {value}")
        if not lines:
            print("  (none)")
    print(f"Samples: {got.sample_count}" + (f" ({stats['bytes'] / 1e6:.1f} MB over {stats['seconds']:.2f} s)"
                                             if got.sample_count else ""))
    for phase, points in by_phase.items():
        rates = [p.mb_s for p in points]
        print(f"  {phase}: rate over time min {rate_text(min(rates))} / max {rate_text(max(rates))} "
              f"({plural(len(points), 'interval')})")
    return 0

"""`tapediag compare RUN_BEFORE RUN_AFTER`: two recorded runs side by side (``app.compare``).

Not a test: it reads the history and measures nothing, so nothing is recorded. Exit status 0 when the runs
were compared (whatever the comparison says: its judgements are words, not a verdict on a device), 2 for a
run not in the history, a record this tapediag cannot read, or a run compared with itself.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

from app import frontends
from app.cli.commands import HELP
from app.compare import compare_runs, lines
from app.compare.model import REPORT_TITLE
from app.history import History
from app.history.store import printable

DESCRIPTION = ("Compare two recorded runs, e.g. before and after a cleaning: what differs between them besides their "
               "figures (drive, cartridge, parameters, tapediag version) first, then each figure (rates, back-hitches, "
               "error counters, TapeAlert flags, verdicts) as improved, worse or within the run-to-run noise. Measures "
               "nothing and records nothing. Exit status 0 when compared; 2 for a run not in the history, a damaged "
               "record or the same run twice.")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("compare", help=HELP["compare"], description=DESCRIPTION)
    parser.add_argument("before", type=int, metavar="RUN_BEFORE")
    parser.add_argument("after", type=int, metavar="RUN_AFTER")
    parser.add_argument("--json", action="store_true", help="the comparison as JSON")
    parser.add_argument("-o", "--output", type=Path, metavar="FILE.pdf",
                        help="also write one PDF report with both runs and the comparison on page 1")
    for field in ("customer", "site", "technician", "ticket"):
        parser.add_argument(f"--{field}", default="", help=f"the PDF's cover: {field}")
    parser.add_argument("--host-name", action="store_true",
                        help="name this machine, where the tests ran, in the PDF's sign-off (never by default)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.output is not None:
        from app.report import check_report_path

        check_report_path(args.output)  # before anything is read: a bad path is one line, exit 2
    with History.open() as hist:
        comparison = compare_runs(hist, args.before, args.after)
        report = None
        if args.output is not None:
            from app.report import build_report, host_name

            report = build_report(hist, [args.before, args.after], customer=args.customer, site=args.site,
                                  technician=args.technician, ticket=args.ticket,
                                  title=REPORT_TITLE, comparison=comparison,
                                  host=host_name() if args.host_name else "")
    if args.json:
        print(json.dumps(comparison.to_dict(), indent=2))
    else:
        print(printable("\n".join(lines(comparison))))
    if report is not None:
        pages = frontends.pdf_writer()(report, args.output)
        import sys

        print(f"Report written to {args.output} ({pages} pages)", file=sys.stderr if args.json else sys.stdout)
    return 0

"""`tapediag report RUN_ID... -o FILE.pdf`: a PDF for the customer from history runs.

The report model is built here from ``app.report``; only the final drawing needs Qt's PDF writer,
which the command line is given (``app.frontends.pdf_writer``) and never imports.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from app import frontends
from app.cli.commands import HELP
from app.history import History
from app.report import build_report, check_report_path, host_name

__all__ = ["register", "write_report", "check_report_path"]


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help=HELP["report"])
    parser.add_argument("run_ids", type=int, nargs="+", metavar="RUN_ID")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.pdf")
    for field in ("customer", "site", "technician", "ticket"):
        parser.add_argument(f"--{field}", default="", help=f"cover page: {field}")
    parser.add_argument("--title", default="Tape and disk diagnostics report")
    parser.add_argument("--host-name", action="store_true",
                        help="name this machine, where the tests ran, in the sign-off (never by default: a host name "
                             "can be the customer's to keep)")
    parser.add_argument("--appendix", action="store_true",
                        help="add every raw figure of each run at the end (for the engineer; the customer's report "
                             "does without)")
    parser.set_defaults(func=run)


def write_report(run_ids: list[int], output: Path, *, customer: str = "", site: str = "", technician: str = "",
                 ticket: str = "", title: str = "Tape and disk diagnostics report", appendix: bool = False,
                 name_host: bool = False) -> int:
    """Build the report model from the history and render it; returns the page count."""
    check_report_path(output)
    with History.open() as hist:
        report = build_report(hist, run_ids, customer=customer, site=site, technician=technician, ticket=ticket,
                              title=title, appendix=appendix, host=host_name() if name_host else "")
    return frontends.pdf_writer()(report, output)


def run(args: argparse.Namespace) -> int:
    pages = write_report(args.run_ids, args.output, customer=args.customer, site=args.site,
                         technician=args.technician, ticket=args.ticket, title=args.title, appendix=args.appendix,
                         name_host=args.host_name)
    print(f"Report written to {args.output} ({pages} pages)")
    return 0

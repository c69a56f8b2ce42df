"""`tapediag report RUN_ID... -o FILE.pdf`: a PDF for the customer from history runs.

The PDF renderer needs Qt; it is imported only when a report is written
(``importlib.import_module("ui.pdf")``), so ``app/`` stays importable without Qt.
"""
from __future__ import annotations

import argparse
import importlib
import os
import tempfile
from pathlib import Path

from app.cli.commands import HELP
from app.history import History
from app.report import build_report
from native.errors import InvalidParameter, TransportUnavailable


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("report", help=HELP["report"])
    parser.add_argument("run_ids", type=int, nargs="+", metavar="RUN_ID")
    parser.add_argument("-o", "--output", type=Path, required=True, metavar="FILE.pdf")
    for field in ("customer", "site", "technician", "ticket"):
        parser.add_argument(f"--{field}", default="", help=f"cover page: {field}")
    parser.add_argument("--title", default="Tape and disk diagnostics report")
    parser.add_argument("--appendix", action="store_true",
                        help="add every raw figure of each run at the end (for the engineer; the customer's report "
                             "does without)")
    parser.set_defaults(func=run)


def write_report(run_ids: list[int], output: Path, *, customer: str = "", site: str = "", technician: str = "",
                 ticket: str = "", title: str = "Tape and disk diagnostics report", appendix: bool = False) -> int:
    """Build the report model from the history and render it; returns the page count."""
    check_report_path(output)
    with History.open() as hist:
        report = build_report(hist, run_ids, customer=customer, site=site, technician=technician, ticket=ticket,
                              title=title, appendix=appendix)
    try:
        pdf = importlib.import_module("ui.pdf")
    except ImportError as err:
        raise TransportUnavailable("PDF reports need PySide6, which is not installed",
                                   hint="pip install 'tapediag[gui]'") from err
    return pdf.render_pdf(report, output)


def check_report_path(output: Path) -> None:
    """Refuse a report path that cannot work before anything is built or created.

    Missing parent directories are fine (the renderer creates them); a parent that is a
    file, an unwritable directory or an output that is a directory are not. The renderer
    still handles what happens later (a full disk) without leaving a file behind.
    """
    if output.suffix.lower() != ".pdf":
        raise InvalidParameter(f"the report is a PDF: name it {output.with_suffix('.pdf').name}")
    if output.is_dir():
        raise InvalidParameter(f"cannot write the report to {output}: it is a directory")
    parent = output.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InvalidParameter(f"cannot write the report to {output}: {parent} is not a directory")
    if output.exists() and not os.access(output, os.W_OK):
        raise InvalidParameter(f"cannot write the report to {output}: permission denied")
    try:  # only trying tells (root ignores permissions; /proc, read-only mounts): a hidden probe, removed at once
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".tapediag-probe-"):
            pass
    except OSError as err:
        raise InvalidParameter(f"cannot write the report to {output}: {err.strerror or err}") from err


def run(args: argparse.Namespace) -> int:
    pages = write_report(args.run_ids, args.output, customer=args.customer, site=args.site,
                         technician=args.technician, ticket=args.ticket, title=args.title, appendix=args.appendix)
    print(f"Report written to {args.output} ({pages} pages)")
    return 0

"""`tapediag report RUN_ID... -o FILE.pdf`: a PDF for the customer from history runs.

The report model is built here from ``app.report``; only the final drawing needs Qt's
PDF writer, reached through ``pdf_renderer()`` and nowhere else in ``app/``.
"""
from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Callable

from app.cli.commands import HELP
from app.history import History
from app.report import Report, build_report, check_report_path, host_name
from native.errors import TransportUnavailable

__all__ = ["register", "write_report", "pdf_renderer", "check_report_path"]


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
    return pdf_renderer()(report, output)


def pdf_renderer() -> Callable[[Report, Path], int]:
    """``ui.pdf.render_pdf``: the one place where ``app/`` reaches into ``ui/``, and why.

    The CLI writes PDFs, and the only PDF writer this project has is Qt's (``ui/pdf.py``;
    a second, Qt-free one would draw every report twice). The data still flows one way:
    ``app.report`` builds the model without Qt, the renderer only draws it and never calls
    back into ``app.cli``. Imported at call time, so ``app/`` imports without Qt and a
    build without PySide6 gets one clear error. The GUI calls ``ui.pdf`` directly.
    """
    try:
        pdf = importlib.import_module("ui.pdf")
    except ImportError as err:
        raise TransportUnavailable("PDF reports need PySide6, which is not installed",
                                   hint="pip install 'tapediag[gui]'") from err
    render: Callable[[Report, Path], int] = pdf.render_pdf
    return render


def run(args: argparse.Namespace) -> int:
    pages = write_report(args.run_ids, args.output, customer=args.customer, site=args.site,
                         technician=args.technician, ticket=args.ticket, title=args.title, appendix=args.appendix,
                         name_host=args.host_name)
    print(f"Report written to {args.output} ({pages} pages)")
    return 0

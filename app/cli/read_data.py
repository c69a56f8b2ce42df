"""`tapediag read-data`: read a tree like a backup disk agent and measure the rate."""
from __future__ import annotations

import argparse

from app.cli.commands import HELP
from app.cli._disk_run import run_disk_test
from app.disk.kind import READ_DATA
from app.disk.params import ReadDataParams
from app.runs.fields import add_options, values
from native.units import SIZES_HELP


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "read-data", help=HELP["read-data"],
        description="Walk DIR (timed on its own: the first tree walk), then read every file whole with 1-8 "
        "streams, the way HPReadData did. Each file is evicted from the page cache before it is read, so "
        "the figure is the disk's, not memory's. Unreadable files are counted and listed. "
        f"{SIZES_HELP}",
    )
    parser.add_argument("dir", help="the tree to read (test data or any real file system)")
    add_options(parser, ReadDataParams.FIELDS)  # declared once, with the GUI's form (app.disk.params)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> ReadDataParams:
    """The options as the engine's parameters, through the conversion the GUI uses too."""
    return ReadDataParams.from_values({**values(args, ReadDataParams.FIELDS), "target": args.dir})


def run(args: argparse.Namespace) -> int:
    return run_disk_test(args, READ_DATA, params_from_args(args))

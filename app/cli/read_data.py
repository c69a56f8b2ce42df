"""`tapediag read-data`: read a tree like a backup disk agent and measure the rate."""
from __future__ import annotations

import argparse

from app.cli._disk_run import register_disk_command, run_disk_test
from app.disk.kind import READ_DATA
from app.disk.params import ReadDataParams
from app.runs.fields import values


def register(subparsers: argparse._SubParsersAction) -> None:
    register_disk_command(
        subparsers, "read-data", "Walk DIR (timed on its own: the first tree walk), then read every file whole with "
        "1-8 streams, the way HPReadData did. Each file is evicted from the page cache before it is read, so the "
        "figure is the disk's, not memory's. Unreadable files are counted and listed.",
        "the tree to read (test data or any real file system)", ReadDataParams.FIELDS, run)


def params_from_args(args: argparse.Namespace) -> ReadDataParams:
    """The options as the engine's parameters, through the conversion the GUI uses too."""
    return ReadDataParams.from_values({**values(args, ReadDataParams.FIELDS), "target": args.dir})


def run(args: argparse.Namespace) -> int:
    return run_disk_test(args, READ_DATA, params_from_args(args))

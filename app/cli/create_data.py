"""`tapediag create-data`: write a test tree and measure how fast the disk takes it."""
from __future__ import annotations

import argparse
import sys

from native.errors import NoSpace, TargetNotEmpty

from app.cli import EXIT_REFUSED
from app.cli._disk_run import register_disk_command, run_disk_test
from app.disk.kind import CREATE_DATA
from app.disk.params import CreateDataParams
from app.runs.fields import values


def register(subparsers: argparse._SubParsersAction) -> None:
    register_disk_command(
        subparsers, "create-data", "Create a tree of files with a known compression ratio, the way HPCreateData did, "
        "and report MB/s and files/s (total volume / slowest stream). Only writes inside DIR; refuses a non-empty "
        "DIR unless --allow-non-empty; records what it made in DIR/.tapediag-manifest.json.",
        "target directory (created if missing)", CreateDataParams.FIELDS, run)


def params_from_args(args: argparse.Namespace) -> CreateDataParams:
    """The options as the engine's parameters, through the conversion the GUI uses too."""
    return CreateDataParams.from_values({**values(args, CreateDataParams.FIELDS), "target": args.dir})


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args)
    try:
        return run_disk_test(args, CREATE_DATA, params)
    except (TargetNotEmpty, NoSpace) as err:  # refused before anything was written
        print(f"tapediag: refused: {err}", file=sys.stderr)
        return EXIT_REFUSED

"""`tapediag create-data`: write a test tree and measure how fast the disk takes it."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from app.cli.commands import HELP
from native.errors import NoSpace, TargetNotEmpty

from app.cli import EXIT_REFUSED
from app.cli._disk_run import run_disk_test
from app.disk.create import CreateDataTest
from app.disk.manifest import Manifest, clean
from app.disk.params import FSYNC_POLICIES, PRESETS, CreateDataParams
from app.disk.sizes import DISTRIBUTIONS, size_arg
from native.units import SIZES_HELP
from app.disk.text import render_clean
from app.events import CancelToken, EventSink


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "create-data", help=HELP["create-data"],
        description="Create a tree of files with a known compression ratio, the way HPCreateData did, and "
        "report MB/s and files/s (total volume / slowest stream). Only writes inside DIR; refuses a "
        "non-empty DIR unless --allow-non-empty; records what it made in DIR/.tapediag-manifest.json. "
        f"{SIZES_HELP}",
    )
    parser.add_argument("dir", help="target directory (created if missing)")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="a white paper data set: typical (64K-64M) or small (4K-16K)")
    parser.add_argument("--depth", type=int, help="directory levels under each stream's root (default 3)")
    parser.add_argument("--breadth", type=int, help="subdirectories per directory (default 5)")
    parser.add_argument("--files-per-dir", type=int, help="files in every directory (default 160)")
    parser.add_argument("--min-size", type=size_arg, help="smallest file (default 4K)")
    parser.add_argument("--max-size", type=size_arg, help="largest file (default 16K)")
    parser.add_argument("--size", type=size_arg, help="every file this size (fixed distribution)")
    parser.add_argument("--distribution", choices=DISTRIBUTIONS, help="file sizes between min and max (default uniform)")
    parser.add_argument("--pattern", help="zeros, random or N:1 (default 2:1)")
    parser.add_argument("--streams", type=int, default=1, help="parallel writers, each with its own subtree (1-8)")
    limit = parser.add_mutually_exclusive_group()
    limit.add_argument("--total-size", type=size_arg, help="stop after this much data (all streams together): 10G = 10 GiB, 10GB = 10^10 bytes")
    limit.add_argument("--files", type=int, help="stop after this many files (all streams together)")
    parser.add_argument("--fsync", choices=FSYNC_POLICIES, default="end",
                        help="end (default): flush the file system at the end of each stream, inside the timing; "
                        "file: fsync every file; none: page cache only (flattering)")
    parser.add_argument("--write-size", type=size_arg, default=1 << 20, help="bytes per write call (default 1M)")
    parser.add_argument("--seed", type=int, default=0, help="seed of sizes and contents (reproducible trees)")
    parser.add_argument("--allow-non-empty", action="store_true", help="write into a new subdirectory of a non-empty DIR")
    parser.add_argument("--cleanup", action="store_true", help="remove the created files again after measuring")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> CreateDataParams:
    """The options as the engine's parameters, through the conversion the GUI uses too."""
    keys = ("preset", "depth", "breadth", "files_per_dir", "min_size", "max_size", "size", "distribution", "pattern",
            "streams", "total_size", "files", "fsync", "write_size", "seed", "allow_non_empty")
    return CreateDataParams.from_values({"target": args.dir, **{k: getattr(args, k) for k in keys}})


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args)
    test = CreateDataTest(params)
    try:
        return run_disk_test(args, "create-data", params.to_dict(), lambda sink, cancel: _run(test, sink, cancel, args))
    except (TargetNotEmpty, NoSpace) as err:  # refused before anything was written
        print(f"tapediag: refused: {err}", file=sys.stderr)
        return EXIT_REFUSED


def _run(test: CreateDataTest, sink: EventSink, cancel: CancelToken, args: argparse.Namespace) -> Any:
    result = test.run(sink, cancel)
    if args.cleanup:
        run_id = Manifest.load(Path(result.target)).runs[-1].run_id
        removed = clean(result.target, run_id)
        result.cleanup = render_clean(removed)
    return result

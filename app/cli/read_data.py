"""`tapediag read-data`: read a tree like a backup disk agent and measure the rate."""
from __future__ import annotations

import argparse

from app.cli.commands import HELP
from app.cli._disk_run import run_disk_test
from app.disk.params import ReadDataParams
from app.disk.read import ReadDataTest
from app.disk.sizes import size_arg
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
    parser.add_argument("--streams", type=int, default=1, help="parallel readers (1-8)")
    parser.add_argument("--buffer", type=size_arg, default=1 << 20, help="read size (default 1M)")
    parser.add_argument("--direct", action="store_true", help="O_DIRECT reads (bypass the page cache entirely)")
    parser.add_argument("--no-evict", action="store_true", help="do not evict files before reading (cache may flatter)")
    parser.add_argument("--no-raw-probe", action="store_true",
                        help="skip the raw probe (after the run, a sample of the same files read again with O_DIRECT, "
                             "the figure that shows a read served from a cache below this machine)")
    parser.add_argument("--device-rate", metavar="RATE",
                        help="what the device delivers raw, per second (e.g. 400MB, from dd on the host or the array's "
                             "rating): a read above it is reported as served from a cache")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> ReadDataParams:
    """The options as the engine's parameters, through the conversion the GUI uses too."""
    return ReadDataParams.from_values({"target": args.dir, "streams": args.streams, "buffer_size": args.buffer,
                                       "direct": args.direct, "evict": not args.no_evict,
                                       "raw_probe": not args.no_raw_probe, "device_rate": args.device_rate})


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args)
    test = ReadDataTest(params)
    return run_disk_test(args, "read-data", params.to_dict(), test.run)

"""`tapediag troubleshoot`: the white paper's five steps, the bottleneck table, advice.

Figures come from flags (typed-in MB/s or history run ids), or from prompts on a
terminal. The session is recorded in the history as a ``troubleshoot`` run, and with
``--report FILE.pdf`` handed to the customer as a PDF.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Callable

from app.cli.commands import HELP
from native.errors import InvalidParameter

from app.troubleshoot.parse import parse_block_size, parse_generation, parse_link
from app.troubleshoot.request import (RunRef, TroubleshootRequest, diagnose_recorded, parse_figure,
                                      parse_file_count, parse_rate, parse_ratio, parse_streams)
from app.troubleshoot.text import format_text
from native.units import parse_on_off

def _argtype(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An ``app.troubleshoot.request`` parser as an argparse type: bad text is a usage error."""
    def convert(text: str) -> Any:
        try:
            return parse(text)
        except InvalidParameter as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    convert.__name__ = parse.__name__
    return convert


_mb_s = _argtype(parse_rate)
_count = _argtype(parse_file_count)
_ratio = _argtype(parse_ratio)
_streams = _argtype(parse_streams)


def _not_empty(text: str) -> str:
    if not text.strip():
        raise argparse.ArgumentTypeError("is empty: give a value or leave the option out")
    return text


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "troubleshoot", help=HELP["troubleshoot"],
        description="Compare tape, disk and network rates with what the backup application achieved "
                    "(HP white paper 'Finding bottlenecks'). Rates are decimal MB/s.")
    steps = p.add_argument_group("component measurements (MB/s, or a history run id)")
    for name, what in (("tape-write", "tape write"), ("tape-read", "tape read"),
                       ("disk-read", "disk read, one stream (backup source)"),
                       ("disk-read-parallel", "disk read, parallel streams"),
                       ("disk-write", "disk write, one stream (restore target)"),
                       ("disk-write-parallel", "disk write, parallel streams")):
        steps.add_argument(f"--{name}", type=_mb_s, metavar="MB/s", help=what)
    for name, kind in (("tape-write", "tape-perf"), ("tape-read", "tape-perf"),
                       ("disk-read", "read-data"), ("disk-write", "create-data")):
        steps.add_argument(f"--{name}-run", type=int, action="append", default=[], metavar="RUN_ID",
                           help=f"take the {name.replace('-', ' ')} rate from a {kind} run"
                                + (" (single or parallel by its stream count; repeatable)" if "disk" in name else ""))
    steps.add_argument("--network-run", type=int, action="append", default=[], metavar="RUN_ID",
                       help="take the network's figure from a net-test run (each direction it measured: client to "
                            "server is the backup's way); it outranks --network-rate and the link's nominal rate")
    app = p.add_argument_group("what the backup application achieved")
    app.add_argument("--backup", type=_mb_s, metavar="MB/s", help="backup throughput")
    app.add_argument("--restore", type=_mb_s, metavar="MB/s", help="restore throughput")
    app.add_argument("--streams", type=_streams, metavar="N", help="streams (multiplexing/concurrency) into the drive")
    app.add_argument("--block-size", type=_not_empty, metavar="SIZE", help="tape block size, e.g. 64K, 256K")
    app.add_argument("--software-compression", metavar="on|off")
    app.add_argument("--network", type=_not_empty, metavar="LINK", help="data crosses a network: 1GbE, 10GbE, 100Mb, 940Mbit...")
    app.add_argument("--network-rate", type=_mb_s, metavar="MB/s", help="a measured network rate (e.g. iperf)")
    app.add_argument("--small-files", action=argparse.BooleanOptionalAction, default=None,
                     help="the data set is millions of small files")
    app.add_argument("--file-count", type=_count, metavar="N")
    app.add_argument("--application", type=_not_empty, metavar="NAME", help="backup application (for the report)")
    app.add_argument("--os", choices=("windows", "linux", "unix", "other"),
                     help="the operating system of the host whose data is backed up (advice differs by OS)")
    drive = p.add_argument_group("the drive")
    drive.add_argument("--drive", type=_not_empty, metavar="GEN", help="LTO generation, e.g. LTO-4, LTO-9, ULTRIUM-HH8")
    drive.add_argument("--drive-run", type=int, metavar="RUN_ID", help="take the drive from a drive-info/tape-perf run")
    drive.add_argument("--compression-ratio", type=_ratio, metavar="R", help="the data's compression ratio (default: nominal)")
    out = p.add_argument_group("output")
    out.add_argument("--json", action="store_true", help="machine-readable diagnosis")
    out.add_argument("--interactive", action=argparse.BooleanOptionalAction, default=None,
                     help="ask for each figure (default: on a terminal when no figure is given)")
    out.add_argument("--report", type=Path, metavar="FILE.pdf", help="also write a PDF report")
    for field in ("customer", "site", "technician", "ticket"):
        out.add_argument(f"--{field}", default="", help=f"report cover: {field}")
    p.set_defaults(func=run)


def _has_figures(args: argparse.Namespace) -> bool:
    keys = ("tape_write", "tape_read", "disk_read", "disk_read_parallel", "disk_write", "disk_write_parallel",
            "backup", "restore")
    return any(getattr(args, k) is not None for k in keys) or any(
        getattr(args, f"{k}_run") for k in ("tape_write", "tape_read", "disk_read", "disk_write", "network"))


def _ask(prompt: str, parse: Callable[[str], Any], default: Any = None) -> Any:
    """Ask until the answer parses; blank keeps ``default``."""
    while True:
        try:
            answer = input(f"{prompt}{f' [{default}]' if default not in (None, '') else ''}: ").strip()
        except EOFError:
            return default
        if not answer:
            return default
        try:
            return parse(answer)
        except (InvalidParameter, argparse.ArgumentTypeError, ValueError) as err:
            print(f"  {err}")


def _figure_or_run(text: str) -> Any:
    """'154' (MB/s) or '#12' / 'run 12' (a history run id)."""
    got = parse_figure(text)
    return got.run_id if isinstance(got, RunRef) else got


def _prompt(args: argparse.Namespace) -> None:
    """Walk the technician through the white paper's five steps, filling ``args``."""
    print("Finding the bottleneck (HP white paper, 'Finding bottlenecks'). Enter MB/s, '#ID' for a "
          "history run, or nothing to skip.")
    for key, text in (("tape_write", "1. Tape write"), ("tape_read", "2. Tape read"),
                      ("disk_write", "3. Disk write, one stream (restore target)"),
                      ("disk_write_parallel", "   Disk write, parallel streams"),
                      ("disk_read", "4. Disk read, one stream (backup source)"),
                      ("disk_read_parallel", "   Disk read, parallel streams")):
        got = _ask(text, _figure_or_run, getattr(args, key))
        if isinstance(got, int) and not isinstance(got, bool) and key in ("tape_write", "tape_read", "disk_read", "disk_write"):
            getattr(args, f"{key}_run").append(got)
        elif isinstance(got, int) and not isinstance(got, bool):
            base = key.replace("_parallel", "")
            getattr(args, f"{base}_run").append(got)
        else:
            setattr(args, key, got)
    print("5. What the backup application achieved")
    args.backup = _ask("   Backup MB/s", _mb_s, args.backup)
    args.restore = _ask("   Restore MB/s", _mb_s, args.restore)
    args.streams = _ask("   Streams into the drive", parse_streams, args.streams)
    args.block_size = _ask("   Tape block size (e.g. 64K, 256K)", lambda s: (parse_block_size(s), s)[1], args.block_size)
    args.software_compression = _ask("   Software compression (on/off)", lambda s: (parse_on_off(s), s)[1],
                                     args.software_compression)
    args.network = _ask("   Network link (blank: local; 1GbE, 10GbE...)", lambda s: (parse_link(s), s)[1], args.network)
    if args.network and not args.network_run:  # the data crosses a network: its measured figure, if there is one
        measured = _ask("   Network measured by net-test ('#ID' of its run; blank: none)", _figure_or_run, None)
        if isinstance(measured, int) and not isinstance(measured, bool):
            args.network_run.append(measured)
    args.small_files = _ask("   Millions of small files (yes/no)", parse_on_off, args.small_files)
    if not args.drive and not args.drive_run:
        args.drive = _ask("   Drive generation (e.g. LTO-4)", lambda s: (parse_generation(s), s)[1], None)


def run(args: argparse.Namespace) -> int:
    interactive = args.interactive if args.interactive is not None else (sys.stdin.isatty() and not _has_figures(args))
    if interactive:
        _prompt(args)
    if args.report:
        from app.cli.report import check_report_path

        check_report_path(args.report)  # a bad report path is refused before the session is recorded
    dx, run_id = diagnose_recorded(TroubleshootRequest.from_values(vars(args)))
    if args.json:
        print(json.dumps({"run_id": run_id, **dx.to_dict()}, indent=2, sort_keys=True))
    else:
        print(format_text(dx))
        print(f"\nRecorded as run {run_id} ('tapediag show {run_id}').")
    if args.report:
        from app.cli.report import write_report

        write_report([run_id], args.report, customer=args.customer, site=args.site,
                     technician=args.technician, ticket=args.ticket)
        print(f"Report written to {args.report}", file=sys.stderr if args.json else sys.stdout)
    return 0


__all__ = ["register", "run"]

"""``tapediag scan DEVICE [--limit SIZE|DURATION] [--json]``: a read-only media scan (``app.scan``).

Reads the customer's cartridge from BOT to end of data without writing: the layout the
backup application wrote, the read rate per zone and per file, where the drive paused
while the host kept up (repositioning on reads: the proof that a slow restore is the
drive or the cartridge), error counters and TapeAlert, and a cartridge verdict.
Exit status: 0 keep, 10 monitor, 11 retire, 12 not assessed, 13 check again (seen once); a drive finding
(a TapeAlert flag, a worn head) raises it to 10 or 11; 1 failure, 3 refused, 130 cancelled.
"""
from __future__ import annotations

import argparse
import sys

from app.cli._drive_run import run_on_drive
from app.cli.commands import HELP
from app.scan import MediaScan, ScanParams, ScanResult
from app.scan.engine import RUN_KIND
from app.scan.results import where as zone_where
from native.units import plural, rate_text

EXIT_CANCELLED = 130
#: The cartridge memory figures the summary names (all of them are in --json).
CARTRIDGE_FIELDS = (("barcode", "barcode"), ("serial", "serial"), ("manufacturer", "made by"),
                    ("load_count", "loads"), ("mib_written_total", "MiB written in its life"),
                    ("mib_read_total", "MiB read in its life"))


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scan",
        help=HELP["scan"],
        description="Read-only: nothing is written, and a drive left in fixed-block mode is put back as found "
                    "(in a --read-only session the scan refuses instead of switching). Shows the files and block "
                    "sizes on the cartridge, the read rate per zone and per file, where the drive paused while the "
                    "host kept up (repositioning), error counter deltas, TapeAlert and a cartridge verdict.",
        epilog="exit status: 0 keep, 10 monitor, 11 retire, 12 not assessed (blank, or the read did not reach the end "
               "of the data), 13 check again (a slow stretch seen in one scan only); a drive finding (a TapeAlert flag, "
               "a worn head) raises it to 10 (watch) or 11 (act); 1 the device failed, 2 bad input, 3 refused, "
               "130 cancelled",
    )
    parser.add_argument("device", metavar="DEVICE",
                        help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    parser.add_argument("--limit", metavar="SIZE|DURATION",
                        help="stop after this much data (20G) or time (10min): a partial scan")
    parser.add_argument("--zone", metavar="SIZE", help="report the read rate per zone of this size (default 1GB)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    params = ScanParams.from_text(args.limit, args.zone)
    result = run_on_drive(args.device, RUN_KIND, params.to_dict(), lambda drive: MediaScan(drive, params),
                          as_json=args.json, text=summary_lines)
    if result.status == "cancelled":
        return EXIT_CANCELLED
    if result.status == "failed" and result.end_reason == "lost":
        print(f"tapediag: error: {result.error}", file=sys.stderr)
        return 1
    return result.exit_code


def summary_lines(result: ScanResult) -> list[str]:
    ph = result.read
    head = f"{result.device}: {result.vendor} {result.product}".rstrip() + (f", serial {result.serial}"
                                                                           if result.serial else "")
    lines = [head]
    if result.ltfs:
        lines.append(f"{result.ltfs.get('description', 'an LTFS volume')}: holds data "
                     f"(both partitions read, nothing written)")
    lines.append(f"cartridge: {result.verdict.value.upper()}")
    lines += [f"  - {r}" for r in result.reasons]
    for finding in result.findings:
        lines.append(f"{finding.culprit}: {finding.text}"
                     + (f" ({finding.severity})" if finding.severity != "information" else ""))
        if finding.action:
            lines.append(f"  what to do: {finding.action}")
    read = f"read {ph.bytes / 1e9:,.3f} GB in {ph.elapsed:,.1f} s"
    if ph.streaming_mb_per_s is not None:
        read += f", {rate_text(ph.streaming_mb_per_s)} streaming (overall {rate_text(ph.mb_s)})"
    lines.append(f"{read}; ended: {result.end_reason}" + (" (partial scan)" if result.partial else ""))
    repositions = ph.drive_stalls
    if repositions:
        where = ", ".join(f"{s.t:.1f}s" for s in repositions[:8]) + (" ..." if len(repositions) > 8 else "")
        lines.append(f"  the drive paused {plural(len(repositions), 'time')} "
                     f"while the host kept up (total {sum(s.latency for s in repositions):,.1f} s) at {where}")
    elif not ph.stalls:
        lines.append("  no pauses: the drive streamed the whole read")
    n = len(result.files)
    lines.append(f"layout: {plural(n, 'file')}, {plural(ph.filemarks, 'filemark')}, {plural(ph.ios, 'block')}")
    for f in result.files[:20]:
        size = (f"{f.min_block:,} bytes" if f.min_block == f.max_block else f"{f.min_block:,}-{f.max_block:,} bytes")
        rate = f", {rate_text(f.mb_s)}" if f.mb_s else ""
        where = f" (partition {f.partition})" if result.partitions > 1 else ""
        lines.append(f"  file {f.index}{where}: {plural(f.blocks, 'block')} of {size}, {f.bytes / 1e6:,.1f} MB{rate}")
    if n > 20:
        lines.append(f"  ... {plural(n - 20, 'more file')} (--json lists them all)")
    if result.oversize_blocks:
        lines.append(f"  {plural(result.oversize_blocks, 'block')} longer than {result.max_block_read:,} bytes: read truncated")
    if len(result.zones) > 1:
        rates = [z.mb_s for z in result.zones]
        zone = result.params["zone_bytes"]
        size = f"{zone / 1e9:,.1f} GB" if zone >= 1e9 else f"{zone / 1e6:,.0f} MB"
        lines.append(f"read rate per {size} zone: min {min(rates):,.1f}, max {max(rates):,.1f} MB/s "
                     f"over {plural(len(rates), 'zone')}")
    for z in result.slow_zones[:20]:
        lines.append(f"  slow zone {zone_where(z)}: the drive read it at {z.drive_mb_s:,.1f} MB/s "
                     f"(typical zone {z.typical_mb_s or result.typical_zone_mb_s or 0:,.1f} MB/s)")
    for d in result.log_deltas:
        if d.delta is not None and "read error" in d.name:
            lines.append(f"log: {d.name} +{d.delta}")
    lines += [f"note: {note}" for note in result.log_notes]
    if result.tapealert is not None:
        lines.append("TapeAlert after the scan: " + (", ".join(result.tapealert) or "no flags"))
    shown = [(label, result.cartridge.get(key)) for key, label in CARTRIDGE_FIELDS]
    if any(v is not None for _, v in shown):
        lines.append("cartridge memory: " + ", ".join(f"{label} {v}" for label, v in shown if v is not None))
    lines.append(f"drive settings: {result.settings}")
    return lines

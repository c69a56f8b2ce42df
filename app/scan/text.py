"""A media scan's result as ``tapediag scan`` prints it (and ``show`` prints it again)."""
from __future__ import annotations

from app.scan.results import ScanResult
from app.scan.results import where as zone_where
from native.units import plural, rate_text

#: The cartridge memory figures the summary names (all of them are in --json).
CARTRIDGE_FIELDS = (("barcode", "barcode"), ("serial", "serial"), ("manufacturer", "made by"),
                    ("load_count", "loads"), ("mib_written_total", "MiB written in its life"),
                    ("mib_read_total", "MiB read in its life"))


def summary_lines(result: ScanResult) -> list[str]:
    ph = result.read
    head = f"{result.device}: {result.vendor} {result.product}".rstrip() + (f", serial {result.serial}"
                                                                           if result.serial else "")
    lines = [head]
    if result.ltfs is not None:
        lines.append(f"{result.ltfs.describe()}: holds data (both partitions read, nothing written)")
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


__all__ = ["CARTRIDGE_FIELDS", "summary_lines"]

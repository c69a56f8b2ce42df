"""A media scan's result as ``tapediag scan`` prints it (and ``show`` prints it again)."""
from __future__ import annotations

from app.scan.results import ScanResult
from app.scan.results import where as zone_where
from native.units import MiB, block_text, count_text, duration_text, plural, rate_text, size_text

#: The cartridge memory figures the summary names (all of them are in --json): (key, words, how the value is written).
CARTRIDGE_FIELDS = (("barcode", "barcode", str), ("serial", "serial", str), ("manufacturer", "made by", str),
                    ("load_count", "loads", count_text),
                    ("mib_written_total", "written in its life", lambda mib: size_text(mib * MiB)),
                    ("mib_read_total", "read in its life", lambda mib: size_text(mib * MiB)))


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
    read = f"read {size_text(ph.bytes)} in {duration_text(ph.elapsed)}"
    if ph.streaming_mb_per_s is not None:
        read += f", {rate_text(ph.streaming_mb_per_s)} streaming (overall {rate_text(ph.mb_s)})"
    lines.append(f"{read}; ended: {result.end_reason}" + (" (partial scan)" if result.partial else ""))
    repositions = ph.drive_stalls
    if repositions:
        where = ", ".join(f"{s.t:.1f} s" for s in repositions[:8]) + (" ..." if len(repositions) > 8 else "")
        lines.append(f"  the drive paused {plural(len(repositions), 'time')} "
                     f"while the host kept up (total {duration_text(sum(s.latency for s in repositions))}) at {where}")
    elif not ph.stalls:
        lines.append("  no pauses: the drive streamed the whole read")
    n = len(result.files)
    lines.append(f"layout: {plural(n, 'file')}, {plural(ph.filemarks, 'filemark')}, {plural(ph.ios, 'block')}")
    for f in result.files[:20]:
        size = block_text(f.min_block) if f.min_block == f.max_block else f"{block_text(f.min_block)} to {block_text(f.max_block)}"
        rate = f", {rate_text(f.mb_s)}" if f.mb_s else ""
        where = f" (partition {f.partition})" if result.partitions > 1 else ""
        lines.append(f"  file {f.index}{where}: {plural(f.blocks, 'block')} of {size}, {size_text(f.bytes)}{rate}")
    if n > 20:
        lines.append(f"  ... {plural(n - 20, 'more file')} (--json lists them all)")
    if result.oversize_blocks:
        lines.append(f"  {plural(result.oversize_blocks, 'block')} longer than {block_text(result.max_block_read)}: read truncated")
    if len(result.zones) > 1:
        rates = [z.mb_s for z in result.zones]
        zone = result.params["zone_bytes"]
        lines.append(f"read rate per {size_text(zone)} zone: min {rate_text(min(rates))}, max {rate_text(max(rates))} "
                     f"over {plural(len(rates), 'zone')}")
    for z in result.slow_zones[:20]:
        lines.append(f"  slow zone {zone_where(z)}: the drive read it at {rate_text(z.drive_mb_s)} "
                     f"(typical zone {rate_text(z.typical_mb_s or result.typical_zone_mb_s or 0)})")
    lines += [f"drive counter: {d.name} during the scan: {d.change}" for d in result.log_deltas
              if d.delta is not None and "read error" in d.name]
    lines += [f"note: {note}" for note in result.log_notes]
    if result.tapealert is not None:
        lines.append("TapeAlert after the scan: " + (", ".join(result.tapealert) or "no flags"))
    shown = [(label, write(value)) for key, label, write in CARTRIDGE_FIELDS
             if (value := result.cartridge.get(key)) is not None]
    if shown:
        lines.append("cartridge memory: " + ", ".join(f"{label} {v}" for label, v in shown))
    lines.append(f"drive settings: {result.settings}")
    return lines


__all__ = ["CARTRIDGE_FIELDS", "summary_lines"]

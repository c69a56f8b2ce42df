"""Plain-text rendering of disk-test results, for the CLI (the GUI draws its own)."""
from __future__ import annotations

from app.disk.manifest import CleanResult
from app.disk.results import CreateDataResult, DiskResult, ReadDataResult
from app.disk.sizes import format_size
from native.units import plural, rate_text, size_text


def render(result: DiskResult) -> str:
    lines = [f"{result.kind} {result.target}: {result.status}"]
    if isinstance(result, CreateDataResult):
        model = f" (model {result.predicted_ratio:.2f}:1)" if result.predicted_ratio else ""
        flush = f" (final flush {result.flush_seconds:.2f} s)" if result.fsync == "end" else ""
        lines.append(f"  pattern {result.pattern}{model}, fsync {result.fsync}{flush}, {plural(len(result.streams), 'stream')}, "
                     f"{plural(result.dirs_created, 'directory')}")
    if isinstance(result, ReadDataResult):
        w = result.tree_walk
        lines.append(f"  tree walk: {plural(w.files, 'file')} in {plural(w.dirs, 'directory')}, {size_text(w.bytes)}, "
                     f"{w.seconds:.3f} s ({w.files_s:.0f} files/s)")
        mode = "direct I/O" if result.direct else ("evicted before read" if result.evict else "page cache allowed")
        lines.append(f"  buffer {format_size(result.buffer_size)}, {mode}, {plural(len(result.streams), 'stream')}")
    lines.append(f"  total: {plural(result.total_files, 'file')}, {size_text(result.total_bytes)} in {result.seconds:.3f} s "
                 f"-> {rate_text(result.mb_s)}, {result.files_s:,.0f} files/s (volume / slowest stream)")
    for s in result.streams:
        lines.append(f"    stream {s.stream}: {plural(s.files, 'file')}, {size_text(s.bytes)}, {s.seconds:.3f} s, "
                     f"{rate_text(s.mb_s)}, {s.files_s:,.0f} files/s" + (f", {plural(s.errors, 'error')}" if s.errors else ""))
    lat = result.latency
    if lat.count:
        lines.append(f"  per-file latency: mean {lat.mean_ms:.3f} ms, p50 {lat.p50_ms:.3f}, p90 {lat.p90_ms:.3f}, "
                     f"p99 {lat.p99_ms:.3f}, max {lat.max_ms:.3f} ms")
    if isinstance(result, ReadDataResult):
        lines += _raw_lines(result)
    if isinstance(result, ReadDataResult) and result.unreadable_count:
        lines.append(f"  unreadable: {result.unreadable_count}")
        lines += [f"    {u.path}: {u.error}" for u in result.unreadable[:20]]
        if result.unreadable_count > 20:
            lines.append(f"    ... and {result.unreadable_count - 20} more (--json lists up to "
                         f"{result.listed_at_most})")
    if result.error:
        lines.append(f"  stopped: {result.error}")
    if isinstance(result, CreateDataResult) and result.cleanup:
        lines.append(f"  cleanup: {result.cleanup}")
    lines += [f"  warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def _raw_lines(result: ReadDataResult) -> list[str]:
    """The raw probe's figure and the cache finding, in the words of ``app.disk.cache.read_cache``."""
    from app.disk.cache import read_cache

    lines = []
    probe = result.raw_probe
    if probe is not None:
        lines.append(f"  raw read ({probe.method}, the same data again): {plural(probe.files, 'file')}, "
                     f"{size_text(probe.bytes)} in {probe.seconds:.3f} s -> {rate_text(probe.mb_s)}")
    elif result.raw_probe_note:
        lines.append(f"  raw read: not measured ({result.raw_probe_note})")
    finding = read_cache(result)
    if finding is not None:
        lines.append(f"  cache: {finding.words}. {finding.detail}" + (f" {finding.action}" if finding.action else ""))
    return lines


def render_clean(result: CleanResult) -> str:
    text = (f"removed {plural(result.files_removed, 'file')} ({size_text(result.bytes_removed)}) and "
            f"{plural(result.dirs_removed, 'directory')} from {result.target}")
    if result.kept_dirs:
        text += f"; kept {plural(len(result.kept_dirs), 'directory')} holding files tapediag did not create"
    if result.unlisted_files:
        text += (f"\nleft {plural(result.unlisted_files, 'file')} named like tapediag's that its manifest does not list "
                 "(a killed run made them after its last save, or they are not tapediag's): check and remove them "
                 "by hand")
    return text

"""Plain-text rendering of disk-test results, for the CLI (the GUI draws its own)."""
from __future__ import annotations

from app.disk.manifest import CleanResult
from app.disk.results import CreateDataResult, DiskResult, ReadDataResult
from app.disk.sizes import format_size


def render(result: DiskResult) -> str:
    lines = [f"{result.kind} {result.target}: {result.status}"]
    if isinstance(result, CreateDataResult):
        model = f" (model {result.predicted_ratio:.2f}:1)" if result.predicted_ratio else ""
        flush = f" (final flush {result.flush_seconds:.2f} s)" if result.fsync == "end" else ""
        lines.append(f"  pattern {result.pattern}{model}, fsync {result.fsync}{flush}, {len(result.streams)} stream(s), "
                     f"{result.dirs_created} directories")
    if isinstance(result, ReadDataResult):
        w = result.tree_walk
        lines.append(f"  tree walk: {w.files} files in {w.dirs} directories, {format_size(w.bytes)}, "
                     f"{w.seconds:.3f} s ({w.files_s:.0f} files/s)")
        mode = "direct I/O" if result.direct else ("evicted before read" if result.evict else "page cache allowed")
        lines.append(f"  buffer {format_size(result.buffer_size)}, {mode}, {len(result.streams)} stream(s)")
    lines.append(f"  total: {result.total_files} files, {result.total_bytes / 1e6:.1f} MB in {result.seconds:.3f} s "
                 f"-> {result.mb_s:.1f} MB/s, {result.files_s:.0f} files/s (volume / slowest stream)")
    for s in result.streams:
        lines.append(f"    stream {s.stream}: {s.files} files, {s.bytes / 1e6:.1f} MB, {s.seconds:.3f} s, "
                     f"{s.mb_s:.1f} MB/s, {s.files_s:.0f} files/s" + (f", {s.errors} errors" if s.errors else ""))
    lat = result.latency
    if lat.count:
        lines.append(f"  per-file latency: mean {lat.mean_ms:.3f} ms, p50 {lat.p50_ms:.3f}, p90 {lat.p90_ms:.3f}, "
                     f"p99 {lat.p99_ms:.3f}, max {lat.max_ms:.3f} ms")
    if isinstance(result, ReadDataResult) and result.unreadable_count:
        lines.append(f"  unreadable: {result.unreadable_count}")
        lines += [f"    {u.path}: {u.error}" for u in result.unreadable[:20]]
        if result.unreadable_count > 20:
            lines.append(f"    ... and {result.unreadable_count - 20} more (--json lists up to "
                         f"{result.params.get('max_listed_unreadable', 1000)})")
    if result.error:
        lines.append(f"  stopped: {result.error}")
    if isinstance(result, CreateDataResult) and result.cleanup:
        lines.append(f"  cleanup: {result.cleanup}")
    lines += [f"  warning: {w}" for w in result.warnings]
    return "\n".join(lines)


def render_clean(result: CleanResult) -> str:
    text = (f"removed {result.files_removed} files ({format_size(result.bytes_removed)}) and "
            f"{result.dirs_removed} directories from {result.target}")
    if result.kept_dirs:
        text += f"; kept {len(result.kept_dirs)} directories that hold files tapediag did not create"
    if result.unlisted_files:
        text += (f"\nleft {result.unlisted_files} files named like tapediag's that its manifest does not list "
                 "(a killed run made them after its last save, or they are not tapediag's): check and remove them "
                 "by hand")
    return text

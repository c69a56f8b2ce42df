"""Typed results (``TapePerfResult``, ``CreateDataResult``, ``ReadDataResult``) arranged the way a technician
reads them: the figures first, the parameters last. Presentation only: no figure is computed here that the
engine did not compute, and every figure is written by ``native.units`` (``ui.format``)."""
from __future__ import annotations

from typing import Any

from app.disk.cache import read_cache
from app.disk.results import CreateDataResult, DiskResult, ReadDataResult
from app.tapeperf.results import PhaseResult, TapePerfResult
from native.units import percent, rate_text
from ui.format import human_bytes, human_duration, human_rate, human_size

Sections = list[tuple[str, Any, bool]]


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:,.2f} ms"


def _ratio(value: float | None, otherwise: str = "–") -> str:
    return f"{value:.2f}:1" if value else otherwise


def _overview(r: TapePerfResult) -> dict[str, Any]:
    overview: dict[str, Any] = {
        "status": r.status,
        "drive": " ".join(x for x in (r.vendor, r.product) if x) or r.device,
        "device": r.device,
        "generation": f"LTO-{r.generation}" if r.generation else "unknown",
        "rated native": human_rate(r.rated_native_mb_s),
        "rated compressed": human_rate(r.rated_compressed_mb_s),
        "predicted compression ratio": _ratio(r.predicted_ratio),
        "drive-reported ratio": _ratio(r.drive_ratio, r.drive_ratio_note or "–"),
        "compression": r.compression or "–",
    }
    if r.error:
        overview["error"] = r.error
    return overview


def _phase(r: TapePerfResult, ph: PhaseResult) -> dict[str, Any]:
    limiter, pct = r.judged(ph)
    data: dict[str, Any] = {
        "overall": rate_text(ph.mb_s, mib=True),
        "streaming": human_rate(ph.streaming_mb_per_s),
        "percent of possible": f"{percent(pct / 100)} of {r.possible_words}" if pct is not None else "—",
        "limited by": f"{limiter.who}: {limiter.why}",
        "data moved": human_bytes(ph.bytes),
        "I/Os": f"{ph.ios:,}",
        "filemarks": ph.filemarks,
        "elapsed": human_duration(ph.elapsed),
        "slowest / fastest second": f"{human_rate(ph.per_second_min_mb_s)} / {human_rate(ph.per_second_max_mb_s)}",
        "latency p50 / p99 / max": f"{_ms(ph.latency_p50)} / {_ms(ph.latency_p99)} / {_ms(ph.latency_max)}",
        "time to first byte": _ms(ph.time_to_first_byte),
        "stalls": ph.stall_count,
        "ended by": ph.end_reason or "–",
    }
    if ph.verified_blocks or ph.verify_errors:
        data["verified blocks"] = ph.verified_blocks
        data["verify errors"] = ph.verify_errors
        if ph.first_verify_error:
            data["first verify error"] = ph.first_verify_error
    if ph.error:
        data["error"] = ph.error
    if ph.stalls:
        data["stall times"] = [f"at {s.t:.2f} s: {s.latency:.2f} s" for s in ph.stalls[:50]]
    return data


def tapeperf_sections(r: TapePerfResult) -> Sections:
    """(title, data, expanded) sections for a tape performance result."""
    sections: Sections = [("Overview", _overview(r), True)]
    sections += [(ph.phase.capitalize(), _phase(r, ph), True) for ph in r.phases]
    deltas = {d.name: f"{d.before} → {d.after} (Δ {d.delta})" for d in r.log_deltas}
    if deltas or r.log_notes:
        sections.append(("Drive counters", {**deltas, **({"notes": r.log_notes} if r.log_notes else {})}, False))
    if r.tapealert:
        sections.append(("TapeAlert", r.tapealert, True))
    if r.messages:
        sections.append(("Messages", r.messages, False))
    sections.append(("Parameters", _tape_params(r.params), False))
    return sections


def _tape_params(p: dict[str, Any]) -> dict[str, Any]:
    """The stored parameters with their sizes in binary units (``native.units.block_text``)."""
    return {key: human_size(value) if key in ("block_size", "io_size", "filemarks_every", "size")
            and isinstance(value, int) and value else value for key, value in p.items()}


def disk_sections(r: DiskResult) -> Sections:
    """Sections for a create-data / read-data result."""
    overview: dict[str, Any] = {
        "status": r.status,
        "directory": r.target,
        "throughput": human_rate(r.mb_s),
        "files per second": f"{r.files_s:,.1f}",
        "files": f"{r.total_files:,}",
        "data": human_bytes(r.total_bytes),
        "time (slowest stream)": human_duration(r.seconds),
        "streams": len(r.streams),
        "hot loop": "C (GIL released)" if r.native else "Python",
    }
    if r.error:
        overview["error"] = r.error
    if isinstance(r, CreateDataResult) and r.pattern:
        overview["pattern"] = r.pattern
        if r.predicted_ratio:
            overview["predicted compression ratio"] = f"{r.predicted_ratio:.2f}:1"
    sections: Sections = [("Overview", overview, True)]
    if isinstance(r, ReadDataResult):
        tw = r.tree_walk
        sections.append(("Tree walk", {"files": f"{tw.files:,}", "directories": f"{tw.dirs:,}",
                                       "data": human_bytes(tw.bytes), "time": human_duration(tw.seconds),
                                       "files per second": f"{tw.files_s:,.0f}"}, True))
    lat = r.latency
    sections.append(("Per-file latency", {
        "files": f"{lat.count:,}",
        "mean / p50 / p90": f"{lat.mean_ms:.3f} / {lat.p50_ms:.3f} / {lat.p90_ms:.3f} ms",
        "p99 / max": f"{lat.p99_ms:.3f} / {lat.max_ms:.3f} ms"}, True))
    streams = {f"stream {s.stream}": f"{s.files:,} files, {human_bytes(s.bytes)} in {human_duration(s.seconds)}"
                                     + (f", {s.errors} errors" if s.errors else "") for s in r.streams}
    if streams:
        sections.append(("Streams", streams, False))
    if isinstance(r, ReadDataResult):
        sections += _read_sections(r)
    if r.warnings:
        sections.append(("Warnings", r.warnings, True))
    sections.append(("Parameters", r.params, False))
    return sections


def _read_sections(r: ReadDataResult) -> Sections:
    out: Sections = []
    if r.raw_probe is not None or r.raw_probe_note or r.device_mb_s:
        out.append(("Raw read and cache", _raw_read(r), True))
    if r.unreadable_count:
        out.append(("Unreadable files", [f"{u.path}: {u.error}" for u in r.unreadable], True))
    return out


def _raw_read(r: ReadDataResult) -> dict[str, str]:
    """The raw probe's figure and the cache finding of ``app.disk.cache.read_cache`` (the CLI's and the PDF's words)."""
    probe = r.raw_probe
    out: dict[str, str] = {}
    if probe is not None:
        out["raw read (O_DIRECT, the same data again)"] = (f"{human_rate(probe.mb_s)}: {probe.files:,} files, "
                                                            f"{human_bytes(probe.bytes)}")
    elif r.raw_probe_note:
        out["raw read"] = f"not measured ({r.raw_probe_note})"
    if r.device_mb_s:
        out["device's rate (as given)"] = human_rate(r.device_mb_s)
    finding = read_cache(r)
    if finding is not None:
        out["cache"] = f"{finding.words}. {finding.detail}" + (f" {finding.action}" if finding.action else "")
    return out

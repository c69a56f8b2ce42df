"""Result dicts (the engines' ``to_dict()`` forms) arranged the way a technician reads
them: the figures first, the parameters last. Presentation only: no figure is
computed here that the engine did not compute."""
from __future__ import annotations

from typing import Any

from native.units import percent, rate_text
from ui.format import human_bytes, human_duration, human_rate, human_size


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:,.2f} ms"


def _pct(value: float | None) -> str:
    """A 0-100 figure in the one percent style of ``native.units`` ("56%", as the CLI and PDF print it)."""
    return "–" if value is None else percent(value / 100)


def tapeperf_sections(r: dict) -> list[tuple[str, Any, bool]]:
    """(title, data, expanded) sections for a TapePerfResult.to_dict()."""
    gen = r.get("generation")
    overview = {
        "status": r.get("status"),
        "drive": " ".join(x for x in (r.get("vendor"), r.get("product")) if x) or r.get("device"),
        "device": r.get("device"),
        "generation": f"LTO-{gen}" if gen else "unknown",
        "rated native": human_rate(r.get("rated_native_mb_s")),
        "rated compressed": human_rate(r.get("rated_compressed_mb_s")),
        "predicted compression ratio": f"{r['predicted_ratio']:.2f}:1" if r.get("predicted_ratio") else "–",
        "drive-reported ratio": f"{r['drive_ratio']:.2f}:1" if r.get("drive_ratio") else (r.get("drive_ratio_note") or "–"),
        "compression": r.get("compression") or "–",
    }
    if r.get("error"):
        overview["error"] = r["error"]
    sections: list[tuple[str, Any, bool]] = [("Overview", overview, True)]
    for ph in r.get("phases", []):
        data = {
            "overall": rate_text(ph["mb_s"], mib=True) if ph.get("mb_s") is not None else "–",
            "streaming": human_rate(ph.get("streaming_mb_per_s")),
            "percent of possible": (f"{_pct(ph.get('percent_of_possible'))} of {r.get('possible_label')}"
                                    if ph.get("percent_of_possible") is not None else "—"),
            "limited by": f"{ph.get('limited_by')}: {ph.get('limited_why')}" if ph.get("limited_by") else "—",
            "data moved": human_bytes(ph.get("bytes")),
            "I/Os": f"{ph.get('ios', 0):,}",
            "filemarks": ph.get("filemarks", 0),
            "elapsed": human_duration(ph.get("elapsed")),
            "slowest / fastest second": f"{human_rate(ph.get('per_second_min_mb_s'))} / "
                                        f"{human_rate(ph.get('per_second_max_mb_s'))}",
            "latency p50 / p99 / max": f"{_ms(ph.get('latency_p50'))} / {_ms(ph.get('latency_p99'))} / "
                                       f"{_ms(ph.get('latency_max'))}",
            "time to first byte": _ms(ph.get("time_to_first_byte")),
            "stalls": ph.get("stall_count", 0),
            "ended by": ph.get("end_reason") or "–",
        }
        if ph.get("verified_blocks") or ph.get("verify_errors"):
            data["verified blocks"] = ph.get("verified_blocks")
            data["verify errors"] = ph.get("verify_errors")
            if ph.get("first_verify_error"):
                data["first verify error"] = ph["first_verify_error"]
        if ph.get("error"):
            data["error"] = ph["error"]
        if ph.get("stalls"):
            data["stall times"] = [f"at {s['t']:.2f} s: {s['latency']:.2f} s" for s in ph["stalls"][:50]]
        sections.append((ph["phase"].capitalize(), data, True))
    deltas = {d["name"]: f"{d.get('before')} → {d.get('after')} (Δ {d.get('delta')})"
              for d in r.get("log_deltas", [])}
    if deltas or r.get("log_notes"):
        sections.append(("Drive counters", {**deltas, **({"notes": r["log_notes"]} if r.get("log_notes") else {})}, False))
    if r.get("tapealert"):
        sections.append(("TapeAlert", r["tapealert"], True))
    if r.get("messages"):
        sections.append(("Messages", r["messages"], False))
    sections.append(("Parameters", _tape_params(r.get("params", {})), False))
    return sections


def _tape_params(p: dict) -> dict:
    out = dict(p)
    for key in ("block_size", "io_size", "filemarks_every"):
        if isinstance(out.get(key), int):
            out[key] = human_size(out[key]) if out[key] else "0"
    if isinstance(out.get("size"), int):
        out["size"] = human_size(out["size"])
    return out


def disk_sections(r: dict) -> list[tuple[str, Any, bool]]:
    """Sections for a create-data / read-data result dict."""
    overview = {
        "status": r.get("status"),
        "directory": r.get("target"),
        "throughput": human_rate(r.get("mb_s")),
        "files per second": f"{r.get('files_s', 0):,.1f}",
        "files": f"{r.get('total_files', 0):,}",
        "data": human_bytes(r.get("total_bytes")),
        "time (slowest stream)": human_duration(r.get("seconds")),
        "streams": len(r.get("streams", [])),
        "hot loop": "C (GIL released)" if r.get("native") else "Python",
    }
    if r.get("error"):
        overview["error"] = r["error"]
    if r.get("pattern"):
        overview["pattern"] = r["pattern"]
        if r.get("predicted_ratio"):
            overview["predicted compression ratio"] = f"{r['predicted_ratio']:.2f}:1"
    sections: list[tuple[str, Any, bool]] = [("Overview", overview, True)]
    tw = r.get("tree_walk")
    if tw:
        sections.append(("Tree walk", {"files": f"{tw.get('files', 0):,}", "directories": f"{tw.get('dirs', 0):,}",
                                       "data": human_bytes(tw.get("bytes")), "time": human_duration(tw.get("seconds")),
                                       "files per second": f"{tw.get('files_s', 0):,.0f}"}, True))
    lat = r.get("latency") or {}
    if lat:
        sections.append(("Per-file latency", {
            "files": f"{lat.get('count', 0):,}",
            "mean / p50 / p90": f"{lat.get('mean_ms', 0):.3f} / {lat.get('p50_ms', 0):.3f} / {lat.get('p90_ms', 0):.3f} ms",
            "p99 / max": f"{lat.get('p99_ms', 0):.3f} / {lat.get('max_ms', 0):.3f} ms"}, True))
    streams = {f"stream {s['stream']}": f"{s['files']:,} files, {human_bytes(s['bytes'])} in "
                                        f"{human_duration(s['seconds'])}" + (f", {s['errors']} errors" if s.get("errors") else "")
               for s in r.get("streams", [])}
    if streams:
        sections.append(("Streams", streams, False))
    probe = r.get("raw_probe")
    if probe or r.get("raw_probe_note") or r.get("device_mb_s"):
        sections.append(("Raw read and cache", _raw_read(r), True))
    if r.get("unreadable_count"):
        sections.append(("Unreadable files", [f"{u['path']}: {u['error']}" for u in r.get("unreadable", [])], True))
    if r.get("warnings"):
        sections.append(("Warnings", r["warnings"], True))
    sections.append(("Parameters", r.get("params", {}), False))
    return sections


def _raw_read(r: dict) -> dict[str, str]:
    """The raw probe's figure and the cache finding of ``app.runs.verdicts.read_cache`` (the CLI's and the PDF's words)."""
    from app.runs.verdicts import read_cache

    probe = r.get("raw_probe") or {}
    out: dict[str, str] = {}
    if probe:
        out["raw read (O_DIRECT, the same data again)"] = (f"{human_rate(probe.get('mb_s'))}: {probe.get('files', 0):,} files, "
                                                            f"{human_bytes(probe.get('bytes'))}")
    elif r.get("raw_probe_note"):
        out["raw read"] = f"not measured ({r['raw_probe_note']})"
    if r.get("device_mb_s"):
        out["device's rate (as given)"] = human_rate(r["device_mb_s"])
    finding = read_cache(r)
    if finding is not None:
        out["cache"] = f"{finding.words}. {finding.detail}" + (f" {finding.action}" if finding.action else "")
    return out

"""Result dicts (the engines' ``to_dict()`` forms) arranged the way a technician reads
them: the figures first, the parameters last. Presentation only: no figure is
computed here that the engine did not compute."""
from __future__ import annotations

from typing import Any

from ui.format import human_bytes, human_duration, human_rate, human_size


def _ms(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds * 1000:,.2f} ms"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0f} %"


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
            "overall": f"{human_rate(ph.get('mb_s'))} ({ph.get('mib_s', 0):,.1f} MiB/s)",
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
    if r.get("unreadable_count"):
        sections.append(("Unreadable files", [f"{u['path']}: {u['error']}" for u in r.get("unreadable", [])], True))
    if r.get("warnings"):
        sections.append(("Warnings", r["warnings"], True))
    sections.append(("Parameters", r.get("params", {}), False))
    return sections


INFO_SECTIONS = [
    ("media", "Media and mode"),
    ("block_limits", "Block limits (READ BLOCK LIMITS)"),
    ("compression", "Compression (mode page 0x0F)"),
    ("cartridge", "Cartridge memory (MAM)"),
    ("tapealerts", "TapeAlert"),
    ("write_errors", "Write error counters (log page 0x02)"),
    ("read_errors", "Read error counters (log page 0x03)"),
    ("cleaning_required", "Cleaning"),
    ("volume_statistics", "Volume statistics (log page 0x17)"),
    ("performance", "Performance (HP log page 0x34)"),
    ("temperature", "Temperature (log page 0x0D)"),
    ("device_status", "Device status (log page 0x11)"),
    ("device_statistics", "Device statistics (log page 0x14)"),
    ("ports", "SAS port (log page 0x18)"),
    ("diagnostics", "Tape diagnostic data (log page 0x16)"),
    ("non_medium_errors", "Non-medium errors (log page 0x06)"),
    ("encryption", "Encryption (SECURITY PROTOCOL IN 20h)"),
]


def _unwrap(section: Any) -> Any:
    """``{"supported": false, ...}`` -> the reason; ``{"supported": true, "value": x}`` -> x."""
    if not isinstance(section, dict) or "supported" not in section:
        return section
    if not section["supported"]:
        # The reason already says why ("not supported by this device", "no cartridge loaded",
        # the decoded error): shown as is, never wrapped in a second "not supported".
        return section.get("reason") or "not supported by this device"
    rest = {k: v for k, v in section.items() if k != "supported"}
    return rest["value"] if set(rest) == {"value"} else rest


def _density_as_named(section: dict) -> dict:
    """``density_code`` 96 + ``density_name`` LTO-9 -> ``density`` "LTO-9 (0x60)", as the CLI
    prints it: a bare 96 reads as a decimal count."""
    code, name = section.get("density_code"), section.get("density_name")
    density: str | None
    if isinstance(code, int):
        density = f"{name} (0x{code:02X})" if name else f"0x{code:02X}"
    else:
        density = name
    out: dict = {}
    for key, value in section.items():  # in place of the code, where it was
        if key in ("density_code", "density_name"):
            if density is not None and "density" not in out:
                out["density"] = density
            continue
        out[key] = value
    return out


def info_sections(info: dict) -> list[tuple[str, Any, bool]]:
    """Sections of a DriveInfo.to_dict(): identity first, every unsupported page said so."""
    ident = dict(info.get("identity") or {})
    gen = info.get("generation")
    ident["generation"] = f"LTO-{gen}" if gen else "unknown"
    ident["device"] = info.get("device")
    sections: list[tuple[str, Any, bool]] = [("Identity", ident, True)]
    for key, title in INFO_SECTIONS:
        value = _unwrap(info.get(key))
        if key == "tapealerts" and isinstance(value, list):
            # Flags by their hex number, as the verdict and the CLI name them ("14h"), with
            # the decimal one the drive's documentation (and tapealert=) may use beside it.
            value = {f"{a['code']:02X}h ({a['code']}) {a['name']}": f"{a['severity']}: {a['text']}"
                     for a in value} or "no flags set"
        if key in ("media", "cartridge") and isinstance(value, dict):
            value = _density_as_named(value)
        if key == "cleaning_required" and isinstance(value, bool):
            value = "Warning: the drive asks for cleaning" if value else "not requested"
        if key == "tapealerts" and info.get("tapealert_source") and isinstance(value, dict):
            value = {**value, "read from": info["tapealert_source"]}
        if key == "diagnostics" and value == []:
            value = "no errors recorded"
        if key == "cartridge" and isinstance(value, dict):
            value = {k: v for k, v in value.items() if k != "attributes"}
        expanded = key in ("media", "cartridge", "tapealerts", "write_errors", "read_errors")
        sections.append((title, value, expanded))
    return sections

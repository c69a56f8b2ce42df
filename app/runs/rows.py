"""The labelled, rounded rows a report shows for a run (``RunKind.fields``).

A handful of rows an engineer checks, each figure with its unit; every raw field stays
in the history, the support ticket and the report's ``--appendix``.
"""
from __future__ import annotations

from typing import Any

from app.runs import Results
from app.runs.words import count, date, density, duration, mb_s, volume

Rows = list[tuple[str, str]]


def _supported(res: Results, key: str) -> dict[str, Any]:
    """A drive-info section's fields when the drive answered it, else {}."""
    section = res.get(key) or {}
    return section if isinstance(section, dict) and section.get("supported") else {}


def tape_perf(res: Results) -> Rows:
    rows: Rows = []
    drive = " ".join(p for p in (res.get("vendor"), res.get("product")) if p)
    if res.get("generation"):
        drive += f" (LTO-{res['generation']})"
    if drive:
        rows.append(("Drive", drive))
    ratio = res.get("drive_ratio")
    rows.append(("Data and compression", f"pattern {(res.get('params') or {}).get('pattern', '—')}, compression "
                 f"{res.get('compression') or '—'}" + (f", the drive compressed {ratio:.2f}:1" if ratio else "")))
    for ph in res.get("phases") or []:
        name = str(ph.get("phase", "")).capitalize()
        rows.append((name, f"{volume(ph.get('bytes'))} in {duration(ph.get('elapsed'))}; ended: "
                           f"{ph.get('end_reason') or '—'}" + (f"; error: {ph['error']}" if ph.get("error") else "")))
        rate = f"{mb_s(ph.get('mb_s'))} overall"
        if ph.get("per_second_min_mb_s") is not None and ph.get("per_second_max_mb_s") is not None:
            rate += f"; each second between {mb_s(ph['per_second_min_mb_s'])} and {mb_s(ph['per_second_max_mb_s'])}"
        rows.append((f"{name} rate", rate))
        latency = (f"median {duration(ph.get('latency_p50'))}, 99th percentile {duration(ph.get('latency_p99'))}, "
                   f"max {duration(ph.get('latency_max'))}")
        if ph.get("flush_seconds"):
            latency += f"; buffer flushed in {duration(ph['flush_seconds'])}"
        rows.append((f"{name} command time", latency))
        rows.append((f"{name} commands", f"{count(ph.get('ios'), 'I/Os')}, {count(ph.get('blocks'), 'block')}, "
                                         f"{count(ph.get('filemarks'), 'filemark')}, "
                                         f"{count(len(ph.get('stalls') or []), 'slow I/O')}"))
        if ph.get("verified_blocks") or ph.get("verify_errors"):
            rows.append((f"{name} verify", f"{count(ph.get('verified_blocks'), 'block')} checked, "
                                           f"{count(ph.get('verify_errors'), 'error')}"))
    counters = []
    for delta in res.get("log_deltas") or []:
        if delta.get("delta") is not None:
            value = delta["delta"]
            shown = volume(value) if "bytes" in str(delta.get("name")) else f"{value:,}"
            counters.append(f"{delta['name']} {'+' if value >= 0 else ''}{shown}")
    if counters:
        rows.append(("Drive counters during the test", "; ".join(counters)))
    if res.get("tapealert"):
        rows.append(("TapeAlert after the test", "; ".join(res["tapealert"])))
    if res.get("settings"):
        rows.append(("Drive settings", str(res["settings"])))
    return rows


def drive_info(res: Results) -> Rows:
    """What the device section does not show already: the cartridge, the counters, the drive's own figures."""
    rows: Rows = []
    cart, media = _supported(res, "cartridge"), _supported(res, "media")
    if cart:
        made = " ".join(p for p in (f"made {date(cart.get('manufacture_date'))}" if cart.get("manufacture_date") else "",
                                    f"by {cart['manufacturer']}" if cart.get("manufacturer") else "") if p)
        rows.append(("Cartridge", ", ".join(p for p in (str(cart.get("barcode") or "no barcode"), cart.get("medium_type"),
                                                        density(cart.get("density_code")), made,
                                                        count(cart["load_count"], "load") if cart.get("load_count")
                                                        is not None else "") if p)))
        if cart.get("maximum_capacity_mib") is not None:
            rows.append(("Cartridge capacity", f"{volume(cart['maximum_capacity_mib'] * 2**20)}, "
                                               f"{volume((cart.get('remaining_capacity_mib') or 0) * 2**20)} free"))
        if cart.get("mib_written_total") is not None:
            rows.append(("Cartridge life", f"{volume(cart['mib_written_total'] * 2**20)} written, "
                                           f"{volume((cart.get('mib_read_total') or 0) * 2**20)} read"))
    if media:
        rows.append(("Loaded medium", ", ".join(p for p in (
            density(media.get("density_code"), media.get("density_name")), f"{media.get('block_mode', '?')} block",
            "write-protected" if media.get("write_protected") else "writable") if p)))
    errors = []
    for key, name in (("write_errors", "Write"), ("read_errors", "Read")):
        sec = _supported(res, key)
        if sec:
            errors.append(f"{name}: {sec.get('corrected', 0):,} corrected, {sec.get('uncorrected', 0):,} uncorrected")
    if errors:
        rows.append(("Error counters", "; ".join(errors)))
    stats = (_supported(res, "device_statistics").get("figures") or {})
    if stats:
        rows.append(("Drive life", ", ".join(p for p in (
            f"{stats['lifetime_power_on_hours']:,} power-on hours" if "lifetime_power_on_hours" in stats else "",
            f"{stats['lifetime_volume_loads']:,} loads" if "lifetime_volume_loads" in stats else "",
            f"{stats['lifetime_metres_processed'] / 1000:,.0f} km of tape" if "lifetime_metres_processed" in stats else "",
            f"{stats['head_hours_since_last_cleaning']:,} head hours since cleaning"
            if "head_hours_since_last_cleaning" in stats else "") if p)))
    perf = _supported(res, "performance")
    if perf.get("native_mb_s"):
        rows.append(("Drive rating", f"{mb_s(perf['native_mb_s'])} native"
                     + (f", {perf['repositions_per_100mb']:,} repositions per 100 MB"
                        if perf.get("repositions_per_100mb") is not None else "")))
    temp = _supported(res, "temperature")
    if temp.get("celsius") is not None:
        rows.append(("Temperature", f"{temp['celsius']} °C"))
    comp, enc = _supported(res, "compression"), _supported(res, "encryption")
    if comp:
        rows.append(("Compression", "enabled" if comp.get("enabled") else "disabled"))
    if enc:
        rows.append(("Encryption", f"{enc.get('mode', '—')}" + (f" ({', '.join(enc['algorithms'])} capable)"
                                                                 if enc.get("algorithms") else "")))
    clean = res.get("cleaning_required") or {}
    if clean.get("supported"):
        rows.append(("Cleaning required", "yes" if clean.get("value") else "no"))
    return rows


def disk(res: Results) -> Rows:
    rows: Rows = [("Directory", str(res.get("target") or "—")),
                  ("Volume", f"{volume(res.get('total_bytes'))} in {count(res.get('total_files'), 'file')}, "
                             f"{duration(res.get('seconds'))}")]
    for st in res.get("streams") or []:
        rows.append((f"Stream {st.get('stream', '?')}", f"{mb_s(st.get('mb_s'))}, {st.get('files_s') or 0:,.0f} files/s, "
                                                        f"{volume(st.get('bytes'))}, {count(st.get('errors'), 'error')}"))
    lat = res.get("latency") or {}
    if lat.get("p50_ms") is not None:
        rows.append(("Time per file", f"median {duration(lat['p50_ms'] / 1000)}, 99th percentile "
                                      f"{duration((lat.get('p99_ms') or 0) / 1000)}, max {duration((lat.get('max_ms') or 0) / 1000)}"))
    if res.get("flush_seconds"):
        rows.append(("Flush to disk", duration(res["flush_seconds"])))
    if res.get("unreadable_count"):
        rows.append(("Unreadable files", f"{res['unreadable_count']:,}"))
    return rows


def tape_perf_multi(res: Results) -> Rows:
    """Several drives at once: the aggregate against the sum alone, then each drive alone and together."""
    rows: Rows = []
    for i, d in enumerate(res.get("drives") or [], 1):  # "drive N" is what the plot's legend calls it
        together = d.get("together") or {}
        product = " ".join(p for p in (together.get("vendor"), together.get("product")) if p)
        gen = f" (LTO-{together['generation']})" if together.get("generation") else ""
        rows.append((f"Drive {i}", f"{d.get('device', '—')}" + (f": {product}{gen}" if product else "")))
    for ph in res.get("phases") or []:
        name = str(ph.get("phase", "")).capitalize()
        if ph.get("mb_s") is not None:
            rows.append((f"{name}, all together", f"{mb_s(ph['mb_s'])} over {duration(ph.get('seconds'))} in which "
                                                  f"every drive streamed ({volume(ph.get('bytes'))})"))
        if ph.get("sum_alone_mb_s") is not None:
            ratio = f", {ph['ratio']:.0%} of it together" if ph.get("ratio") is not None else ""
            rows.append((f"{name}, sum alone", f"{mb_s(ph['sum_alone_mb_s'])}{ratio}"))
        rows.append((f"{name} verdict", f"{ph.get('verdict', '—')}: {ph.get('why') or '—'}"))
    for i, d in enumerate(res.get("drives") or [], 1):
        together, alone = d.get("together") or {}, d.get("alone") or {}
        for ph in together.get("phases") or []:
            name = ph.get("phase", "")
            was = next((a for a in alone.get("phases") or [] if a.get("phase") == name), None)
            rate = ph.get("streaming_mb_per_s") if ph.get("streaming_mb_per_s") is not None else ph.get("mb_s")
            text = f"together {mb_s(rate)}"
            if was is not None:
                before = was.get("streaming_mb_per_s") if was.get("streaming_mb_per_s") is not None else was.get("mb_s")
                text = f"alone {mb_s(before)}, " + text + (f" ({rate / before:.0%})" if before and rate is not None else "")
            rows.append((f"Drive {i} {name}", f"{text}; {volume(ph.get('bytes'))}; ended: {ph.get('end_reason') or '—'}"
                                              + (f"; error: {ph['error']}" if ph.get("error") else "")))
        if together.get("settings"):
            rows.append((f"Drive {i} settings", str(together["settings"])))
    if res.get("cpu_share") is not None and res.get("cpus"):
        busy = f"; all processes {res['host_busy']:.0%}" if res.get("host_busy") is not None else ""
        rows.append(("Host CPU while together", f"{res['cpu_share']:.0%} of {count(res['cpus'], 'core')} "
                                               f"(tapediag's process){busy}"))
    return rows

"""Building a ``Report`` from history runs (any mix of kinds, one or many devices)."""
from __future__ import annotations

import re
from datetime import datetime, timezone
from typing import Any, Iterable

from app import __version__
from app import runs as run_kinds
from app.history import History, Run, ThroughputPoint
from app.history.summary import distinct_figures, figure_name
from app.troubleshoot import fmt
from app.troubleshoot.fromhistory import drive_from_run
from native.errors import InvalidParameter

from .model import (AppendixBlock, BottleneckRow, BottleneckSection, Cover, DeviceSection, Field, Plot,
                    RecommendationItem, Report, RunSection, SeriesData)

_CLI_NOISE = ("json", "command", "func", "samples_csv")  # how the run was asked for, not what it measured
# Raw pages ("evidence", "raw_pages") stay in the history and the support ticket, never in a customer's PDF.
_SKIP_IN_BODY = ("samples", "tables", "recommendations", "facts", "input", "log_deltas", "stalls", "evidence",
                 "raw_pages", "tape")
# A drive-info snapshot's body: what the Devices section does not show already.
_DRIVE_INFO_IN_DEVICE_SECTION = ("device", "identity", "generation", "health", "tapealerts")


def _drive_info_body(res: dict) -> dict:
    """``DriveInfo.to_dict()`` for the run section: sections unwrapped ({supported: true,
    value: x} -> x, {supported: false, reason} -> the reason), the raw MAM attribute list
    (its fields are under "cartridge" already) and what the Devices section shows left out."""
    out: dict = {}
    for key, value in res.items():
        if key in _DRIVE_INFO_IN_DEVICE_SECTION:
            continue
        if isinstance(value, dict) and "supported" in value:
            if not value["supported"]:
                value = value.get("reason", "not supported")
            elif "value" in value:
                value = value["value"]
            else:
                value = {k: v for k, v in value.items() if k not in ("supported", "attributes")}
        out[key] = value
    return out


_UNITS = re.compile(r"\b(mib|mb|wwn|100mb)\b")


def label(path: str) -> str:
    """'phases.write.mb_s' -> 'Phases › write › MB/s' — readable without a glossary."""
    parts = []
    for part in path.split("."):
        words = part.replace("mb_s", "MB/s").replace("mib_s", "MiB/s").replace("_", " ").strip()
        parts.append(_UNITS.sub(lambda m: m.group(0).upper().replace("MIB", "MiB").replace("100MB", "100 MB"), words))
    text = " › ".join(parts)
    return text[:1].upper() + text[1:]


def value_text(key: str, value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        text = f"{value:,}" if abs(value) >= 10000 else str(value)
        if key.endswith(("size", "_bytes")) or key == "bytes":
            return f"{text} ({_size(value, binary=key.endswith('size'))})" if value >= 1000 else text
        return text
    if isinstance(value, float):
        if "mb_s" in key or "mib_s" in key:
            return fmt(value)
        return format(value, ".4f").rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    if isinstance(value, list):
        return ", ".join(value_text(key, v) for v in value) if all(not isinstance(v, (dict, list)) for v in value) else f"{len(value)} items"
    return str(value)


def _size(n: int, *, binary: bool) -> str:
    """Block and file sizes in binary units (256 KiB), volumes in decimal ones (67.1 MB)."""
    base, units = (1024, ("KiB", "MiB", "GiB", "TiB")) if binary else (1000, ("KB", "MB", "GB", "TB"))
    value, unit = float(n), "B"
    for u in units:
        if value < base:
            break
        value, unit = value / base, u
    return f"{value:.4g} {unit}"


def flatten(data: Any, prefix: str = "", skip: tuple[str, ...] = ()) -> list[Field]:
    """Nested dicts/lists to labelled fields; list items named by their 'phase'/'name' when they have one."""
    out: list[Field] = []
    if isinstance(data, dict):
        for key, value in data.items():
            if key in skip:
                continue
            path = f"{prefix}.{key}" if prefix else str(key)
            if isinstance(value, (dict, list)) and value and (isinstance(value, dict) or all(isinstance(v, dict) for v in value)):
                out.extend(flatten(value, path, skip))
            else:
                out.append(Field(label(path), value_text(str(key), value)))
    elif isinstance(data, list):
        for i, item in enumerate(data):
            name = (item.get("phase") or item.get("name") or item.get("stream")) if isinstance(item, dict) else None
            out.extend(flatten(item, f"{prefix}.{name if name not in (None, '') else i + 1}", skip))
    return out


def _headline(run: Run) -> tuple[Field, ...]:
    res = run.results or {}
    if run.kind == "troubleshoot":
        return tuple(Field(t["direction"].capitalize(), f"bottleneck: {t.get('bottleneck_label') or 'not determined'}")
                     for t in res.get("tables", []))
    if run.kind == "drive-info":
        verdict = (res.get("health") or {}).get("verdict")
        return (Field("Health", str(verdict)),) if verdict else ()
    if run.kind == "tape-perf" and res.get("phases") and "possible_label" in res:
        from app.tapeperf.results import phase_headline

        return tuple(Field(str(ph["phase"]).capitalize(),
                           phase_headline({**ph, "possible_label": res["possible_label"]}).split(" ", 1)[1])
                     for ph in res["phases"]) + tuple(
            Field(f"{str(ph['phase']).capitalize()} limited by", f"{ph['limited_by']}: {ph['limited_why']}")
            for ph in res["phases"] if ph.get("limited_by"))
    line = run_kinds.headline(run.kind, res)
    if line:
        return (Field("Result", line),)
    return tuple(Field(label(figure_name(path)), f"{fmt(value)} MB/s") for path, value in distinct_figures(res)[:6])


def _plot(runs: Iterable[tuple[Run, dict[str, list[ThroughputPoint]]]], title: str, with_run_id: bool) -> Plot | None:
    series = []
    for run, by_phase in runs:
        for phase, points in by_phase.items():
            name = f"Run {run.id} {phase}" if with_run_id else phase
            series.append(SeriesData(name, tuple((p.t, p.mb_s) for p in points)))
    return Plot(title, tuple(series)) if series else None


def _drive_info_facts(res: dict) -> tuple[dict[str, str], str, list[Field], list[str]]:
    """Identity, health verdict, health details and alerts from a ``drive-info`` run.

    Its results are exactly ``app.info.DriveInfo.to_dict()``: ``identity`` {vendor,
    product, revision, serial, wwn}, ``generation`` (int), ``health`` {verdict,
    reasons}, ``tapealerts`` {supported, value: [{code, name, severity, text}]} or
    {supported: false, reason}, ``cartridge`` {supported, barcode, ...}.
    """
    ident = res.get("identity") or {}
    identity = {label(k): str(ident[k]) for k in ("vendor", "product", "revision", "serial", "wwn") if ident.get(k)}
    if res.get("generation"):
        identity["Generation"] = f"LTO-{res['generation']}"
    cart = res.get("cartridge") or {}
    if cart.get("supported") and cart.get("barcode"):
        identity["Cartridge"] = f"{cart['barcode']}" + (f" ({cart['medium_type']})" if cart.get("medium_type") else "")
    health = res.get("health") or {}
    details = [Field("Reason", str(r)) for r in health.get("reasons") or []]
    ta = res.get("tapealerts") or {}
    alerts: list[str] = []
    if ta.get("supported"):
        alerts = [f"TapeAlert {a['code']:02X}h {a['name']} ({a['severity']}): {a['text']}" for a in ta.get("value") or []]
        if not alerts:
            details.append(Field("TapeAlert", "no flags set"))
    elif ta:
        details.append(Field("TapeAlert", str(ta.get("reason", "not read"))))
    return identity, str(health.get("verdict", "")), details, alerts


def _device_section(device: str, runs: list[Run]) -> DeviceSection:
    """Identity and health of one device. ``runs`` are newest first: the newest
    ``drive-info`` snapshot gives identity, health and TapeAlert flags; other runs
    fill in what they know (a tape-perf run's vendor/product/generation and the
    TapeAlert flags it saw, a disk run's warnings)."""
    identity: dict[str, str] = {}
    health, details, alerts = "", list[Field](), list[str]()
    snapshot = next((r for r in runs if r.kind == "drive-info" and r.results), None)
    if snapshot is not None:
        identity, health, details, alerts = _drive_info_facts(snapshot.results or {})
    for run in runs:
        res = run.results or {}
        ctx = drive_from_run(run) if run.kind != "drive-info" else None
        if ctx and ctx.serial and "Serial" not in identity:
            identity["Serial"] = ctx.serial
        if ctx and ctx.description and not {"Vendor", "Product", "Drive"} & set(identity):
            identity["Drive"] = ctx.description
        if ctx and ctx.generation and "Generation" not in identity:
            identity["Generation"] = f"LTO-{ctx.generation}"
        for item in (res.get("tapealert") or []) + (res.get("warnings") or []):  # tape-perf / disk runs: sentences
            if isinstance(item, str) and item not in alerts:
                alerts.append(item)
    return DeviceSection(device, tuple(Field(k, v) for k, v in identity.items()), health, tuple(details), tuple(alerts))


def _run_section(run: Run, by_phase: dict[str, list[ThroughputPoint]]) -> RunSection:
    res = run.results or {}
    messages = [m for m in (res.get("messages") or []) if isinstance(m, str)]
    if run.error:
        messages.insert(0, f"Error: {run.error}")
    own = run_kinds.fields(run.kind, res)  # the kind's own report rows, when it has them
    return RunSection(
        run_id=run.id, kind=run.kind, title=f"{run_kinds.title(run.kind)} — {run.device or 'no device'}",
        device=run.device, status=run.status, started_at=run.started_at, finished_at=run.finished_at or "—",
        headline=_headline(run),
        parameters=tuple(f for f in (flatten(run.params, skip=_SKIP_IN_BODY + _CLI_NOISE) if run.kind != "troubleshoot"
                                     else flatten(run.params.get("workload", {}))) if f.value not in ("—", "")),
        results=tuple(Field(label_text, value) for label_text, value in own) if own is not None else tuple(
            f for f in flatten(_drive_info_body(res) if run.kind == "drive-info" else res,
                               skip=_SKIP_IN_BODY + ("messages", "params"))
            if run.kind != "troubleshoot" and f.value not in ("—", "")),
        messages=tuple(messages),
        plot=_plot([(run, by_phase)], f"Throughput of run {run.id}", with_run_id=False),
    )


def _referenced_runs(run: Run) -> list[int]:
    """History runs a troubleshooting session took its figures (or its drive) from."""
    if run.kind != "troubleshoot":
        return []
    measurements = (run.params or {}).get("measurements") or {}
    return [m["run_id"] for m in measurements.values() if isinstance(m, dict) and isinstance(m.get("run_id"), int)]


def build_report(history: History, run_ids: list[int], *, customer: str = "", site: str = "", technician: str = "",
                 ticket: str = "", date: str | None = None, title: str = "Tape and disk diagnostics report",
                 include_referenced: bool = True, appendix: bool = False) -> Report:
    """The report for ``run_ids`` (in the order given; unknown ids raise InvalidParameter).

    A troubleshooting session brings along the runs its figures came from (``include_referenced``),
    so the customer sees the measurements behind the verdict, not only the verdict.
    """
    ids = list(dict.fromkeys(run_ids))
    runs = [history.get_run(i, samples=False) for i in ids]
    if include_referenced:
        for run in list(runs):
            for ref in _referenced_runs(run):
                if ref not in ids:
                    try:
                        runs.append(history.get_run(ref, samples=False))
                        ids.append(ref)
                    except InvalidParameter:  # deleted since the session: its figure is still in the table
                        pass
    # Binned straight from SQLite rows: an hour-long test has millions of samples.
    series = {r.id: history.throughput(r.id) if r.sample_count else {} for r in runs}
    bottlenecks: list[BottleneckSection] = []
    recommendations: list[RecommendationItem] = []
    notes: list[str] = []
    verdicts: list[str] = []
    for run in runs:
        if run.kind != "troubleshoot" or not run.results:
            continue
        res = run.results
        verdicts.append(res.get("verdict", ""))
        notes.extend(res.get("notes", []))
        for table in res.get("tables", []):
            rows = tuple(BottleneckRow(r["test"], fmt(r["mb_s"]), r["bottleneck_text"], r.get("source", ""),
                                       bool(r["bottleneck"])) for r in table["rows"])
            bottlenecks.append(BottleneckSection(run.id, table["direction"].capitalize(), rows, table["verdict"]))
        for rec in res.get("recommendations", []):
            item = RecommendationItem(rec["severity"], rec["title"], rec["advice"], rec["reason"], rec["source"])
            if item not in recommendations:
                recommendations.append(item)
    by_device: dict[str, list[Run]] = {}
    for run in sorted(runs, key=lambda r: -r.id):
        if run.device:
            by_device.setdefault(run.device, []).append(run)
    sections = tuple(_run_section(r, series[r.id]) for r in runs)
    summary_rows = tuple(
        (f"#{s.run_id}", run_kinds.title(s.kind), s.device or "—",
         "; ".join(f"{f.label} {f.value}" if s.kind != "troubleshoot" else f"{f.label}: {f.value.split(': ', 1)[-1]}"
                   for f in s.headline) or s.status)
        for s in sections
    )
    verdict = " ".join(v for v in verdicts if v)
    if verdict:
        summary = verdict
    else:
        summary = "; ".join(f"{row[1]} on {row[2]}: {row[3]}" for row in summary_rows)
    plotted = [(r, series[r.id]) for r in runs if series[r.id]]
    comparison = _plot(plotted, "Throughput of all runs compared", with_run_id=True) if len(plotted) > 1 else None
    blocks = []
    for run in (runs if appendix else []):  # the raw figures only when asked (--appendix)
        facts = [Field("Kind", run.kind), Field("Device", run.device or "—"), Field("Status", run.status),
                Field("Started (UTC)", run.started_at), Field("Finished (UTC)", run.finished_at or "—"),
                Field("tapediag version", run.version), Field("Samples stored", f"{run.sample_count:,}")]
        if run.sample_count:
            stats = history.sample_stats(run.id)
            facts += [Field("Bytes in samples", f"{stats['bytes']:,}"),
                     Field("Sampled time (s)", value_text("t", float(stats["seconds"])))]
        facts += [Field(f"Parameter › {f.label}", f.value) for f in flatten(run.params, skip=("samples",))
                 if f.value != "—"]
        # A troubleshooting run's tables and advice are in the body already; its facts are the raw figures.
        skip = ("samples", "input", "evidence", "raw_pages") + (
            ("tables", "recommendations", "verdict", "notes") if run.kind == "troubleshoot" else ())
        facts += [Field(f"Result › {f.label}", f.value) for f in flatten(run.results or {}, skip=skip)
                 if f.value not in ("—", "")]
        blocks.append(AppendixBlock(f"Run #{run.id} — {run_kinds.title(run.kind)}", tuple(facts)))
    cover = Cover(title=title, customer=customer, site=site, technician=technician, ticket=ticket,
                  date=date or datetime.now(timezone.utc).date().isoformat(), tool_version=__version__, summary=summary)
    return Report(cover=cover, devices=tuple(_device_section(d, rs) for d, rs in by_device.items()),
                  summary_rows=summary_rows, bottlenecks=tuple(bottlenecks), verdict=verdict,
                  recommendations=tuple(recommendations), notes=tuple(dict.fromkeys(notes)), runs=sections,
                  comparison=comparison, appendix=tuple(blocks))

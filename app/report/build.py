"""Building a ``Report`` from history runs (any mix of kinds, one or many devices).

Every run is read into its kind's typed result once (``app.runs.stored.load``); every kind's words
come from its ``RunKind``: its verdicts (page 1), its headline and its report rows. Nothing here
knows what a tape-perf or a disk run holds, except the troubleshooting session's bottleneck tables,
which the report draws as charts. A run whose results cannot be read stops the report with one line
naming it (``DamagedResult``), never a section of empty figures.
"""
from __future__ import annotations

import socket
from datetime import datetime, timezone
from typing import Any

from app import __version__
from app.catalog import KINDS  # noqa: F401  (installs the run kinds the report words)
from app.compare.model import Comparison
from app.history import History, Run, ThroughputPoint
from app.runs import registry
from app.runs.stored import Loaded, load
from app.runs.words import mb_s, when
from app.troubleshoot.model import BottleneckTable, Diagnosis, TroubleshootInput
from native.errors import InvalidParameter

from .devices import device_section
from .model import (AppendixBlock, Bar, BarChart, BottleneckRow, BottleneckSection, Cover, Field, Headline, Plot,
                    RecommendationItem, Report, RunSection, SeriesData)
from .plots import stretches_of, throughput_plot
from .values import flatten, label, value_text

__all__ = ["build_report", "flatten", "host_name", "label", "parameter_fields", "result_fields", "value_text"]

_CLI_NOISE = ("json", "command", "func", "samples_csv", "chap_secret_file", "read_only")  # how, not what
# Raw pages ("evidence", "raw_pages") stay in the history and the support ticket, never in a customer's PDF.
_SKIP_IN_BODY = ("samples", "tables", "recommendations", "facts", "input", "log_deltas", "stalls", "evidence",
                 "raw_pages", "tape")
# Page 1's order: the drive, then the rates, then what holds them back, then the rest.
_TOPIC_ORDER = ("Drive health", "Drive alarms during the test", "Drive assessment", "Backup bottleneck",
                "Restore bottleneck", "First recommendation", "Tape write rate", "Tape read rate",
                "Drives together (write)", "Drives together (read)", "Cartridge", "Drive (seen in the scan)",
                "Connection to the drive")


def _plot(by_phase: dict[str, list[ThroughputPoint]], title: str, loaded: Loaded[Any]) -> Plot | None:
    series = tuple(SeriesData(phase, tuple((p.t, p.mb_s) for p in points)) for phase, points in by_phase.items())
    return throughput_plot(title, series, loaded.yardstick(), loaded.scale(), stretches_of(loaded))


def _messages(loaded: Loaded[Any]) -> list[str]:
    """The messages a result carries (the tape tests' "size capped to the cartridge" ...), the run's error first."""
    own = getattr(loaded.result, "messages", None) or []
    messages = [m for m in own if isinstance(m, str)]
    return ([f"Error: {loaded.run.error}"] if loaded.run.error else []) + messages


def _run_section(run: Run, loaded: Loaded[Any], by_phase: dict[str, list[ThroughputPoint]]) -> RunSection:
    found = loaded.findings()
    line = loaded.headline()
    headline = tuple(Field(f.topic, f.words) for f in found) or ((Field("Result", line),) if line else ())
    own = loaded.rows()
    return RunSection(
        run_id=run.id, kind=run.kind, title=f"{registry.title(run.kind)} — {run.device or 'no device'}",
        device=run.device, status=run.status, started_at=when(run.started_at), finished_at=when(run.finished_at),
        headline=headline,
        parameters=parameter_fields(run, loaded),
        results=tuple(Field(name, value) for name, value in own or ()),
        messages=tuple(_messages(loaded)),
        plot=_own_plot(loaded) or _plot(by_phase, f"Throughput of run {run.id}", loaded),
    )


def parameter_fields(run: Run, loaded: Loaded[Any]) -> tuple[Field, ...]:
    """The run's parameter line: labelled by its kind's field table (``app.runs.fields``), each value with its unit;
    a kind without one (a troubleshooting session's workload, a kind this version does not know) listed as stored."""
    if loaded.kind is not None and (loaded.kind.fields or loaded.kind.parameters):
        return tuple(Field(label, value) for label, value in loaded.kind.parameter_rows(run.params))
    return tuple(f for f in flatten(run.params, skip=_SKIP_IN_BODY + _CLI_NOISE) if f.value not in ("—", ""))


def result_fields(run: Run, loaded: Loaded[Any]) -> tuple[Field, ...]:
    """The run's results for people: its kind's labelled rows (the report's "Measured"), else its stored figures
    listed as the appendix lists them, each labelled and with its unit (``flatten``); never a raw key."""
    own = loaded.rows()
    if own is not None:
        return tuple(Field(name, value) for name, value in own)
    skip = _SKIP_IN_BODY + _CLI_NOISE + ("identities", "curves", "result_version", "verdict", "notes")
    return tuple(f for f in flatten(run.results or {}, skip=skip) if f.value not in ("—", ""))


def _own_plot(loaded: Loaded[Any]) -> Plot | None:
    """The curves a run kind carries in its result (each drive and their aggregate), when it has any."""
    series = tuple(SeriesData(label, tuple(points)) for label, points in loaded.series() or () if points)
    return throughput_plot(f"Throughput of run {loaded.run.id}", series, loaded.yardstick(), loaded.scale())


def _referenced_runs(run: Run) -> list[int]:
    """History runs a troubleshooting session took its figures (or its drive) from."""
    if run.kind != "troubleshoot":
        return []
    given = TroubleshootInput.from_dict(run.params)
    m, w = given.measurements, given.workload
    figures = (m.tape_write, m.tape_read, m.disk_read_single, m.disk_read_parallel, m.disk_write_single,
               m.disk_write_parallel)
    watches = [r for r in (w.backup_run, w.restore_run) if r is not None]  # the application's figure, watched
    return list(dict.fromkeys([f.run_id for f in figures if f is not None and f.run_id is not None] + watches))


def _bottleneck(run: Run, table: BottleneckTable) -> tuple[BottleneckSection, BarChart]:
    """A troubleshooting table, and its chart: each component's rate against the application's."""
    rows = tuple(BottleneckRow(r.test, mb_s(r.mb_s).removesuffix(" MB/s"), r.bottleneck_text, r.source,
                               r.bottleneck, r.component, r.mb_s) for r in table.rows)
    direction = table.direction.capitalize()
    app_row = next((r for r in rows if r.component == "application" and r.value is not None), None)
    bars = tuple(Bar(r.test, float(r.value), mb_s(r.value), r.is_bottleneck) for r in rows
                 if r is not app_row and r.value is not None)
    chart = BarChart(f"{direction}: each component's rate against the application's", bars,
                     f"{app_row.test}: {mb_s(app_row.value)}" if app_row else "",
                     float(app_row.value) if app_row and app_row.value is not None else None)
    return BottleneckSection(run.id, direction, rows, table.verdict), chart


def _headlines(runs: list[tuple[Run, Loaded[Any]]], asked: set[int]) -> tuple[Headline, ...]:
    """Page 1: each run's verdicts. A disk run a session brought along is in its chart already."""
    out = []
    for run, loaded in runs:
        if run.id not in asked and (loaded.kind is None or not loaded.kind.drive):  # a disk run the chart shows
            continue
        for f in loaded.findings():
            out.append(Headline(run.id, f.topic, f.words, f.tone, f.detail, f.action))
        if run.status != "complete" and not any(h.run_id == run.id for h in out):  # a run that did not finish
            out.append(Headline(run.id, registry.title(run.kind), run.status.capitalize(),
                                "bad" if run.status == "failed" else "none", run.error or "",
                                "Nothing was measured: fix what the run names, then run it again."))
    rank = {t: i for i, t in enumerate(_TOPIC_ORDER)}
    return tuple(sorted(out, key=lambda h: rank.get(h.topic, len(rank))))


def _appendix(history: History, run: Run) -> AppendixBlock:
    facts = [Field("Kind", run.kind), Field("Device", run.device or "—"), Field("Status", run.status),
             Field("Started", when(run.started_at)), Field("Finished", when(run.finished_at)),
             Field("tapediag version", run.version), Field("Samples stored", f"{run.sample_count:,}")]
    if run.sample_count:
        stats = history.sample_stats(run.id)
        facts += [Field("Bytes in samples", value_text("bytes", int(stats["bytes"]))),
                  Field("Sampled time", value_text("seconds", float(stats["seconds"])))]
    facts += [Field(f"Parameter › {f.label}", f.value) for f in flatten(run.params, skip=("samples",)) if f.value != "—"]
    # A troubleshooting run's tables and advice are in the body already; its facts are the raw figures.
    skip = ("samples", "input", "evidence", "raw_pages", "curves") + (
        ("tables", "recommendations", "verdict", "notes") if run.kind == "troubleshoot" else ())
    facts += [Field(f"Result › {f.label}", f.value) for f in flatten(run.results or {}, skip=skip)
              if f.value not in ("—", "")]
    return AppendixBlock(f"Run #{run.id} — {registry.title(run.kind)}", tuple(facts))


def _load(history: History, run_ids: list[int], include_referenced: bool) -> list[Run]:
    ids = list(dict.fromkeys(run_ids))
    runs = [history.get_run(i, samples=False) for i in ids]
    for run in list(runs) if include_referenced else []:
        for ref in _referenced_runs(run):
            if ref not in ids:
                try:
                    runs.append(history.get_run(ref, samples=False))
                    ids.append(ref)
                except InvalidParameter:  # deleted since the session: its figure is still in the table
                    pass
    return runs


def _snapshots(history: History, by_device: dict[str, list[Run]]) -> list[Run]:
    """Give each drive the report names but has no ``drive-info`` run for the newest
    snapshot recorded before its runs: a support case needs the serial and firmware,
    and a tape-perf run or a session does not record them. Its health goes on page 1
    (naming its run), its identity into the device section; it gets no run section."""
    found = []
    for device, runs in by_device.items():
        if any(r.kind == "drive-info" for r in runs) or not any(_drive_kind(r.kind) for r in runs):
            continue
        newest = max(r.id for r in runs)
        snapshot = next((r for r in history.list_runs(kind="drive-info", device=device) if r.id < newest), None)
        if snapshot is not None:
            runs.append(snapshot)
            found.append(snapshot)
    return found


def _drive_kind(name: str) -> bool:
    kind = registry.get(name)
    return kind is not None and kind.drive


def _sessions(runs: list[Run], loaded: dict[int, Loaded[Any]]
              ) -> tuple[list[BottleneckSection], list[BarChart], list[RecommendationItem]]:
    """The troubleshooting sessions' bottleneck tables, their charts and their advice (each once)."""
    bottlenecks: list[BottleneckSection] = []
    charts: list[BarChart] = []
    recommendations: list[RecommendationItem] = []
    for run in runs:
        dx = loaded[run.id].result
        if not isinstance(dx, Diagnosis):
            continue
        for table in dx.tables:
            section, chart = _bottleneck(run, table)
            bottlenecks.append(section)
            charts.append(chart)
        for rec in dx.recommendations:
            item = RecommendationItem(rec.severity, rec.title, rec.advice, rec.reason, rec.source)
            if item not in recommendations:
                recommendations.append(item)
    return bottlenecks, charts, recommendations


def _by_device(runs: list[Run], loaded: dict[int, Loaded[Any]]) -> dict[str, list[Run]]:
    """The runs of each device, newest first: a run's own device, and each device its identities name (a
    library's drives, each of several drives)."""
    by_device: dict[str, list[Run]] = {}
    for run in sorted(runs, key=lambda r: -r.id):
        if run.device:
            by_device.setdefault(run.device, []).append(run)
        for ident in loaded[run.id].identities or ():
            if ident.device and ident.device != run.device:
                by_device.setdefault(ident.device, []).append(run)
    return by_device


def _summary_rows(runs: list[Run], snapshots: list[Run]) -> tuple[tuple[str, str, str, str], ...]:
    """Page 1's list of the runs in the report: every run a verdict on page 1 names, the drive's newest
    snapshot too (its health is a verdict there: "Drive health · run #1" beside "Runs: #2" read as a typo)."""
    rows = [(f"#{r.id}", registry.title(r.kind), r.device or "—", when(r.started_at)) for r in runs]
    rows += [(f"#{r.id}", f"{registry.title(r.kind)} (the drive's newest reading before these runs)",
              r.device or "—", when(r.started_at)) for r in snapshots]
    return tuple(rows)


def _versions(runs: list[Run]) -> tuple[str, ...]:
    """The tapediag versions that recorded the runs, when any is not this one (the sign-off names them)."""
    found = sorted({r.version for r in runs if r.version})
    return tuple(found) if found and found != [__version__] else ()


def host_name() -> str:
    """The machine the runs ran on, for the sign-off when the technician asks for it: this one, whose
    history the report is made from (a history is one machine's data directory, ``app.paths``)."""
    return socket.gethostname()


def _tested(runs: list[Run]) -> str:
    first, last = min(r.started_at for r in runs), max(r.finished_at or r.started_at for r in runs)
    a, b = when(first), when(last)
    return a if a == b else (f"{a} to {b[11:]}" if a[:10] == b[:10] else f"{a} to {b}")


def build_report(history: History, run_ids: list[int], *, customer: str = "", site: str = "", technician: str = "",
                 ticket: str = "", date: str | None = None, title: str = "Tape and disk diagnostics report",
                 include_referenced: bool = True, appendix: bool = False, host: str = "",
                 comparison: Comparison | None = None) -> Report:
    """The report for ``run_ids`` (in the order given; unknown ids raise InvalidParameter).

    A troubleshooting session brings along the runs its figures came from (``include_referenced``),
    so the customer sees the measurements behind the verdict, not only the verdict. ``host`` names the
    machine in the sign-off (``host_name()``, only when asked: a host name can be the customer's secret).
    ``comparison``: the two runs' comparison (``app.compare``), which page 1 shows before the verdicts.
    """
    runs = _load(history, run_ids, include_referenced)
    loaded = {r.id: load(r) for r in runs}  # each run's typed result, once (a damaged one stops here, named)
    # Binned straight from SQLite rows: an hour-long test has millions of samples.
    series = {r.id: history.throughput(r.id) if r.sample_count else {} for r in runs}
    sessions = [x.result for x in loaded.values() if isinstance(x.result, Diagnosis)]
    bottlenecks, charts, recommendations = _sessions(runs, loaded)
    notes = [n for dx in sessions for n in dx.notes]
    verdict = " ".join(dx.verdict for dx in sessions if dx.verdict)
    by_device = _by_device(runs, loaded)
    snapshots = _snapshots(history, by_device)
    loaded.update({r.id: load(r) for r in snapshots})
    headlines = _headlines([(r, loaded[r.id]) for r in runs + snapshots], set(run_ids))
    summary = verdict or "; ".join(f"{h.topic}: {h.words}" for h in headlines)
    cover = Cover(title=title, customer=customer, site=site, technician=technician, ticket=ticket,
                  date=date or datetime.now(timezone.utc).date().isoformat(), tool_version=__version__,
                  summary=summary, tested=_tested(runs), host=host,
                  recorded_with=_versions(runs + snapshots))
    devices = tuple(d for d in (device_section(name, [loaded[r.id] for r in rs]) for name, rs in by_device.items())
                    if d.identity or d.health or d.alerts)  # a directory a disk run used has none
    return Report(cover=cover, devices=devices,
                  summary_rows=_summary_rows(runs, snapshots),
                  bottlenecks=tuple(bottlenecks), bar_charts=tuple(charts), headlines=headlines, verdict=verdict,
                  recommendations=tuple(recommendations), notes=tuple(dict.fromkeys(notes)),
                  runs=tuple(_run_section(r, loaded[r.id], series[r.id]) for r in runs),
                  appendix=tuple(_appendix(history, r) for r in runs) if appendix else (), comparison=comparison)

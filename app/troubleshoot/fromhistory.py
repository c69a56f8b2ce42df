"""Taking a component figure (MB/s) from a run stored in the history.

The engines' result dicts are read by looking for the phase's MB/s under the usual
keys (``{"write": {"mb_s": ..}}``, ``write_mb_s``, ``mb_s``, a ``phases`` list). If the
results carry none, the rate is computed from the stored samples — bytes of the
phase over the phase's duration — which needs nothing from the engine but its samples.
"""
from __future__ import annotations

import re
from typing import Any

from app.history import History, Run
from native.errors import InvalidParameter

from .model import DriveContext, Figure
from .parse import parse_generation

# Which run kind and phase each troubleshooting step reads.
STEP_SOURCES = {
    "tape_write": ("tape-perf", ("write",)),
    "tape_read": ("tape-perf", ("read",)),
    "disk_read": ("read-data", ("read-data", "read")),
    "disk_write": ("create-data", ("create", "write")),
    "network_backup": ("net-test", ("backup",)),  # client -> server: the backup's way
    "network_restore": ("net-test", ("restore",)),
}
_RATE_KEYS = ("mb_s", "rate_mb_s", "throughput_mb_s", "average_mb_s", "avg_mb_s")


def _rate_in(d: Any) -> float | None:
    if isinstance(d, dict):
        for key in _RATE_KEYS:
            v = d.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
                return float(v)
    return None


def rate_from_results(results: dict | None, phases: tuple[str, ...]) -> float | None:
    if not results:
        return None
    for phase in phases:
        got = _rate_in(results.get(phase))
        if got is None:
            for key in _RATE_KEYS:
                v = results.get(f"{phase.replace('-', '_')}_{key}")
                if isinstance(v, (int, float)) and v > 0:
                    got = float(v)
                    break
        if got is None and isinstance(results.get("phases"), list):
            got = next((_rate_in(p) for p in results["phases"]
                        if isinstance(p, dict) and p.get("phase") == phase and _rate_in(p)), None)
        if got is None and isinstance(results.get("phases"), dict):
            got = _rate_in(results["phases"].get(phase))
        if got is not None:
            return got
    return _rate_in(results)


def rate_from_samples(run: Run, phases: tuple[str, ...]) -> float | None:
    """Bytes of the phase / (last I/O end - first I/O start), all streams together."""
    for phase in phases:
        picked = [s for s in run.samples if s.phase == phase]
        if picked:
            start = min(s.t - s.latency for s in picked)
            end = max(s.t for s in picked)
            if end > start:
                return sum(s.nbytes for s in picked) / (end - start) / 1e6
    return None


def figure_from_run(history: History, run_id: int, step: str) -> Figure:
    """The MB/s of ``step`` (a ``STEP_SOURCES`` key: "tape_write", "disk_read", "network_backup" ...) in run
    ``run_id``."""
    kind, phases = STEP_SOURCES[step]
    run = history.get_run(run_id)
    if run.kind != kind:
        raise InvalidParameter(f"run {run_id} is a {run.kind} run; the {step.replace('_', ' ')} figure "
                               f"comes from a {kind} run")
    if run.status != "complete":
        raise InvalidParameter(f"run {run_id} did not complete ({run.status}); its figures are not comparable")
    rate = rate_from_results(run.results, phases) or rate_from_samples(run, phases)
    if rate is None:
        raise InvalidParameter(f"run {run_id} has no {'/'.join(phases)} rate in its results or samples")
    who, why = limit_of(run.results, phases)
    return Figure(mb_s=round(rate, 2), source=f"run {run_id}", run_id=run_id, limited_by=who, limited_why=why)


def network_figures(history: History, run_id: int) -> dict[str, Figure]:
    """The directions a net-test run measured, as ``Measurements``' ``network_backup``/``network_restore``."""
    run = history.get_run(run_id, samples=False)
    if run.kind != "net-test":
        raise InvalidParameter(f"run {run_id} is a {run.kind} run; the network figure comes from a net-test run")
    if run.status != "complete":
        raise InvalidParameter(f"run {run_id} did not complete ({run.status}); its figures are not comparable")
    measured = {f"network_{p['phase']}" for p in (run.results or {}).get("phases", [])
                if isinstance(p, dict) and p.get("phase") in ("backup", "restore")}
    if not measured:
        raise InvalidParameter(f"run {run_id} measured no direction")
    return {step: figure_from_run(history, run_id, step) for step in sorted(measured)}


def limit_of(results: dict | None, phases: tuple[str, ...]) -> tuple[str, str]:
    """What the run itself said limited the phase (a tape-perf phase's ``limited_by``/``limited_why``), or ("", "")."""
    for p in (results or {}).get("phases") or []:
        if isinstance(p, dict) and p.get("phase") in phases and isinstance(p.get("limited_by"), str):
            return p["limited_by"], str(p.get("limited_why") or "")
    return "", ""


def streams_of(run: Run) -> int | None:
    """How many parallel streams/threads a disk run used (to file it as single or parallel)."""
    for where in (run.params, run.results or {}):
        for key in ("streams", "threads", "parallel", "jobs", "workers"):
            v = where.get(key)
            if isinstance(v, int) and not isinstance(v, bool) and v > 0:
                return v
    return None


def drive_from_run(run: Run) -> DriveContext | None:
    """Drive generation, serial and description from a drive-info or tape-perf run, if present.

    None for a run on several drives at once (``tape-perf-multi``): it has no one drive, and the
    first generation or serial found in it would be credited to all of them."""
    if len(run.params.get("devices") or []) > 1:
        return None
    blobs: list[dict] = [run.results or {}, run.params]
    for b in list(blobs):
        for key in ("drive", "identity", "inquiry", "device"):
            if isinstance(b.get(key), dict):
                blobs.append(b[key])
    found: dict[str, Any] = {}
    for b in blobs:
        for key in ("serial", "serial_number", "unit_serial"):
            if isinstance(b.get(key), str) and b[key].strip() and "serial" not in found:
                found["serial"] = b[key].strip()
        for key in ("generation", "lto_generation"):
            v = b.get(key)
            if isinstance(v, int) and "generation" not in found:
                found["generation"] = v
            elif isinstance(v, str) and "generation" not in found:
                try:
                    found["generation"], found["half"] = parse_generation(v)
                except InvalidParameter:
                    pass
        if isinstance(b.get("description"), str) and b["description"].strip() and "description" not in found:
            found["description"] = b["description"].strip()
        words = [str(b[k]) for k in ("vendor", "product", "model", "revision") if isinstance(b.get(k), str)]
        if words and "description" not in found:
            found["description"] = " ".join(w.strip() for w in words if w.strip())
    if "generation" not in found:
        text = " ".join([found.get("description", ""), run.device])
        m = re.search(r"(?:LTO|ULTRIUM)[\s_-]*(?:HH|TD|FH)?[\s_-]*\d{1,2}", text, re.IGNORECASE)
        if m:
            found["generation"], found["half"] = parse_generation(m.group(0))
    if not found:
        return None
    return DriveContext(generation=found.get("generation"), half_height=bool(found.get("half", False)),
                        description=found.get("description"), serial=found.get("serial"))


def latest_figures(history: "History") -> dict[str, int]:
    """The newest complete run for each figure of the troubleshooting form: field -> run id (``network_run``: the
    newest net-test).

    A disk run is filed by its stream count exactly as the CLI files it (``streams_of``):
    one stream is the single-stream figure, more the parallel one.
    """
    out: dict[str, int] = {}
    for run in history.list_runs():  # newest first
        if run.status != "complete":
            continue
        if run.kind == "tape-perf":
            phases = {p.get("phase") for p in (run.results or {}).get("phases", []) if isinstance(p, dict)}
            for phase in ("write", "read"):
                if phase in phases:
                    out.setdefault(f"tape_{phase}", run.id)
        elif run.kind == "net-test":
            out.setdefault("network_run", run.id)
        elif run.kind in ("read-data", "create-data"):
            side = "disk_read" if run.kind == "read-data" else "disk_write"
            streams = streams_of(run) or 1
            out.setdefault(side if streams == 1 else f"{side}_parallel", run.id)
    return out

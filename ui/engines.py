"""The GUI's one door to the Qt-free engines in ``app/``.

Every function here runs on a worker thread (never on the GUI thread) and calls the
engines exactly as the CLI does. Engines land independently, so each import is made
where it is needed: a missing engine turns into one clear ``NotAvailable`` error and
the panel says so, rather than the whole window failing to start.
"""
from __future__ import annotations

import html

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from native.errors import TapediagError


class NotAvailable(TapediagError):
    """An engine this build does not have (yet)."""


def engine(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError as err:
        raise NotAvailable(f"{module} is not available in this build ({err})") from err


def available(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


# -- devices -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DeviceRow:
    device: str
    kind: str
    label: str
    description: str
    reachable: bool | None = None


VIRTUAL_DRIVES = tuple(f"virtual:lto{n}" for n in range(5, 11))


def list_devices() -> list[DeviceRow]:
    """Discovered drives, remembered iSCSI targets and the virtual drives (``tapediag devices``)."""
    if not available("app.discovery"):
        # Without discovery only the built-in virtual drives can be named.
        return [DeviceRow(d, "virtual", f"Virtual LTO-{d.removeprefix('virtual:lto')}", "virtual drive") for d in VIRTUAL_DRIVES]
    discovery = engine("app.discovery")
    rows = []
    for entry in discovery.discover():
        if entry.kind == "virtual":
            label = entry.description.split(" (")[0]
            label = label[:1].upper() + label[1:]
        else:
            label = " ".join(x for x in (entry.vendor, entry.product) if x) or entry.description
            if entry.kind == "iscsi" and "iscsi" not in label.lower():
                label += " (iSCSI)"
        description = entry.description + (f" — {entry.note}" if entry.note else "")
        rows.append(DeviceRow(entry.device, entry.kind, label, description, entry.reachable))
    return rows


def transport_notes() -> list[str]:
    """Which ways to a drive are closed on this machine (a missing libiscsi, libsgutils2)."""
    try:
        return engine("app.discovery").unavailable_transports()
    except (TapediagError, ImportError):
        return []


def add_target(url: str) -> None:
    engine("app.targets").add_target(url)


def forget_target(url: str) -> None:
    engine("app.targets").remove_target(url)


def target_url(host: str, port: str, iqn: str, lun: str, user: str = "", secret: str = "") -> str:
    """The device string the Add-target dialog's fields make (pure: GUI thread)."""
    from app.targets import target_url as build

    return build(host, port, iqn, lun, user, secret)


def discover_targets(host: str, port: str, user: str = "", secret: str = "") -> list:
    """SendTargets at the portal (worker thread): ``DiscoveredTarget`` rows."""
    return engine("app.targets").discover_targets(host, port, user, secret)


def check_target(url: str) -> Any:  # app.targets.TargetCheck
    """Log in and INQUIRY (worker thread): the test before a target is remembered."""
    return engine("app.targets").check_target(url)


def set_read_only(on: bool) -> None:
    """Every drive opened from now on refuses commands that write or change state (app.drive)."""
    from app.drive import set_read_only_session

    set_read_only_session(on)


def open_drive(device: str):  # -> app.drive.TapeDrive
    return engine("app.drive").TapeDrive.open(device)


def identify(device: str) -> dict:
    """Vendor, product, firmware and serial: the at-a-glance identity (one INQUIRY)."""
    with open_drive(device) as drive:
        inq = drive.inquiry()
        try:
            serial = drive.serial_number()
        except TapediagError:
            serial = None
        return {"vendor": inq.vendor, "product": inq.product, "revision": inq.revision, "serial": serial,
                "status": "Ready"}


# -- history and reports -----------------------------------------------------------------
def list_runs() -> list:
    history = engine("app.history")
    with history.History.open() as h:
        return h.list_runs()


def get_run(run_id: int):
    history = engine("app.history")
    with history.History.open() as h:
        return h.get_run(run_id)


def delete_runs(ids: list[int]) -> None:
    history = engine("app.history")
    with history.History.open() as h:
        for run_id in ids:
            h.delete_run(run_id)


def export_csv(run_id: int, path: Path) -> Path:
    history = engine("app.history")
    from app.history.export import write_csv

    with history.History.open() as h, open(path, "w", newline="") as out:
        write_csv(h, run_id, out)
    return path


def run_headline(run) -> str:
    """One line for the run list: the run kind's headline (``app.runs``), as the CLI's history shows it."""
    from app.history.summary import headline

    return headline(run.kind, run.status, run.results, run.error) or (run.error or "")


def reference_rates_for_run(run) -> list[tuple[str, float]]:
    r = run.results or {}
    return reference_rates(r.get("rated_native_mb_s"), r.get("rated_compressed_mb_s"), r.get("generation"))


def reference_rates(native: float | None, compressed: float | None, generation: Any = None) -> list[tuple[str, float]]:
    name = f"LTO-{generation} " if isinstance(generation, int) else ""
    refs = []
    if native:
        refs.append((f"{name}native", float(native)))
    if compressed:
        refs.append((f"{name}compressed", float(compressed)))
    return refs


def reports_available() -> bool:
    return available("app.report") and available("ui.pdf")


def save_report(run_ids: list[int], path: Path, meta: dict) -> Path:
    """Build the report model (``app.report``) from the history and draw it (``ui.pdf``).

    Data flows ui -> app only: the model comes from the core, the drawing is ours; the
    CLI's ``write_report`` is not used, since it would reach back into ``ui``.
    """
    report_model, pdf = engine("app.report"), engine("ui.pdf")
    history = engine("app.history")
    fields = {k: str(meta.get(k) or "") for k in ("customer", "site", "technician", "ticket")}
    report_model.check_report_path(Path(path))
    with history.History.open() as hist:
        report = report_model.build_report(hist, list(run_ids), **fields)
    pdf.render_pdf(report, Path(path))
    return Path(path)


# -- parsing as typed (pure functions: safe on the GUI thread) ---------------------------
def check_size(text: str) -> int:
    from native.units import parse_size

    from native.errors import InvalidParameter

    value = parse_size(text, None)
    if value <= 0:
        raise InvalidParameter("must be more than zero")
    return value


def check_size_or_zero(text: str) -> int:
    from native.units import parse_size

    return parse_size(text or "0", None)


def check_pattern(text: str):
    return engine("app.patterns").Pattern.parse(text.strip())


def _int(text: str, what: str, lo: int, hi: int) -> int:
    from native.errors import InvalidParameter

    try:
        value = int(text.strip())
    except ValueError:
        raise InvalidParameter(f"'{text}' is not a whole number") from None
    if not lo <= value <= hi:
        raise InvalidParameter(f"{what} must be between {lo} and {hi}")
    return value


def check_count(text: str) -> int:
    return _int(text, "the value", 0, 1_000_000)


def check_streams(text: str) -> int:
    return _int(text, "streams", 1, 8)


def check_optional_count(text: str) -> int | None:
    return _int(text, "the value", 1, 256) if text.strip() else None


def _optional_rate(text: str) -> float | None:
    figure = check_figure(text)
    if figure is not None and figure[0] != "mb_s":
        from native.errors import InvalidParameter

        raise InvalidParameter("the measured network rate is MB/s, not a run")
    return figure[1] if figure else None


def _optional_int(text: str, what: str, lo: int, hi: int) -> int | None:
    return _int(text, what, lo, hi) if text.strip() else None


def check_rate(text: str) -> float | None:
    """An optional MB/s figure (the measured network rate)."""
    return _optional_rate(text)


def check_file_count(text: str) -> int | None:
    return _optional_int(text, "the file count", 1, 10**12)


def check_figure(text: str) -> tuple[str, float] | None:
    """'154' / '154.2 MB/s' -> ("mb_s", 154.0); 'run 12' / '#12' -> ("run", 12)."""
    import re

    from native.errors import InvalidParameter

    t = text.strip().lower()
    if not t:
        return None
    m = re.fullmatch(r"(?:run\s*|#)(\d+)", t)
    if m:
        return ("run", int(m.group(1)))
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(?:mb/s)?", t)
    if not m:
        raise InvalidParameter(f"'{text}' is neither MB/s nor 'run N'")
    return ("mb_s", float(m.group(1)))


def check_optional_block(text: str) -> int | None:
    return engine("app.troubleshoot.parse").parse_block_size(text) if text.strip() else None


def check_optional_link(text: str):
    return engine("app.troubleshoot.parse").parse_link(text) if text.strip() else None


def check_optional_generation(text: str):
    return engine("app.troubleshoot.parse").parse_generation(text) if text.strip() else None


# -- troubleshooting -----------------------------------------------------------------------
_STEP_OF_FIELD = {"tape_write": "tape_write", "tape_read": "tape_read", "disk_read": "disk_read",
                  "disk_read_parallel": "disk_read", "disk_write": "disk_write", "disk_write_parallel": "disk_write"}


def run_troubleshoot(values: dict) -> tuple[dict, int | None]:
    """Build the input from typed figures / run ids, diagnose, record it in the history."""
    ts = engine("app.troubleshoot")
    from app.troubleshoot.fromhistory import drive_from_run, figure_from_run

    history = engine("app.history")
    with history.History.open() as h:
        figures: dict[str, Any] = {}
        drive = None
        for key, step in _STEP_OF_FIELD.items():
            parsed = check_figure(values.get(key, ""))
            if parsed is None:
                continue
            if parsed[0] == "run":
                figures[key] = figure_from_run(h, parsed[1], step)
                if drive is None and step.startswith("tape"):
                    drive = drive_from_run(h.get_run(parsed[1], samples=False))
            else:
                figures[key] = ts.Figure(parsed[1])
        m = ts.Measurements(
            tape_write=figures.get("tape_write"), tape_read=figures.get("tape_read"),
            disk_read_single=figures.get("disk_read"), disk_read_parallel=figures.get("disk_read_parallel"),
            disk_write_single=figures.get("disk_write"), disk_write_parallel=figures.get("disk_write_parallel"),
        )
        backup, restore = check_figure(values.get("backup", "")), check_figure(values.get("restore", ""))
        link = check_optional_link(values.get("network", ""))
        w = ts.Workload(
            backup_mb_s=backup[1] if backup and backup[0] == "mb_s" else None,
            restore_mb_s=restore[1] if restore and restore[0] == "mb_s" else None,
            streams=check_optional_count(values.get("streams", "")),
            block_size=check_optional_block(values.get("block_size", "")),
            software_compression=values.get("software_compression"),
            link=getattr(link, "key", None),
            network_mb_s=_optional_rate(values.get("network_rate", "")),
            small_files=values.get("small_files"),
            file_count=_optional_int(values.get("file_count", ""), "file count", 1, 10**12),
            application=values.get("application", "").strip() or None,
            os=values.get("os"),
        )
        gen = check_optional_generation(values.get("generation", ""))
        if gen is not None:
            drive = ts.DriveContext(generation=gen[0], half_height=gen[1])
        inp = ts.TroubleshootInput(m, w, drive or ts.DriveContext())
        dx = ts.diagnose(inp)
        result = dx.to_dict()
        run_id = h.start_run("troubleshoot", "", inp.to_dict())
        h.finish_run(run_id, "complete", result)
    return result, run_id


def latest_figures() -> dict[str, str]:
    """'run N' for the newest complete run of each figure (app.troubleshoot.fromhistory.latest_figures)."""
    from app.history import History
    from app.troubleshoot.fromhistory import latest_figures as newest

    with History.open() as h:
        return {field: f"run {run_id}" for field, run_id in newest(h).items()}


# -- engines still landing --------------------------------------------------------------
def drive_info(device: str) -> tuple[dict, int | None]:
    """Gather everything ``tapediag info`` shows and record it as a drive-info run."""
    info, run_id = engine("app.info").snapshot(device)
    return info.to_dict(), run_id


def check_tape_size(text: str) -> int:
    return engine("native.units").parse_size(text, "size")


def check_tape_size_or_zero(text: str) -> int:
    return engine("native.units").parse_size(text or "0", "filemark interval")


def check_amount(text: str) -> tuple[int | None, float | None]:
    """A test size ('32G') or a duration ('90s', '10min'), as the CLI's --size takes it."""
    return engine("native.units").parse_amount(text, "test size")


def tapeperf_params(values: dict):
    """The engine's parameters from the form, exactly as ``tapediag tape-perf`` builds them."""
    tp = engine("app.tapeperf")
    from app.patterns import Pattern
    from native.units import parse_amount, parse_size

    block = parse_size(values["block_size"], "block size")
    io = block if values["mode"] == "variable" else parse_size(values["io_size"], "I/O size")
    size, duration = parse_amount(values["size"], "test size")
    params = tp.TapePerfParams(
        direction=tp.parse_direction(values["direction"]),
        pattern=Pattern.parse(values["pattern"]),
        block_size=block,
        mode=values["mode"],
        io_size=io,
        size=size,
        duration=duration,
        filemarks_every=parse_size(values.get("filemarks_every") or "0", "filemark interval"),
        compression=values["compression"],
        start=values["start"],
        verify=bool(values.get("verify")),
    )
    params.validate(None)  # what can be rejected without the drive (the engine checks the limits again)
    return params


def tapeperf_probe(device: str, params) -> dict:
    """What is on the cartridge, as the engine's own safety probe finds it (no write)."""
    from app.tapeperf import safety

    with open_drive(device) as drive:
        state = safety.probe(drive, at_bot=params.start == "bot")
    return {"write_protected": state.write_protected, "worm": state.worm, "found": state.found,
            "probe_error": state.probe_error, "mam_mb_written": state.mam_mb_written,
            "holds_data": state.holds_data,
            # The engine's own decision (app.tapeperf.safety.decide), not one the GUI makes again.
            "refusal": safety.decide(state, force=False)}


def run_tapeperf(job, device: str, params, force: bool):
    """Open the drive, announce its rated rates, run the engine recorded in the history."""
    import dataclasses

    tp = engine("app.tapeperf")
    from app.tapeperf.rated import rated

    from ui.runview import ReferenceRates

    history = engine("app.history")
    params = dataclasses.replace(params, force=force)
    with open_drive(device) as drive:
        try:
            generation = drive.generation()
        except TapediagError:
            generation = None
        job.sink(ReferenceRates(reference_rates(*rated(generation), generation)))
        test = tp.TapePerfTest(drive, params)
        run_id, result = history.run_recorded("tape-perf", device, params.to_dict(),
                                              lambda sink: test.run(sink, job.cancel), sink=job.sink)
    return result, result.to_dict(), run_id


def tapeperf_headline(r: dict) -> str:
    """The tape-perf headline in the words of ``app.tapeperf.results.phase_headline``, each phase in bold."""
    from app.tapeperf.results import phase_headline

    parts = []
    for ph in r.get("phases", []):
        text = f"<b>{html.escape(phase_headline({**ph, 'possible_label': r.get('possible_label')}))}</b>"
        stalls = ph.get("stall_count", len(ph.get("stalls", []) or []))
        if stalls:
            text += f", {stalls} stall{'s' if stalls != 1 else ''}"
        parts.append(text)
    if r.get("status") == "failed":
        parts.append(f"<b>failed:</b> {html.escape(str(r.get('error')))}")
    return " · ".join(parts)


def create_params(values: dict):
    """CreateDataParams from the form; the engine's own ``validate`` decides what is wrong."""
    disk = engine("app.disk")
    from native.units import parse_size

    total = parse_size(values.get("total_size") or "0", "total size")
    params = disk.CreateDataParams(
        target=values["directory_path"],
        depth=check_count(values["depth"]), breadth=check_count(values["breadth"]),
        files_per_dir=check_count(values["files_per_dir"]),
        min_size=parse_size(values["min_size"], "smallest file"), max_size=parse_size(values["max_size"], "largest file"),
        distribution=values["distribution"], pattern=values["pattern"].strip(),
        streams=check_streams(values["streams"]), total_size=total or None,
        allow_non_empty=bool(values.get("allow_non_empty")),
    )
    params.validate()
    return params


def read_params(values: dict):
    disk = engine("app.disk")
    from native.units import parse_size

    params = disk.ReadDataParams(values["directory_path"], streams=check_streams(values["streams"]),
                                 buffer_size=parse_size(values["buffer"], "buffer"), direct=bool(values.get("direct")))
    params.validate()
    return params


def _run_disk(job, kind: str, test, params) -> tuple[Any, dict, int]:
    """Run a disk engine recorded in the history with its own status, as the CLI does."""
    history = engine("app.history")
    run_id, result = history.run_recorded(kind, params.target, params.to_dict(),
                                          lambda sink: test.run(sink, job.cancel), sink=job.sink)
    return result, result.to_dict(), run_id


def run_create(job, params):
    return _run_disk(job, "create-data", engine("app.disk").CreateDataTest(params), params)


def run_read(job, params):
    return _run_disk(job, "read-data", engine("app.disk").ReadDataTest(params), params)


def clean_disk(target: str) -> dict:
    """``tapediag clean DIR``: remove exactly what create-data's manifest lists."""
    return engine("app.disk").clean(target).to_dict()


def disk_headline(r: dict, verb: str) -> str:
    files, streams = r.get("total_files", 0), len(r.get("streams", []))
    text = (f"<b>{verb} {files:,} file{'' if files == 1 else 's'}, {r.get('total_bytes', 0) / 1e6:,.1f} MB: "
            f"{r.get('mb_s', 0):,.1f} MB/s, {r.get('files_s', 0):,.0f} files/s</b> "
            f"with {streams} stream{'' if streams == 1 else 's'}")
    if r.get("status") not in (None, "complete", "cancelled"):
        text += f" — <b>{r.get('status')}</b>: {r.get('error') or ''}"
    return text

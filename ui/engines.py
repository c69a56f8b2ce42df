"""The GUI's operations: each one call into ``app/``, typed, run on a device's worker.

The model is Anki's ``QueryOp``: a panel builds a ``ui.worker.Job`` whose body is one of
these functions, and the function is one call into the Qt-free core that the CLI calls
too. What turns text into parameters, builds the troubleshooting input, probes the
cartridge or runs a test lives in ``app/`` (``from_values``/``from_text``,
``app.troubleshoot.request``, ``app.tapeperf.session``), so the GUI records exactly the
``params.to_dict()`` the CLI records. The ``check_*`` functions are the fields' validators
(pure, safe on the GUI thread); they call the same app-side parsers.
"""
from __future__ import annotations

import dataclasses
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from app import catalog  # noqa: F401  (installs the run kinds: the history list, the run pages, the report)
from app import discovery, targets
from app.disk import CleanResult, CreateDataParams, ReadDataParams
from app.disk import clean as clean_tree
from app.disk.kind import CREATE_DATA, READ_DATA
from app.disk.results import CreateDataResult, DiskResult, ReadDataResult
from app.drive import TapeDrive, set_read_only_session
from app.execute import execute
from app.compare.model import REPORT_TITLE, Comparison
from app.history import History, Run
from app.history.export import write_csv
from app.history.summary import headline, listed
from app.info import DriveInfo
from app.info_kind import snapshot
from app.nettest.kind import NET_TEST
from app.nettest.params import NetTestParams, ServeParams
from app.nettest.result import NetTestResult
from app.nettest.server import NetServer, ServeOutcome
from app.nettest.token import Token, normalise
from app.info_view import Row, Section
from app.runs import registry
from app.runs.kind import Stretch
from app.runs.stored import Loaded, load
from app.runs.words import count, when
from app.tapeperf import TapePerfParams, TapePerfResult
from app.tapeperf.results import phase_headline
from app.tapeperf.multi import MultiParams
from app.tapeperf.multiresult import MultiTapePerfResult
from app.tapeperf.session import CartridgeCheck, check_cartridge, run_on_device, run_on_devices
from app.troubleshoot.fromhistory import latest_figures as newest_figures
from app.troubleshoot.model import Diagnosis
from app.troubleshoot.parse import Link, parse_block_size, parse_generation, parse_link
from app.troubleshoot.request import (RunRef, TroubleshootRequest, diagnose_recorded, parse_figure, parse_run,
                                      parse_file_count, parse_rate, parse_streams)
from native.errors import DamagedResult, InvalidParameter, SafetyRefusal, TapediagError
from native.iscsi_url import display_device
from native.units import files_rate_text, plural, rate_figure, rate_text, size_text
from ui.worker import Job


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
        return discovery.unavailable_transports()
    except TapediagError:
        return []


def add_target(url: str) -> targets.RememberedTarget:
    return targets.add_target(url)


def forget_target(url: str) -> None:
    targets.remove_target(url)


def target_url(host: str, port: str, iqn: str, lun: str, user: str = "", secret: str = "") -> str:
    """The device string the Add-target dialog's fields make (pure: GUI thread)."""
    return targets.target_url(host, port, iqn, lun, user, secret)


def discover_targets(host: str, port: str, user: str = "", secret: str = "") -> list[targets.DiscoveredTarget]:
    """SendTargets at the portal (worker thread)."""
    return targets.discover_targets(host, port, user, secret)


def check_target(url: str) -> targets.TargetCheck:
    """Log in and INQUIRY (worker thread): the test before a target is remembered."""
    return targets.check_target(url)


def set_read_only(on: bool) -> None:
    """Every drive opened from now on refuses commands that write or change state (app.drive)."""
    set_read_only_session(on)


def open_drive(device: str) -> TapeDrive:
    return TapeDrive.open(device)


def identify(device: str) -> dict[str, str | None]:
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
def list_runs() -> list[Run]:
    with History.open() as h:
        return h.list_runs()


def get_run(run_id: int) -> Run:
    with History.open() as h:
        return h.get_run(run_id)


def delete_runs(ids: list[int]) -> None:
    with History.open() as h:
        for run_id in ids:
            h.delete_run(run_id)


def export_csv(run_id: int, path: Path) -> Path:
    """The run's samples as CSV, written as every output file is (``app.output``: a regular file or nothing)."""
    from app.output import Replacement

    with History.open() as h, Replacement(path, "the export") as out:
        write_csv(h, run_id, out.text())
    return path


def run_headline(run: Run) -> str:
    """One line for the run list: the run kind's headline (``app.history.summary``), as the CLI's history shows it
    (a damaged record says so)."""
    return headline(run)


@dataclass(frozen=True)
class RunReview:
    """A recorded run as the History panel shows it, its result read once (``app.runs.stored.load``) on the
    history's worker: its line, its curves (None: plot the stored samples), the yardstick its verdict judged
    against, what its plot marks besides the samples (a write's flush) and its details in words."""

    run: Run
    headline: str
    curves: list[tuple[str, list[tuple[float, float]]]] | None
    references: list[tuple[str, float]]
    stretches: list[Stretch]
    sections: tuple[Section, ...]


#: A finding's tone as the details' colour (``ui.widgets.SEVERITY_COLOURS``).
_TONE_SEVERITY = {"good": "healthy", "warn": "attention", "bad": "failing"}


def review_run(run_id: int) -> RunReview:
    """Everything the History panel shows of a run (worker thread): one read of the history, one load."""
    run = get_run(run_id)
    try:
        loaded: Loaded[Any] | None = None if run.damaged else load(run)
    except DamagedResult:
        loaded = None
    if loaded is None:  # a damaged record: its line says so; its details are the run's own facts
        return RunReview(run, headline(run), None, [], [], (_run_facts(run),))
    from app.report.build import parameter_fields, result_fields  # the report's words: only when a run is shown
    from app.report.plots import stretches_of

    verdicts = tuple(Row(f.topic, f.words, _TONE_SEVERITY.get(f.tone)) for f in loaded.findings())
    sections = (_run_facts(run), Section("Verdicts", verdicts),
                Section("Parameters", tuple(Row(f.label, f.value) for f in parameter_fields(run, loaded))),
                Section("Results", tuple(Row(f.label, f.value) for f in result_fields(run, loaded))))
    return RunReview(run, listed(run, loaded=loaded)[0], loaded.series(), _references(loaded), stretches_of(loaded),
                     tuple(s for s in sections if s.rows))


def _run_facts(run: Run) -> Section:
    rows = [Row("Run", f"#{run.id}"), Row("Kind", registry.title(run.kind)),
            Row("Device", display_device(run.device) if run.device else "none"), Row("Status", run.status),
            Row("Started", when(run.started_at)), Row("Finished", when(run.finished_at))]
    rows += [Row("Error", run.error)] if run.error else []
    rows += [Row("Record damaged", run.damaged)] if run.damaged else []
    rows.append(Row("Samples stored", count(run.sample_count, "sample")))
    return Section("Run", tuple(rows))


def _references(loaded: Loaded[Any]) -> list[tuple[str, float]]:
    """The stored run's yardstick, the figure its headline judges against (``app.report.plots``, as the PDF
    draws it); the generation's rated rates only for a tape run stored without one."""
    stick = loaded.yardstick()
    if stick is not None:
        return [stick]
    result = loaded.result
    if not isinstance(result, TapePerfResult):
        return []
    return reference_rates(result.rated_native_mb_s, result.rated_compressed_mb_s, result.generation)


def reference_rates(native: float | None, compressed: float | None, generation: Any = None) -> list[tuple[str, float]]:
    """Labels with their figure: ("LTO-9 native 400 MB/s", 400.0), as the plot prints them."""
    name = f"LTO-{generation} " if isinstance(generation, int) else ""
    refs = []
    if native:
        refs.append((f"{name}native {rate_figure(float(native))} MB/s", float(native)))
    if compressed:
        refs.append((f"{name}compressed {rate_figure(float(compressed))} MB/s", float(compressed)))
    return refs


def repeat_values(run: Run) -> dict[str, str | bool]:
    """A recorded run's parameters as its kind's form is filled in (``app.runs.fields.typed_values``): "Repeat this
    run" asks again for what needs asking (``force`` is never carried over)."""
    from app.runs import registry
    from app.runs.fields import typed_values

    kind = registry.get(run.kind)
    return typed_values(kind.fields if kind is not None else (), run.params)


def compare_runs(before: int, after: int) -> Comparison:
    """Two recorded runs compared (``app.compare``): the history's "Compare with…"."""
    from app.compare import compare_runs as compare

    with History.open() as hist:
        return compare(hist, before, after)


def save_report(run_ids: list[int], path: Path, meta: dict, comparison: Comparison | None = None) -> Path:
    """Build the report model (``app.report``) from the history and draw it (``ui.pdf``).

    Data flows ui -> app only: the model comes from the core, the drawing is ours; the
    CLI's ``write_report`` is not used, since it would reach back into ``ui``.
    """
    from app.report import build_report, check_report_path, host_name  # the report model: only when one is made
    from ui.pdf import render_pdf

    def field(key: str) -> str:
        return str(meta.get(key) or "")

    check_report_path(Path(path))
    titled: dict[str, Any] = {"title": REPORT_TITLE, "comparison": comparison} if comparison is not None else {}
    with History.open() as hist:
        report = build_report(hist, list(run_ids), customer=field("customer"), site=field("site"),
                              technician=field("technician"), ticket=field("ticket"),
                              host=host_name() if meta.get("host_name") is True else "", **titled)
    render_pdf(report, Path(path))
    return Path(path)


# -- parsing as typed (pure functions: safe on the GUI thread) ---------------------------












def check_optional_count(text: str) -> int | None:
    """Streams into the drive (troubleshooting), as ``--streams`` takes them."""
    return parse_streams(text.strip()) if text.strip() else None


def check_rate(text: str) -> float | None:
    """An optional MB/s figure (the application's rates, the measured network rate)."""
    return parse_rate(text) if text.strip() else None




def check_file_count(text: str) -> int | None:
    return parse_file_count(text.strip()) if text.strip() else None


def check_figure(text: str) -> float | RunRef | None:
    """'154' / '154.2 MB/s' -> 154.0; 'run 12' / '#12' -> RunRef(12); blank -> None."""
    return parse_figure(text) if text.strip() else None


def check_optional_block(text: str) -> int | None:
    return parse_block_size(text) if text.strip() else None


def check_optional_link(text: str) -> Link | None:
    return parse_link(text) if text.strip() else None


def check_optional_generation(text: str) -> tuple[int, bool] | None:
    return parse_generation(text) if text.strip() else None


def check_optional_run(text: str) -> int | None:
    """A history run as typed ('run 12', '#12', '12'), or nothing."""
    return parse_run(text) if text.strip() else None














# -- troubleshooting -----------------------------------------------------------------------
def run_troubleshoot(values: Mapping[str, object]) -> tuple[Diagnosis, int]:
    """Diagnose the form's figures and record the session, exactly as ``tapediag troubleshoot``."""
    return diagnose_recorded(TroubleshootRequest.from_values(values))


def latest_figures() -> dict[str, str]:
    """'run N' for the newest complete run of each figure (app.troubleshoot.fromhistory.latest_figures)."""
    with History.open() as h:
        return {field: f"run {run_id}" for field, run_id in newest_figures(h).items()}


# -- drive information ---------------------------------------------------------------------
@dataclass(frozen=True)
class DriveInfoRead:
    """A drive-information run: the typed snapshot, this drive's and cartridge's earlier visits (their lines)
    and the run's id."""

    info: DriveInfo
    history: list[str]
    run_id: int


def drive_info(device: str) -> DriveInfoRead:
    """Gather everything ``tapediag info`` shows and record it as a drive-info run."""
    from app import visits

    info, run_id = snapshot(device)
    history = visits.for_run(run_id)  # this drive and cartridge in earlier runs (issue 25 §4)
    return DriveInfoRead(info, history.lines() if history is not None else [], run_id)


# -- tape performance ------------------------------------------------------------------------
def tapeperf_params(values: Mapping[str, object]) -> TapePerfParams:
    """The engine's parameters from the form, by the conversion ``tapediag tape-perf`` uses."""
    params = TapePerfParams.from_text(dict(values))
    params.validate(None)  # what can be rejected without the drive (the engine checks the limits again)
    return params


def tapeperf_probe(device: str, params: TapePerfParams) -> CartridgeCheck:
    """What is on the cartridge and the engine's decision on it (``app.tapeperf.safety``; no write)."""
    return check_cartridge(device, params)


def run_tapeperf(job: Job[Any], device: str, params: TapePerfParams,
                 force: bool) -> tuple[TapePerfResult, dict, int]:
    """Run the test recorded in the history, as the CLI does; ``force`` is the confirm page's answer."""
    run_id, result = run_on_device(device, dataclasses.replace(params, force=force), sink=job.sink, cancel=job.cancel)
    return result, result.to_dict(), run_id


def tapeperf_multi_params(device: str, others: str, test: TapePerfParams, alone: str) -> MultiParams:
    """Several drives at once from the form: the selected drive, the others typed (separated by spaces),
    and each drive's time alone, by the conversion ``tapediag tape-perf DEV1 DEV2 --alone`` uses."""
    params = MultiParams.from_text([device, *others.split()], test, alone.strip() or None)
    params.validate()
    return params


def check_other_drives(text: str) -> list[str]:
    """The other drives to run at the same time: device strings separated by spaces (blank: none)."""
    return text.split()




def tapeperf_probe_multi(params: MultiParams) -> CartridgeCheck:
    """Every drive's cartridge looked at (no write) and one decision for them all: the refusals named by
    drive, overridable only when each one is (a write-protected or WORM cartridge anywhere stops them all)."""
    checks = [(device, check_cartridge(device, params.test)) for device in params.devices]
    refused = [(device, c.refusal) for device, c in checks if c.refusal is not None]
    if not refused:
        return checks[-1][1]
    words = "; ".join(f"{display_device(d)}: {r.message}" for d, r in refused)
    reason = "; ".join(f"{display_device(d)}: {r.reason}" for d, r in refused)
    overridable = all(r.overridable for _, r in refused)
    hint = next((r.hint for _, r in refused if not r.overridable), refused[0][1].hint)
    first = next(c for d, c in checks if c.refusal is not None)
    return CartridgeCheck(first.state, SafetyRefusal(words, reason=reason, overridable=overridable, hint=hint))


def run_tapeperf_multi(job: Job[Any], params: MultiParams, force: bool) -> tuple[MultiTapePerfResult, dict, int]:
    """Run the drives at once, recorded in the history as the CLI does; ``force`` is the confirm page's answer."""
    params = dataclasses.replace(params, test=dataclasses.replace(params.test, force=force))
    run_id, result = run_on_devices(params, sink=job.sink, cancel=job.cancel)
    return result, result.to_dict(), run_id


def tapeperf_multi_headline(r: MultiTapePerfResult) -> str:
    """The several-drives headline of its run kind (``app.tapeperf.multiresult.headline``), in bold."""
    from app.tapeperf.multiresult import headline as multi_headline

    text = f"<b>{html.escape(multi_headline(r))}</b>"
    if r.status == "failed":
        text += f" · <b>failed:</b> {html.escape(str(r.error))}"
    return text


def tapeperf_headline(r: TapePerfResult) -> str:
    """The tape-perf headline in the words of ``app.tapeperf.results.phase_headline``, each phase in bold."""
    parts = []
    for ph in r.phases:
        text = f"<b>{html.escape(phase_headline(r, ph))}</b>"
        if ph.stall_count:
            text += f", {plural(ph.stall_count, 'stall')}"
        parts.append(text)
    if r.status == "failed":
        parts.append(f"<b>failed:</b> {html.escape(str(r.error))}")
    return " · ".join(parts)


# -- disk tests -------------------------------------------------------------------------------
def create_params(values: Mapping[str, object]) -> CreateDataParams:
    """CreateDataParams from the form, by the conversion ``tapediag create-data`` uses; the engine's
    own ``validate`` decides what is wrong."""
    params = CreateDataParams.from_values(values)
    params.validate()
    return params


def read_params(values: Mapping[str, object]) -> ReadDataParams:
    """ReadDataParams from the form, by the conversion ``tapediag read-data`` uses."""
    params = ReadDataParams.from_values(values)
    params.validate()
    return params


def run_create(job: Job[Any], params: CreateDataParams) -> tuple[CreateDataResult, dict, int]:
    """Run create-data recorded in the history with its own status, as the CLI does (``app.execute``)."""
    run = execute(CREATE_DATA, params, params.target, sink=job.sink, cancel=job.cancel)
    return run.result, run.result.to_dict(), run.run_id


def run_read(job: Job[Any], params: ReadDataParams) -> tuple[ReadDataResult, dict, int]:
    """Run read-data recorded in the history with its own status, as the CLI does (``app.execute``)."""
    run = execute(READ_DATA, params, params.target, sink=job.sink, cancel=job.cancel)
    return run.result, run.result.to_dict(), run.run_id


def clean_disk(target: str) -> CleanResult:
    """``tapediag clean DIR``: remove exactly what create-data's manifest lists."""
    return clean_tree(target)


def disk_headline(r: DiskResult, verb: str) -> str:
    text = (f"<b>{verb} {plural(r.total_files, 'file')}, {size_text(r.total_bytes)}: "
            f"{rate_text(r.mb_s)}, {files_rate_text(r.files_s)}</b> with {plural(len(r.streams), 'stream')}")
    if r.status not in ("complete", "cancelled"):
        text += f" — <b>{r.status}</b>: {r.error or ''}"
    return text


# -- the network test (app.nettest) ------------------------------------------------------------------------------
def net_test_params(values: Mapping[str, object], token: str) -> NetTestParams:
    """NetTestParams from the form, by the conversion ``tapediag net-test`` uses, with the token (typed in the
    masked field, never saved) hidden in them (``app.nettest.token.Token``)."""
    params = NetTestParams.from_values(values)
    params.validate()
    if not normalise(token):
        raise InvalidParameter("enter the token the server shows")
    return dataclasses.replace(params, token=Token(token.strip()))


def run_net_test(job: Job[Any], params: NetTestParams) -> tuple[NetTestResult, dict, int]:
    """Run net-test recorded in the history, as the CLI does (``app.execute``)."""
    run = execute(NET_TEST, params, params.where, sink=job.sink, cancel=job.cancel)
    return run.result, run.result.to_dict(), run.run_id


def serve_params(values: Mapping[str, object]) -> ServeParams:
    """ServeParams from the form, by the conversion ``tapediag net-serve`` uses."""
    params = ServeParams.from_values(values)
    params.validate()
    return params


def serve_network(job: Job[Any], params: ServeParams) -> ServeOutcome:
    """``tapediag net-serve``: one session, then it ends (its Listening and messages go to the job's events)."""
    return NetServer(params, job.sink).serve(job.cancel)  # type: ignore[arg-type]

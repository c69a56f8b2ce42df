"""What a technician gives the troubleshooter, and the one conversion of it into the engine's input.

``tapediag troubleshoot`` (flags and prompts) and the GUI's troubleshooting panel (text
fields) both build a ``TroubleshootRequest`` with ``from_values`` and run it with
``diagnose_recorded``: the same parsing, the same figures taken from history runs (a disk
run filed single or parallel by its stream count, a read-data run's file sizes, the drive of
a tape run) and the same record in the history, whichever front end started it.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping

from native.errors import InvalidParameter
from native.units import parse_on_off

from app.execute import execute
from app.history import History

from .kind import TROUBLESHOOT
from .fromhistory import (drive_from_run, figure_from_run, file_stats, network_figures, read_run, streams_of,
                          watched_figure)
from .model import Diagnosis, DriveContext, Figure, Measurements, TroubleshootInput, Workload
from .parse import parse_block_size, parse_generation, parse_link

#: No tape or disk path a technician measures moves more than this (100 GB/s): a bigger figure is a typo.
MAX_RATE_MB_S = 100_000
#: The figures of the white paper's steps 1-4, as the CLI's flags and the GUI's fields name them.
FIGURES = ("tape_write", "tape_read", "disk_read", "disk_read_parallel", "disk_write", "disk_write_parallel")
#: The steps a history run can stand for (a disk run is single or parallel by its own stream count; a net-test run
#: is the network, each direction it measured).
RUN_STEPS = ("tape_write", "tape_read", "disk_read", "disk_write", "network")


@dataclass(frozen=True)
class RunRef:
    """'run 12' / '#12' typed where a figure goes: take it from that history run."""

    run_id: int


def parse_rate(text: str) -> float:
    """'154' / '154 MB/s' -> 154.0: a positive, plausible rate in decimal MB/s."""
    try:
        value = float(text.strip().lower().removesuffix("mb/s").strip())
    except ValueError:
        raise InvalidParameter(f"{text!r} is not a rate in MB/s") from None
    if not math.isfinite(value) or value <= 0:
        raise InvalidParameter("a rate must be a positive number of MB/s")
    if value > MAX_RATE_MB_S:
        raise InvalidParameter(f"{value:g} MB/s is not a plausible rate (at most {MAX_RATE_MB_S:,} MB/s): "
                               "MB/s, not bytes/s?")
    return value


def parse_figure(text: str) -> float | RunRef:
    """A figure: MB/s ('154', '154 MB/s') or a history run ('run 12', '#12')."""
    m = re.fullmatch(r"\s*(?:run\s*|#)(\d+)\s*", text.lower())
    if m:
        return RunRef(int(m.group(1)))
    try:
        float(text.strip().lower().removesuffix("mb/s").strip())
    except ValueError:
        raise InvalidParameter(f"{text!r} is neither MB/s nor 'run N'") from None
    return parse_rate(text)


def parse_run(value: object) -> int:
    """A history run's id as given: 12, '12', 'run 12' or '#12' (a form's field, an option's value)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if text.isdigit():
        return int(text)
    figure = parse_figure(text) if re.fullmatch(r"(?i)\s*(?:run\s*|#)\d+\s*", text) else None
    if not isinstance(figure, RunRef):
        raise InvalidParameter(f"{text!r} is not a history run: write 'run N' (e.g. run 12)")
    return figure.run_id


def parse_file_count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidParameter(f"{text!r} is not a whole number") from None
    if not 1 <= value <= 10**12:
        raise InvalidParameter("the file count must be 1 to 10^12")
    return value


def parse_ratio(text: str) -> float:
    """'2', '2.5:1' -> the data's compression ratio."""
    try:
        value = float(text.strip().removesuffix(":1"))
    except ValueError:
        raise InvalidParameter(f"{text!r} is not a compression ratio (e.g. 2 or 2.5:1)") from None
    if not (math.isfinite(value) and 1.0 <= value <= 100.0):
        raise InvalidParameter("a compression ratio is 1 to 100 (e.g. 2.5 for 2.5:1)")
    return value


def parse_streams(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise InvalidParameter(f"{text!r} is not a whole number of streams") from None
    if not 1 <= value <= 10_000:
        raise InvalidParameter("streams must be 1 to 10000")
    return value


@dataclass
class TroubleshootRequest:
    """The session as given: typed-in rates, history run ids and the workload (step 5)."""

    rates: dict[str, float] = field(default_factory=dict)  # FIGURES key -> MB/s
    runs: dict[str, list[int]] = field(default_factory=dict)  # RUN_STEPS key -> history run ids
    backup: float | None = None
    restore: float | None = None
    backup_run: int | None = None  # a recorded watch of the backup (``backup-watch``): its rate instead of a typed one
    restore_run: int | None = None
    streams: int | None = None
    block_size: str | None = None  # as typed; checked by parse_block_size
    software_compression: bool | None = None
    network: str | None = None  # the link as typed (1GbE, 940Mbit); checked by parse_link
    network_rate: float | None = None
    small_files: bool | None = None
    file_count: int | None = None
    application: str | None = None
    os: str | None = None
    drive: str | None = None  # the generation as typed (LTO-9, ULTRIUM-HH8)
    drive_run: int | None = None
    compression_ratio: float | None = None

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "TroubleshootRequest":
        """From the CLI's parsed options or the GUI's fields: each value typed already or text.

        Keys as the CLI's options: the FIGURES (MB/s, or 'run N' text), ``<step>_run`` lists of
        run ids, backup, restore, streams, block_size, software_compression, network,
        network_rate, small_files, file_count, application, os, drive, drive_run,
        compression_ratio. Missing, None and blank values are "not given"; bad text raises
        ``InvalidParameter`` before anything is recorded.
        """
        def given(key: str) -> object | None:
            value = values.get(key)
            return None if value is None or (isinstance(value, str) and not value.strip()) else value

        def number(key: str, parse: Callable[[str], float]) -> float | None:
            value = given(key)
            return None if value is None else float(value) if isinstance(value, (int, float)) else parse(str(value))

        def whole(key: str, parse: Callable[[str], int]) -> int | None:
            value = given(key)
            return None if value is None else value if isinstance(value, int) else parse(str(value))

        def flag(key: str) -> bool | None:
            value = given(key)
            return None if value is None else value if isinstance(value, bool) else parse_on_off(str(value))

        def text(key: str, check: Callable[[str], object] | None = None) -> str | None:
            value = given(key)
            if value is None:
                return None
            if check is not None:
                check(str(value))  # reject a bad value before anything is recorded
            return str(value).strip()

        req = cls()
        for step in RUN_STEPS:
            ids = values.get(f"{step}_run") or []
            req.runs[step] = [parse_run(i) for i in (ids if isinstance(ids, (list, tuple)) else [ids])]
        for key in FIGURES:
            value = given(key)
            figure = value if isinstance(value, (int, float)) else parse_figure(str(value)) if value is not None else None
            if isinstance(figure, RunRef):  # a run typed in a parallel field is filed by its own stream count
                req.runs[key.removesuffix("_parallel")].append(figure.run_id)
            elif figure is not None:
                req.rates[key] = float(figure)
        for side in ("backup", "restore"):  # MB/s, or 'run N' (the GUI's field), or the CLI's --backup-run N
            value = given(side)
            figure = value if isinstance(value, (int, float)) else parse_figure(str(value)) if value is not None else None
            if isinstance(figure, RunRef):
                setattr(req, f"{side}_run", figure.run_id)
            elif figure is not None:
                setattr(req, side, float(figure))
            if given(f"{side}_run") is not None:
                setattr(req, f"{side}_run", whole(f"{side}_run", int))
        req.streams = whole("streams", parse_streams)
        req.block_size = text("block_size", parse_block_size)
        req.software_compression = flag("software_compression")
        req.network = text("network", parse_link)
        req.network_rate = number("network_rate", parse_rate)
        req.small_files = flag("small_files")
        req.file_count = whole("file_count", parse_file_count)
        req.application, req.os = text("application"), text("os")
        req.drive = text("drive", parse_generation)
        req.drive_run = whole("drive_run", int)
        req.compression_ratio = number("compression_ratio", parse_ratio)
        return req

    def has_figures(self) -> bool:
        """Anything to compare: a component figure (typed or from a run) or the application's rate."""
        return bool(self.rates or any(self.runs.values()) or self.backup is not None or self.restore is not None
                    or self.backup_run is not None or self.restore_run is not None)


def build_input(req: TroubleshootRequest, hist: History) -> tuple[TroubleshootInput, str]:
    """The typed input from the request and its history runs; also the device to file the session under."""
    device = ""
    m: dict[str, Figure] = {}
    for key, value in req.rates.items():  # the disk fields without "_parallel" are the single-stream figures
        m[key if key.startswith("tape") or key.endswith("_parallel") else f"{key}_single"] = Figure(value)
    drive_ctx = DriveContext()
    source_files: tuple[int, float] | None = None
    for run_id in req.runs.get("network", []):
        m.update(network_figures(hist, run_id))
    for step in RUN_STEPS[:-1]:
        for run_id in req.runs.get(step, []):
            fig = figure_from_run(hist, run_id, step)
            loaded = read_run(hist.get_run(run_id, samples=False))
            if step.startswith("tape"):
                m[step] = fig
                device = device or loaded.run.device
                found = drive_from_run(loaded)
                if found and drive_ctx.generation is None:
                    drive_ctx = found
            else:
                m[f"{step}_{'parallel' if streams_of(loaded) > 1 else 'single'}"] = fig
                if step == "disk_read":  # read-data walks the customer's own data: its file sizes count
                    source_files = file_stats(loaded) or source_files
    if req.drive_run:
        run = hist.get_run(req.drive_run, samples=False)
        found = drive_from_run(read_run(run))
        if not found:
            raise InvalidParameter(f"run {req.drive_run} does not say which drive it was")
        drive_ctx, device = found, run.device
    achieved, drive_ctx, device = _watched(req, hist, drive_ctx, device)
    if req.drive:
        gen, half = parse_generation(req.drive)
        drive_ctx = replace(drive_ctx, generation=gen, half_height=half)
    if req.compression_ratio:
        drive_ctx = replace(drive_ctx, compression_ratio=req.compression_ratio)
    workload = Workload(
        **{"backup_mb_s": req.backup, "restore_mb_s": req.restore, **achieved}, streams=req.streams,
        block_size=parse_block_size(req.block_size) if req.block_size else None,
        software_compression=req.software_compression,
        link=req.network, network_mb_s=req.network_rate, small_files=req.small_files,
        file_count=req.file_count if req.file_count is not None else (source_files[0] if source_files else None),
        avg_file_kb=source_files[1] if source_files and req.small_files is None else None,
        application=req.application, os=req.os,
    )
    return TroubleshootInput(Measurements(**m), workload, drive_ctx), device


def _watched(req: TroubleshootRequest, hist: History, drive_ctx: DriveContext,
             device: str) -> tuple[dict[str, Any], DriveContext, str]:
    """The application's rates taken from recorded watches of the job (``watched_figure``): the workload's fields
    they fill, and the drive (and the customer's own compression ratio) the watch read, where no tape run gave one."""
    achieved: dict[str, Any] = {}
    for side in ("backup", "restore"):
        run_id = getattr(req, f"{side}_run")
        if run_id is None:
            continue
        if getattr(req, side) is not None:
            raise InvalidParameter(f"the {side}'s rate is given twice (a figure and run {run_id}): give one")
        watched = watched_figure(hist, run_id, side)
        achieved.update({f"{side}_mb_s": watched.mb_s, f"{side}_source": watched.source,
                         f"{side}_waiting_share": watched.waiting_share, f"{side}_run": run_id})
        run = hist.get_run(run_id, samples=False)
        found = drive_from_run(read_run(run))
        if found and drive_ctx.generation is None:
            drive_ctx, device = found, device or run.device
        if watched.compression_ratio and drive_ctx.compression_ratio is None:
            drive_ctx = replace(drive_ctx, compression_ratio=max(watched.compression_ratio, 1.0))
    return achieved, drive_ctx, device


def diagnose_recorded(req: TroubleshootRequest, history: History | None = None) -> tuple[Diagnosis, int]:
    """Diagnose the request and record the session in the history: (diagnosis, run id)."""
    if not req.has_figures():
        raise InvalidParameter("no figures given", hint="pass e.g. --tape-write 154 --disk-read 10.59 --backup 22.98, "
                                                        "or run on a terminal to be asked")
    hist = History.open() if history is None else history
    try:
        inp, device = build_input(req, hist)
        run = execute(TROUBLESHOOT, inp, device, history=hist)
    finally:
        if history is None:
            hist.close()
    return run.result, run.run_id


__all__ = ["FIGURES", "RUN_STEPS", "RunRef", "TroubleshootRequest", "build_input", "diagnose_recorded",
           "parse_figure", "parse_file_count", "parse_run", "parse_rate", "parse_ratio", "parse_streams"]

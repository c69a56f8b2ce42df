"""The disk tests as run kinds: ``create-data`` (the restore side) and ``read-data`` (the backup side).

Each kind's parameters, engine, typed result and renderers (``app.runs.RunKind``); ``app.catalog`` lists
them. A disk run's rate is a measurement the troubleshooting compares: it has no verdict of its own, but a
read-data run says whether a cache served it (``app.disk.cache``).
"""
from __future__ import annotations

from pathlib import Path

from app.disk.cache import read_cache
from app.disk.create import CreateDataTest
from app.disk.manifest import Manifest, clean
from app.disk.params import CreateDataParams, ReadDataParams
from app.disk.read import ReadDataTest
from app.disk.results import CreateDataResult, DiskResult, ReadDataResult
from app.disk.text import render, render_clean
from app.events import CancelToken, EventSink
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, Command, Finding, RunContext, RunKind, Rows, Target
from app.runs.words import count, duration, mb_s, volume
from native.units import plural, rate_text


def headline(result: DiskResult) -> str:
    return f"{rate_text(result.mb_s)}, {result.files_s:,.0f} files/s, {plural(result.total_files, 'file')}"


def exit_code(result: DiskResult) -> int:
    """0 done, 1 stopped early (a full disk), 130 cancelled."""
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_FAILED if result.status == "stopped" else EXIT_OK


def _rate(topic: str, result: DiskResult) -> Finding:
    words = f"{mb_s(result.mb_s)}, {result.files_s:,.0f} files/s"
    detail = (f"{plural(result.total_files, 'file')}, {volume(result.total_bytes)}, "
              f"{plural(len(result.streams) or 1, 'stream')}")
    return Finding(topic, words, "none", detail)


def create_findings(result: CreateDataResult) -> list[Finding]:
    return [_rate("Disk write rate", result)]


def read_findings(result: ReadDataResult) -> list[Finding]:
    """The read rate, and whether a cache served it (``app.disk.cache.read_cache``)."""
    cache = read_cache(result)
    return [_rate("Disk read rate", result)] + ([cache] if cache else [])


def rows(result: DiskResult) -> Rows:
    out: Rows = [("Directory", result.target or "—"),
                 ("Volume", f"{volume(result.total_bytes)} in {count(result.total_files, 'file')}, "
                            f"{duration(result.seconds)}")]
    for st in result.streams:
        out.append((f"Stream {st.stream}", f"{mb_s(st.mb_s)}, {st.files_s:,.0f} files/s, {volume(st.bytes)}, "
                                           f"{count(st.errors, 'error')}"))
    lat = result.latency
    if lat.count:
        out.append(("Time per file", f"median {duration(lat.p50_ms / 1000)}, 99th percentile "
                                     f"{duration(lat.p99_ms / 1000)}, max {duration(lat.max_ms / 1000)}"))
    if isinstance(result, CreateDataResult) and result.flush_seconds:
        out.append(("Flush to disk", duration(result.flush_seconds)))
    if isinstance(result, ReadDataResult) and result.unreadable_count:
        out.append(("Unreadable files", f"{result.unreadable_count:,}"))
    return out


class _CreateThenClean:
    """create-data, then (``cleanup``) remove what it made again, said in the result."""

    def __init__(self, params: CreateDataParams) -> None:
        self.test = CreateDataTest(params)
        self.cleanup = params.cleanup

    def run(self, sink: EventSink, cancel: CancelToken) -> CreateDataResult:
        result = self.test.run(sink, cancel)
        if self.cleanup:
            run_id = Manifest.load(Path(result.target)).runs[-1].run_id
            result.cleanup = render_clean(clean(result.target, run_id))
        return result


CREATE_DATA: RunKind[CreateDataParams, CreateDataResult] = RunKind(
    "create-data", "Disk write (create data)", Target.DIRECTORY, CreateDataParams, CreateDataResult,
    lambda ctx: _CreateThenClean(ctx.params), headline=headline, text=render, rows=rows, findings=create_findings,
    exit_code=exit_code,
    command=Command("create-data", "create a test tree and measure the disk's write rate (restore side)"))


def _read_engine(ctx: RunContext[ReadDataParams]) -> ReadDataTest:
    return ReadDataTest(ctx.params)


READ_DATA: RunKind[ReadDataParams, ReadDataResult] = RunKind(
    "read-data", "Disk read (read data)", Target.DIRECTORY, ReadDataParams, ReadDataResult, _read_engine,
    headline=headline, text=render, rows=rows, findings=read_findings, exit_code=exit_code,
    command=Command("read-data", "read a tree like a backup agent and measure the disk's read rate (backup side)"))

__all__ = ["CREATE_DATA", "READ_DATA", "exit_code", "headline", "read_findings", "rows"]

"""`tapediag tape-perf`: how fast does this drive write and read, with this data and these sizes.

Progress (rate, ETA) goes to stderr when it is a terminal; ``--json`` prints one result
object on stdout; ``--samples FILE.csv`` keeps every I/O (time, bytes, latency). The run
is recorded in the history. Bad input and safety refusals are one line and an exit code
(see ``app.cli``), with nothing written.
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any, TextIO

from app.cli.commands import HELP
from app.output import Replacement, Stream, open_output
from native.errors import InvalidParameter

from app.events import Event, Message, PhaseFinished, PhaseStarted, Progress
from app.runs.kind import RunKind
from app.stop import cancelling
from app.tapeperf import TapePerfParams, TapePerfResult
from app.tapeperf.kind import TAPE_PERF, TAPE_PERF_MULTI
from app.runs.fields import add_options, values
from app.tapeperf.multi import ALONE
from native.units import SIZES_HELP, duration_text, rate_text
from app.tapeperf.session import run_on_device


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "tape-perf",
        help=HELP["tape-perf"],
        description="Write (and read back) test data with a known compression ratio and measure the rate. "
        "Refuses write-protected or WORM cartridges, and cartridges holding data unless --force. " + SIZES_HELP,
    )
    parser.add_argument("device", metavar="DEVICE", nargs="+",
                        help="e.g. /dev/sg3, iscsi://host/iqn/1, virtual:lto9; several: each alone, then all together, "
                        "and whether the path they share (HBA, port, target) limits them")
    add_options(parser, TapePerfParams.FIELDS)  # declared once, with the GUI's form (app.tapeperf.params)
    add_options(parser, (ALONE,))
    parser.add_argument("--json", action="store_true", help="print one JSON result object on stdout")
    parser.add_argument("--samples", metavar="FILE.csv", default=None, help="write every I/O sample to a CSV file")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> TapePerfParams:
    """The engine's parameters from the command line, by the conversion the GUI uses (raises InvalidParameter)."""
    return TapePerfParams.from_values(values(args, TapePerfParams.FIELDS))


class _Printer:
    """Progress on a terminal (one rewritten line), messages always, to stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.line = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress) and self.tty:
            eta = f", ETA {duration_text(event.eta_s)}" if event.eta_s is not None else ""
            total = f" of {event.total_bytes / 1e9:.2f} GB" if event.total_bytes else ""
            self.stream.write(f"\r{event.phase}: {event.done_bytes / 1e9:.2f} GB{total} at {rate_text(event.rate_mb_s)}{eta}   ")
            self.stream.flush()
            self.line = True
        elif isinstance(event, Message):
            self._end_line()
            print(f"{event.level}: {event.text}", file=self.stream)
        elif isinstance(event, PhaseStarted) and self.tty:
            self._end_line()
        elif isinstance(event, PhaseFinished):
            self._end_line()

    def _end_line(self) -> None:
        if self.line:
            self.stream.write("\n")
            self.line = False


def open_samples_file(path: str) -> Replacement | Stream:
    """Where the CSV goes, opened before the test runs: a bad path is bad input, found before any write.

    A regular file (or a new name) is replaced once the CSV is complete (``app.output``); a pipe (a FIFO,
    ``>(gzip > s.csv.gz)``) is streamed into, on purpose, opened without blocking (no reader: one line,
    not a hang before the test). Anything else (a device, a link, a directory) is refused."""
    return open_output(Path(path), "the samples file", pipes=True)


def write_samples_csv(target: Replacement | Stream, result: TapePerfResult) -> None:
    out = csv.writer(target.text())
    out.writerow(["phase", "t_s", "bytes", "latency_s"])
    for s in result.samples:
        out.writerow([s.phase, f"{s.t:.6f}", s.nbytes, f"{s.latency:.6f}"])
    target.commit()


def run(args: argparse.Namespace) -> int:
    params = params_from_args(args)
    params.validate(None)  # what can be rejected without the drive, before opening it
    if len(args.device) > 1:
        return _run_several(args, params)
    if args.alone is not None:
        raise InvalidParameter("--alone is for several devices: it measures each drive alone before all together")
    samples_file = open_samples_file(args.samples) if args.samples else None
    try:
        run_id, result = _run_test(args.device[0], params)
    except BaseException:
        if samples_file is not None:  # nothing half-done: no empty CSV after a refusal, the old file kept
            samples_file.discard()
        raise
    if samples_file is not None:
        write_samples_csv(samples_file, result)
    return _finish(args, TAPE_PERF, run_id, result)


def _finish(args: argparse.Namespace, kind: RunKind[Any, Any], run_id: int, result: Any) -> int:
    """The end of a run, one drive or several: JSON with its run id (as info --json: scripts chain
    'tapediag report RUN_ID') or the kind's text, then the kind's exit status (a TapeAlert flag the drive
    left set is part of the verdict: 10 or 11, as 'tapediag info' rates it)."""
    if args.json:
        print(json.dumps({"run_id": run_id, **result.to_dict()}, indent=2, sort_keys=True))
    else:
        print(kind.text(result) if kind.text is not None else kind.headline(result))
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    return kind.exit_code(result)


def _run_test(device: str, params: TapePerfParams) -> tuple[int, TapePerfResult]:
    """Run the engine with a cancel (Ctrl-C, SIGTERM, SIGHUP: ``app.stop``) as a clean stop, recorded in
    the history (as the GUI runs it)."""
    with cancelling() as cancel:
        return run_on_device(device, params, sink=_Printer(sys.stderr), cancel=cancel)


def _run_several(args: argparse.Namespace, params: TapePerfParams) -> int:
    """Several devices: each alone, then all together, recorded as one run (``app.tapeperf.multi``)."""
    from app.tapeperf.multi import MultiParams
    from app.tapeperf.session import run_on_devices

    multi = MultiParams.from_text(args.device, params, args.alone)
    multi.validate()  # repeated names, sizes: before any device is opened
    samples_file = open_samples_file(args.samples) if args.samples else None
    try:
        with cancelling() as cancel:
            run_id, result = run_on_devices(multi, sink=_Printer(sys.stderr), cancel=cancel)
    except BaseException:
        if samples_file is not None:
            samples_file.discard()
        raise
    if samples_file is not None:
        out = csv.writer(samples_file.text())
        out.writerow(["drive", "stage", "phase", "t_s", "bytes", "latency_s"])
        for i, d in enumerate(result.drives, 1):
            for stage, res in (("alone", d.alone), ("together", d.together)):
                for s in res.samples if res is not None else ():
                    out.writerow([i, stage, s.phase, f"{s.t:.6f}", s.nbytes, f"{s.latency:.6f}"])
        samples_file.commit()
    return _finish(args, TAPE_PERF_MULTI, run_id, result)

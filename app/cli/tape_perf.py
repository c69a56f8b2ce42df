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
from typing import TextIO

from app.cli.commands import HELP
from app.output import Replacement, Stream, open_output
from native.errors import InvalidParameter

from app.events import Event, Message, PhaseFinished, PhaseStarted, Progress
from app.runs.alerts import judge_alerts, worst_exit
from app.stop import cancelling
from app.tapeperf import TapePerfParams, TapePerfResult
from app.tapeperf.sizing import AUTO, AUTO_HELP
from native.units import SIZES_HELP, parse_size, plural, rate_text
from app.tapeperf.results import MB, MiB, phase_headline
from app.tapeperf.session import run_on_device

from . import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK


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
    parser.add_argument("--pattern", default="2:1", help="zeros, random, or N:1 for 1.0 <= N <= 10 (default 2:1)")
    parser.add_argument("--block-size", default="256K", help="bytes per tape block: 262144, 256K, 1M (default 256K)")
    parser.add_argument("--io-size", default=None,
                        help="bytes per WRITE/READ command; in fixed mode a multiple of the block size (default 1M fixed, "
                        "the block size in variable mode)")
    parser.add_argument("--blocks-per-io", type=int, default=None,
                        help="HP-UX form: blocks per I/O (fixed mode; sets --io-size = block size x this)")
    parser.add_argument("--repeats", type=int, default=None, help="HP-UX form: number of I/Os (sets --size)")
    parser.add_argument("--mode", choices=("fixed", "variable"), default="fixed", help="block mode (default fixed)")
    parser.add_argument("--size", default=AUTO, help="bytes to write (32G, 100GB), a duration (90s, 10min, 1h) or "
                        + AUTO_HELP.replace("%", "%%") + "; a size the cartridge cannot take is capped to what it holds")
    parser.add_argument("--filemarks-every", default="0", help="write a filemark every N bytes (0 = none)")
    parser.add_argument("--compression", choices=("on", "off", "leave"), default="leave", help="hardware compression")
    parser.add_argument("--direction", default="write,read", help="write, read, or write,read (default)")
    parser.add_argument("--start", choices=("bot", "eod"), default="bot", help="write from BOT or append at EOD")
    parser.add_argument("--verify", action="store_true", help="compare every block read back with the data written")
    parser.add_argument("--force", action="store_true", help="overwrite a cartridge that holds data")
    parser.add_argument("--history-size", default=None, help="SLDC history for the pattern (1K or 16K; default from the generation)")
    parser.add_argument("--seed", type=int, default=0, help="pattern seed (a read-only --verify needs the writer's seed)")
    parser.add_argument("--host-rate", default=None, help="throttle the host to this many bytes/s (e.g. 50MB) to reproduce a slow source")
    parser.add_argument("--alone", default=None, metavar="AMOUNT",
                        help="several devices: how long each drive runs alone first, bytes or a duration "
                        "(default: --size, at most 20s); 0 skips it (then no shared-path verdict)")
    parser.add_argument("--json", action="store_true", help="print one JSON result object on stdout")
    parser.add_argument("--samples", metavar="FILE.csv", default=None, help="write every I/O sample to a CSV file")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> TapePerfParams:
    """The engine's parameters from the command line (raises InvalidParameter on bad input)."""
    values = {
        "direction": args.direction, "pattern": args.pattern, "block_size": args.block_size, "mode": args.mode,
        "io_size": args.io_size, "size": args.size, "filemarks_every": args.filemarks_every,
        "compression": args.compression, "start": args.start, "verify": args.verify, "force": args.force,
        "history": args.history_size, "seed": args.seed, "host_rate": args.host_rate,
    }
    if args.blocks_per_io is not None or args.repeats is not None:  # the HP-UX form
        block = parse_size(args.block_size, "block size")
        io = block * args.blocks_per_io if args.blocks_per_io is not None else parse_size(args.io_size or "1M", "I/O size")
        values["io_size"] = str(io)
        if args.repeats is not None:
            values["size"] = str(io * args.repeats)
    return TapePerfParams.from_text(values)


class _Printer:
    """Progress on a terminal (one rewritten line), messages always, to stderr."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.line = False

    def __call__(self, event: Event) -> None:
        if isinstance(event, Progress) and self.tty:
            eta = f", ETA {_duration(event.eta_s)}" if event.eta_s is not None else ""
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


def _duration(seconds: float) -> str:
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value * 1000:.1f} ms"


def summary_lines(result: TapePerfResult) -> list[str]:
    """The human-readable result, one fact a line."""
    gen = f"LTO-{result.generation}" if result.generation else "generation unknown"
    lines = [f"{result.device}: {result.vendor} {result.product} ({gen}), compression {result.compression}"]
    predicted = f"{result.predicted_ratio:.2f}:1" if result.predicted_ratio else "-"
    drive = f"{result.drive_ratio:.2f}:1" if result.drive_ratio else "not reported"
    generated = result.params.get("direction") != "read" or result.params.get("verify")
    model = f"model predicts {predicted}" if generated else f"taken as {predicted} (a read without --verify makes no data)"
    lines.append(f"pattern {result.params['pattern']}: {model}, drive reports {drive}")
    plan = result.size_plan or {}
    if plan.get("auto") or (plan.get("asked") and plan.get("size") and plan["size"] < plan["asked"]):
        lines.append(f"size {plan['why']}")
    as_dict = result.to_dict()
    for ph, pd in zip(result.phases, as_dict["phases"]):
        lines.append(phase_headline({**pd, "possible_label": as_dict["possible_label"]}))
        mib = (f"streaming {ph.streaming_mb_per_s * MB / MiB:,.1f} MiB/s, "
               if ph.streaming_mb_per_s is not None else "")
        lines.append(f"  {ph.bytes / 1e9:.3f} GB in {ph.elapsed:.1f} s ({mib}overall {ph.mib_s:,.1f} MiB/s); "
                     f"ended: {ph.end_reason}")
        lines.append(f"  limited by: {pd['limited_why']}" if pd["limited_by"] != "not steady"
                     else f"  not steady: {pd['limited_why']}")
        if ph.per_second_min_mb_s is not None:
            lines.append(f"  per second: min {rate_text(ph.per_second_min_mb_s)}, max {rate_text(ph.per_second_max_mb_s)}")
        lines.append(f"  latency p50 {_ms(ph.latency_p50)}, p99 {_ms(ph.latency_p99)}, max {_ms(ph.latency_max)}; "
                     f"first byte after {_ms(ph.time_to_first_byte)}; "
                     + (f"buffer flushed in {_ms(ph.flush_seconds)}; " if ph.flush_seconds else "")
                     + f"{plural(ph.ios, 'I/O')}, {plural(ph.blocks, 'block')}, {plural(ph.filemarks, 'filemark')}")
        if ph.stalls:
            where = ", ".join(f"{s.t:.1f}s" for s in ph.stalls[:8]) + (" ..." if len(ph.stalls) > 8 else "")
            caused = len(ph.host_stalls)
            lines.append(f"  {plural(len(ph.stalls), 'stall')} (back-hitch signature) at {where}"
                         + (f"; {caused} of them the host caused (it did not keep up)" if caused else ""))
        if ph.verified_blocks or ph.verify_errors:
            lines.append(f"  verify: {ph.verified_blocks} blocks identical, {ph.verify_errors} differ"
                         + (f" ({ph.first_verify_error})" if ph.first_verify_error else ""))
    for d in result.log_deltas:
        if d.delta:
            lines.append(f"log: {d.name} +{d.delta}")
    lines.extend(f"log: {note}" for note in result.log_notes)
    alerts = judge_alerts(result.tapealert)
    if alerts is not None:
        lines.append(f"TapeAlert after the test: {', '.join(alerts.flags)}: {alerts.verdict}")
        lines.extend(f"  what to do: {advice}" for advice in alerts.advice)
    if result.status != "complete":
        lines.append(f"status: {result.status}" + (f": {result.error}" if result.error else ""))
    if result.settings:
        lines.append(result.settings)
    return lines


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
    return _finish(args, run_id, result.to_dict(), summary_lines(result), result.status)


def _finish(args: argparse.Namespace, run_id: int, result: dict, lines: list[str], status: str) -> int:
    """The end of a run, one drive or several: JSON with its run id (as info --json: scripts chain
    'tapediag report RUN_ID') or the summary, then the exit status the run's outcome maps to."""
    if args.json:
        print(json.dumps({"run_id": run_id, **result}, indent=2, sort_keys=True))
    else:
        print("\n".join(lines))
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    if status == "cancelled":
        return EXIT_CANCELLED
    # A TapeAlert flag the drive left set is part of the run's verdict: 10 or 11, as 'tapediag info' rates it.
    return worst_exit(EXIT_FAILED if status == "failed" else EXIT_OK, judge_alerts(result.get("tapealert")))


def _run_test(device: str, params: TapePerfParams) -> tuple[int, TapePerfResult]:
    """Run the engine with a cancel (Ctrl-C, SIGTERM, SIGHUP: ``app.stop``) as a clean stop, recorded in
    the history (as the GUI runs it)."""
    with cancelling() as cancel:
        return run_on_device(device, params, sink=_Printer(sys.stderr), cancel=cancel)


def _run_several(args: argparse.Namespace, params: TapePerfParams) -> int:
    """Several devices: each alone, then all together, recorded as one run (``app.tapeperf.multi``)."""
    from app.tapeperf.multi import MultiParams
    from app.tapeperf.multiresult import summary_lines as multi_lines
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
    return _finish(args, run_id, result.to_dict(), multi_lines(result), result.status)

"""`tapediag export RUN_ID --csv|--json [-o FILE]`: a run's samples (CSV) or the whole run (JSON).

A file is written like a report: into a hidden temporary file beside it, synced, then
renamed over it, so a full disk never leaves half an export nor costs an older file at
that path. A device or a pipe (``-o /dev/stdout``) is written in place; a pipe nobody
reads is refused rather than waited on forever.
"""
from __future__ import annotations

import argparse
import os
import stat
import sys
from pathlib import Path
from typing import TextIO

from app.cli.commands import HELP
from app.history import History
from app.history.export import write_csv, write_json
from app.paths import create_beside
from native.errors import InvalidParameter, TapediagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export", help=HELP["export"],
        description="Write a recorded run for another tool: --csv gives one row per I/O sample (time, bytes, "
                    "latency), --json the run's parameters, results and samples.")
    parser.add_argument("run_id", type=int, metavar="RUN_ID")
    fmt = parser.add_mutually_exclusive_group(required=True)
    fmt.add_argument("--csv", action="store_true", help="one row per I/O sample")
    fmt.add_argument("--json", action="store_true", help="parameters, results and samples")
    parser.add_argument("-o", "--output", type=Path, help="write to this file instead of stdout")
    parser.set_defaults(func=run)


def _open_output(path: Path) -> tuple[TextIO, Path | None]:
    """The stream to write and the temporary file to rename over ``path`` (None: written in place)."""
    try:
        try:
            st: os.stat_result | None = os.stat(path)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise InvalidParameter(f"cannot write {path}: it is a directory")
        if st is not None and not stat.S_ISREG(st.st_mode):
            nonblock = getattr(os, "O_NONBLOCK", 0)  # POSIX only
            fd = os.open(path, os.O_WRONLY | nonblock)  # a pipe without a reader: ENXIO, not a hang
            if nonblock:
                os.set_blocking(fd, True)
            return os.fdopen(fd, "w", newline="", encoding="utf-8"), None
        if st is not None and not os.access(path, os.W_OK):
            raise InvalidParameter(f"cannot write {path}: permission denied")
        fd, tmp = create_beside(path)
        return os.fdopen(fd, "w", newline="", encoding="utf-8"), tmp
    except OSError as err:  # the user's path: bad input, nothing was written
        reason = "no program is reading that pipe" if err.errno == 6 else (err.strerror or str(err))  # ENXIO
        raise InvalidParameter(f"cannot write {path}: {reason}") from err


def run(args: argparse.Namespace) -> int:
    with History.open() as hist:
        got = hist.get_run(args.run_id, samples=args.json)  # checks the id before creating a file
        out, tmp = _open_output(args.output) if args.output else (sys.stdout, None)
        try:
            if args.csv:
                n = write_csv(hist, args.run_id, out)
                what = f"{n} samples"
            else:
                write_json(got, out)
                what = "run"
            out.flush()
            if tmp is not None:
                os.fsync(out.fileno())
                out.close()
                os.replace(tmp, args.output)
                tmp = None
        except OSError as err:
            raise TapediagError(f"cannot write {args.output or 'the output'}: {err.strerror or err}"
                                + ("; nothing was replaced" if tmp is not None else "")) from err
        finally:
            if args.output:
                try:
                    out.close()
                except OSError:
                    pass  # the error that matters was raised above
                if tmp is not None:  # no half-written export left behind
                    tmp.unlink(missing_ok=True)
    if args.output:
        print(f"Exported {what} of run {args.run_id} to {args.output}", file=sys.stderr)
    return 0

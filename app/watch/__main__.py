"""``python -m app.watch DEVICE [--for 10m] [--until-idle 60s] ...``: the watch's interim front end.

Until the run model wires ``tapediag watch`` (and records the result in the history), this is
how a watch runs, and how the tests run it as a real process. The options come from the
parameters' declarations (``app.watch.params``); the exit codes are the CLI's (the package's
docstring lists them); every error is one line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
from typing import NoReturn, Sequence

from app.events import CancelToken, DriveBusy, Event, Message, Progress
from app.runs.fields import add_options, values
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.watch.params import WatchParams
from native.errors import InvalidParameter, TapediagError
from native.units import percent, rate_text, size_text


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m app.watch", description="watch a backup another program runs on a tape drive "
                                                              "(read-only; tapediag's interim front end)")
    device, *options = WatchParams.FIELDS
    parser.add_argument("device", help=device.help)
    add_options(parser, options)
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


#: Seconds between the live lines on stderr.
EVERY_S = 5.0


class _Console:
    """Messages at once, and every ``EVERY_S`` a line with the rate and the drive's busy share since the last."""

    def __init__(self, quiet: bool) -> None:
        self.quiet = quiet
        self.busy_s = self.seconds = 0.0
        self.next_line = EVERY_S

    def __call__(self, event: Event) -> None:
        if isinstance(event, Message):
            print(f"{event.level}: {event.text}", file=sys.stderr, flush=True)
        elif isinstance(event, DriveBusy):
            self.busy_s += event.busy_share * event.seconds
            self.seconds += event.seconds
        elif isinstance(event, Progress) and not self.quiet and event.elapsed >= self.next_line:
            self.next_line = event.elapsed + EVERY_S
            busy = self.busy_s / self.seconds if self.seconds else 0.0
            print(f"  {event.elapsed:.0f} s: {size_text(event.done_bytes)} moved, {rate_text(event.rate_mb_s)} over the "
                  f"job so far; the drive busy {percent(busy)} in the last {self.seconds:.0f} s", file=sys.stderr, flush=True)
            self.busy_s = self.seconds = 0.0


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    cancel = CancelToken()
    names = [n for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {n: signal.signal(getattr(signal, n), lambda *_: cancel.cancel()) for n in names}
    try:
        from app.watch.engine import Watch
        from app.watch.text import render

        params = WatchParams.from_values({**values(args, WatchParams.FIELDS), "device": args.device})
        result = Watch(params).run(_Console(args.json), cancel)
    except InvalidParameter as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except TapediagError as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as err:
        print(f"tapediag: error: {err.strerror or err}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        for n, handler in previous.items():
            signal.signal(getattr(signal, n), handler)
    print(json.dumps(result.to_dict(), indent=2) if args.json else render(result), flush=True)
    if result.status == "cancelled":
        print("tapediag: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    if result.status == "stopped":
        print(f"tapediag: error: {result.error}", file=sys.stderr)
        return EXIT_FAILED
    if result.status == "nothing":
        print(f"tapediag: {result.verdict.line}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())

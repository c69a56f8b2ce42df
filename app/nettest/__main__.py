"""``python -m app.nettest serve|test``: the network test's interim front end.

Until the run model wires ``tapediag net-serve`` / ``tapediag net-test`` (and records the
client's result in the history), this is how the two ends run, and how the tests run
them as real processes. The options come from the parameters' field tables
(``NetTestParams.FIELDS``, ``app.runs.fields``); the exit codes are every command's
(``app.runs.kind``; ``app.nettest``'s docstring lists them); every error is one line on
stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import signal
import sys
import time
from typing import Callable, Sequence, TypeVar

from app.events import CancelToken, Event, Message, Progress
from app.nettest.params import NetTestParams, ServeParams
from app.runs.fields import add_options, values
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_USAGE
from app.nettest.token import ENV, read_token
from native.errors import InvalidParameter, TapediagError
from native.units import rate_text, size_text


T = TypeVar("T")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> "NoReturn":  # type: ignore[name-defined]  # noqa: F821
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m app.nettest", description="tapediag's network test (interim front end)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    serve = sub.add_parser("serve", help="wait for one network test session, then exit")
    add_options(serve, ServeParams.FIELDS)
    test = sub.add_parser("test", help="measure TCP throughput to a server started with 'serve'")
    host, *others = NetTestParams.FIELDS
    test.add_argument(host.name, help=host.help)  # where to: the one word every test names
    add_options(test, others)
    test.add_argument("--token-file", help=f"read the token from this file's first line (else {ENV}, else a prompt)")
    test.add_argument("--json", action="store_true", help="print the result as JSON")
    return parser


def _with_cancel(work: Callable[[CancelToken], T]) -> T:
    """Ctrl-C, SIGTERM and SIGHUP all cancel: the run stops within one slice and says so."""
    cancel = CancelToken()
    names = [n for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)]
    previous = {n: signal.signal(getattr(signal, n), lambda *_: cancel.cancel()) for n in names}
    try:
        return work(cancel)
    finally:
        for n, handler in previous.items():
            signal.signal(getattr(signal, n), handler)


def _serve(args: argparse.Namespace) -> int:
    from app.nettest.server import Listening, NetServer
    from app.nettest.text import listening_lines

    params = ServeParams.from_values(values(args, ServeParams.FIELDS))

    def console(event: object) -> None:
        if isinstance(event, Listening):
            print("\n".join(listening_lines(event)), flush=True)
        elif isinstance(event, Message):
            print(f"net-serve: {event.text}", flush=True)

    outcome = _with_cancel(NetServer(params, console).serve)
    if outcome.status == "complete":
        print(f"net-serve: {outcome.text}", flush=True)
        return EXIT_OK
    print(f"tapediag: {'cancelled' if outcome.status == 'cancelled' else 'error'}: {outcome.text}", file=sys.stderr)
    return EXIT_CANCELLED if outcome.status == "cancelled" else EXIT_FAILED


def _progress_printer(quiet: bool) -> Callable[[Event], None]:
    last = [0.0]

    def sink(event: Event) -> None:
        if isinstance(event, Progress) and not quiet and time.monotonic() - last[0] >= 1.0:
            last[0] = time.monotonic()
            print(f"  {event.phase}: {size_text(event.done_bytes)}, {rate_text(event.rate_mb_s)}, "
                  f"{event.elapsed:.0f} s", file=sys.stderr, flush=True)

    return sink


def _test(args: argparse.Namespace) -> int:
    from app.nettest.client import NetTest
    from app.nettest.text import render

    params = NetTestParams.from_values({**values(args, NetTestParams.FIELDS[1:]), "host": args.host})
    params.validate()
    token = read_token(args.token_file)
    result = _with_cancel(lambda cancel: NetTest(params, token).run(_progress_printer(args.json), cancel))
    print(json.dumps(result.to_dict(), indent=2) if args.json else render(result), flush=True)
    if result.status == "cancelled":
        print("tapediag: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    if result.status != "complete":
        print(f"tapediag: error: {result.error}", file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _serve(args) if args.command == "serve" else _test(args)
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except InvalidParameter as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except TapediagError as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as err:
        print(f"tapediag: error: {err.strerror or err}", file=sys.stderr)
        return EXIT_FAILED


if __name__ == "__main__":
    sys.exit(main())

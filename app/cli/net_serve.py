"""`tapediag net-serve --listen ADDR:PORT`: one end of the network test, for one session, then it exits.

It listens only on the address given (``0.0.0.0``/``::`` only when given, and then it says so), prints a
one-time token on its own console, admits the one client that brings it, and exits after the session,
after ``--wait-seconds`` without one, or after too many wrong tokens (``app.nettest.server``).

Not a recorded run, on purpose: the client's ``net-test`` run holds both directions' figures (the server
hands its counts over), and the server keeps no state on its machine, no history, no file: a session
leaves nothing behind. Exit codes: 0 the session ran complete; 1 it did not (no client came, too many
wrong tokens, the session broke, the port is in use); 2 bad input; 130 stopped (Ctrl-C, SIGTERM).
"""
from __future__ import annotations

import argparse
import sys

from app.cli.commands import HELP
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    from app.nettest.params import DEFAULT_PORT, ServeParams
    from app.runs.fields import add_options

    parser = subparsers.add_parser(
        "net-serve", help=HELP["net-serve"],
        description="Wait for one network test session from 'tapediag net-test', on the one address given, then "
        "exit. Prints a one-time token: give it to net-test (--token-file, TAPEDIAG_NET_TOKEN or its prompt). "
        "Records nothing and writes no file. Exit status: 0 the session ran complete, 1 it did not (no client "
        "came in time, too many wrong tokens, the session broke, the port in use), 2 bad input, 130 stopped.")
    parser.add_argument("--listen", required=True, metavar="ADDR:PORT",
                        help=f"the one local address and TCP port to listen on, e.g. 127.0.0.1:{DEFAULT_PORT} or "
                             f"[::1]:{DEFAULT_PORT} (port 0: any free port, printed); 0.0.0.0 or [::] listens on "
                             "every interface, and says so")
    add_options(parser, ServeParams.FIELDS)  # bind and port come from --listen
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from app.events import Message
    from app.nettest.params import ServeParams, parse_address
    from app.nettest.server import Listening, NetServer
    from app.nettest.text import listening_lines
    from app.runs.fields import values
    from app.stop import cancelling

    bind, port = parse_address(args.listen, default_port=None)
    params = ServeParams.from_values({**values(args, ServeParams.FIELDS), "bind": bind.strip("[]"), "port": port})

    def console(event: object) -> None:
        if isinstance(event, Listening):
            print("\n".join(listening_lines(event)), flush=True)
        elif isinstance(event, Message):
            print(f"net-serve: {event.text}", flush=True)

    with cancelling() as cancel:
        outcome = NetServer(params, console).serve(cancel)
    if outcome.status == "complete":
        print(f"net-serve: {outcome.text}", flush=True)
        return EXIT_OK
    if outcome.status == "cancelled":
        print(f"tapediag: cancelled: {outcome.text}", file=sys.stderr)
        return EXIT_CANCELLED
    print(f"tapediag: error: {outcome.text}", file=sys.stderr)
    return EXIT_FAILED

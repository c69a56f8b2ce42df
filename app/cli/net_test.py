"""`tapediag net-test HOST:PORT`: the network test's client, recorded as a ``net-test`` run (``app.nettest.kind``).

The token net-serve printed comes, in order, from ``--token``, ``--token-file``, ``TAPEDIAG_NET_TOKEN``, or a
prompt on the terminal (``app.nettest.token``: what each costs). It is never recorded, printed or exported.
Exit codes: 0 complete; 1 nothing listens, the server refused (wrong token, busy, limits), the test broke;
2 bad input (refused before any connection); 130 cancelled (Ctrl-C, SIGTERM).
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from typing import TYPE_CHECKING

from app.cli.commands import HELP
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED

if TYPE_CHECKING:
    from app.nettest.params import NetTestParams

TOKEN_HELP = ("how to give the token net-serve printed, safest first: type it when asked (a terminal, nothing "
              "kept); --token-file FILE (first line; keep the file private); the TAPEDIAG_NET_TOKEN environment "
              "variable; --token TOKEN, least safe: every user of this machine can read it (ps) while the test runs")


def register(subparsers: argparse._SubParsersAction) -> None:
    from app.nettest.params import DEFAULT_PORT, NetTestParams
    from app.runs.fields import add_options

    parser = subparsers.add_parser(
        "net-test", help=HELP["net-test"],
        description="Measure TCP throughput to the server tapediag's net-serve started, for a "
        "given time: client to server is what a backup sends, server to client what a restore brings back; per "
        "stream and in total (MB/s, Mbit/s), with the kernel's round trip time and retransmissions, in the tape and "
        "disk tests' data patterns. Recorded in the history, where troubleshoot takes the network's figure from it "
        "(--network-run). Exit status: 0 complete, 1 nothing listens, refused or "
        "broken during the test, 2 bad input, 130 cancelled.")
    parser.add_argument("server", metavar="HOST[:PORT]",
                        help=f"where net-serve listens, as it printed it, e.g. 127.0.0.1:{DEFAULT_PORT} "
                             f"(port {DEFAULT_PORT} when left out)")
    add_options(parser, NetTestParams.FIELDS)  # host and port come from HOST:PORT
    secret = parser.add_argument_group("the token (a secret: never recorded or shown)", TOKEN_HELP)
    secret.add_argument("--token-file", metavar="FILE", help="read the token from this file's first line (safer "
                                                              "than --token)")
    secret.add_argument("--token", metavar="TOKEN", help="the token itself: LEAST SAFE, other users see it in ps; "
                                                         "prefer --token-file, TAPEDIAG_NET_TOKEN or the prompt")
    parser.add_argument("--json", action="store_true", help="print the result as JSON (never the token)")
    parser.set_defaults(func=run)


def params_from_args(args: argparse.Namespace) -> "NetTestParams":
    """The parameters as the GUI makes them (``from_values``), the token read apart and hidden in them."""
    from app.nettest.params import NetTestParams, parse_address
    from app.nettest.token import Token, read_token
    from app.runs.fields import values

    host, port = parse_address(args.server)
    params = NetTestParams.from_values({**values(args, NetTestParams.FIELDS), "host": host, "port": port})
    params.validate()  # bad input is refused before the token is asked for
    if args.token is not None:
        print("tapediag: warning: a token on the command line can be read by every user of this machine (ps) "
              "while the test runs; --token-file or TAPEDIAG_NET_TOKEN do not show it", file=sys.stderr)
    return dataclasses.replace(params, token=Token(read_token(args.token_file, given=args.token)))


def run(args: argparse.Namespace) -> int:
    from app.cli._disk_run import progress_printer
    from app.execute import execute
    from app.nettest.kind import NET_TEST
    from app.stop import cancelling

    params = params_from_args(args)
    with cancelling() as cancel:
        run = execute(NET_TEST, params, params.where, sink=progress_printer(args.json), cancel=cancel)
    result = run.result
    if args.json:
        print(json.dumps({"run_id": run.run_id, **result.to_dict()}, indent=2), flush=True)
    else:
        print(NET_TEST.text(result) if NET_TEST.text else NET_TEST.headline(result), flush=True)
        print(f"\nRecorded as run {run.run_id} ('tapediag show {run.run_id}').", flush=True)
    code = NET_TEST.exit_code(result)
    if code == EXIT_CANCELLED:
        print("tapediag: cancelled", file=sys.stderr)
    elif code == EXIT_FAILED:
        print(f"tapediag: error: {result.error}", file=sys.stderr)
    return code

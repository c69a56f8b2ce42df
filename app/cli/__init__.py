"""The ``tapediag`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
``main`` turns every ``TapediagError`` into one clear line on stderr and an exit
status, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from app import __version__
from native.errors import InvalidParameter, SafetyRefusal, TapediagError

# Module names under app.cli, in the order they appear in --help.
COMMAND_MODULES = (
    "devices",
    "info",
    "tape_perf",
    "create_data",
    "read_data",
    "clean",
    "troubleshoot",
    "history",
    "show",
    "export",
    "report",
    "gui",
)

EXIT_OK = 0
EXIT_FAILED = 1  # the test ran and found a problem, or the device failed
EXIT_USAGE = 2  # bad input, refused before anything happened
EXIT_REFUSED = 3  # a safety refusal: nothing was written
EXIT_CANCELLED = 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tapediag",
        description="Diagnose tape drives and the disks that feed them.",
    )
    parser.add_argument("--version", action="version", version=f"tapediag {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module = importlib.import_module(f"app.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return int(args.func(args) or EXIT_OK)
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except SafetyRefusal as err:
        print(f"tapediag: refused: {err}", file=sys.stderr)
        return EXIT_REFUSED
    except InvalidParameter as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except TapediagError as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_FAILED

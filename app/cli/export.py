"""`tapediag export` (not yet implemented)."""
from __future__ import annotations

import argparse

from native.errors import TapediagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("export", help="(not yet implemented)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    raise TapediagError("'tapediag export' is not implemented yet")

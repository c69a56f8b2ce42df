"""`tapediag clean`: remove exactly what create-data made in a directory."""
from __future__ import annotations

import argparse
import json

from app.cli.commands import HELP
from app.disk.manifest import clean
from app.disk.text import render_clean


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "clean", help=HELP["clean"],
        description="Remove the files and directories listed in DIR/.tapediag-manifest.json. Files that "
        "others added keep their directories.",
    )
    parser.add_argument("dir", help="a directory create-data wrote to")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    result = clean(args.dir)
    print(json.dumps(result.to_dict(), indent=2) if args.json else render_clean(result))
    return 0

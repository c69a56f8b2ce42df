"""A run kind's sub-command made from the kind alone: what a kind registered without a CLI module of its own gets
(a kind a test adds, a new kind before its own module), and the shape every kind's command has.

``tapediag NAME TARGET [options] [--json]``: the target by what the kind runs on (a device, a directory,
nothing), the options from its field table (``app.runs.fields``), the run through ``app.execute`` with the
CLI's cancel (``app.stop``), the result in the kind's words (or as JSON with its run id), the exit status
the kind documents.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from app.runs.fields import add_options, values
from app.runs.kind import RunKind, Target


def register_kind(subparsers: argparse._SubParsersAction, kind: RunKind[Any, Any], *, description: str = "",
                  epilog: str | None = None) -> None:
    """The kind's sub-command; ``description`` (default: its one-line help as a sentence) and ``epilog`` (its exit
    statuses) are what a kind's own CLI module adds for ``tapediag NAME --help``."""
    assert kind.command is not None
    words = kind.command.help
    parser = subparsers.add_parser(kind.command.name, help=words,
                                   description=description or words[:1].upper() + words[1:] + ".", epilog=epilog)
    if kind.target is Target.LIBRARY:
        parser.add_argument("target", metavar="DEVICE", help="/dev/sgN (a changer), iscsi://host/iqn/lun or "
                                                             "virtual:library")
    elif kind.target in (Target.DRIVE, Target.QUERIES):
        parser.add_argument("target", metavar="DEVICE", help="/dev/sgN, iscsi://host/iqn/lun or virtual:lto9")
    elif kind.target is Target.DIRECTORY:
        parser.add_argument("target", metavar="DIR", help="the directory")
    elif kind.target is Target.DRIVES:
        parser.add_argument("target", metavar="DEVICE", nargs="+", help="the drives")
    add_options(parser, kind.fields)
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=lambda args: run_kind(kind, args))


def params_of(kind: RunKind[Any, Any], given: dict[str, Any]) -> Any:
    """The kind's parameters from the options: its own conversion (``from_values``), else field by field."""
    from_values = getattr(kind.params, "from_values", None)
    if callable(from_values):
        return from_values(given)
    from app.runs.fields import from_values as by_fields

    return by_fields(kind.params, kind.fields, given)


def run_kind(kind: RunKind[Any, Any], args: argparse.Namespace) -> int:
    from app.cli._drive_run import warnings_to_stderr
    from app.execute import execute
    from app.stop import cancelling

    target = getattr(args, "target", "")
    device = ", ".join(target) if isinstance(target, list) else str(target)
    params = params_of(kind, {**values(args, kind.fields), **({"devices": target} if isinstance(target, list) else {})})
    with cancelling() as cancel:
        run = execute(kind, params, device, sink=warnings_to_stderr, cancel=cancel)
    if args.json:
        to_dict = getattr(run.result, "to_dict", None)
        print(json.dumps({"run_id": run.run_id, **(to_dict() if callable(to_dict) else {})}, indent=2, default=str))
    else:
        print(kind.text(run.result) if kind.text is not None else kind.headline(run.result))
        print(f"\nRecorded as run {run.run_id} ('tapediag report {run.run_id} -o report.pdf').")
    return kind.exit_code(run.result)


__all__ = ["params_of", "register_kind", "run_kind"]

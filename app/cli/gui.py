"""`tapediag gui`: start the desktop app.

The GUI lives in ``ui/``: this command asks for it (``app.frontends.desktop``, provided by the ``tapediag``
command's composition root, ``app/__main__.py``), so the core and every other command stay free of Qt.
"""
from __future__ import annotations

import argparse

from app import frontends
from app.cli.commands import HELP
from native.errors import TapediagError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser("gui", help=HELP["gui"])
    parser.add_argument("--device", help="select this device at start (e.g. virtual:lto9)")
    parser.add_argument("--self-test", action="store_true",
                        help="show the main window, list the devices, then exit (smoke test)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    argv = []
    if args.device:
        argv += ["--device", args.device]
    if args.self_test:
        argv.append("--self-test")
    main = frontends.desktop()
    try:
        # Qt's modules are imported when the app is built: a Qt that cannot load (its DLLs
        # missing, or Windows Server 2016's missing icuuc.dll) fails there.
        return int(main(argv))
    except ImportError as err:
        raise TapediagError(f"the desktop app cannot start: {err}",
                            hint="pip install 'tapediag[gui]' (PySide6 and pyqtgraph)") from err

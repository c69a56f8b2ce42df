"""``python -m app`` and the ``tapediag`` command: the composition root of the command line.

This is the one module of ``app/`` that names ``ui/``: it provides the command line with Qt's PDF writer
and the desktop app (``app.frontends``), each imported only when a command uses it (``report``,
``troubleshoot --report``, ``gui``), so every other command starts without Qt (issue 13.4).

A Ctrl-C while Python is still loading the command line, before ``app.cli.main`` has installed the
signal policy (``app.stop``), is answered as any other cancel: one line and exit 130, no traceback.
(Only one in the interpreter's own start-up, before this module runs, is Python's: it exits by the
signal, which a shell reports as 130 too.) So this module's own body, which runs before ``run()``'s
``try``, imports nothing that is not loaded already: a Ctrl-C under load landed in its ``from typing
import`` and printed a traceback. The names below are for the type checker only.
"""
from __future__ import annotations

import sys

if False:  # the type checker's imports, never run (``typing.TYPE_CHECKING`` would itself be an import)
    from pathlib import Path
    from typing import Callable, Sequence

    from app.report.model import Report


def _pdf_writer() -> Callable[[Report, Path], int]:
    from ui.pdf import render_pdf

    return render_pdf


def _desktop() -> Callable[[Sequence[str]], int]:
    # Qt's modules are imported when the app is built (``ui.main.build_app``): a Qt that cannot load (its DLLs
    # missing, or Windows Server 2016's missing icuuc.dll) fails there, not here.
    from ui.main import main

    return main


def provide_front_ends() -> None:
    """Give the command line the PDF writer and the desktop app (``app.frontends``), imported when first used."""
    from app import frontends

    frontends.provide(pdf_writer=_pdf_writer, desktop=_desktop)


def run() -> int:
    try:
        provide_front_ends()
        from app.cli import main

        return main()
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(run())

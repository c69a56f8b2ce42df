"""``python -m app`` and the ``tapediag`` command: the composition root of the command line.

This is the one module of ``app/`` that names ``ui/``: it provides the command line with Qt's PDF writer
and the desktop app (``app.frontends``), each imported only when a command uses it (``report``,
``troubleshoot --report``, ``gui``), so every other command starts without Qt (issue 13.4).

A Ctrl-C while Python is still loading the command line, before ``app.cli.main`` has installed the
signal policy (``app.stop``), is answered as any other cancel: one line and exit 130, no traceback.
(Only one in the interpreter's own start-up, before this module runs, is Python's: it exits by the
signal, which a shell reports as 130 too.) One that lands in this module's own imports, before ``run()``'s
``try``, is answered by the hook ``app/__init__.py`` installs first thing (``_cancelled_while_loading``).
"""
from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Callable, Sequence

if TYPE_CHECKING:
    from pathlib import Path

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


def _interrupted_in_python_start() -> bool:
    """Whether a Ctrl-C came in the interpreter's own start-up and Python carried on past it.

    CPython 3.11 checks whether the script it runs (the ``tapediag`` console script) is a zip archive before it
    runs it; a KeyboardInterrupt there is printed ("Failed checking if argv[0] is an import path entry" and a
    traceback through ``zipimport``) and the script then runs as if no Ctrl-C had come. Seen once under load: a
    tape write test interrupted 0.1 s after its start ran to its end. Python keeps the exception it printed as
    ``sys.last_value``; nothing else sets it before this function, the first line of tapediag's own that runs
    for a command (an interrupt while tapediag's modules load is ``app._cancelled_while_loading``'s)."""
    return isinstance(getattr(sys, "last_value", None), KeyboardInterrupt)


def run() -> int:
    if _interrupted_in_python_start():
        print("tapediag: cancelled", file=sys.stderr)
        return 130
    from app import collector

    collector.pause_while_loading()  # resumed by app.cli once the command is loaded (app.collector)
    try:
        provide_front_ends()
        from app.cli import main

        return main()
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return 130
    finally:
        collector.leaving()


if __name__ == "__main__":
    sys.exit(run())

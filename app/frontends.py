"""What the front ends give the command line: Qt's PDF writer and the desktop app, installed, never imported.

The core and its command line (``app/``) never import ``ui/`` (``tests/test_layering.py``): the only
PDF writer this project has is Qt's (``ui/pdf.py``; a second, Qt-free one would draw every report
twice), and ``tapediag gui`` starts the desktop app. Both are *provided* here by the composition root
that starts the process, ``app/__main__.py`` (the ``tapediag`` command, ``python -m app``), as
factories that import them when first used, so every other command starts without Qt and a build
without PySide6 says so in one line. The data still flows one way: ``app.report`` builds the model
without Qt, the writer only draws it.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Callable, Sequence

from native.errors import TapediagError, TransportUnavailable

if TYPE_CHECKING:
    from app.report.model import Report

PdfWriter = Callable[["Report", Path], int]
Desktop = Callable[[Sequence[str]], int]

_pdf_writer: Callable[[], PdfWriter] | None = None
_desktop: Callable[[], Desktop] | None = None


def provide(*, pdf_writer: Callable[[], PdfWriter], desktop: Callable[[], Desktop]) -> None:
    """Install the factories of the PDF writer and of the desktop app's ``main`` (the composition root does)."""
    global _pdf_writer, _desktop
    _pdf_writer, _desktop = pdf_writer, desktop


def pdf_writer() -> PdfWriter:
    """The PDF writer: ``render(report, path) -> pages``."""
    if _pdf_writer is None:
        raise TapediagError("no PDF writer in this process", hint="run the 'tapediag' command")
    try:
        return _pdf_writer()
    except ImportError as err:
        raise TransportUnavailable("PDF reports need PySide6, which is not installed",
                                   hint="pip install 'tapediag[gui]'") from err


def desktop() -> Desktop:
    """The desktop app's ``main(argv) -> exit status``."""
    if _desktop is None:
        raise TapediagError("no desktop app in this process", hint="run 'tapediag-gui'")
    try:
        return _desktop()
    except ImportError as err:
        raise TapediagError(f"the desktop app cannot start: {err}",
                            hint="pip install 'tapediag[gui]' (PySide6 and pyqtgraph)") from err


__all__ = ["Desktop", "PdfWriter", "desktop", "pdf_writer", "provide"]

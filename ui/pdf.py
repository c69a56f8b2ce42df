"""Rendering a ``Report`` to PDF with Qt's own PDF writer (no browser, works headless).

The whole report is one QTextDocument (``ui/report_html.py``) laid out at the PDF's
resolution and painted page by page: page 1 carries the title band, who/where/when and
the verdicts; every later page gets a header (customer, ticket) and all get a footer
(page n of N). Throughput plots (``ui/report_plot.py``) and the troubleshooting bar
charts (``ui/report_bars.py``) are QImages registered as document resources.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.output import check_target, replacing
from native.errors import InvalidParameter, TapediagError

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication, QRectF
    from PySide6.QtGui import QFont, QPainter, QTextDocument

    from app.report import Report

DPI = 300
MM = DPI / 25.4  # device pixels per millimetre


def ensure_gui_application() -> "QCoreApplication":
    """An application object for fonts and painting; offscreen when there is no display.

    A QApplication (widgets), not a bare QGuiApplication: Qt allows one application
    object per process, and the GUI (or a GUI test after a report test) needs widgets.
    """
    if sys.platform.startswith("linux") and not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication([sys.argv[0] if sys.argv else "tapediag"])


def report_font(point_size: float, *, bold: bool = False) -> "QFont":
    """DejaVu Sans without ligatures: 'fi' must stay two letters so text copied or
    searched in the PDF (and pdftotext) finds 'figures', not 'ﬁgures'."""
    from PySide6.QtGui import QFont

    font = QFont("DejaVu Sans")
    font.setPointSizeF(point_size)
    font.setBold(bold)
    for tag in ("liga", "clig"):
        font.setFeature(QFont.Tag(tag), 0)
    return font


def render_pdf(report: "Report", path: str | Path) -> int:
    """Write ``report`` (an ``app.report.Report``) to ``path``; returns the page count.

    Qt's PDF engine ignores failed writes (a full disk gives a truncated file and a
    painter that still "succeeds"), so it paints into memory, where nothing can fail
    unnoticed; the bytes are then checked (``%PDF-`` header, ``%%EOF`` trailer), written
    by us into a hidden temporary file next to the target (every short write raises),
    synced, checked again on disk and only then renamed over the target. A failure
    never leaves half a PDF, never replaces an older report at that path, and removes
    the directories this call created.
    """
    path = Path(path)
    check_target(path, "the report")  # a regular file or nothing (app.output): before anything is painted
    created = [p for p in reversed(path.absolute().parents) if not p.exists()]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        _remove(None, created)
        raise InvalidParameter(f"cannot write the report to {path}: {err.strerror or err}") from err
    try:
        data, pages = _paint(report)
        _check_pdf(data, path, "painting")
        _write_atomically(data, path)
    except BaseException:
        _remove(None, created)
        raise
    return pages


def _draw_page(painter: "QPainter", doc: "QTextDocument", body: "QRectF", index: int) -> None:
    """Page ``index`` of the laid-out document into ``body``.

    The blocks drawn are those starting above the last pixel rows of the page: the layout
    may place a page-break heading a fraction of a pixel before the page boundary, and a
    block drawn there is clipped from sight but still in the PDF's text (pdftotext, and a
    reader's search, found page 2's "Details" on page 1). Its lines are on the next page.
    """
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QAbstractTextDocumentLayout

    page = QRectF(0, index * body.height(), body.width(), body.height())
    painter.save()
    painter.translate(body.left(), body.top() - page.top())
    painter.setClipRect(page)
    context = QAbstractTextDocumentLayout.PaintContext()
    context.clip = page.adjusted(0, 0, 0, -2)
    doc.documentLayout().draw(painter, context)
    painter.restore()


def _check_pdf(data: bytes, path: Path, stage: str) -> None:
    """A PDF starts with ``%PDF-`` and ends with its ``%%EOF`` trailer; anything else is broken."""
    if not data.startswith(b"%PDF-") or not data.rstrip().endswith(b"%%EOF"):
        raise TapediagError(f"cannot write the report to {path}: the PDF came out incomplete after {stage}")


def _write_atomically(data: bytes, path: Path) -> None:
    """``data`` into a temporary file beside ``path``, synced, verified, renamed over ``path`` (``app.output``)."""
    with replacing(path, "the report") as out:
        try:
            out.stream.write(data)
            out.stream.flush()
            os.fsync(out.stream.fileno())
            if os.fstat(out.stream.fileno()).st_size != len(data):
                raise TapediagError(f"cannot write the report to {path}: the file came out short")
            out.stream.seek(max(0, len(data) - 64))
            tail = out.stream.read(64)
        except OSError as err:
            raise TapediagError(f"cannot write the report to {path}: {err.strerror or err}; "
                                "nothing was replaced") from err
        _check_pdf(data[:8] + tail, path, "writing")


def _remove(tmp: Path | None, created: list[Path]) -> None:
    if tmp is not None:
        tmp.unlink(missing_ok=True)
    for d in reversed(created):
        try:
            d.rmdir()
        except OSError:
            break


def _paint(report: "Report") -> tuple[bytes, int]:
    """The whole PDF in memory, and its page count."""
    app = ensure_gui_application()  # noqa: F841  (must outlive the painting)
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF, QSizeF, Qt, QUrl
    from PySide6.QtGui import QColor, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen, QTextDocument

    from ui.report_bars import render_bars
    from ui.report_html import body_html, chart_names, plot_names
    from ui.report_plot import render_plot

    storage = QByteArray()
    buffer = QBuffer(storage)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setResolution(DPI)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.PageSizeId.A4), QPageLayout.Orientation.Portrait,
                                     QMarginsF(0, 0, 0, 0)))
    writer.setTitle(f"{report.cover.title} — {report.cover.customer}".strip(" —"))
    writer.setCreator(f"tapediag {report.cover.tool_version}")
    page_w, page_h = writer.width(), writer.height()
    margin_x, margin_top, margin_bottom = 18 * MM, 22 * MM, 20 * MM
    body = QRectF(margin_x, margin_top, page_w - 2 * margin_x, page_h - margin_top - margin_bottom)

    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(writer)
    doc.setDefaultFont(report_font(9))
    doc.setDocumentMargin(0)
    img_w, img_h = int(body.width()), int(body.width() * 0.3)
    for name, plot in plot_names(report).items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), render_plot(plot, img_w, img_h, DPI))
    for name, chart in chart_names(report).items():  # drawn 0.8 as tall as a plot (body_html sizes them so)
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name),
                        render_bars(chart, img_w, int(img_h * 0.8), DPI))
    # HTML image sizes are CSS pixels (1/96 in) even when the layout device is the 300 dpi writer.
    css_px = 96.0 / DPI
    doc.setHtml(body_html(report, (int(img_w * css_px), int(img_h * css_px))))
    doc.setPageSize(QSizeF(body.width(), body.height()))
    total = doc.pageCount()

    painter = QPainter()
    if not painter.begin(writer):
        raise TapediagError("cannot paint the report (Qt's PDF writer refused to start)")
    ended = False
    try:
        small = report_font(7)
        for i in range(total):
            if i:
                writer.newPage()
            painter.setFont(small)
            painter.setPen(QColor("#666666"))
            if i:  # page 1 has the title band and the customer in full
                left = " · ".join(x for x in (report.cover.customer, report.cover.site,
                                              f"Ticket {report.cover.ticket}" if report.cover.ticket else "") if x)
                header = QRectF(margin_x, 10 * MM, body.width(), 6 * MM)
                painter.drawText(header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left)
                painter.drawText(header, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, report.cover.title)
                painter.setPen(QPen(QColor("#c8ccd2"), 0.6 * MM / 2))
                painter.drawLine(header.bottomLeft(), header.bottomRight())
            footer = QRectF(margin_x, page_h - 13 * MM, body.width(), 6 * MM)
            painter.setPen(QColor("#666666"))
            painter.drawText(footer, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                             f"tapediag {report.cover.tool_version} · {report.cover.date}")
            painter.drawText(footer, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"Page {i + 1} of {total}")
            _draw_page(painter, doc, body, i)
    finally:
        ended = painter.end()
    if not ended:
        raise TapediagError("cannot paint the report (Qt's PDF writer failed to finish it)")
    buffer.close()
    return bytes(storage.data()), total

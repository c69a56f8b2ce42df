"""Rendering a ``Report`` to PDF with Qt's own PDF writer (no browser, works headless).

The whole report is one QTextDocument (``ui/report_html.py``) laid out at the PDF's
resolution as one long page and cut into pages where a page may end (``ui/report_pages.py``:
never inside a row or a verdict box, a table's header with its first rows, no page with only
a table's last row): page 1 carries the title band, who/where/when and the verdicts; every
later page gets a header (customer, ticket) and all get a footer (page n of N). Throughput
plots (``ui/report_plot.py``) and the troubleshooting bar charts (``ui/report_bars.py``) are
painted as vectors where the document keeps their place, so their labels are text.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from app.output import check_target, replacing
from native.errors import InvalidParameter, TapediagError

if TYPE_CHECKING:
    from PySide6.QtCore import QBuffer, QByteArray, QCoreApplication, QRectF
    from PySide6.QtGui import QFont, QPainter, QPdfWriter, QTextDocument

    from app.report import BarChart, Plot, Report
    from ui.report_pages import Page

DPI = 300
MM = DPI / 25.4  # device pixels per millimetre
MARGIN_X, MARGIN_TOP, MARGIN_BOTTOM = 18 * MM, 22 * MM, 20 * MM


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


def _draw_slice(painter: "QPainter", doc: "QTextDocument", left: float, y: float, top: float, bottom: float) -> None:
    """The document's rows [top, bottom) drawn at (left, y) of the page.

    The layout draws the blocks that reach into its clip rectangle, and a block drawn there
    is clipped from sight but still in the PDF's text (pdftotext, and a reader's search,
    once found page 2's "Details" on page 1): the clip given to the layout is a pixel short
    at both ends, so a block that ends or begins exactly at a cut is left to its own page.
    """
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QAbstractTextDocumentLayout

    width = doc.textWidth()
    painter.save()
    painter.translate(left, y - top)
    painter.setClipRect(QRectF(0, top, width, bottom - top))
    context = QAbstractTextDocumentLayout.PaintContext()
    context.clip = QRectF(0, top + 1, width, max(bottom - top - 2, 0.0))
    doc.documentLayout().draw(painter, context)
    painter.restore()


def _draw_page(painter: "QPainter", doc: "QTextDocument", body: "QRectF", page: "Page",
               charts: dict[str, tuple["QRectF", Callable[["QPainter", "QRectF"], None]]]) -> None:
    """One page's slice of the laid-out document (``ui.report_pages``), under the header rows of a
    table continued from the page before, and the charts whose places are on it, painted as vectors."""
    y = body.top()
    if page.header is not None:
        _draw_slice(painter, doc, body.left(), y, *page.header)
        y += page.header_height
    _draw_slice(painter, doc, body.left(), y, page.top, page.bottom)
    for box, paint in charts.values():
        if box.top() >= page.top - 1 and box.bottom() <= page.bottom + 1:
            paint(painter, box.translated(body.left(), y - page.top))


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


def _layout(report: "Report", writer: "QPdfWriter", body: "QRectF", *,
            signoff_first: bool) -> tuple["QTextDocument", dict]:
    """The whole report laid out as one long page of ``body``'s width, and where each chart goes.

    A chart's place is an empty image of its size in the document; the chart itself is painted
    there as vectors by ``_draw_page`` (its labels are text in the PDF)."""
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QColor, QImage, QTextDocument

    from ui.report_html import body_html, chart_names, plot_names
    from ui.report_pages import image_boxes

    doc = QTextDocument()
    doc.documentLayout().setPaintDevice(writer)
    doc.setDefaultFont(report_font(9))
    doc.setDocumentMargin(0)
    blank = QImage(1, 1, QImage.Format.Format_ARGB32)
    blank.fill(QColor(0, 0, 0, 0))
    painters: dict[str, Callable[["QPainter", "QRectF"], None]] = {}
    for name, plot in plot_names(report).items():
        painters[name] = partial(_paint_plot, plot=plot)
    for name, chart in chart_names(report).items():  # drawn 0.8 as tall as a plot (body_html sizes them so)
        painters[name] = partial(_paint_bars, chart=chart)
    for name in painters:
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), blank)
    # HTML image sizes are CSS pixels (1/96 in) even when the layout device is the 300 dpi writer.
    css_px = 96.0 / DPI
    doc.setHtml(body_html(report, (int(body.width() * css_px), int(body.width() * 0.3 * css_px)),
                          signoff_first=signoff_first))
    doc.setTextWidth(body.width())  # one long page: ``ui.report_pages`` decides where pages end
    doc.size()  # lays out the whole document now (Qt lays out lazily; a line not laid out yet has no place)
    boxes = image_boxes(doc, set(painters))
    return doc, {name: (box, painters[name]) for name, box in boxes.items()}


def _paint_plot(painter: "QPainter", box: "QRectF", *, plot: "Plot") -> None:
    from ui.report_plot import paint_plot

    paint_plot(painter, box, plot)


def _paint_bars(painter: "QPainter", box: "QRectF", *, chart: "BarChart") -> None:
    from ui.report_bars import paint_bars

    paint_bars(painter, box, chart)


@dataclass
class _Sheets:
    """The PDF writer on its in-memory buffer, the laid-out report and where its pages end."""

    writer: "QPdfWriter"
    buffer: "QBuffer"
    storage: "QByteArray"
    body: "QRectF"
    page_h: float
    doc: "QTextDocument"
    charts: dict
    pages: list["Page"]

    def chart_places(self) -> list[tuple[int, "QRectF"]]:
        """(page index, where on the page) of each chart, in device pixels."""
        places = []
        for box, _paint in self.charts.values():
            for i, page in enumerate(self.pages):
                if box.top() >= page.top - 1 and box.bottom() <= page.bottom + 1:
                    places.append((i, box.translated(self.body.left(), self.body.top() + page.header_height - page.top)))
        return places


def _sheets(report: "Report") -> _Sheets:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QMarginsF, QRectF
    from PySide6.QtGui import QPageLayout, QPageSize, QPdfWriter

    from ui.report_pages import fragments, items, paginate

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
    body = QRectF(MARGIN_X, MARGIN_TOP, page_w - 2 * MARGIN_X, page_h - MARGIN_TOP - MARGIN_BOTTOM)
    # The sign-off on page 1, the page a customer signs, when page 1 still holds all of its own content so
    # and no page is left with only the end of a table; else at the end, where it keeps that end company.
    for signoff_first in (True, False):
        doc, charts = _layout(report, writer, body, signoff_first=signoff_first)
        parts = items(doc)
        pages = paginate(parts, body.height())
        first_section = next((i.top for i in parts if i.new_page), None)
        fits = first_section is not None and pages[0].bottom >= first_section - 1
        if not signoff_first or (fits and not fragments(parts, pages, body.height())):
            break
    return _Sheets(writer, buffer, storage, body, page_h, doc, charts, pages)


def fragment_pages(report: "Report") -> list[int]:
    """The pages (from 0) of the PDF of ``report`` that hold only the end of a table, less than half full
    (``ui.report_pages.fragments``): none, by the sign-off's place. For the tests."""
    from ui.report_pages import fragments, items

    app = ensure_gui_application()  # noqa: F841
    sheets = _sheets(report)
    sheets.buffer.close()
    return fragments(items(sheets.doc), sheets.pages, sheets.body.height())


def chart_places(report: "Report") -> list[tuple[int, tuple[float, float, float, float]]]:
    """Where the PDF of ``report`` paints each chart: (page index, (x, y, width, height) in PDF points from the
    page's top left, as ``pdftotext -bbox`` measures). For the tests: no label may cross a chart's edge."""
    app = ensure_gui_application()  # noqa: F841
    sheets = _sheets(report)
    points = 72.0 / DPI
    places = [(i, (r.x() * points, r.y() * points, r.width() * points, r.height() * points))
              for i, r in sheets.chart_places()]
    sheets.buffer.close()
    return places


def _paint(report: "Report") -> tuple[bytes, int]:
    """The whole PDF in memory, and its page count."""
    app = ensure_gui_application()  # noqa: F841  (must outlive the painting)
    from PySide6.QtGui import QPainter

    sheets = _sheets(report)
    writer, pages = sheets.writer, sheets.pages
    painter = QPainter()
    if not painter.begin(writer):
        raise TapediagError("cannot paint the report (Qt's PDF writer refused to start)")
    ended = False
    try:
        for i, page in enumerate(pages):
            if i:
                writer.newPage()
            _frame_page(painter, report, sheets.body, sheets.page_h, i, len(pages))
            _draw_page(painter, sheets.doc, sheets.body, page, sheets.charts)
    finally:
        ended = painter.end()
    if not ended:
        raise TapediagError("cannot paint the report (Qt's PDF writer failed to finish it)")
    sheets.buffer.close()
    return bytes(sheets.storage.data()), len(pages)


def _frame_page(painter: "QPainter", report: "Report", body: "QRectF", page_h: float, i: int, total: int) -> None:
    """The running header (customer, ticket; not on page 1, which has the title band) and the footer."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QPen

    painter.setFont(report_font(7))
    painter.setPen(QColor("#666666"))
    if i:
        cover = report.cover
        left = " · ".join(x for x in (cover.customer, cover.site, f"Ticket {cover.ticket}" if cover.ticket else "") if x)
        header = QRectF(body.left(), 10 * MM, body.width(), 6 * MM)
        painter.drawText(header, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, left)
        painter.drawText(header, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, cover.title)
        painter.setPen(QPen(QColor("#c8ccd2"), 0.6 * MM / 2))
        painter.drawLine(header.bottomLeft(), header.bottomRight())
    footer = QRectF(body.left(), page_h - 13 * MM, body.width(), 6 * MM)
    painter.setPen(QColor("#666666"))
    painter.drawText(footer, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                     f"tapediag {report.cover.tool_version} · {report.cover.date}")
    painter.drawText(footer, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"Page {i + 1} of {total}")

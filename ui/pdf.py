"""Rendering a ``Report`` to PDF with Qt's own PDF writer (no browser, works headless).

Page 1 is a cover drawn with QPainter; the body is a QTextDocument laid out at the
PDF's resolution and painted page by page, so every page gets the same header
(customer, ticket) and footer (page n of N). Plots are QImages from
``ui/report_plot.py`` registered as document resources.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from app.paths import create_beside
from native.errors import InvalidParameter, TapediagError

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QFont, QPainter

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


def _check_pdf(data: bytes, path: Path, stage: str) -> None:
    """A PDF starts with ``%PDF-`` and ends with its ``%%EOF`` trailer; anything else is broken."""
    if not data.startswith(b"%PDF-") or not data.rstrip().endswith(b"%%EOF"):
        raise TapediagError(f"cannot write the report to {path}: the PDF came out incomplete after {stage}")


def _write_atomically(data: bytes, path: Path) -> None:
    """``data`` into a temporary file beside ``path``, synced, verified, renamed over ``path``."""
    tmp: Path | None = None
    try:
        fd, tmp = create_beside(path)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
            if os.fstat(fd).st_size != len(data):
                raise TapediagError(f"cannot write the report to {path}: the file came out short")
            tail = os.pread(fd, 64, max(0, len(data) - 64))
        finally:
            os.close(fd)
        _check_pdf(data[:8] + tail, path, "writing")
        os.replace(tmp, path)
    except OSError as err:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise TapediagError(f"cannot write the report to {path}: {err.strerror or err}; nothing was replaced") from err
    except BaseException:
        if tmp is not None:
            tmp.unlink(missing_ok=True)
        raise
    try:  # the rename itself survives a crash only once the directory is synced
        dir_fd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # some file systems refuse fsync on a directory; the report is complete either way


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

    from ui.report_html import NAVY, body_html, plot_names
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
    img_w, img_h = int(body.width()), int(body.width() * 0.42)
    for name, plot in plot_names(report).items():
        doc.addResource(QTextDocument.ResourceType.ImageResource, QUrl(name), render_plot(plot, img_w, img_h, DPI))
    # HTML image sizes are CSS pixels (1/96 in) even when the layout device is the 300 dpi writer.
    css_px = 96.0 / DPI
    doc.setHtml(body_html(report, (int(img_w * css_px), int(img_h * css_px))))
    doc.setPageSize(QSizeF(body.width(), body.height()))
    body_pages = doc.pageCount()
    total = body_pages + 1

    painter = QPainter()
    if not painter.begin(writer):
        raise TapediagError("cannot paint the report (Qt's PDF writer refused to start)")
    ended = False
    try:
        _cover(painter, report, page_w, page_h, total, NAVY)
        small = report_font(7)
        for i in range(body_pages):
            writer.newPage()
            painter.setFont(small)
            painter.setPen(QColor("#666666"))
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
            painter.drawText(footer, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, f"Page {i + 2} of {total}")
            painter.save()
            painter.translate(body.left(), body.top() - i * body.height())
            doc.drawContents(painter, QRectF(0, i * body.height(), body.width(), body.height()))
            painter.restore()
    finally:
        ended = painter.end()
    if not ended:
        raise TapediagError("cannot paint the report (Qt's PDF writer failed to finish it)")
    buffer.close()
    return bytes(storage.data()), total


def _cover(painter: "QPainter", report: "Report", page_w: float, page_h: float, total: int, navy: str) -> None:
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QPen

    cover = report.cover
    band = QRectF(0, 0, page_w, 70 * MM)
    painter.fillRect(band, QColor(navy))
    painter.setPen(QColor("white"))
    painter.setFont(report_font(11))
    painter.drawText(QRectF(20 * MM, 18 * MM, page_w - 40 * MM, 10 * MM), Qt.AlignmentFlag.AlignLeft, "tapediag")
    painter.setFont(report_font(24, bold=True))
    painter.drawText(QRectF(20 * MM, 30 * MM, page_w - 40 * MM, 30 * MM),
                     Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap, cover.title)

    label_font, value_font = report_font(9), report_font(12)
    y = 90 * MM
    for label, value in (("Customer", cover.customer), ("Site", cover.site), ("Technician", cover.technician),
                         ("Ticket", cover.ticket), ("Date", cover.date)):
        painter.setFont(label_font)
        painter.setPen(QColor("#666666"))
        painter.drawText(QRectF(20 * MM, y, 40 * MM, 8 * MM), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, label)
        painter.setFont(value_font)
        painter.setPen(QColor("#222222"))
        painter.drawText(QRectF(60 * MM, y, page_w - 80 * MM, 8 * MM), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         value or "—")
        painter.setPen(QPen(QColor("#dde1e6"), 0.25 * MM))
        painter.drawLine(QRectF(20 * MM, y, page_w - 40 * MM, 10 * MM).bottomLeft(),
                         QRectF(20 * MM, y, page_w - 40 * MM, 10 * MM).bottomRight())
        y += 12 * MM

    if cover.summary:
        y += 8 * MM
        painter.setFont(report_font(10))
        text_rect = QRectF(26 * MM, y + 14 * MM, page_w - 52 * MM, 200 * MM)
        bounds = painter.boundingRect(text_rect, Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft, cover.summary)
        box = QRectF(20 * MM, y, page_w - 40 * MM, bounds.height() + 22 * MM)
        painter.fillRect(box, QColor("#eef3f9"))
        painter.fillRect(QRectF(box.left(), box.top(), 1.5 * MM, box.height()), QColor(navy))
        painter.setFont(report_font(10, bold=True))
        painter.setPen(QColor(navy))
        painter.drawText(QRectF(26 * MM, y + 4 * MM, page_w - 52 * MM, 8 * MM), Qt.AlignmentFlag.AlignLeft, "Findings")
        painter.setFont(report_font(10))
        painter.setPen(QColor("#222222"))
        painter.drawText(text_rect, Qt.TextFlag.TextWordWrap | Qt.AlignmentFlag.AlignLeft, cover.summary)

    painter.setFont(report_font(7))
    painter.setPen(QColor("#666666"))
    painter.drawText(QRectF(20 * MM, page_h - 20 * MM, page_w - 40 * MM, 8 * MM), Qt.AlignmentFlag.AlignLeft,
                     f"Generated by tapediag {cover.tool_version}, open-source tape and disk diagnostics · {total} pages")

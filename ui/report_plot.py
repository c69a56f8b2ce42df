"""Throughput plots for reports, drawn with QPainter into a QImage.

A report is printed and archived; it needs a still image, not a live pyqtgraph
widget. The image is made at the PDF's resolution so lines and text stay sharp.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPainter, QPainterPath, QPen

from app.report import Plot

# Colour-blind-safe palette (Okabe-Ito), in the order series appear.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")


def nice_ticks(lo: float, hi: float, target: int = 6) -> list[float]:
    """Round tick values (1, 2, 5 × 10^n steps) covering [lo, hi]."""
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, v = [], start
    while v <= hi + step * 1e-9:
        ticks.append(round(v, 10))
        v += step
    if ticks[-1] < hi:
        ticks.append(round(ticks[-1] + step, 10))
    return ticks


def _tick_text(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 10 or v == int(v) else f"{v:g}"


def canvas(width_px: int, height_px: int, dpi: float) -> tuple[QImage, QPainter, QFont]:
    """A white image at ``dpi`` with an antialiased painter and the report's 7 pt figure font (set).

    The caller ends the painter. Shared by the report's plots and bar charts so both print alike."""
    img = QImage(width_px, height_px, QImage.Format.Format_ARGB32)
    dpm = int(round(dpi / 0.0254))
    img.setDotsPerMeterX(dpm)
    img.setDotsPerMeterY(dpm)
    img.fill(QColor("white"))
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    font = QFont("DejaVu Sans", 7)
    p.setFont(font)
    return img, p, font


def render_plot(plot: Plot, width_px: int, height_px: int, dpi: float = 300.0) -> QImage:
    """The plot as an ARGB image of the given size; fonts sized in points at ``dpi``."""
    img, p, font = canvas(width_px, height_px, dpi)
    fm = QFontMetricsF(font, img)
    pt = dpi / 72.0  # device pixels per point

    xs = [x for s in plot.series for x, _ in s.points]
    ys = [y for s in plot.series for _, y in s.points]
    x_ticks = nice_ticks(0.0, max(xs) if xs else 1.0)
    y_ticks = nice_ticks(0.0, (max(ys) if ys else 1.0) * 1.05)
    y_label_w = max(fm.horizontalAdvance(_tick_text(t)) for t in y_ticks)
    left = y_label_w + fm.height() * 1.6 + 6 * pt
    title_h = fm.height() * 1.8
    area = QRectF(left, title_h, width_px - left - 8 * pt, height_px - title_h - fm.height() * 2.8)

    title_font = QFont(font)
    title_font.setBold(True)
    p.setFont(title_font)
    p.setPen(QColor("#222222"))
    p.drawText(QRectF(area.left(), 0, area.width(), title_h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, plot.title)
    p.setFont(font)

    def tx(x: float) -> float:
        return area.left() + (x - x_ticks[0]) / (x_ticks[-1] - x_ticks[0]) * area.width()

    def ty(y: float) -> float:
        return area.bottom() - (y - y_ticks[0]) / (y_ticks[-1] - y_ticks[0]) * area.height()

    grid = QPen(QColor("#dddddd"), 0.5 * pt)
    text_pen = QPen(QColor("#444444"))
    for t in y_ticks:
        p.setPen(grid)
        p.drawLine(QPointF(area.left(), ty(t)), QPointF(area.right(), ty(t)))
        p.setPen(text_pen)
        p.drawText(QRectF(0, ty(t) - fm.height() / 2, left - 4 * pt, fm.height()),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, _tick_text(t))
    for t in x_ticks:
        p.setPen(grid)
        p.drawLine(QPointF(tx(t), area.top()), QPointF(tx(t), area.bottom()))
        p.setPen(text_pen)
        p.drawText(QRectF(tx(t) - 40 * pt, area.bottom() + 2 * pt, 80 * pt, fm.height()),
                   Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, _tick_text(t))
    p.setPen(QPen(QColor("#888888"), 0.8 * pt))
    p.drawRect(area)
    p.setPen(text_pen)
    p.drawText(QRectF(area.left(), height_px - fm.height() * 1.3, area.width(), fm.height() * 1.2),
               Qt.AlignmentFlag.AlignHCenter, plot.x_label)
    p.save()
    p.translate(fm.height() * 0.2, area.center().y())
    p.rotate(-90)
    p.drawText(QRectF(-area.height() / 2, 0, area.height(), fm.height() * 1.2), Qt.AlignmentFlag.AlignHCenter, plot.y_label)
    p.restore()

    if not plot.series:
        p.drawText(area, Qt.AlignmentFlag.AlignCenter, "no samples recorded")
    legend_rows = []
    for i, s in enumerate(plot.series):
        colour = QColor(PALETTE[i % len(PALETTE)])
        path = QPainterPath()
        for j, (x, y) in enumerate(s.points):
            (path.moveTo if j == 0 else path.lineTo)(QPointF(tx(x), ty(y)))
        p.setPen(QPen(colour, 1.2 * pt, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
        p.drawPath(path)
        if len(s.points) == 1:
            p.setBrush(colour)
            p.drawEllipse(QPointF(tx(s.points[0][0]), ty(s.points[0][1])), 2 * pt, 2 * pt)
        legend_rows.append((s.label, colour))
    if legend_rows:
        w = max(fm.horizontalAdvance(name) for name, _ in legend_rows) + 22 * pt
        box = QRectF(area.right() - w - 6 * pt, area.top() + 6 * pt, w, fm.height() * len(legend_rows) + 6 * pt)
        p.setPen(QPen(QColor("#bbbbbb"), 0.5 * pt))
        p.setBrush(QColor(255, 255, 255, 230))
        p.drawRect(box)
        for k, (name, colour) in enumerate(legend_rows):
            y = box.top() + 3 * pt + fm.height() * (k + 0.5)
            p.setPen(QPen(colour, 2 * pt))
            p.drawLine(QPointF(box.left() + 4 * pt, y), QPointF(box.left() + 16 * pt, y))
            p.setPen(text_pen)
            p.drawText(QRectF(box.left() + 19 * pt, y - fm.height() / 2, w, fm.height()),
                       Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, name)
    p.end()
    return img

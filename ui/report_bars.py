"""The troubleshooting comparison as a bar chart, drawn with QPainter into a QImage.

One horizontal bar per component (tape, disk, network) at its measured rate, and a
line at the rate the backup application achieved: the reader sees at once which
component ends nearest the line. Overlaid timelines could not show this: a disk's
short spikes flattened the tape's trace.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QImage, QPen

from app.report import BarChart
from ui.report_plot import canvas, nice_ticks

BAR, BOTTLENECK, REFERENCE = "#0072B2", "#D55E00", "#222222"  # Okabe-Ito blue and vermilion


def render_bars(chart: BarChart, width_px: int, height_px: int, dpi: float = 300.0) -> QImage:
    img, p, font = canvas(width_px, height_px, dpi)
    bold = QFont(font)
    bold.setBold(True)
    fm = QFontMetricsF(font, img)
    pt = dpi / 72.0
    p.setFont(bold)
    p.setPen(QColor("#222222"))
    title_h = fm.height() * 1.8
    p.drawText(QRectF(0, 0, width_px, title_h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, chart.title)
    p.setFont(font)

    values = [b.value for b in chart.bars] + ([chart.reference] if chart.reference else [])
    ticks = nice_ticks(0.0, max(values) * 1.08 if values else 1.0)
    label_w = min(width_px * 0.34, max((fm.horizontalAdvance(b.label) for b in chart.bars), default=0) + 6 * pt)
    value_w = fm.horizontalAdvance("8,888 MB/s") + 6 * pt
    area = QRectF(label_w, title_h + fm.height() * 1.4, width_px - label_w - value_w,
                  height_px - title_h - fm.height() * 4.2)

    def tx(v: float) -> float:
        return area.left() + v / ticks[-1] * area.width()

    grid, text_pen = QPen(QColor("#dddddd"), 0.5 * pt), QPen(QColor("#444444"))
    for t in ticks:
        p.setPen(grid)
        p.drawLine(QPointF(tx(t), area.top()), QPointF(tx(t), area.bottom()))
        p.setPen(text_pen)
        p.drawText(QRectF(tx(t) - 30 * pt, area.bottom() + 2 * pt, 60 * pt, fm.height()),
                   Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, f"{t:,.0f}")
    p.drawText(QRectF(area.left(), height_px - fm.height() * 1.3, area.width(), fm.height() * 1.2),
               Qt.AlignmentFlag.AlignHCenter, "MB/s (decimal)")

    slot = area.height() / max(len(chart.bars), 1)
    for i, bar in enumerate(chart.bars):
        top = area.top() + i * slot + slot * 0.18
        rect = QRectF(area.left(), top, max(tx(bar.value) - area.left(), 1.0), slot * 0.64)
        p.fillRect(rect, QColor(BOTTLENECK if bar.is_bottleneck else BAR))
        p.setPen(text_pen)
        p.setFont(bold if bar.is_bottleneck else font)
        p.drawText(QRectF(0, rect.top(), label_w - 4 * pt, rect.height()),
                   Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                   fm.elidedText(bar.label, Qt.TextElideMode.ElideRight, label_w - 6 * pt))
        p.drawText(QRectF(rect.right() + 3 * pt, rect.top(), value_w, rect.height()),
                   Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, bar.text)
        p.setFont(font)
    if chart.reference:
        x = tx(chart.reference)
        p.setPen(QPen(QColor(REFERENCE), 1.2 * pt, Qt.PenStyle.DashLine))
        p.drawLine(QPointF(x, area.top() - 2 * pt), QPointF(x, area.bottom()))
        p.setPen(QColor(REFERENCE))
        p.setFont(bold)
        text = f"{chart.reference_label} (the application)" if chart.reference_label else "the application"
        left_of_line = fm.horizontalAdvance(text) + 4 * pt > width_px - x  # would run off the right edge
        box = QRectF(0, title_h, x - 3 * pt, fm.height() * 1.3) if left_of_line else \
            QRectF(x + 3 * pt, title_h, width_px - x, fm.height() * 1.3)
        p.drawText(box, (Qt.AlignmentFlag.AlignRight if left_of_line else Qt.AlignmentFlag.AlignLeft)
                   | Qt.AlignmentFlag.AlignVCenter, text)
    p.setPen(QPen(QColor("#888888"), 0.8 * pt))
    p.drawLine(QPointF(area.left(), area.top()), QPointF(area.left(), area.bottom()))
    p.end()
    return img

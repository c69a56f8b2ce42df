"""The troubleshooting comparison as a bar chart, painted straight onto the PDF page.

One horizontal bar per component (tape, disk, network) at its measured rate, and a
line at the rate the backup application achieved: the reader sees at once which
component ends nearest the line. Overlaid timelines could not show this: a disk's
short spikes flattened the tape's trace.

Every label is measured in the font it is drawn in (the bottleneck's in bold: measured in
the regular font, "Tape write, parallel streams" ran off the chart's left edge as "k write,
parallel streams", issue 31) and elided to the room it has.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from app.report import BarChart
from ui.report_plot import Pen, draw_line, figure_pen, nice_ticks

BAR, BOTTLENECK, REFERENCE = "#0072B2", "#D55E00", "#222222"  # Okabe-Ito blue and vermilion


def _label_width(chart: BarChart, pen: Pen, box: QRectF) -> float:
    """Room for the bar labels: the widest in the font it is drawn in, at most a third of the chart."""
    widest = max(((pen.bold_fm if b.is_bottleneck else pen.fm).horizontalAdvance(b.label) for b in chart.bars),
                 default=0.0)
    return min(box.width() * 0.34, widest + 6 * pen.pt)


def _reference(p: QPainter, pen: Pen, chart: BarChart, box: QRectF, area: QRectF, x: float) -> None:
    """The application's line and its words, on whichever side of the line has room (elided to it)."""
    p.setPen(QPen(QColor(REFERENCE), 1.2 * pen.pt, Qt.PenStyle.DashLine))
    p.drawLine(QPointF(x, area.top() - 2 * pen.pt), QPointF(x, area.bottom()))
    text = f"{chart.reference_label} (the application)" if chart.reference_label else "the application"
    right_room, left_room = box.right() - x - 3 * pen.pt, x - box.left() - 3 * pen.pt
    needed = pen.bold_fm.horizontalAdvance(text) + 2 * pen.pt
    y, h = box.top() + pen.fm.height() * 1.8, pen.fm.height() * 1.3
    if needed <= right_room or right_room >= left_room:
        draw_line(p, pen, QRectF(x + 3 * pen.pt, y, right_room, h), text, bold=True, colour=REFERENCE)
    else:
        draw_line(p, pen, QRectF(box.left(), y, left_room, h), text, bold=True, colour=REFERENCE,
                  align=Qt.AlignmentFlag.AlignRight)


def paint_bars(p: QPainter, box: QRectF, chart: BarChart) -> None:
    """``chart`` inside ``box`` on ``p``."""
    p.save()
    pen = figure_pen(p)
    fm, pt = pen.fm, pen.pt
    title_h = fm.height() * 1.8
    draw_line(p, pen, QRectF(box.left(), box.top(), box.width(), title_h), chart.title, bold=True, colour="#222222")
    values = [b.value for b in chart.bars] + ([chart.reference] if chart.reference else [])
    ticks = nice_ticks(0.0, max(values) * 1.08 if values else 1.0)
    label_w = _label_width(chart, pen, box)
    value_w = max(pen.bold_fm.horizontalAdvance(b.text) for b in chart.bars) + 6 * pt if chart.bars else 0.0
    value_w = max(value_w, fm.horizontalAdvance(f"{ticks[-1]:,.0f}") / 2 + 2 * pt)
    area = QRectF(box.left() + label_w, box.top() + title_h + fm.height() * 1.4, box.width() - label_w - value_w,
                  box.height() - title_h - fm.height() * 4.2)

    def tx(v: float) -> float:
        return area.left() + v / ticks[-1] * area.width()

    for t in ticks:
        p.setPen(QPen(QColor("#dddddd"), 0.5 * pt))
        p.drawLine(QPointF(tx(t), area.top()), QPointF(tx(t), area.bottom()))
        w = fm.horizontalAdvance(f"{t:,.0f}") + 2 * pt
        draw_line(p, pen, QRectF(tx(t) - w / 2, area.bottom() + 2 * pt, w, fm.height()), f"{t:,.0f}",
                  align=Qt.AlignmentFlag.AlignHCenter)
    draw_line(p, pen, QRectF(area.left(), box.bottom() - fm.height() * 1.3, area.width(), fm.height() * 1.2),
              "MB/s (decimal)", align=Qt.AlignmentFlag.AlignHCenter)
    slot = area.height() / max(len(chart.bars), 1)
    for i, bar in enumerate(chart.bars):
        top = area.top() + i * slot + slot * 0.18
        rect = QRectF(area.left(), top, max(tx(bar.value) - area.left(), 1.0), slot * 0.64)
        p.fillRect(rect, QColor(BOTTLENECK if bar.is_bottleneck else BAR))
        draw_line(p, pen, QRectF(box.left(), rect.top(), label_w - 4 * pt, rect.height()), bar.label,
                  align=Qt.AlignmentFlag.AlignRight, bold=bar.is_bottleneck)
        draw_line(p, pen, QRectF(rect.right() + 3 * pt, rect.top(), box.right() - rect.right() - 3 * pt,
                                 rect.height()), bar.text, bold=bar.is_bottleneck)
    if chart.reference:
        _reference(p, pen, chart, box, area, tx(chart.reference))
    p.setPen(QPen(QColor("#888888"), 0.8 * pt))
    p.drawLine(QPointF(area.left(), area.top()), QPointF(area.left(), area.bottom()))
    p.restore()


__all__ = ["paint_bars"]

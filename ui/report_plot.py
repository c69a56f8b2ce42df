"""Throughput plots for reports, painted straight onto the PDF page (vectors and real text).

A report is printed and archived; it needs a still picture, not a live pyqtgraph widget.
Painted as vectors rather than as an image, its labels are text in the PDF: sharp at any
zoom, found by a reader's search, and checked by the tests for clipping (``pdftotext -bbox``).
Every label is measured in the font it is drawn in and kept inside the chart's box.

The scale ends where the model says (``Plot.y_top``, ``app.report.plots``): readings above it
are marked with a ▲ at the top edge and named in the title line, never allowed to squash the
rest. The run's yardstick (``Plot.reference``) is the dashed line its verdict judges against; a stretch that
carries no samples but belongs to the run (a write's flush, ``Plot.shaded``) is shaded with its words.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen, QPolygonF

from app.report import Plot
from native.units import rate_text

# Colour-blind-safe palette (Okabe-Ito), in the order series appear.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
TEXT, GRID, FRAME, REFERENCE = "#444444", "#dddddd", "#888888", "#222222"
SHADE = "#e4e4e4"  # a stretch without samples (a write's flush): light enough for the curves over it, seen in grey print
ABOVE = "▲"


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


def tick_text(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 10 or v == int(v) else f"{v:g}"


@dataclass(frozen=True)
class Pen:
    """The figure font set on a painter, its metrics on the painter's device, and a point in device pixels."""

    font: QFont
    bold: QFont
    fm: QFontMetricsF
    bold_fm: QFontMetricsF
    pt: float


def figure_pen(p: QPainter) -> Pen:
    """The report's 7 pt figure font on ``p`` (set), shared by the plots and the bar charts."""
    font = QFont("DejaVu Sans", 7)
    for tag in ("liga", "clig"):  # 'fi' stays two letters in the PDF's text
        font.setFeature(QFont.Tag(tag), 0)
    bold = QFont(font)
    bold.setBold(True)
    p.setFont(font)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    device = p.device()
    return Pen(font, bold, QFontMetricsF(font, device), QFontMetricsF(bold, device), device.logicalDpiY() / 72.0)


def draw_line(p: QPainter, pen: Pen, box: QRectF, text: str, *, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignLeft,
              bold: bool = False, colour: str = TEXT) -> None:
    """One line of text inside ``box``, elided to its width in the font it is drawn in (never past it)."""
    fm = pen.bold_fm if bold else pen.fm
    p.setFont(pen.bold if bold else pen.font)
    p.setPen(QColor(colour))
    shown = fm.elidedText(text, Qt.TextElideMode.ElideRight, box.width())
    p.drawText(box, align | Qt.AlignmentFlag.AlignVCenter, shown)
    p.setFont(pen.font)


@dataclass(frozen=True)
class _Frame:
    area: QRectF
    x_ticks: list[float]
    y_ticks: list[float]

    def tx(self, x: float) -> float:
        lo, hi = self.x_ticks[0], self.x_ticks[-1]
        return self.area.left() + (x - lo) / (hi - lo) * self.area.width()

    def ty(self, y: float) -> float:
        lo, hi = self.y_ticks[0], self.y_ticks[-1]
        return self.area.bottom() - (min(y, hi) - lo) / (hi - lo) * self.area.height()


def _frame(plot: Plot, box: QRectF, pen: Pen) -> _Frame:
    """The plotting area inside ``box``: room for the title, the tick labels (the top one's upper half
    and the last x label's right half included) and the axis titles."""
    xs = [x for s in plot.series for x, _ in s.points] + [sh.end for sh in plot.shaded]
    ys = [y for s in plot.series for _, y in s.points]
    x_ticks = nice_ticks(0.0, max(xs) if xs else 1.0)
    top = plot.y_top if plot.y_top else (max(ys) if ys else 1.0) * 1.05
    y_ticks = nice_ticks(0.0, top)  # the scale ends at the first tick at or above the model's top
    fm, pt = pen.fm, pen.pt
    left = max(fm.horizontalAdvance(tick_text(t)) for t in y_ticks) + fm.height() * 1.6 + 6 * pt
    right = max(8 * pt, fm.horizontalAdvance(tick_text(x_ticks[-1])) / 2 + 2 * pt)
    title_h = fm.height() * 1.8
    area = QRectF(box.left() + left, box.top() + title_h, box.width() - left - right,
                  box.height() - title_h - fm.height() * 2.8)
    return _Frame(area, x_ticks, y_ticks)


def _axes(p: QPainter, pen: Pen, plot: Plot, box: QRectF, f: _Frame) -> None:
    fm, pt, area = pen.fm, pen.pt, f.area
    p.setPen(QPen(QColor(GRID), 0.5 * pt))
    for t in f.y_ticks:
        p.drawLine(QPointF(area.left(), f.ty(t)), QPointF(area.right(), f.ty(t)))
    for t in f.x_ticks:
        p.drawLine(QPointF(f.tx(t), area.top()), QPointF(f.tx(t), area.bottom()))
    for t in f.y_ticks:
        draw_line(p, pen, QRectF(box.left(), f.ty(t) - fm.height() / 2, area.left() - box.left() - 4 * pt,
                                 fm.height()), tick_text(t), align=Qt.AlignmentFlag.AlignRight)
    for t in f.x_ticks:
        w = fm.horizontalAdvance(tick_text(t)) + 2 * pt
        draw_line(p, pen, QRectF(f.tx(t) - w / 2, area.bottom() + 2 * pt, w, fm.height()), tick_text(t),
                  align=Qt.AlignmentFlag.AlignHCenter)
    p.setPen(QPen(QColor(FRAME), 0.8 * pt))
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawRect(area)
    draw_line(p, pen, QRectF(area.left(), box.bottom() - fm.height() * 1.3, area.width(), fm.height() * 1.2),
              plot.x_label, align=Qt.AlignmentFlag.AlignHCenter)
    p.save()
    p.translate(box.left() + fm.height() * 0.2, area.center().y())
    p.rotate(-90)
    draw_line(p, pen, QRectF(-area.height() / 2, 0, area.height(), fm.height() * 1.2), plot.y_label,
              align=Qt.AlignmentFlag.AlignHCenter)
    p.restore()


def _reference(p: QPainter, pen: Pen, plot: Plot, f: _Frame) -> None:
    """The yardstick, over the curves: a dashed line and its words on a white ground just above it, at the left."""
    if not plot.reference or plot.reference > f.y_ticks[-1]:
        return
    y, area, fm = f.ty(plot.reference), f.area, pen.fm
    p.setPen(QPen(QColor(REFERENCE), 1.0 * pen.pt, Qt.PenStyle.DashLine))
    p.drawLine(QPointF(area.left(), y), QPointF(area.right(), y))
    text = fm.elidedText(plot.reference_label, Qt.TextElideMode.ElideRight, area.width() * 0.6)
    box = QRectF(area.left() + 4 * pen.pt, max(y - fm.height() * 1.2, area.top() + pen.pt),
                 fm.horizontalAdvance(text) + 4 * pen.pt, fm.height())
    p.fillRect(box, QColor(255, 255, 255, 220))
    draw_line(p, pen, box.adjusted(2 * pen.pt, 0, 0, 0), text, colour=REFERENCE)


def _shaded(p: QPainter, pen: Pen, plot: Plot, f: _Frame) -> None:
    """Each shaded stretch (a write's flush, ``Plot.shaded``) under the curves, its words at its foot on a white
    ground, starting at its left edge (a flush is narrow; the words may run on to its right)."""
    fm, area = pen.fm, f.area
    for sh in plot.shaded:
        left, right = max(f.tx(sh.start), area.left()), min(f.tx(sh.end), area.right())
        if right <= left:
            continue
        p.fillRect(QRectF(left, area.top(), right - left, area.height()), QColor(SHADE))
        text = fm.elidedText(sh.label, Qt.TextElideMode.ElideRight, area.right() - left - 4 * pen.pt)
        box = QRectF(left + pen.pt, area.bottom() - fm.height() * 1.3, fm.horizontalAdvance(text) + 4 * pen.pt,
                     fm.height())
        p.fillRect(box, QColor(255, 255, 255, 220))
        draw_line(p, pen, box.adjusted(2 * pen.pt, 0, 0, 0), text, colour=REFERENCE)


def _series(p: QPainter, pen: Pen, plot: Plot, f: _Frame) -> float | None:
    """Each series, clipped to the area; a ▲ at the top edge over each reading above the scale.
    Returns the highest reading above the scale (None: all fit)."""
    top, highest = f.y_ticks[-1], None
    p.save()
    p.setClipRect(f.area.adjusted(-pen.pt, -pen.pt, pen.pt, pen.pt))
    for i, s in enumerate(plot.series):
        colour = QColor(PALETTE[i % len(PALETTE)])
        path = QPainterPath()
        for j, (x, y) in enumerate(s.points):
            (path.moveTo if j == 0 else path.lineTo)(QPointF(f.tx(x), f.ty(y)))
        p.setPen(QPen(colour, 1.2 * pen.pt, Qt.PenStyle.SolidLine, Qt.PenCapStyle.RoundCap, Qt.PenJoinStyle.RoundJoin))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(path)
        p.setBrush(colour)
        if len(s.points) == 1:
            p.drawEllipse(QPointF(f.tx(s.points[0][0]), f.ty(s.points[0][1])), 2 * pen.pt, 2 * pen.pt)
        for x, y in _peaks_above(s.points, top):
            highest = max(highest or y, y)
            _mark(p, pen, QPointF(f.tx(x), f.area.top()))
    p.restore()
    return highest


def _peaks_above(points: tuple[tuple[float, float], ...], top: float) -> list[tuple[float, float]]:
    """The highest reading of each run of consecutive readings above ``top``: one mark per excursion."""
    peaks: list[tuple[float, float]] = []
    inside = False
    for x, y in points:
        if y <= top:
            inside = False
        elif not inside:
            peaks.append((x, y))
            inside = True
        elif y > peaks[-1][1]:
            peaks[-1] = (x, y)
    return peaks


def _mark(p: QPainter, pen: Pen, at: QPointF) -> None:
    s = 2.2 * pen.pt
    p.setPen(Qt.PenStyle.NoPen)
    p.drawPolygon(QPolygonF([QPointF(at.x() - s, at.y() + 1.8 * s), QPointF(at.x() + s, at.y() + 1.8 * s), at]))


def _legend(p: QPainter, pen: Pen, plot: Plot, f: _Frame) -> None:
    if not plot.series:
        return
    fm, pt = pen.fm, pen.pt
    names = [fm.elidedText(s.label, Qt.TextElideMode.ElideRight, f.area.width() * 0.4) for s in plot.series]
    w = max(fm.horizontalAdvance(n) for n in names) + 24 * pt
    box = QRectF(f.area.right() - w - 6 * pt, f.area.top() + 6 * pt, w, fm.height() * len(names) + 6 * pt)
    p.setPen(QPen(QColor("#bbbbbb"), 0.5 * pt))
    p.setBrush(QColor(255, 255, 255, 230))
    p.drawRect(box)
    for k, name in enumerate(names):
        y = box.top() + 3 * pt + fm.height() * (k + 0.5)
        p.setPen(QPen(QColor(PALETTE[k % len(PALETTE)]), 2 * pt))
        p.drawLine(QPointF(box.left() + 4 * pt, y), QPointF(box.left() + 16 * pt, y))
        draw_line(p, pen, QRectF(box.left() + 19 * pt, y - fm.height() / 2, w - 21 * pt, fm.height()), name)


def paint_plot(p: QPainter, box: QRectF, plot: Plot) -> None:
    """``plot`` inside ``box`` on ``p`` (any paint device; fonts in points at the device's resolution)."""
    p.save()
    pen = figure_pen(p)
    f = _frame(plot, box, pen)
    title_h = f.area.top() - box.top()
    _axes(p, pen, plot, box, f)
    if not plot.series:
        draw_line(p, pen, f.area, "no samples recorded", align=Qt.AlignmentFlag.AlignHCenter)
    _shaded(p, pen, plot, f)
    highest = _series(p, pen, plot, f)
    _reference(p, pen, plot, f)
    _legend(p, pen, plot, f)
    note = f"{ABOVE} readings above the scale, up to {rate_text(highest)}" if highest is not None else ""
    note_w = min(pen.fm.horizontalAdvance(note) + 2 * pen.pt, f.area.width() * 0.5) if note else 0.0
    draw_line(p, pen, QRectF(f.area.left(), box.top(), f.area.width() - note_w, title_h), plot.title, bold=True,
              colour="#222222")
    if note:
        draw_line(p, pen, QRectF(f.area.right() - note_w, box.top(), note_w, title_h), note,
                  align=Qt.AlignmentFlag.AlignRight)
    p.restore()


__all__ = ["PALETTE", "Pen", "draw_line", "figure_pen", "nice_ticks", "paint_plot", "tick_text"]

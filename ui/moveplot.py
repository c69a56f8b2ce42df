"""The library exerciser's move-time plot: seconds per MOVE MEDIUM against the move's number.

Drawn as ``ui.plot`` draws throughput: pyqtgraph, the palette's colours, items made once
and fed with ``setData``. Exercised moves are blue, moves that put a cartridge back grey,
a move the robot failed a red cross at the top of the range; the median is a dashed line.
"""
from __future__ import annotations

import statistics

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QVBoxLayout, QWidget
from native.units import duration_text

EXERCISE, RETURNING, FAILED = "#1f77b4", "#7f7f7f", "#d62728"


class MoveTimePlot(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = self.palette()
        fg = pal.color(QPalette.ColorRole.Text)
        self.view = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
        self.view.setObjectName("moveTimePlot")
        item = self.view.getPlotItem()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(fg))
            item.getAxis(axis).setTextPen(pg.mkPen(fg))
            item.getAxis(axis).enableAutoSIPrefix(False)
        item.setLabel("left", "Move time", units="s", **{"color": fg.name()})
        item.setLabel("bottom", "Move", **{"color": fg.name()})
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        legend_bg = QColor(pal.color(QPalette.ColorRole.Base))
        legend_bg.setAlpha(210)
        # Bottom right: move times sit well above zero, so the legend covers no point there.
        self.legend = item.addLegend(offset=(-10, -10), labelTextColor=fg, brush=pg.mkBrush(legend_bg))
        self._moves = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(EXERCISE), pen=pg.mkPen(EXERCISE))
        self._back = pg.ScatterPlotItem(size=9, brush=pg.mkBrush(RETURNING), pen=pg.mkPen(RETURNING))
        self._failed = pg.ScatterPlotItem(size=13, symbol="x", brush=pg.mkBrush(FAILED), pen=pg.mkPen(FAILED))
        self._median = pg.InfiniteLine(angle=0, pen=pg.mkPen(fg, width=1, style=Qt.PenStyle.DashLine),
                                       label="", labelOpts={"position": 0.02, "color": fg, "anchors": [(0, 1), (0, 1)]})
        for scatter, label in ((self._moves, "Move"), (self._back, "Putting back"), (self._failed, "Robot error")):
            item.addItem(scatter)
            self.legend.addItem(scatter, label)
        item.addItem(self._median)
        self._median.hide()
        self.view.setMinimumHeight(200)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view)
        self.points: dict[str, list[tuple[int, float]]] = {"move": [], "back": [], "failed": []}

    def clear(self) -> None:
        for key in self.points:
            self.points[key] = []
        self._redraw()

    def add_move(self, number: int, seconds: float | None, *, returning: bool = False, failed: bool = False) -> None:
        """One finished move (``seconds`` None for a failed one: drawn at the top of the range)."""
        key = "failed" if failed or seconds is None else ("back" if returning else "move")
        self.points[key].append((number, seconds if seconds is not None else -1.0))
        self._redraw()

    def point_count(self) -> int:
        return sum(len(v) for v in self.points.values())

    def _redraw(self) -> None:
        timed = [s for key in ("move", "back") for _, s in self.points[key]]
        top = max(timed, default=1.0) * 1.15 or 1.0
        for key, scatter in (("move", self._moves), ("back", self._back)):
            scatter.setData([n for n, _ in self.points[key]], [s for _, s in self.points[key]])
        self._failed.setData([n for n, _ in self.points["failed"]], [top for _ in self.points["failed"]])
        if timed:
            median = statistics.median(timed)
            self._median.setValue(median)
            self._median.label.setFormat(f"median {duration_text(median)}")
            self._median.show()
        else:
            self._median.hide()
        count = max([n for pts in self.points.values() for n, _ in pts], default=1)
        self.view.getPlotItem().setRange(xRange=(0.5, count + 0.5), yRange=(0, top * 1.05), padding=0)

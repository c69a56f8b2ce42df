"""The live throughput plot: MB/s against time, one curve per phase.

Samples arrive in batches from the engine (host-side bytes and timestamps per I/O,
never drive polling). Each I/O's bytes are spread over the interval it took
(``t - latency`` .. ``t``) into fixed time bins, so a slow I/O does not show as one
spike followed by silence. Curves are created once per phase and updated with
``setData``; ``setDownsampling(mode='peak')`` and ``setClipToView(True)`` keep hours
of samples cheap (pyqtgraph ``examples/scrollingPlots.py``).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import numpy as np
import numpy.ma  # noqa: F401  pyqtgraph imports it lazily at the first curve update: ~0.2 s on the GUI thread mid-run
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QGraphicsItem, QLabel, QVBoxLayout, QWidget

from app.events import Sample
from app.runs.kind import Stretch
from ui.format import unbroken

TOP_ROOM = 1.05  # the y range's top over its highest tick (the tick's label inside the plot)
BIN_S = 0.1  # width of one rate bin, seconds
AVG_S = 2.0  # rolling-average window, seconds (shorter for short tests: see _avg_window)
STALL_MIN_S = 0.5  # an I/O this long (and far above the median) is a stall
#: Several drives at once (``prepare`` with "drive N" curves): each drive's curve and this one, their sum together.
ALL_DRIVES = "all drives together"

PHASE_COLOURS = {
    "write": "#1f77b4",
    "read": "#2ca02c",
    "create": "#9467bd",
    "read-data": "#ff7f0e",
    "tree-walk": "#8c564b",
    "backup": "#d62728",  # the network test's directions (app.nettest): client to server ...
    "restore": "#17becf",  # ... and server to client
}
PHASE_LABELS = {
    "write": "Write",
    "read": "Read",
    "create": "Create files",
    "read-data": "Read files",
    "tree-walk": "Tree walk",
    "backup": "Backup (client to server)",
    "restore": "Restore (server to client)",
    "watch": "Watching the backup",
}


@dataclass
class _Series:
    """Byte totals per bin for one phase; grows by doubling."""

    bins: np.ndarray = field(default_factory=lambda: np.zeros(1024))
    used: int = 0  # highest bin index touched + 1
    first: int | None = None  # first bin with data

    def add(self, starts: np.ndarray, ends: np.ndarray, nbytes: np.ndarray) -> None:
        if len(ends) == 0:
            return
        # Bin i covers [i*BIN_S, (i+1)*BIN_S); an I/O ending exactly on an edge belongs left.
        b0 = np.maximum(np.floor(starts / BIN_S + 1e-9).astype(np.int64), 0)
        b1 = np.maximum(np.ceil(ends / BIN_S - 1e-9).astype(np.int64) - 1, b0)
        need = int(b1.max()) + 1
        if need > len(self.bins):
            grown = np.zeros(max(need, 2 * len(self.bins)))
            grown[: len(self.bins)] = self.bins
            self.bins = grown
        same = b0 == b1
        np.add.at(self.bins, b1[same], nbytes[same])
        for s, e, n, i0, i1 in zip(starts[~same], ends[~same], nbytes[~same], b0[~same], b1[~same]):
            # An I/O spanning bins (a slow one, or a stall): spread its bytes evenly.
            edges = np.arange(i0, i1 + 1)
            lo = np.maximum(edges * BIN_S, s)
            hi = np.minimum((edges + 1) * BIN_S, e)
            self.bins[edges] += n * (hi - lo) / max(e - s, 1e-9)
        self.used = max(self.used, need)
        first = int(b0.min())
        self.first = first if self.first is None else min(self.first, first)

    def curve(self, upto: int) -> tuple[np.ndarray, np.ndarray]:
        """(t, MB/s) from the first bin with data to ``upto`` (the last complete bin)."""
        if self.first is None or upto <= self.first:
            return np.zeros(0), np.zeros(0)
        idx = np.arange(self.first, upto)
        return (idx + 0.5) * BIN_S, self.bins[self.first : upto] / BIN_S / 1e6


def _step_up(value: float) -> float:
    """The next of 1, 1.5, 2, 3, 5, 7.5 × 10^n at or above ``value`` (ranges grow in steps)."""
    if value <= 0:
        return 1.0
    exp = 10 ** np.floor(np.log10(value))
    for m in (1.0, 1.5, 2.0, 3.0, 5.0, 7.5, 10.0):
        if m * exp >= value - 1e-12:
            return float(m * exp)
    return float(10 * exp)  # pragma: no cover


def rolling_mean(values: np.ndarray, window: int) -> np.ndarray:
    """Trailing mean over ``window`` points (shorter at the start)."""
    if len(values) == 0:
        return values
    csum = np.cumsum(np.insert(values, 0, 0.0))
    idx = np.arange(1, len(values) + 1)
    lo = np.maximum(idx - window, 0)
    return (csum[idx] - csum[lo]) / (idx - lo)


def _drive_colour(key: str) -> str:
    """Drive N in the report's colour-blind-safe order; their sum in black; anything else grey."""
    from ui.report_plot import PALETTE

    if key == ALL_DRIVES:
        return "#000000"
    number = key.removeprefix("drive ")
    return PALETTE[(int(number) - 1) % (len(PALETTE) - 2)] if key.startswith("drive ") and number.isdigit() else "#7f7f7f"


class ThroughputPlot(QWidget):
    """MB/s vs time; call ``add_samples`` from the GUI thread (the run view's timer)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        pal = self.palette()
        self.view = pg.PlotWidget(background=pal.color(QPalette.ColorRole.Base))
        self.view.setObjectName("throughputPlot")
        fg = pal.color(QPalette.ColorRole.Text)
        item = self.view.getPlotItem()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(fg))
            item.getAxis(axis).setTextPen(pg.mkPen(fg))
        item.setLabel("left", "Throughput", units="MB/s", **{"color": fg.name()})
        item.getAxis("left").enableAutoSIPrefix(False)
        item.getAxis("bottom").enableAutoSIPrefix(False)  # "ks" for an hour-long run reads badly
        item.setLabel("bottom", "Time", units="s", **{"color": fg.name()})
        # No grid: pyqtgraph's grid costs more than everything else in a repaint; the
        # rated-rate lines give the eye its reference.
        item.setClipToView(True)
        item.setDownsampling(mode="peak")
        # Ranges move in steps (see _fit_ranges) instead of auto-ranging on every update:
        # while a range is unchanged pyqtgraph reuses the axes' cached drawing, which is
        # most of a repaint's cost.
        item.disableAutoRange()
        item.setMouseEnabled(x=False, y=False)
        item.hideButtons()
        self._x_hi = self._y_hi = 0.0
        legend_bg = QColor(pal.color(QPalette.ColorRole.Base))
        legend_bg.setAlpha(210)
        self.legend = item.addLegend(offset=(-10, 10), labelTextColor=fg, brush=pg.mkBrush(legend_bg))
        # What does not change while a run streams (legend, axes between range steps, the
        # rated-rate lines) is painted once into a pixmap and then copied: without the cache
        # every repaint ran their Python paint() again, each call a GIL round trip while the
        # engine's thread wants the GIL too.
        for static in (self.legend, item.getAxis("left"), item.getAxis("bottom")):
            static.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.view.setMinimumHeight(220)
        self.view.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        # Why the curve and the verdict's figure differ (a short write's flush, ``set_stretches``): under the plot.
        self.note = QLabel()
        self.note.setObjectName("plotNote")
        self.note.setWordWrap(True)
        self.note.hide()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.note)
        self._phase_end: dict[str, float] = {}
        self._shaded: list[tuple[pg.LinearRegionItem, pg.TextItem]] = []
        self._series: dict[str, _Series] = {}
        self.by_drive = False  # several drives at once: curves per drive (``prepare``)
        self._curves: dict[str, tuple[pg.PlotDataItem, pg.PlotDataItem]] = {}
        self._spare = {phase: self._make_pair(phase) for phase in PHASE_COLOURS}
        self._latencies: list[np.ndarray] = []
        self._stall_x: list[float] = []
        self._stalls = pg.ScatterPlotItem(symbol="t", size=12, brush=pg.mkBrush("#d62728"), pen=pg.mkPen("#d62728"))
        item.addItem(self._stalls)
        self._stall_in_legend = False
        self._refs: list[pg.InfiniteLine] = []
        self.t_max = 0.0
        self.sample_count = 0
        self._warm_up()

    def changeEvent(self, event) -> None:  # noqa: N802 (Qt)
        """Follow the system's light/dark palette when it changes at run time."""
        from PySide6.QtCore import QEvent

        if event.type() == QEvent.Type.PaletteChange:
            self._apply_palette()
        super().changeEvent(event)

    def _apply_palette(self) -> None:
        pal = self.palette()
        fg = pal.color(QPalette.ColorRole.Text)
        self.view.setBackground(pal.color(QPalette.ColorRole.Base))
        item = self.view.getPlotItem()
        for axis in ("left", "bottom"):
            item.getAxis(axis).setPen(pg.mkPen(fg))
            item.getAxis(axis).setTextPen(pg.mkPen(fg))
            item.getAxis(axis).label.setDefaultTextColor(fg)
        legend_bg = QColor(pal.color(QPalette.ColorRole.Base))
        legend_bg.setAlpha(210)
        self.legend.setBrush(pg.mkBrush(legend_bg))
        self.legend.setLabelTextColor(fg)
        for line in self._refs:
            line.setPen(pg.mkPen(fg, width=1, style=Qt.PenStyle.DashLine))
            line.label.setColor(fg)

    # -- data --------------------------------------------------------------------------
    def clear(self) -> None:
        for phase, (raw, avg) in self._curves.items():
            if phase.startswith("curve:"):  # a stored run's own curve (show_curves): made for it, dropped with it
                self.legend.removeItem(raw)
                self.view.removeItem(raw)
                continue
            raw.setData([], [])
            avg.setData([], [])
            self.legend.removeItem(raw)
            self.legend.removeItem(avg)
            self._spare[phase] = (raw, avg)
        self._series.clear()
        self._curves.clear()
        self.by_drive = False
        self._latencies.clear()
        self._stall_x.clear()
        self._stalls.setData([], [])
        if self._stall_in_legend:
            self.legend.removeItem(self._stalls)
            self._stall_in_legend = False
        self._x_hi = self._y_hi = 0.0
        self.t_max = 0.0
        self.sample_count = 0
        self._phase_end.clear()
        self.set_stretches([])

    def add_samples(self, samples: Sequence[Sample], *, final: bool = False) -> None:
        """Fold a batch of samples in and redraw (the curve objects are reused)."""
        self.ingest(samples)
        self.redraw(final)

    def ingest(self, samples: Sequence[Sample]) -> None:
        """Fold samples into the bins without drawing (cheap: callers redraw at their pace)."""
        if samples:
            by_phase: dict[str, list[Sample]] = {}
            for s in samples:
                if self.by_drive:  # one curve per drive (its stream), and the drives' sum while together
                    by_phase.setdefault(f"drive {s.stream + 1}", []).append(s)
                    if not s.phase.endswith(" alone"):
                        by_phase.setdefault(ALL_DRIVES, []).append(s)
                else:
                    by_phase.setdefault(s.phase, []).append(s)
            for phase, group in by_phase.items():
                t = np.fromiter((s.t for s in group), float, len(group))
                lat = np.fromiter((s.latency for s in group), float, len(group))
                n = np.fromiter((s.nbytes for s in group), float, len(group))
                self._series.setdefault(phase, _Series()).add(np.maximum(t - lat, 0.0), t, n)
                self._phase_end[phase] = max(self._phase_end.get(phase, 0.0), float(t.max()))
                self._find_stalls(t, lat)
            self.sample_count += len(samples)
            self.t_max = max(self.t_max, max(s.t for s in samples))

    def _find_stalls(self, t: np.ndarray, lat: np.ndarray) -> None:
        self._latencies.append(lat)
        recent = np.concatenate(self._latencies[-50:])
        median = float(np.median(recent)) if len(recent) else 0.0
        mask = lat > max(STALL_MIN_S, 10 * median)
        self._stall_x.extend((t[mask] - lat[mask]).tolist())

    def redraw(self, final: bool = False) -> None:
        # The bin still being filled would show a false dip: draw complete bins only.
        upto_all = int(self.t_max / BIN_S + 1e-9)
        for phase, series in self._series.items():
            upto = min(series.used, upto_all) if not final else series.used
            x, y = series.curve(upto)
            raw, avg = self._curve_pair(phase)
            raw.setData(x, y)
            avg.setData(x, rolling_mean(y, self._avg_bins()))
        if self._stall_x:
            self._stalls.setData(self._stall_x, [0.0] * len(self._stall_x))
            if not self._stall_in_legend:
                self.legend.addItem(self._stalls, "Stall (an I/O far slower than the rest)")
                self._cache_legend()
                self._stall_in_legend = True
        self._fit_ranges()

    def _fit_ranges(self) -> None:
        y_max = max([float(np.max(c[0].getData()[1])) for c in self._curves.values() if c[0].getData()[1] is not None
                     and len(c[0].getData()[1])] + [line.value() for line in self._refs] + [1.0])
        x_hi = _step_up(self.t_max * 1.05 + BIN_S)
        y_hi = _step_up(y_max * 1.08)
        if (x_hi, y_hi) != (self._x_hi, self._y_hi):
            self._x_hi, self._y_hi = x_hi, y_hi
            # A little room above the top tick: its label is centred on it, so at the very edge half of it was cut.
            self.view.getPlotItem().setRange(xRange=(0, x_hi), yRange=(0, y_hi * TOP_ROOM), padding=0)

    def _avg_bins(self) -> int:
        """A 2 s average, shortened for tests of a few seconds so it does not lag a whole phase."""
        window = min(AVG_S, max(0.3, self.t_max / 20))
        return max(1, int(round(window / BIN_S)))

    def _warm_up(self) -> None:
        """Create and drop a legend entry and a labelled line once, now: the first of each
        in a process costs imports and signature inspection (~0.1–0.3 s) that must not
        land on the GUI thread in the middle of a run."""
        raw, avg = self._spare["write"]
        self.legend.addItem(raw, PHASE_LABELS["write"])
        self.legend.addItem(avg, f"{PHASE_LABELS['write']}, rolling average")
        self.legend.removeItem(raw)
        self.legend.removeItem(avg)
        self.set_reference_rates([("warm-up", 1.0)])
        self.set_reference_rates([])

    def _make_pair(self, phase: str) -> tuple[pg.PlotDataItem, pg.PlotDataItem]:
        colour = QColor(PHASE_COLOURS.get(phase) or _drive_colour(phase))
        faint = QColor(colour)
        faint.setAlpha(110)
        raw = self.view.plot(pen=pg.mkPen(faint, width=1))
        avg = self.view.plot(pen=pg.mkPen(colour, width=2.5))
        for c in (raw, avg):
            c.setDownsampling(auto=True, method="peak")
            c.setClipToView(True)
        return raw, avg

    def _curve_pair(self, phase: str) -> tuple[pg.PlotDataItem, pg.PlotDataItem]:
        """The phase's (raw, average) curves, made visible with legend entries on first use.

        The items themselves are made in ``__init__``: creating pyqtgraph items the first
        time costs a few hundred milliseconds (imports, signature inspection), which must
        not happen on the GUI thread in the middle of a run.
        """
        pair = self._curves.get(phase)
        if pair is None:
            pair = self._spare.pop(phase, None) or self._make_pair(phase)
            label = PHASE_LABELS.get(phase, phase)
            self.legend.addItem(pair[0], label)
            self.legend.addItem(pair[1], f"{label}, rolling average")
            self._cache_legend()
            self._curves[phase] = pair
        return pair

    def _cache_legend(self) -> None:
        """The legend's entries are items of their own (a Qt cache covers one item, not its children)."""
        for sample, label in self.legend.items:
            for entry in (sample, label):
                entry.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def prepare(self, phases: Iterable[str]) -> None:
        """Give the expected phases their curves and legend entries before the run starts:
        a legend that grows mid-run relayouts and repaints the whole plot. Curves named
        "drive N" (several drives at once) plot each drive's samples by their stream."""
        phases = list(phases)
        self.by_drive = any(p.startswith("drive ") for p in phases)
        for phase in phases:
            self._curve_pair(phase)

    def show_curves(self, curves: Sequence[tuple[str, Sequence[tuple[float, float]]]]) -> None:
        """Finished curves drawn as they are (a stored run over several drives: each drive, then their
        aggregate), in the report's colour-blind-safe order; ``clear`` removes them."""
        from ui.report_plot import PALETTE

        for k, (label, points) in enumerate(curves):
            if not points:
                continue
            x = np.fromiter((p[0] for p in points), float, len(points))
            y = np.fromiter((p[1] for p in points), float, len(points))
            key = f"curve:{k}"
            colour = QColor(_drive_colour(label) if label.startswith("drive ") else
                            "#000000" if label.startswith("all ") else PALETTE[k % len(PALETTE)])
            line = self.view.plot(x, y, pen=pg.mkPen(colour, width=2.5 if k == len(curves) - 1 else 1.5))
            self.legend.addItem(line, label)
            self._curves[key] = (line, line)
            self.t_max = max(self.t_max, float(x.max()))
        self._fit_ranges()

    # -- stretches without samples ------------------------------------------------------
    def set_stretches(self, stretches: Sequence[Stretch]) -> None:
        """Shade each stretch after its phase's last I/O (a write's flush: ``RunKind.stretches``) with its words,
        and print the stretches' notes under the plot (none: the note is hidden). A stretch whose phase has no
        samples here is left out, as the PDF leaves it out (``app.report.plots.placed``)."""
        item = self.view.getPlotItem()
        for region, text in self._shaded:
            item.removeItem(region)
            item.removeItem(text)
        self._shaded.clear()
        fg = self.palette().color(QPalette.ColorRole.Text)
        shade = QColor(fg)
        shade.setAlpha(40)
        notes = []
        for st in stretches:
            start = self._phase_end.get(st.phase)
            if start is None:
                continue
            region = pg.LinearRegionItem(values=(start, start + st.seconds), movable=False, brush=pg.mkBrush(shade),
                                         pen=pg.mkPen(None))
            region.setZValue(-10)  # under the curves
            text = pg.TextItem(st.label, color=fg, anchor=(0, 1))
            text.setPos(start, 0.0)
            item.addItem(region)
            item.addItem(text)
            self._shaded.append((region, text))
            self.t_max = max(self.t_max, start + st.seconds)
            notes.append(st.note)
        self.note.setText(unbroken("\n".join(notes)))
        self.note.setVisible(bool(notes))
        self._fit_ranges()

    def shaded(self) -> list[tuple[float, float, str]]:
        """(start, end, words) of each shaded stretch (tests, screenshots)."""
        return [(*region.getRegion(), text.toPlainText()) for region, text in self._shaded]

    # -- reference lines -------------------------------------------------------------
    def set_reference_rates(self, refs: Iterable[tuple[str, float]]) -> None:
        """Horizontal lines, each with its words as given: ("800 MB/s possible for 2:1 data on LTO-9", 800.0)."""
        item = self.view.getPlotItem()
        for line in self._refs:
            item.removeItem(line)
        self._refs.clear()
        fg = self.palette().color(QPalette.ColorRole.Text)
        for label, rate in refs:
            line = pg.InfiniteLine(
                pos=rate,
                angle=0,
                pen=pg.mkPen(fg, width=1, style=Qt.PenStyle.DashLine),
                label=label,
                labelOpts={"position": 0.02, "color": fg, "anchors": [(0, 1), (0, 1)]},
            )
            line.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
            item.addItem(line)
            self._refs.append(line)
        self._fit_ranges()

    # -- inspection (tests, screenshots) --------------------------------------------------
    def phases(self) -> list[str]:
        """Phases that have samples, in the order they appeared."""
        return [p for p in self._curves if p in self._series]

    def curve_points(self, phase: str) -> int:
        pair = self._curves.get(phase)
        if pair is None:
            return 0
        x, _ = pair[0].getData()
        return 0 if x is None else len(x)

    def stall_count(self) -> int:
        return len(self._stall_x)

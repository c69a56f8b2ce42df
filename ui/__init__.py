"""The PySide6 desktop app. The only package that imports Qt; it calls app/ and
receives progress from worker threads through signals."""
import os

# Set here, before anything in ui/ can paint: Qt's raster engine otherwise hands larger fills,
# strokes and image blends to its GUI thread pool and waits on a latch for them. On a
# 2-core machine whose other core streams a test, the GUI thread then waits for pool threads
# to be scheduled (py-spy: QLatch::waitInternal under PlotCurveItem.paint and
# QGraphicsView::paintEvent); plot-sized fills are cheaper done on the GUI thread itself
# (benchmarks/bench_gui_fluid.py, issue 19). Qt reads the variable once, when the pool is first asked for.
os.environ.setdefault("QT_NO_GUI_THREADPOOL", "1")

from app import classcache  # noqa: E402

classcache.keep_for(__name__)  # the dataclass methods of ui's classes are kept beside its bytecode too

"""Python's cyclic garbage collector runs on the GUI thread only, while the window lives.

Left alone, the collector runs in whichever thread happens to allocate past its
threshold. When that is a worker (``ui.worker``) and the garbage holds a Qt object,
the object is deleted there: Qt takes its signal-connection mutex and calls back into
Python for the GIL, while the GUI thread, building a widget, waits for that mutex.
Both wait for ever. The suite hit it once (a worker's ``gc`` in ``QObject::disconnect``
against ``QTreeWidget()`` in ``LibraryPanel``); a technician would see a frozen window.
pyqtgraph documents the same hazard (``pyqtgraph.util.garbage_collector``).

So automatic collection is off while the GUI runs, and a timer on the GUI thread
collects generation by generation as the usual thresholds say. Reference counting
(which frees almost everything) is untouched; a tape test streaming in a worker also
no longer pauses for a collection in the middle of its I/O.
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500


class MainThreadCollector(QObject):
    """Collects on the GUI thread every ``INTERVAL_MS``; ``stop`` gives collection back to Python."""

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        self.was_enabled = gc.isenabled()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start(interval_ms)

    def collect_due(self) -> None:
        """The generations past their thresholds, youngest first, as the automatic collector would."""
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self.thresholds[generation]:
                return
            gc.collect(generation)

    def stop(self) -> None:
        self.timer.stop()
        gc.collect()  # here, on the GUI thread, what is left
        if self.was_enabled:
            gc.enable()

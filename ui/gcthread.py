"""Python's cyclic garbage collector: on the GUI thread only while a window lives, and held
off while a test streams. The one place the GUI's collection policy lives.

Left alone, the collector runs in whichever thread happens to allocate past its
threshold. When that is a worker (``ui.worker``) and the garbage holds a Qt object,
the object is deleted there: Qt takes its signal-connection mutex and calls back into
Python for the GIL, while the GUI thread, building a widget, waits for that mutex.
Both wait for ever. The suite hit it (a worker's ``gc`` in ``QObject::disconnect``
against ``QTreeWidget()`` in ``LibraryPanel``); a technician would see a frozen window.
pyqtgraph documents the same hazard (``pyqtgraph.util.garbage_collector``).

So while anything ``start``-ed it (the main window, from its construction to its
close), automatic collection is off and a timer on the GUI thread collects generation
by generation as the usual thresholds say. ``hold``/``release`` (a run view while its
test streams) keep even that timer's passes, which hold the GIL and would stall the
live view, until the last stream ends; a holder that is deleted without releasing
holds nothing, so a forgotten release cannot stop collection for good. Reference counting, which frees almost
everything, is untouched.
"""
from __future__ import annotations

import gc
import weakref

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 500

_users = 0
_holders: "weakref.WeakSet[object]" = weakref.WeakSet()  # a holder that is gone holds nothing
_collector: "MainThreadCollector | None" = None


class MainThreadCollector(QObject):
    """The GUI thread's timer that does the collector's work (see the module)."""

    def __init__(self, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__()
        self.thresholds = gc.get_threshold()
        self.was_enabled = gc.isenabled()
        gc.disable()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect_due)
        self.timer.start(interval_ms)

    def collect_due(self) -> None:
        """The generations past their thresholds, youngest first, as the automatic collector would."""
        if _holders:
            return
        counts = gc.get_count()
        for generation in range(3):
            if counts[generation] <= self.thresholds[generation]:
                return
            gc.collect(generation)

    def finish(self) -> None:
        self.timer.stop()
        gc.collect()  # here, on the GUI thread, what is left
        if self.was_enabled:
            gc.enable()


def start() -> None:
    """One more user (call on the GUI thread); the first turns automatic collection off."""
    global _users, _collector
    if _users == 0:
        _collector = MainThreadCollector()
    _users += 1


def stop() -> None:
    """One user less; after the last, what is left is collected here and Python collects as before."""
    global _users, _collector
    if _users <= 0:
        return
    _users -= 1
    if _users == 0 and _collector is not None:
        _collector.finish()
        _collector = None


def hold(holder: object) -> None:
    """No collection passes until ``holder`` releases (or is gone): a test streams into its live view."""
    _holders.add(holder)


def release(holder: object) -> None:
    _holders.discard(holder)


def active() -> bool:
    """Whether collection is the GUI thread's now."""
    return _users > 0


def held() -> bool:
    return len(_holders) > 0

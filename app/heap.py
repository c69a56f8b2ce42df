"""The host's heap held still while a test times its I/O.

A full pass of Python's cyclic collector walks every object the process holds (the
GUI's widgets, a benchmark's parsed output, the modules): tens of milliseconds with
the GIL held, landing inside a timed span. ``frozen`` moves everything alive into the
collector's permanent generation for the span, so the passes that still run see only
what the test itself allocates, and gives it back after.

A heap someone else froze (the main window freezes the GUI's, for its lifetime) is left
as it is: ``gc.unfreeze`` cannot tell whose objects are whose and would hand the whole
GUI heap back to the collector's full passes, the stalls the freezing was for.

The heap is collected first only on the main thread: a collection on a GUI worker
thread finalizes the GUI's Qt wrappers there, and that hung the window for good once
(py-spy: the worker inside gc.collect, the GUI thread in a paint event); see also
``ui.gcthread``.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def frozen() -> Iterator[None]:
    if gc.get_freeze_count():
        yield
        return
    if threading.current_thread() is threading.main_thread():
        gc.collect()
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()

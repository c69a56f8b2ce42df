"""``app.heap.frozen``: the host's heap held still for a timed span, and given back after."""
from __future__ import annotations

import gc

from app import heap


def test_the_heap_is_frozen_for_the_span_and_given_back() -> None:
    gc.unfreeze()
    kept = [[] for _ in range(100)]
    with heap.frozen():
        assert gc.get_freeze_count() >= len(kept)
    assert gc.get_freeze_count() == 0


def test_a_heap_someone_else_froze_stays_frozen() -> None:
    # The main window freezes the GUI's heap for its lifetime: a test run inside it must not unfreeze it.
    gc.unfreeze()
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        with heap.frozen():
            pass
        assert gc.get_freeze_count() == before
    finally:
        gc.unfreeze()

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
    # Told by an object frozen before: the count itself drops whenever another thread of the process (pytest-xdist's
    # own) frees a frozen object, which once failed an equality on it (191,376 against 191,378).
    gc.unfreeze()
    marker = [[]]
    gc.freeze()
    try:
        with heap.frozen():
            pass
        assert gc.get_freeze_count() > 0
        assert not any(o is marker for o in gc.get_objects()), "the object frozen before was unfrozen"
    finally:
        gc.unfreeze()
    assert any(o is marker for o in gc.get_objects())  # the test's own check sees an unfrozen object

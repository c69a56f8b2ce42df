"""``ui.gcthread``: while the window lives, cycles are collected on the GUI thread and nowhere else."""
from __future__ import annotations

import gc
import threading


class Cycle:
    def __init__(self) -> None:
        self.me = self
        self.collected_in: list[str] = []

    def __del__(self) -> None:
        self.collected_in.append(threading.current_thread().name)


def test_a_worker_allocating_past_the_threshold_collects_nothing(qtbot) -> None:  # collect_on_gui_thread: autouse
    assert not gc.isenabled()
    gc.collect()
    where: list[str] = []
    threshold = gc.get_threshold()[0]
    for _ in range(threshold // 2):  # garbage cycles, fewer than the threshold
        c = Cycle()
        c.collected_in = where
        del c
    kept: list[list[int]] = []
    # The worker's live allocations take the count past the threshold: automatic collection would run
    # there, in the worker, and delete the cycles above on that thread.
    worker = threading.Thread(target=lambda: kept.extend([] for _ in range(threshold * 2)), name="worker")
    worker.start()
    worker.join()
    assert gc.get_count()[0] > threshold and where == []  # due, and not collected by the worker

    def collected() -> bool:
        # Topped up on every poll: deleting objects (the last test's window, deferred) lowers the
        # count again, and the timer, like the automatic collector, only collects past the threshold.
        kept.extend([] for _ in range(threshold))
        return len(where) == threshold // 2

    qtbot.waitUntil(collected, timeout=5000)  # the GUI thread's timer collected them
    assert set(where) == {threading.main_thread().name}


def test_the_last_user_gives_collection_back_and_a_hold_stops_the_timer(qtbot) -> None:
    from ui import gcthread

    assert gcthread.active() and not gc.isenabled()  # the suite's fixture is one user
    class Holder:
        pass

    holder = Holder()
    gcthread.hold(holder)  # a streaming run view: no passes at all
    where: list[str] = []
    for _ in range(gc.get_threshold()[0] * 2):
        c = Cycle()
        c.collected_in = where
        del c
    qtbot.wait(1200)  # two of the timer's turns
    assert where == []
    gcthread.release(holder)
    kept: list[list[int]] = []
    qtbot.waitUntil(lambda: kept.extend([] for _ in range(700)) or len(where) > 0, timeout=5000)
    gcthread.hold(holder)
    del holder  # a holder that is gone holds nothing
    assert not gcthread.held()
    gcthread.stop()  # the fixture's own user, early: Python collects again
    assert gc.isenabled() and not gcthread.active()
    gcthread.start()  # for the fixture's stop

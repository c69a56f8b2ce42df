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


def test_a_worker_allocating_past_the_threshold_collects_nothing(qtbot, collect_on_gui_thread) -> None:
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
    qtbot.waitUntil(lambda: len(where) == threshold // 2, timeout=5000)  # the GUI thread's timer collected them
    assert set(where) == {threading.main_thread().name}


def test_stop_gives_collection_back() -> None:
    from ui.gcthread import MainThreadCollector

    enabled = gc.isenabled()
    collector = MainThreadCollector()
    assert not gc.isenabled()
    collector.stop()
    assert gc.isenabled() == enabled

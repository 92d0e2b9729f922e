"""Cycles are collected in the GUI thread, never in a training thread (gui/session/collector.py)."""

import gc
import threading
import weakref

from gui.session.collector import INTERVAL_MS, collect_in_gui_thread


class _Cycle:
    def __init__(self):
        self.me = self
        self.thread = None

    def __del__(self):
        self.thread_at_del = threading.current_thread().name
        _Cycle.freed_in.append(self.thread_at_del)


_Cycle.freed_in = []


def test_the_window_collects_cycles_on_its_own_thread(qtbot, window):
    assert not gc.isenabled()
    assert collect_in_gui_thread() is collect_in_gui_thread()  # one per application
    _Cycle.freed_in.clear()

    kept = []

    def worker():
        for _ in range(5):
            _Cycle()  # garbage in a cycle, made in a worker thread
        # Enough container allocations to pass every threshold: with automatic collection on,
        # the cycles above would be freed right here, in this thread. Kept alive until the
        # timer looks: freeing them would take the allocation count back under the threshold.
        kept.append([[i] for i in range(200_000)])

    t = threading.Thread(target=worker, name="arbor-test-worker")
    t.start()
    t.join()
    assert _Cycle.freed_in == []
    qtbot.waitUntil(lambda: len(_Cycle.freed_in) == 5, timeout=10 * INTERVAL_MS)
    kept.clear()
    assert set(_Cycle.freed_in) == {threading.main_thread().name}


def test_a_cycle_is_freed_within_a_few_ticks(qtbot, window):
    c = _Cycle()
    ref = weakref.ref(c)
    del c
    keep = [[] for _ in range(2000)]  # pass generation 0's threshold
    qtbot.waitUntil(lambda: ref() is None, timeout=10 * INTERVAL_MS)
    assert len(keep) == 2000


def test_a_full_collection_waits_for_a_quarter_of_the_long_lived_objects_to_be_new():
    from gui.session.collector import due_generation

    thresholds = (700, 10, 10)
    assert due_generation((10, 0, 0), thresholds, 0, 0) == -1
    assert due_generation((701, 3, 0), thresholds, 0, 0) == 0
    assert due_generation((701, 11, 3), thresholds, 0, 0) == 1
    assert due_generation((701, 11, 11), thresholds, 0, 0) == 2  # nothing long-lived yet
    # 400,000 objects left by the last full pass: it waits for 100,000 new ones.
    assert due_generation((701, 11, 11), thresholds, 99_999, 400_000) == 1
    assert due_generation((701, 11, 11), thresholds, 100_000, 400_000) == 2


def test_the_collector_counts_what_joins_the_oldest_generation(qtbot, window, monkeypatch):
    collector = collect_in_gui_thread()
    asked = []
    real_collect = gc.collect
    monkeypatch.setattr(gc, "collect", lambda g=2: (asked.append(g), real_collect(g))[1])
    monkeypatch.setattr(collector, "long_lived", 10**9)
    monkeypatch.setattr(collector, "pending", 0)
    monkeypatch.setattr(gc, "get_count", lambda: (701, 11, 11))
    kept = [[i] for i in range(5000)]  # young objects that survive
    collector.collect_due()
    assert asked == [1] and collector.pending >= len(kept)
    monkeypatch.setattr(collector, "long_lived", 4 * collector.pending)
    collector.collect_due()  # a quarter joined: the full pass, which sets the counts anew
    assert asked == [1, 2] and collector.pending == 0 and collector.long_lived > len(kept)

"""Python's cycle collector runs in the GUI thread only, while the window is open.

Python collects reference cycles in whichever thread happens to allocate when a threshold
is crossed. In a window, that may be a training or compile thread, and a collection there
can finalise Qt wrappers that belong to the GUI thread: Qt then deletes widgets from the
wrong thread, which crashes or deadlocks the process. Seen here: segfaults while numba
loaded the kernels on the compile thread, and a deadlock during 1-R's loop in a training
thread. So the window turns automatic collection off and collects on a timer in the GUI
thread, generation by generation as Python's own thresholds ask (pyqtgraph documents the
same remedy). Memory without cycles is freed by reference counting as always; cycles made
by a long training wait at most one tick after it.

Like Python's own collector, a full collection also waits until the objects that have
reached the oldest generation since the last one number a quarter of those it left there:
with a 60,000-node tree on screen a full pass holds the GUI thread for about 0.2 s, and
without that rule it came every 70,000 allocations (a few seconds of panning).
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

#: How often the GUI thread looks at the allocation counts (ms).
INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Collects cycles on the GUI thread's timer; automatic collection stays off meanwhile."""

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.thresholds = gc.get_threshold()
        # Python's long_lived_total and long_lived_pending: the oldest generation's objects
        # after the last full collection, and how many have joined it since.
        self.long_lived = 0
        self.pending = 0
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect_due)
        gc.disable()
        self.timer.start(INTERVAL_MS)

    def collect_due(self) -> int:
        """Collect the oldest generation whose count passed its threshold (what Python would)."""
        generation = due_generation(gc.get_count(), self.thresholds, self.pending, self.long_lived)
        if generation < 0:
            return 0
        if generation == 2:
            found = gc.collect(2)
            self.long_lived, self.pending = len(gc.get_objects(2)), 0
            return found
        # The survivors of a collection of generation 1 move to the oldest generation.
        young = len(gc.get_objects(0)) + len(gc.get_objects(1)) if generation == 1 else 0
        found = gc.collect(generation)
        self.pending += max(young - found, 0)
        return found

    def stop(self) -> None:
        self.timer.stop()
        gc.enable()


def due_generation(counts, thresholds, pending: int, long_lived: int) -> int:
    """The generation Python would collect now (-1: none): the oldest whose allocation count
    passed its threshold, but not the oldest one until ``pending`` objects have joined it
    since its last collection, a quarter of the ``long_lived`` it then held."""
    generation = -1
    for g in range(3):
        if counts[g] <= thresholds[g]:
            break
        generation = g
    if generation == 2 and pending < long_lived // 4:
        return 1
    return generation


def collect_in_gui_thread() -> GuiThreadCollector:
    """Install the application's one collector (idempotent); it lives as long as the application."""
    app = QCoreApplication.instance()
    existing = app.findChild(GuiThreadCollector)
    if existing is not None:
        return existing
    collector = GuiThreadCollector(app)
    app.aboutToQuit.connect(collector.stop)
    return collector

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
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.collect_due)
        gc.disable()
        self.timer.start(INTERVAL_MS)

    def collect_due(self) -> int:
        """Collect the oldest generation whose count passed its threshold (what Python would)."""
        counts = gc.get_count()
        generation = -1
        for g in range(3):
            if counts[g] <= self.thresholds[g]:
                break
            generation = g
        return gc.collect(generation) if generation >= 0 else 0

    def stop(self) -> None:
        self.timer.stop()
        gc.enable()


def collect_in_gui_thread() -> GuiThreadCollector:
    """Install the application's one collector (idempotent); it lives as long as the application."""
    app = QCoreApplication.instance()
    existing = app.findChild(GuiThreadCollector)
    if existing is not None:
        return existing
    collector = GuiThreadCollector(app)
    app.aboutToQuit.connect(collector.stop)
    return collector

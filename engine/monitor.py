"""Progress reporting and cancellation for long engine calls.

The engine knows nothing of Qt: it takes a ``Monitor``, calls ``report`` with a
fraction in [0, 1] and a short message, and calls ``check`` between steps (once
per node expansion, per fold, per pruning step), which raises ``Cancelled`` once
``cancel`` has been called from any thread.

Loops over a tree's nodes or rows that any phase may run (routing rows for pruning,
rebuilding and renumbering trees, predicting, the pruning path) take no monitor of their
own: they call :func:`checkpoint`, which checks the monitor of the job running in this
thread, set with :func:`watching` by whoever runs the job (the fit, cross-validation, the
window's jobs). Every phase of a training is thus cancellable within a node's work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

from engine.errors import Cancelled


class Monitor:
    """A thread-safe cancel flag plus an optional progress callback.

    Examples
    --------
    >>> seen = []
    >>> m = Monitor(lambda f, msg: seen.append(round(f, 2)))
    >>> m.report(0.5, "half way"); seen
    [0.5]
    """

    def __init__(self, on_progress: Callable[[float, str], None] | None = None):
        self._on_progress = on_progress
        self._cancelled = threading.Event()
        self._flag = np.zeros(1, dtype=np.int64)

    def report(self, fraction: float, message: str = "") -> None:
        if self._on_progress is not None:
            self._on_progress(min(max(float(fraction), 0.0), 1.0), message)

    def check(self) -> None:
        if self._cancelled.is_set():
            raise Cancelled("cancelled")

    def cancel(self) -> None:
        self._flag[0] = 1
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def stop_flag(self) -> np.ndarray:
        """One number, set to 1 by :meth:`cancel`: what compiled loops too long to return
        between checks (a subtree grown whole) read to stop early, with no Python between."""
        return self._flag

    def scaled(self, start: float, stop: float, label: str = "") -> Monitor:
        """A view of this monitor that maps [0, 1] onto [start, stop]; cancelling is shared.
        A ``label`` names the step for every message reported through the view, so a
        nested loop's messages still say which outer step they belong to.

        >>> seen = []
        >>> fold = Monitor(lambda f, msg: seen.append(msg)).scaled(0.2, 0.4, "fold 2 of 5")
        >>> fold.report(0.5, "12 leaves"); fold.scaled(0, 1, "choosing alpha").report(0, "")
        >>> seen
        ['fold 2 of 5: 12 leaves', 'fold 2 of 5: choosing alpha']
        """
        return _ScaledMonitor(self, start, stop, label)


class _ScaledMonitor(Monitor):
    def __init__(self, parent: Monitor, start: float, stop: float, label: str = ""):
        self._parent = parent
        self._start = start
        self._span = stop - start
        self._label = label

    def report(self, fraction: float, message: str = "") -> None:
        if self._label:
            message = f"{self._label}: {message}" if message else self._label
        self._parent.report(self._start + self._span * min(max(fraction, 0.0), 1.0), message)

    def check(self) -> None:
        self._parent.check()

    def cancel(self) -> None:
        self._parent.cancel()

    @property
    def cancelled(self) -> bool:
        return self._parent.cancelled

    @property
    def stop_flag(self) -> np.ndarray:
        return self._parent.stop_flag


NULL_MONITOR = Monitor()


_watched: ContextVar[Monitor] = ContextVar("arbor_watched_monitor", default=NULL_MONITOR)


@contextmanager
def watching(monitor: Monitor) -> Iterator[Monitor]:
    """Make ``monitor`` the one :func:`checkpoint` checks in this thread, for the block."""
    token = _watched.set(monitor)
    try:
        yield monitor
    finally:
        _watched.reset(token)


def checkpoint() -> None:
    """Raise ``Cancelled`` if the job running in this thread was cancelled. Cheap (a lookup
    and a flag): call it once per node or per block of rows in any long loop.

    >>> m = Monitor()
    >>> with watching(m):
    ...     checkpoint(); m.cancel(); checkpoint()
    Traceback (most recent call last):
    ...
    engine.errors.Cancelled: cancelled
    """
    _watched.get().check()

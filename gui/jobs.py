"""Engine calls in worker threads, reported back through Qt signals.

A :class:`Job` wraps one engine call. The call runs on the global thread pool
with a :class:`engine.monitor.Monitor`; progress is throttled before it
crosses to the GUI thread, only immutable results cross, and a job that has
been superseded or cancelled never delivers a result.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal

from engine.errors import ArborError, Cancelled
from engine.monitor import Monitor, watching

PROGRESS_INTERVAL = 0.05  # seconds: at most ~20 progress signals a second


class Job(QObject):
    """One engine call on a worker thread.

    Signals
    -------
    progress_changed(float, str) : fraction done and a short message (throttled).
    finished(object) : the call's result.
    failed(str, str) : a message for the user and the details (traceback for bugs).
    cancelled() : the call stopped because ``cancel`` was called.
    """

    progress_changed = Signal(float, str)
    finished = Signal(object)
    failed = Signal(str, str)
    cancelled = Signal()

    def __init__(self, name: str, call: Callable[[Monitor], object]):
        super().__init__()
        self.name = name
        self._call = call
        self._last = 0.0
        self.monitor = Monitor(self._on_engine_progress)
        self.done = False

    def _on_engine_progress(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL or fraction >= 1.0:
            self._last = now
            self.progress_changed.emit(fraction, message)

    def cancel(self) -> None:
        self.monitor.cancel()

    def run(self) -> None:
        """Body of the worker thread."""
        try:
            with watching(self.monitor):  # every engine loop in this thread answers Cancel
                result = self._call(self.monitor)
        except Cancelled:
            self.done = True
            self.cancelled.emit()
            return
        except ArborError as err:
            self.done = True
            self.failed.emit(str(err), "")
            return
        except MemoryError:
            self.done = True
            self.failed.emit("not enough memory for this job", traceback.format_exc())
            return
        except Exception as err:  # noqa: BLE001 - a bug must not kill the thread silently
            self.done = True
            self.failed.emit(f"{self.name} failed unexpectedly: {err}", traceback.format_exc())
            return
        self.done = True
        if self.monitor.cancelled:
            self.cancelled.emit()
        else:
            self.finished.emit(result)


class _Runnable(QRunnable):
    def __init__(self, job: Job):
        super().__init__()
        self.job = job
        # Python keeps the runnable alive (JobRunner holds it); letting Qt delete it as well
        # races the garbage collector, and a runnable collected before it starts never runs.
        self.setAutoDelete(False)

    def run(self) -> None:
        self.job.run()


class JobRunner(QObject):
    """Runs one job at a time; starting a new one cancels the one still going.

    Signals
    -------
    busy_changed(bool) : a job started or the last one ended.
    """

    busy_changed = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.current: Job | None = None
        self._pool = QThreadPool.globalInstance()
        self._runnables: dict[int, _Runnable] = {}

    @property
    def busy(self) -> bool:
        return self.current is not None and not self.current.done

    def start(self, job: Job) -> Job:
        if self.busy:
            self.current.cancel()
        self.current = job
        for signal in (job.finished, job.failed, job.cancelled):
            signal.connect(lambda *_, j=job: self._on_job_ended(j))
        self.busy_changed.emit(True)
        runnable = _Runnable(job)
        self._runnables[id(job)] = runnable
        self._pool.start(runnable)
        return job

    def cancel(self) -> None:
        if self.busy:
            self.current.cancel()

    def is_current(self, job: Job) -> bool:
        return job is self.current

    def _on_job_ended(self, job: Job) -> None:
        self._runnables.pop(id(job), None)
        if job is self.current:
            self.busy_changed.emit(False)

    def wait(self, msecs: int = 30000) -> bool:
        return self._pool.waitForDone(msecs)


_ASIDE: set[_Runnable] = set()


def run_aside(job: Job) -> Job:
    """Run ``job`` on the thread pool beside the runner's: no busy bar, no Cancel, nothing of the
    runner's job cancelled. For a view's own quick work (a text view of a big tree); whoever
    starts it ignores a result it no longer wants."""
    runnable = _Runnable(job)
    _ASIDE.add(runnable)
    for signal in (job.finished, job.failed, job.cancelled):
        signal.connect(lambda *_, r=runnable: _ASIDE.discard(r))
    QThreadPool.globalInstance().start(runnable)
    return job


@dataclass(frozen=True)
class TrainResult:
    """What a training job hands back to the window."""

    model: object
    figures: object  # engine.evaluate.figures.Figures: training and (when asked) CV, with the baselines
    notes: tuple[str, ...]
    full_tree: object | None = None  # CART: the unpruned tree, for the pruning path
    path: object | None = None  # and its cost-complexity path (worked out here, not in the window)
    data: object | None = None  # the encoded table (the inspector's candidate splits read it)
    data_key: str = ""  # fingerprint of the table trained on (engine.runs.data_key)

    @property
    def training(self):
        """The tree's figures on its own training rows (an Evaluation)."""
        return self.figures.training.tree

    @property
    def evaluation(self):
        """Its cross-validation (an Evaluation), or None when the options asked for none."""
        return self.figures.cv.tree if self.figures.cv is not None else None


def train_call(table, params: dict, cv_folds: int, seed: int,
               weka_folds: bool = False) -> Callable[[Monitor], TrainResult]:
    """The engine work behind Train: fit, its figures beside the baselines, and optionally
    cross-validation of the tree and the baselines on the same folds (Weka's with ``weka_folds``)."""
    from engine.data.encoding import encode
    from engine.estimator import DecisionTree
    from engine.evaluate.figures import cross_validated, training_figures
    from engine.runs import data_key

    def call(monitor: Monitor) -> TrainResult:
        model = DecisionTree(**params)
        settings = model.settings()
        data = encode(table, settings.task)
        fit_share = 0.5 if cv_folds else 1.0
        # The pruning record: the inspector's candidates, the ghosts and the walk-through.
        model.fit(table, monitor=monitor.scaled(0.0, fit_share), record=True)
        figures = training_figures(model.tree_, data, algorithm=settings.algorithm)
        if cv_folds:
            figures = figures.with_cv(cross_validated(data, cv_folds, seed, settings=settings,
                                                      monitor=monitor.scaled(fit_share, 1.0),
                                                      weka_folds=weka_folds))
        full = path = None
        if settings.algorithm == "cart":
            from dataclasses import replace

            from engine.learn.growth import grow
            from engine.prune.cost_complexity import cost_complexity_path
            from engine.tree import Tree

            full = model.tree_ if settings.prune == "none" else Tree(
                grow(data, replace(settings, prune="none"), monitor.scaled(0.95, 1.0)), data.schema)
            monitor.report(1.0, "the pruning path")
            path = cost_complexity_path(full)
        for tree in (model.tree_, full):  # counted here, so the window reads them, not walks the tree
            if tree is not None:
                _ = tree.n_nodes, tree.n_leaves, tree.depth
        monitor.report(1.0, "done")
        return TrainResult(model, figures, tuple(model.notes_), full, path, data, data_key(table))

    return call

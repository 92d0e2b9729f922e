"""Engine calls in worker threads, reported back to the GUI thread through a Qt signal.

A :class:`Job` wraps one engine call. The call runs on the global thread pool
with a :class:`engine.monitor.Monitor`; progress is throttled before it
crosses to the GUI thread, only immutable results cross, and a job that has
been superseded or cancelled never delivers a result.
"""

from __future__ import annotations

import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QObject, QThreadPool, Signal, SignalInstance, Slot

from engine.errors import ArborError, Cancelled
from engine.monitor import Monitor, watching

PROGRESS_INTERVAL = 0.05  # seconds: at most ~20 progress signals a second
#: Test rows times tree depth up to which test rows are counted on a tree on the window's
#: thread (a few milliseconds, issue 32); more are counted on a worker (``run_aside``).
COUNT_AT_ONCE = 200_000


def count_at_once(rows: int, tree) -> bool:
    """Whether ``rows`` test rows are counted on ``tree`` quickly enough for the window's
    thread: each node costs about as much as routing 20 rows one level down."""
    return rows * max(tree.depth, 1) + 20 * tree.n_nodes <= COUNT_AT_ONCE


class _Relay(QObject):
    """The one Qt object that carries every job's news to the GUI thread.

    Jobs are plain Python objects and their signals plain lists of slots. A Qt object per job
    made each job's slots a cycle through Qt that Python's collector cannot see (a slot holds
    its job, Qt holds the slot), so every training was kept; and breaking the cycle by hand
    (disconnecting, deleting the Qt side) now and then lost a later job's signals, because
    PySide could hand the new job the old one's address. One long-lived relay has neither
    problem: what a job holds is freed with the job.
    """

    deliver = Signal(object, object)  # the hook, its arguments

    def __init__(self):
        super().__init__()
        self.deliver.connect(
            self._fire
        )  # a slot of an object of the GUI thread: queued from workers

    @Slot(object, object)
    def _fire(self, hook: Hook, args: tuple) -> None:
        hook.fire(args)


_RELAY: _Relay | None = None


def _relay() -> _Relay:
    global _RELAY
    if _RELAY is None:
        _RELAY = _Relay()
        app = QCoreApplication.instance()
        if app is not None and _RELAY.thread() is not app.thread():
            _RELAY.moveToThread(app.thread())
    return _RELAY


class Hook:
    """A job's signal: ``connect`` a callable (or a Qt signal to forward to); ``emit`` from any
    thread; the slots run on the GUI thread, in the order they were connected."""

    def __init__(self, on_fired: Callable[[], None] | None = None):
        self._slots: list[Callable] = []
        self._on_fired = on_fired

    def connect(self, slot) -> None:
        self._slots.append(slot.emit if isinstance(slot, SignalInstance) else slot)

    def disconnect(self, slot=None) -> None:
        if slot is None:
            self._slots.clear()
            return
        target = slot.emit if isinstance(slot, SignalInstance) else slot
        self._slots = [s for s in self._slots if s != target]

    def emit(self, *args) -> None:
        if threading.current_thread() is threading.main_thread():
            self.fire(args)
        else:
            _relay().deliver.emit(self, args)

    def fire(self, args: tuple) -> None:
        for slot in list(self._slots):
            slot(*args)
        if self._on_fired is not None:
            self._on_fired()


class Job:
    """One engine call on a worker thread.

    Signals (:class:`Hook`, delivered on the GUI thread)
    -------
    progress_changed(float, str) : fraction done and a short message (throttled).
    finished(object) : the call's result.
    failed(str, str) : a message for the user and the details (traceback for bugs).
    cancelled() : the call stopped because ``cancel`` was called.

    Once one of the last three has reached its slots, every slot is let go, and with them
    whatever they closed over.
    """

    def __init__(self, name: str, call: Callable[[Monitor], object]):
        _relay()  # made here, on the GUI thread, before any worker needs it
        self.name = name
        self._call = call
        self._last = 0.0
        self.monitor = Monitor(self._on_engine_progress)
        self.done = False
        self.progress_changed = Hook()
        self.finished = Hook(self._let_go)
        self.failed = Hook(self._let_go)
        self.cancelled = Hook(self._let_go)

    def _let_go(self) -> None:
        for hook in (self.progress_changed, self.finished, self.failed, self.cancelled):
            hook.disconnect()

    def _on_engine_progress(self, fraction: float, message: str) -> None:
        now = time.monotonic()
        if now - self._last >= PROGRESS_INTERVAL or fraction >= 1.0:
            self._last = now
            self.progress_changed.emit(fraction, message)

    def cancel(self) -> None:
        self.monitor.cancel()

    def run(self) -> None:
        """Body of the worker thread."""
        call, self._call = self._call, None  # what the call closed over goes with it
        try:
            with watching(self.monitor):  # every engine loop in this thread answers Cancel
                result = call(self.monitor)
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


def start_on_pool(work: Callable[[], None]) -> None:
    """Run ``work`` on Qt's global thread pool, holding it only until it has run.

    The pool is given a callable, never a Python ``QRunnable``: PySide 6 keeps every Python
    runnable it was given alive for as long as the pool lives (whatever ``autoDelete`` says),
    and with it the job, its call and whatever the call closed over (the table snapshot of
    each training, the encoded rows of each inspected node). A callable is released once run.
    """
    QThreadPool.globalInstance().start(work)


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
        start_on_pool(job.run)
        return job

    def cancel(self) -> None:
        if self.busy:
            self.current.cancel()

    def is_current(self, job: Job) -> bool:
        return job is self.current

    def _on_job_ended(self, job: Job) -> None:
        if job is self.current:
            self.busy_changed.emit(False)

    def wait(self, msecs: int = 30000) -> bool:
        return QThreadPool.globalInstance().waitForDone(msecs)


_ASIDE: set[Job] = set()  # jobs run aside, held until they have said how they ended


def run_aside(job: Job) -> Job:
    """Run ``job`` on the thread pool beside the runner's: no busy bar, no Cancel, nothing of the
    runner's job cancelled. For a view's own quick work (a text view of a big tree); whoever
    starts it ignores a result it no longer wants."""
    _ASIDE.add(job)
    for signal in (job.finished, job.failed, job.cancelled):
        signal.connect(lambda *_, j=job: _ASIDE.discard(j))
    start_on_pool(job.run)
    return job


@dataclass(frozen=True)
class TrainResult:
    """What a training job hands back to the window."""

    model: object
    figures: (
        object  # engine.evaluate.figures.Figures: training and (when asked) CV, with the baselines
    )
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


def _made(source):
    """A job's table: ``source`` itself, or made here, on the job's thread, by calling it (the
    window passes :meth:`gui.table.document.DataDocument.snapshot_later`'s function)."""
    return source() if callable(source) else source


def train_call(
    source, params: dict, cv_folds: int, seed: int, weka_folds: bool = False
) -> Callable[[Monitor], TrainResult]:
    """The engine work behind Train: fit, its figures beside the baselines, and optionally
    cross-validation of the tree and the baselines on the same folds (Weka's with ``weka_folds``).
    ``source``: the table, or a function making it (:func:`_made`)."""
    from engine.data.encoding import encode
    from engine.estimator import DecisionTree
    from engine.evaluate.figures import cross_validated, training_baselines, training_figures
    from engine.fast.threads import fold_map, n_threads
    from engine.runs import data_key

    def call(monitor: Monitor) -> TrainResult:
        model = DecisionTree(**params)
        settings = model.settings()
        table = _made(source)
        data = encode(table, settings.task)
        fit_share = 0.5 if cv_folds else 1.0

        def part(which: str, monitor: Monitor):
            if which == "baselines":
                return training_baselines(data)
            # The pruning record: the inspector's candidates, the ghosts and the walk-through.
            return model.fit(
                data,  # encoded once, for the fit and the figures
                monitor=monitor.scaled(0.0, fit_share),
                record=True,
                keep_grown=settings.algorithm == "cart",
            )

        # The baselines beside the fit: its first growth leaves the other core idle.
        _, baselines = fold_map(part, ("fit", "baselines"), n_threads(settings.threads), monitor)

        def after(which: str, monitor: Monitor):
            if which == "figures":
                return training_figures(model.tree_, data, baselines, algorithm=settings.algorithm)
            return _pruning_path(model, data, settings, monitor)

        # The figures beside CART's pruning path: each took a thread a fiftieth of a small fit.
        figures, (full, path) = fold_map(
            after, ("figures", "path"), n_threads(settings.threads), monitor
        )
        if cv_folds:
            figures = figures.with_cv(
                cross_validated(
                    data,
                    cv_folds,
                    seed,
                    settings=settings,
                    monitor=monitor.scaled(fit_share, 1.0),
                    weka_folds=weka_folds,
                )
            )
        for tree in (
            model.tree_,
            full,
        ):  # counted here, so the window reads them, not walks the tree
            if tree is not None:
                _ = tree.n_nodes, tree.n_leaves, tree.depth
        # The tree on screen: its node objects made here, not on the window's thread. The
        # grown one's wait until something asks (the pruning slider prunes its arrays).
        model.tree_.with_nodes_made()
        monitor.report(1.0, "done")
        return TrainResult(model, figures, tuple(model.notes_), full, path, data, data_key(table))

    return call


def _pruning_path(model, data, settings, monitor: Monitor) -> tuple:
    """CART's tree as grown on all the rows, and its pruning path (the slider's); else Nones."""
    if settings.algorithm != "cart":
        return None, None
    from dataclasses import replace

    from engine.growth import grow
    from engine.prune.cost_complexity import cost_complexity_path
    from engine.tree import Tree

    full = model.tree_ if settings.prune == "none" else model.grown_tree_
    if full is None:  # grown on part of the rows (reduced-error): all of them here
        grown = grow(data, replace(settings, prune="none"), monitor.scaled(0.95, 1.0))
        full = Tree(grown, data.schema)
    monitor.report(1.0, "the pruning path")
    return full, cost_complexity_path(full, settings.ccp_measure)


def cv_call(
    result: TrainResult, cv_folds: int, seed: int, weka_folds: bool = False
) -> Callable[[Monitor], TrainResult]:
    """The cross-validation behind Train, after the fit (issue 39: the tree is drawn as soon
    as it is fitted, and its CV figures follow): ``result`` with its figures' CV added, the
    tree and the baselines on the same folds (Weka's with ``weka_folds``)."""
    from dataclasses import replace

    from engine.evaluate.figures import cross_validated

    def call(monitor: Monitor) -> TrainResult:
        cv = cross_validated(
            result.data,
            cv_folds,
            seed,
            settings=result.model.settings_,
            monitor=monitor,
            weka_folds=weka_folds,
        )
        return replace(result, figures=result.figures.with_cv(cv))

    return call


def split_train_call(source, params: dict, percent: float, seed: int) -> Callable[[Monitor], tuple]:
    """Train as :func:`train_call` does on ``percent``% of the table's rows (stratified by
    class, with ``seed``: :func:`engine.evaluate.evaluation.holdout_rows`) and test on the
    rest, whose rows then stay on the tree (issue 32).

    Gives (the training's result, the evaluation on the rest, the rest as an
    ``engine.evaluate.per_node.HeldOut``, the training rows' positions among the table's
    labelled rows).
    """
    from dataclasses import replace

    import numpy as np

    def call(monitor: Monitor):
        from engine.data.encoding import encode, subset
        from engine.evaluate.evaluation import evaluate_tree, holdout_method, holdout_rows
        from engine.evaluate.per_node import HeldOut
        from engine.settings import resolve

        settings = resolve(**params)
        table = _made(source)
        data = encode(table, settings.task)
        train_rows, test_rows = holdout_rows(data, percent, seed)
        labelled = np.arange(len(table.frame))
        if data.unlabelled is not None:  # rows without a target are in no part
            labelled = np.setdiff1d(labelled, data.unlabelled)
        part = replace(table, frame=table.frame.iloc[labelled[train_rows]])
        result = train_call(part, params, 0, seed)(monitor.scaled(0.0, 0.95))
        test = subset(data, test_rows)
        method = holdout_method(percent)
        evaluation = evaluate_tree(result.model.tree_, test, method, settings.algorithm)
        note = (
            f"trained on {percent:g}% of the rows ({len(train_rows):,} of {data.n_rows:,}); "
            f"the other {len(test_rows):,} are the test rows on the tree"
        )
        result = replace(result, notes=(*result.notes, note))
        held = HeldOut(test, f"the {100 - percent:g}% held out ({method})")
        return result, evaluation, held, train_rows

    return call

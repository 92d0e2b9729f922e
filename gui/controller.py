"""The window's model: the open table, the chosen options, what was trained, what is on screen.

Panels and the window observe a :class:`Controller` through its signals and change it
through its methods; they never set its state by hand and never reach into each other.
It holds no widgets, so everything here can be driven (and tested) without a window.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from PySide6.QtCore import QObject, QTimer, Signal

from engine.errors import ArborError
from engine.runs import RunLog
from gui.session.figure_book import FigureBook, stale_reasons
from gui.session.jobs import (
    Job,
    JobRunner,
    TrainResult,
    count_at_once,
    cv_call,
    split_train_call,
    train_call,
)
from gui.session.memory import give_back
from gui.table.document import DataDocument

#: What Train says when it would only repeat a training.
_ALREADY = {
    "same": "Already training with these options on this table: its tree appears when it is done "
    "(Esc cancels it)",
    "queued": "A training with these options is queued already: it starts when the running one ends",
}

#: How the tree on screen came to be (``Controller.origin``).
TRAINED, PRUNED, CV_ALPHA, EDITED, STEPPED, OPENED, RUN, WALKED = (
    "trained",
    "pruned",
    "cv-alpha",
    "edited",
    "stepped",
    "opened",
    "run",
    "walked",
)


@dataclass(frozen=True)
class Options:
    """What the Algorithm panel asks for now: learner options and how to evaluate."""

    params: dict = field(default_factory=dict)
    cv_folds: int = 10
    seed: int = 1
    weka_folds: bool = False  # deal the folds as Weka's -x K -s SEED does

    def summary(self) -> str:
        """The algorithm, the options that differ from its defaults, and the evaluation."""
        from engine.runs import settings_summary
        from engine.settings import resolve

        try:
            said = settings_summary(resolve(**self.params))
        except (ArborError, TypeError, ValueError):
            said = str(self.params.get("algorithm", "?"))
        if self.cv_folds:
            said += f"; {self.cv_folds}-fold CV" + (" (Weka's folds)" if self.weka_folds else "")
        return said


@dataclass(frozen=True)
class TrainRequest:
    """A training asked for: the options, and the table's revision when it was asked for."""

    options: Options
    revision: int


class Controller(QObject):
    """The one owner of the window's state.

    State (read it; change it only through the methods below)
    -----
    doc : DataDocument
        The open table; its edits go through ``doc.undo_stack`` (tree edits share that stack).
    options : Options
        The learner options chosen now (``set_options``), whether or not trained yet.
    result : TrainResult | None
        The last training that finished: model, full CART tree and path, figures, notes.
    data : Encoded | None
        The encoded rows the tree on screen was made from (the inspector scores splits on it).
    settings : Settings | None
        The options the tree on screen was made with.
    tree : Tree | None
        The tree on screen: trained, pruned by the slider, chosen by CV alpha, edited by hand,
        grown step by step, or opened from a project.
    origin : str
        How it came to be: ``TRAINED``, ``PRUNED``, ``CV_ALPHA``, ``EDITED``, ``STEPPED``, ``OPENED``,
        ``RUN`` (an earlier run's tree brought back from the Runs list), or ``WALKED`` (a state
        of the pruning walk-through).
    recipe : Settings | None
        How the tree on screen is made again: the options of a trained, pruned or chosen-alpha
        tree (a pruned one's with its alpha fixed), of a run; None for a tree built or edited
        by hand, whose cross-validation refits its structure instead.
    figures : engine.evaluate.figures.Figures | None
        The numbers of the tree on screen, each labelled by how it was measured: its training
        figures beside 0-R and 1-R (whenever its rows are known), and cross-validated ones
        once run (with the training, or on request: ``cross_validate_tree``).
    stale : tuple[str, ...]
        Why those figures no longer describe the open table and the chosen options, in words
        (empty: they do). Retraining clears it.
    selected : int
        The selected node of the tree on screen (-1: none).
    busy : bool
        A job (training, reading a file, cross-validation) is running.
    runs : engine.runs.RunLog
        Every training since the window opened (or as a project brought them), bounded; each
        run keeps its settings, sizes and evaluations, the newest few their trees.
    selected_run : int
        The run the Runs list has selected (its number; -1: none): the evaluation views show it.
    held_out : engine.evaluate.per_node.HeldOut | None
        Test rows on the tree (issue 32): rows kept out of training (a test file's), routed
        down every tree shown so that each node has its training and test rows and errors
        side by side (``test_figures``). Kept until another table is opened or they are dropped.
        Cross-validation's held-out rows (``show_cv_rows``) fit only the tree cross-validated.
    queued : tuple[TrainRequest, ...]
        Trainings asked for while one was running, started one by one when the window is free
        (each with the options chosen when it was queued, on the table as it is when it starts).

    Methods
    -------
    set_options(params, cv_folds, seed, weka_folds); train() -> Job | None (nothing when the same
    training is running already; a different one running is replaced); clash() says what Train
    would meet; queue_training() queues the current options instead; clear_queue(); cancel();
    cross_validate_alpha() -> Job | None; start(job) runs any other job with the same
    progress, cancel and error reporting; load_table(table, path, sample=None);
    load_tree(tree, data, settings, origin) puts a tree from elsewhere (a project) on screen;
    show_tree(tree, select=-1, origin=EDITED, recipe=None) replaces the tree on screen (undo
    commands, growth steps); show_pruned(tree, alpha, origin=PRUNED) a tree pruned from the
    trained CART tree at ``alpha``; cross_validate_tree() -> Job | None the figures of the tree
    on screen; drop_tree(); growth_source() -> (data, settings) for stepping;
    select_node(node_id); rows_reaching(node_id); nodes_reached(rows); predict_row(row);
    set_held_out(held) / drop_held_out(); test_figures(tree=None) -> NodeRows | None;
    show_cv_rows() -> bool puts the tree's cross-validation's held-out rows on it
    (cv_rows_available() says whether there are some to put);
    say(text); fail(message, details=""); new_table().
    Runs: select_run(number); add_evaluation(number, evaluation); remove_run(number);
    load_runs(log); show_run(number) -> Job | None puts a run's tree on screen (grown again
    from its settings when the log no longer keeps it); grow_run_again(number) -> Job | None
    only brings its tree back into the log.

    Signals
    -------
    table_loaded() : a different table was opened (the tree and results were dropped).
    options_loaded(object) : a project brought its options (``Settings``): show them.
    result_changed(object) : a training finished (its TrainResult), or None when dropped.
    tree_changed(object, int) : the tree on screen (or None) and the node to select (-1 none).
    figures_changed(object) : the figures of the tree on screen (``Figures`` or None).
    stale_changed(tuple) : the reasons its figures are out of date changed (empty: current).
    node_selected(int) : the selected node changed (-1: none).
    alpha_chosen(object) : cross-validating alpha finished (an ``AlphaChoice``).
    busy_changed(bool) : a job started, or the last one ended.
    progress_changed(float, str) : fraction done (-1: unknown, a busy bar) and what is being done.
    message(str) : a line for the status bar.
    failed(str, str) : something the user must be told (message, details).
    runs_changed() : a run was added, removed or given an evaluation, or the log was replaced.
    run_selected(int) : the selected run changed (its number; -1: none).
    queue_changed() : a training was queued, started from the queue, or the queue was cleared.
    held_out_changed(object) : the test rows on the tree (a ``HeldOut``) or None.
    test_counted(object) : the test rows' figures of this tree are ready (``test_figures``).
    """

    table_loaded = Signal()
    options_loaded = Signal(object)
    result_changed = Signal(object)
    tree_changed = Signal(object, int)
    figures_changed = Signal(object)
    stale_changed = Signal(tuple)
    node_selected = Signal(int)
    alpha_chosen = Signal(object)
    busy_changed = Signal(bool)
    progress_changed = Signal(float, str)
    message = Signal(str)
    failed = Signal(str, str)
    runs_changed = Signal()
    run_selected = Signal(int)
    pair_trained = Signal(int, int)
    queue_changed = Signal()
    held_out_changed = Signal(object)
    test_counted = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.doc = DataDocument(self)
        self.runner = JobRunner(self)
        self.runner.busy_changed.connect(self.busy_changed)
        self.runner.busy_changed.connect(self._on_runner_busy_changed)
        self._queue: list[TrainRequest] = []
        # The greedy and optimal trainings queued to be compared, and the runs they made.
        self._pair: tuple[Options, Options] | None = None
        self._pair_runs: dict[int, int] = {}
        self._training: tuple[Job, TrainRequest] | None = None  # the last training started
        # (folds, seed) of the cross-validation running after a training's fit: its figures
        # are on their way, not out of date.
        self._cv_pending: tuple[int, int] | None = None
        self._cv_job: Job | None = None  # the job working them out
        # Once the slots of a change have let go of what it replaced (gui.session.memory says why).
        self._give_back = QTimer(self, singleShot=True, interval=0)
        self._give_back.timeout.connect(give_back)
        self.options = Options()
        self.result: TrainResult | None = None
        self.data = None
        self.settings = None
        self.tree = None
        self.origin = TRAINED
        self.recipe = None
        self.figures = None
        self.stale: tuple[str, ...] = ()
        self.selected = -1
        self._book = FigureBook()
        self._version = 0  # counts the table's changes
        self._data_version = 0  # the count when the rows of the tree on screen were read
        self._result_version = 0  # and when the last training's were
        self._trained_weka_folds = False
        for signal in (self.doc.cells_changed, self.doc.columns_changed, self.doc.reset):
            signal.connect(self._on_doc_changed)
        self.runs = RunLog()
        self.selected_run = -1
        self.held_out = None
        self._counting: set[int] = set()  # ids of trees whose test rows are being counted aside
        # A percentage split on the tree (train_split): (percent, seed, the training rows'
        # positions among the table's labelled rows), and the encoded training part. Its test
        # rows fit only trees grown on that part: another tree's rows drop them.
        self._split: tuple[float, int, object] | None = None
        self._split_data = None

    # ------------------------------------------------------------------ reading
    @property
    def busy(self) -> bool:
        return self.runner.busy

    @property
    def trained_tree(self):
        """The tree the last training made (the tree on screen may have been pruned or edited since)."""
        return self.result.model.tree_ if self.result is not None else None

    # ------------------------------------------------------------------ messages
    def say(self, text: str) -> None:
        self.message.emit(text)

    def fail(self, message: str, details: str = "") -> None:
        self.failed.emit(message, details)

    # ------------------------------------------------------------------ options and table
    def set_options(self, params: dict, cv_folds: int, seed: int, weka_folds: bool = False) -> None:
        self.options = Options(dict(params), cv_folds, seed, weka_folds)
        self._check_stale()

    def _on_doc_changed(self, *_) -> None:
        self._version += 1
        self._check_stale()

    def _check_stale(self) -> None:
        stale = self._stale_now()
        if stale != self.stale:
            self.stale = stale
            self.stale_changed.emit(stale)

    def _stale_now(self) -> tuple[str, ...]:
        if self.tree is None:
            return ()
        options_changed = evaluation_changed = False
        if self.origin in (TRAINED, PRUNED, CV_ALPHA) and self.result is not None:
            from engine.settings import resolve

            try:
                options_changed = resolve(**self.options.params) != self.result.model.settings_
            except ArborError:
                options_changed = True
            cv = self.result.figures.cv
            evaluation_changed = (self.options.cv_folds, self.options.seed) != (
                (cv.folds, cv.seed)
                if cv is not None
                else self._cv_pending or (0, self.options.seed)
            ) or (cv is not None and self.options.weka_folds != self._trained_weka_folds)
        return stale_reasons(
            table_changed=self._data_version != self._version,
            options_changed=options_changed,
            evaluation_changed=evaluation_changed,
        )

    @property
    def queued(self) -> tuple[TrainRequest, ...]:
        return tuple(self._queue)

    def new_table(self) -> None:
        """A blank table to type into (undo history cleared); the tree and results are dropped."""
        self.clear_queue(quiet=True)
        self.drop_tree()
        self.drop_held_out()
        self.doc.sample_name = None
        self.doc.new_blank()
        self.table_loaded.emit()
        self._give_back.start()

    def load_table(self, table, path: str | None, sample: str | None = None) -> None:
        """Make ``table`` the open table (undo history cleared) and drop the tree and results;
        trainings queued for the table before go too."""
        self.clear_queue(quiet=True)
        self.drop_tree()
        self.drop_held_out()
        self.doc.sample_name = sample
        self.doc.load(table, path)
        self.table_loaded.emit()
        self._give_back.start()

    # ------------------------------------------------------------------ jobs
    def start(self, job: Job, report_failure: bool = True, fractions: bool = True) -> Job:
        """Run ``job`` (cancelling the one still going) with its progress reported here, and its
        failure unless the caller reports it; a job without ``fractions`` shows a busy bar."""
        job.progress_changed.connect(self.progress_changed)
        if report_failure:
            job.failed.connect(
                lambda msg, details, j=job: self.runner.is_current(j) and self.fail(msg, details)
            )
        self.runner.start(job)
        if not fractions:
            self.progress_changed.emit(-1.0, job.name)
        return job

    def cancel(self) -> None:
        self.runner.cancel()

    # ------------------------------------------------------------------ training and its queue
    def _request(self) -> TrainRequest:
        return TrainRequest(self.options, self._version)

    @property
    def cv_pending(self) -> bool:
        """Whether a training's cross-validation is running after its fit (figures to come)."""
        return self._cv_pending is not None

    def running_training(self) -> TrainRequest | None:
        """What the training running now was asked for (None: no training is running)."""
        if (
            self._training is None
            or not self.runner.busy
            or not self.runner.is_current(self._training[0])
        ):
            return None
        return self._training[1]

    def clash(self) -> str | None:
        """What Train with the current options would meet: None (nothing running), ``"same"`` (a
        training with these options on this table is running), ``"queued"`` (one is queued) or
        ``"other"`` (a training with other options, or on the table before an edit, is running)."""
        running, request = self.running_training(), self._request()
        if running is None:
            return None
        if running == request:
            return "same"
        return "queued" if request in self._queue else "other"

    def train(self, on_failure=None) -> Job | None:
        """Train with the current options on a snapshot of the table (a worker thread).

        The same training already running is not started again (the status bar says so); a
        different one running is cancelled and replaced (``queue_training`` waits for it instead).
        A failure is reported (``failed``) unless ``on_failure(message)`` takes it: a training
        the user did not ask for this moment (Regrow on edit) must not raise a dialog.
        """
        clash = self.clash()
        if clash in ("same", "queued"):
            self.say(_ALREADY[clash])
            return None
        return self._start_training(self._request(), on_failure)

    def queue_training(self) -> None:
        """Queue a training with the current options, to start when the window is free."""
        clash = self.clash()
        if clash in ("same", "queued"):
            self.say(_ALREADY[clash])
            return
        if clash is None and not self.busy:
            self.train()
            return
        self._queue.append(self._request())
        self.queue_changed.emit()
        n = len(self._queue)
        self.say(
            f"Queued: {self.options.summary()} (starts when the running job ends; "
            f"{n} training{'s' if n > 1 else ''} queued)"
        )

    def clear_queue(self, quiet: bool = False) -> None:
        """Drop the queued trainings (the running one goes on)."""
        if not self._queue:
            return
        n = len(self._queue)
        self._queue.clear()
        self.queue_changed.emit()
        if not quiet:
            self.say(f"Cleared {n} queued training{'s' if n > 1 else ''}; the running job goes on")

    def greedy_against_optimal(self) -> None:
        """Queue CART's greedy tree, unpruned, and the optimal tree of the same depth (the
        options' max depth, 3 when unset, at most 4), with the same evaluation;
        ``pair_trained`` gives their runs once both are trained, to compare them. CART's,
        whatever the algorithm chosen: its splits are binary, as the optimal tree's are (a
        multiway split does more at one depth)."""
        from engine.settings import OPTIMAL_MAX_DEPTH

        params = dict(self.options.params)
        depth = params.get("max_depth")
        depth = 3 if depth is None else min(int(depth), OPTIMAL_MAX_DEPTH)
        greedy = {
            "algorithm": "cart",
            "max_depth": depth,
            "prune": "none",
            "seed": params.get("seed"),
            "splitter": params.get("splitter"),
        }
        optimal = {
            "algorithm": "optimal",
            "max_depth": depth,
            "seed": params.get("seed"),
            "time_limit": params.get("time_limit"),
        }
        evaluation = (self.options.cv_folds, self.options.seed, self.options.weka_folds)
        pair = (Options(greedy, *evaluation), Options(optimal, *evaluation))
        self._pair, self._pair_runs = pair, {}
        self._queue.extend(TrainRequest(o, self._version) for o in pair)
        self.queue_changed.emit()
        self.say(
            f"Queued: the greedy and the optimal tree of depth {depth}, to compare when both "
            "are trained"
        )
        if not self.busy:
            self._start_queued()

    def _pair_done(self, options: Options, run: int) -> None:
        if self._pair is None or not any(options is o for o in self._pair):
            return
        self._pair_runs[0 if options is self._pair[0] else 1] = run
        if len(self._pair_runs) == 2:
            greedy, optimal = self._pair_runs[0], self._pair_runs[1]
            self._pair, self._pair_runs = None, {}
            self.pair_trained.emit(greedy, optimal)

    def _on_runner_busy_changed(self, busy: bool) -> None:
        if not busy and self._queue:
            # After every slot of this change has run: a job started from inside it would reach
            # the slots still to come as "busy" before "not busy".
            QTimer.singleShot(0, self, self._start_queued)

    def _start_queued(self) -> None:
        if self.busy or not self._queue:
            return
        request = self._queue.pop(0)
        self.queue_changed.emit()
        self._start_training(TrainRequest(request.options, self._version))

    def _start_training(self, request: TrainRequest, on_failure=None) -> Job | None:
        try:
            table = self.doc.snapshot_later()  # made on the job's thread
        except ArborError as err:
            (on_failure or self.fail)(str(err))
            return None
        options, version = request.options, self._version
        job = Job(
            "Training",
            # The fit alone: the tree is drawn as soon as it is fitted, and the cross-validation
            # follows as a job of its own (issue 39: a small table's tree on screen at once).
            train_call(table, options.params, 0, options.seed, options.weka_folds),
        )
        self._training = (job, request)
        job.finished.connect(
            lambda result, j=job: self._on_train_finished(j, result, version, options, True)
        )
        job.failed.connect(
            lambda *_, j=job: (
                self.runner.is_current(j)
                and self.say("Training failed; the table and the previous tree are unchanged")
            )
        )
        job.cancelled.connect(
            lambda j=job: (
                self.runner.is_current(j) and self.say("Cancelled; the previous tree is unchanged")
            )
        )
        if on_failure is not None:
            job.failed.connect(lambda msg, *_, j=job: self.runner.is_current(j) and on_failure(msg))
        self.start(job, report_failure=on_failure is None)
        self.say(
            f"Training: {options.summary()}…"
            if self._queue or request.options != self.options
            else "Training…"
        )
        return job

    def _on_train_finished(
        self,
        job: Job,
        result: TrainResult,
        version: int,
        options: Options,
        cross_validate: bool = False,
    ) -> None:
        if not self.runner.is_current(job):
            return  # superseded by a newer run
        # Its CV figures on their way, not out of date, from the moment its tree is shown.
        self._cv_pending = (
            (options.cv_folds, options.seed) if cross_validate and options.cv_folds else None
        )
        self._drop_split()  # trained on every row: the rows held out are training rows now
        self.result = result
        self.data, self._data_version = result.data, version
        self._result_version = version
        self._trained_weka_folds = options.weka_folds
        self.settings = result.model.settings_
        tree = result.model.tree_
        self._book.clear()
        self._book.put(tree, result.figures, self.settings)
        self._book.remember_baselines(result.data, result.figures)
        self.result_changed.emit(result)
        self._show(tree, -1, TRAINED, self.settings)
        self._add_run(result)
        self._pair_done(options, self.runs.numbers()[-1])
        said = f"Trained: {tree.n_leaves} leaves, {tree.n_nodes} nodes, depth {tree.depth}"
        if cross_validate and options.cv_folds:
            self._cross_validate_training(job, result, options, said)
        else:
            self.say(said)
        self._give_back.start()  # the previous training's result, and the trees the runs let go

    def _cross_validate_training(
        self, fitted: Job, result: TrainResult, options: Options, said: str
    ) -> None:
        """The cross-validation a training asked for, after its tree is on screen: its figures
        join the training's result and its run when they come (the same training to Train
        again: the busy bar, Cancel and F5 treat the two as one)."""
        number = self.runs.numbers()[-1] if len(self.runs) else -1  # the run just added
        job = Job(
            f"{options.cv_folds}-fold cross-validation",
            cv_call(result, options.cv_folds, options.seed, options.weka_folds),
        )
        if self._training is not None and self._training[0] is fitted:
            self._training = (job, self._training[1])
        self._cv_job = job
        job.finished.connect(lambda done, j=job: self._on_cv_finished(j, done, number))
        job.cancelled.connect(lambda j=job: self._on_cv_stopped(j, "cancelled"))
        job.failed.connect(lambda *_, j=job: self._on_cv_stopped(j, "failed"))
        self.start(job)
        self.say(f"{said}; cross-validating ({options.cv_folds} folds)…")

    def _on_cv_stopped(self, job: Job, how: str) -> None:
        """A training's cross-validation cancelled or failed: the tree stays, without CV
        figures (the Results panel offers to cross-validate it again)."""
        if job is self._cv_job and self._cv_pending is not None:
            self._cv_pending = None  # no figures coming (a training replacing it sets its own)
        if not self.runner.is_current(job):
            return
        self.figures_changed.emit(self.figures)
        self._check_stale()
        if how == "cancelled":
            self.say("Cross-validation cancelled; the tree is trained, without CV figures")

    def _on_cv_finished(self, job: Job, result: TrainResult, number: int) -> None:
        if not self.runner.is_current(job) or self.result is None:
            return
        self._cv_pending = None
        if self.result.model is not result.model:
            return  # another tree trained since
        self.result = result
        self._book.put(result.model.tree_, result.figures, self.settings)
        self._book.remember_baselines(result.data, result.figures)
        self.result_changed.emit(result)
        if result.evaluation is not None:
            self.add_evaluation(number, result.evaluation)
        tree = result.model.tree_
        if self.tree is tree and self.data is not None:  # the figures on screen gain their CV
            self.figures = self._book.figures_of(tree, self.data, self.settings)
            self.figures_changed.emit(self.figures)
        self._check_stale()
        self.say(
            f"Trained: {tree.n_leaves} leaves, {tree.n_nodes} nodes, depth {tree.depth}; "
            f"cross-validated"
        )

    def train_split(self, percent: float) -> Job | None:
        """Train with the current options on ``percent``% of the table's rows (stratified, the
        options' seed) and keep the rest on the tree as its test rows (issue 32): a run like
        any training's, with the split's evaluation, whose tree, pruning and growth steps all
        count the held-out rows."""
        if not 0 < percent < 100:
            self.fail("The training share must be between 0 and 100 percent.")
            return None
        try:
            table = self.doc.snapshot_later()  # made on the job's thread
        except ArborError as err:
            self.fail(str(err))
            return None
        options, version = self.options, self._version
        job = Job(
            f"Training on {percent:g}% of the rows",
            split_train_call(table, options.params, percent, options.seed),
        )
        job.finished.connect(
            lambda out, j=job: self._on_split_trained(j, out, version, options, percent)
        )
        job.cancelled.connect(
            lambda j=job: (
                self.runner.is_current(j) and self.say("Cancelled; the previous tree is unchanged")
            )
        )
        self.start(job)
        self.say(f"Training on {percent:g}% of the rows; the rest go on the tree as test rows…")
        return job

    def _on_split_trained(self, job: Job, out, version: int, options: Options, percent) -> None:
        if not self.runner.is_current(job):
            return
        result, evaluation, held, train_rows = out
        self._on_train_finished(job, result, version, options)
        self._split, self._split_data = (percent, options.seed, train_rows), result.data
        number = self.runs.numbers()[-1] if len(self.runs) else -1
        self.add_evaluation(number, evaluation)
        self.set_held_out(held)
        self.say(f"Trained on {percent:g}% of the rows; {held.label} are on the tree")

    def _drop_split(self) -> None:
        """Forget a split's test rows (a tree grown on other rows is shown)."""
        if self._split is not None:
            self._split, self._split_data = None, None
            self.drop_held_out()

    def cross_validate_alpha(self) -> Job | None:
        """CV error per alpha of the last CART training's full tree; ``alpha_chosen`` reports it."""
        if self.result is None or self.result.full_tree is None:
            self.fail("Train a CART tree first: the pruning path belongs to it.")
            return None
        from engine.prune.alpha import choose_alpha

        trained = self.result.model.settings_
        full, data = self.result.full_tree, self.result.data
        settings = replace(trained, cv_alpha=trained.cv_alpha or 10)
        job = Job(
            "Cross-validating alpha", lambda monitor: choose_alpha(full, data, settings, monitor)
        )
        job.finished.connect(
            lambda choice, j=job: self.runner.is_current(j) and self.alpha_chosen.emit(choice)
        )
        return self.start(job)

    # ------------------------------------------------------------------ runs
    def _add_run(self, result: TrainResult) -> None:
        import time

        doc, tree = self.doc, result.model.tree_
        name = Path(doc.path).name if doc.path else doc.sample_name or "untitled"
        evaluations = tuple(ev for ev in (result.training, result.evaluation) if ev is not None)
        run = self.runs.add(
            when=time.strftime("%H:%M:%S"),
            data_name=name,
            n_rows=result.data.n_rows,
            data_key=result.data_key,
            settings=result.model.settings_,
            n_nodes=tree.n_nodes,
            n_leaves=tree.n_leaves,
            depth=tree.depth,
            evaluations=evaluations,
            notes=result.notes,
            tree=tree,
        )
        self.runs_changed.emit()
        self.select_run(run.number)

    def select_run(self, number: int) -> None:
        if number not in self.runs:
            number = -1
        if number != self.selected_run:
            self.selected_run = number
            self.run_selected.emit(number)

    def add_evaluation(self, number: int, evaluation) -> None:
        """Add an evaluation (a test file, a percentage split) to run ``number``, if it is still listed."""
        if number in self.runs:
            self.runs.add_evaluation(number, evaluation)
            self.runs_changed.emit()
            self.run_selected.emit(self.selected_run)  # the views of the selected run show it

    def remove_run(self, number: int) -> None:
        if number in self.runs:
            self.runs.remove(number)
            self.runs_changed.emit()
            if number == self.selected_run:
                self.select_run(self.runs.numbers()[-1] if len(self.runs) else -1)

    def load_runs(self, log: RunLog) -> None:
        """Replace the runs (a project opened)."""
        self.runs = log
        self.runs_changed.emit()
        self.selected_run = -2  # so that selecting emits
        self.select_run(log.numbers()[-1] if len(log) else -1)

    def show_run(self, number: int) -> Job | None:
        """Put run ``number``'s tree on screen with the rows it was trained on; a tree the log
        no longer keeps is grown again from the run's settings (on a worker thread), which needs
        the table the run was trained on."""
        return self._bring_run(number, show=True)

    def grow_run_again(self, number: int) -> Job | None:
        """Grow the tree of run ``number`` again (same settings, same table) and keep it in the log."""
        return self._bring_run(number, show=False)

    def _bring_run(self, number: int, show: bool) -> Job | None:
        run = self.runs[number]
        if run.tree is not None and (
            not show or self.result is not None and self.result.data_key == run.data_key
        ):
            if show:
                self._show_run_tree(number, run.tree, self.result.data, show)
            return None
        try:
            table = self.doc.snapshot()
        except ArborError as err:
            self.fail(str(err))
            return None

        def call(monitor):
            from engine.data.encoding import encode
            from engine.fitting import fit_tree
            from engine.runs import data_key

            if data_key(table) != run.data_key:
                if run.tree is not None:
                    return run.tree, None
                raise ArborError(
                    f"the table has changed since run {number} was trained (or another table is "
                    "open), so its tree cannot be grown again; train with its settings instead"
                )
            data = encode(table, run.settings.task)
            tree = run.tree if run.tree is not None else fit_tree(data, run.settings, monitor)
            return tree.with_nodes_made(), data  # made here, not on the window's thread

        job = Job(
            f"Growing run {number}'s tree again" if run.tree is None else f"Showing run {number}",
            call,
        )
        job.finished.connect(
            lambda out, j=job: self.runner.is_current(j) and self._show_run_tree(number, *out, show)
        )
        return self.start(job)

    def _show_run_tree(self, number: int, tree, data, show: bool) -> None:
        if number in self.runs and self.runs[number].tree is None:
            self.runs.update(number, tree=tree)
            self.runs_changed.emit()
        if not show:
            self.say(
                f"Run {number}'s tree grown again: {tree.n_leaves} leaves, {tree.n_nodes} nodes"
            )
            return
        self.data = data
        self.settings = self.runs[number].settings if number in self.runs else self.settings
        if data is not None:  # the last training's rows, or the open table's as it is now
            trained = self.result is not None and data is self.result.data
            self._data_version = self._result_version if trained else self._version
        self._show(tree, -1, RUN, self.settings if data is not None else None)
        said = f"Run {number}'s tree on screen: {tree.n_leaves} leaves, {tree.n_nodes} nodes"
        self.say(
            said
            if data is not None
            else said
            + " (the table has changed since it was trained: its counts are the training table's)"
        )

    # ------------------------------------------------------------------ the tree on screen
    def load_tree(self, tree, data, settings, origin: str = OPENED) -> None:
        """Put a tree made elsewhere (a saved project) on screen with the rows and options it needs."""
        self.result, self.data, self.settings = None, data, settings
        self._data_version = self._version
        self._book.clear()
        self.result_changed.emit(None)
        self._show(tree, -1, origin)

    def show_tree(self, tree, select: int = -1, origin: str = EDITED, recipe=None) -> None:
        """Replace the tree on screen (a hand edit, a growth step, an undo); ``recipe``: the
        options that make it, if any (see ``recipe``)."""
        self._show(tree, select, origin, recipe)

    def show_pruned(self, tree, alpha: float, origin: str = PRUNED) -> None:
        """Show ``tree``, the trained CART tree pruned at ``alpha`` (by the slider, or the CV choice)."""
        recipe = None
        if self.result is not None:
            recipe = replace(
                self.result.model.settings_,
                prune="cost-complexity",
                alpha=float(alpha),
                cv_alpha=None,
            )
        self._show(tree, -1, origin, recipe)

    def _show(self, tree, select: int, origin: str, recipe=None) -> None:
        self.tree, self.origin, self.recipe = tree, origin, recipe
        self.selected = select if _has_node(tree, select) else -1
        if self._split is not None and self.data is not self._split_data:
            self._drop_split()  # a tree of other rows: the split's test rows may be its own
        self._count_test_rows(tree)  # small ones at once, so the tree is drawn with them
        self.tree_changed.emit(tree, self.selected)
        self.doc.tree_shown(tree)
        self.figures = None
        if tree is not None and self.data is not None:
            try:
                self.figures = self._book.figures_of(tree, self.data, recipe)
            except (ArborError, ValueError, IndexError):
                self.figures = None  # rows that no longer fit the tree (a project's, say)
        self.figures_changed.emit(self.figures)
        self._check_stale()

    def cross_validate_tree(self) -> Job | None:
        """Cross-validate the tree on screen in the background, with 0-R and 1-R on the same folds:
        its recipe refitted in each fold, or (built by hand) its structure re-counted."""
        if self.tree is None or self.data is None:
            self.fail("Train a tree first: there is nothing to cross-validate yet.")
            return None
        from engine.evaluate.figures import cross_validated

        tree, data, recipe = self.tree, self.data, self.recipe
        folds, seed = self.options.cv_folds or 10, self.options.seed
        if folds > data.n_rows:
            self.fail(
                f"cannot make {folds} folds from {data.n_rows} rows; use at most {data.n_rows} folds"
            )
            return None
        job = Job(
            "Cross-validating the tree on screen",
            lambda monitor: cross_validated(
                data,
                folds,
                seed,
                settings=recipe,
                tree=None if recipe is not None else tree,
                monitor=monitor,
            ),
        )
        job.finished.connect(
            lambda cv, j=job: (
                self.runner.is_current(j) and self._on_tree_cross_validated(tree, recipe, cv)
            )
        )
        self.say(f"Cross-validating the tree on screen ({folds} folds)…")
        return self.start(job)

    def _on_tree_cross_validated(self, tree, recipe, cv) -> None:
        figures = self._book.get(tree, recipe) or self.figures
        if figures is None:
            return
        figures = figures.with_cv(cv)
        self._book.put(tree, figures, recipe)
        if tree is self.tree:
            self.figures = figures
            self.figures_changed.emit(figures)
            said = f"Cross-validated the tree on screen: {cv.folds} folds"
            # Asked for by hand: its held-out rows go on the tree, unless a test file's are there.
            if (self.held_out is None or self.held_out.cross_validated) and self.show_cv_rows():
                said += "; its held-out rows are on the tree (out-of-fold predictions)"
            self.say(said)

    def cv_rows_available(self) -> bool:
        """Whether the tree on screen has cross-validated figures whose held-out rows could go
        on it (and they are not there yet)."""
        cv = self.figures.cv if self.figures is not None else None
        if cv is None or cv.predictions is None or self.tree is None or self.data is None:
            return False
        held = self.held_out
        return not (held is not None and held.cross_validated and held.fits(self.tree))

    def show_cv_rows(self) -> bool:
        """Put the cross-validation's held-out rows of the tree on screen on it (issue 32):
        every row once, scored by its out-of-fold prediction (the tree of the fold that held it
        out), placed on the nodes of this tree. False when it has no cross-validation."""
        if not self.cv_rows_available():
            return False
        from engine.evaluate.per_node import out_of_fold

        cv = self.figures.cv
        if len(cv.predictions) != self.data.n_rows:
            return False  # rows of another table (a project's figures)
        label = f"{cv.folds}-fold cross-validation's held-out rows, out of fold"
        self.set_held_out(out_of_fold(self.data, cv.predictions, self.tree, label))
        return True

    def drop_tree(self) -> None:
        """Forget the tree, the training and its rows (a new table, a new blank table)."""
        self.runner.cancel()
        self.result, self.data, self.settings = None, None, None
        self._book.clear()
        self.result_changed.emit(None)
        self._show(None, -1, TRAINED)

    def growth_source(self):
        """(encoded rows, settings) to grow step by step from the current table and options."""
        from engine.data.encoding import encode
        from engine.settings import resolve

        table = self.doc.snapshot()
        settings = resolve(**self.options.params)
        data = encode(table, settings.task)
        if self._split is not None:  # grow on the split's training rows, count the rest
            from engine.data.encoding import subset
            from engine.evaluate.evaluation import holdout_rows
            from engine.evaluate.per_node import HeldOut

            percent, seed, _ = self._split
            train_rows, test_rows = holdout_rows(data, percent, seed)
            label = self.held_out.label if self.held_out is not None else f"{percent:g}% split"
            full, data = data, subset(data, train_rows)
            self._split, self._split_data = (percent, seed, train_rows), data
            self.data, self.settings, self._data_version = data, settings, self._version
            self.set_held_out(HeldOut(subset(full, test_rows), label))
            return data, settings
        self.data, self.settings, self._data_version = data, settings, self._version
        return data, settings

    # ------------------------------------------------------------------ test rows on the tree
    def set_held_out(self, held) -> None:
        """Route ``held`` (an ``engine.evaluate.per_node.HeldOut``) down every tree shown."""
        self.held_out = held
        self._counting.clear()
        self.held_out_changed.emit(held)
        self._count_test_rows(self.tree)

    def drop_held_out(self) -> None:
        if self.held_out is not None:
            self.held_out = None
            self._counting.clear()
            self.held_out_changed.emit(None)

    def _held_for(self, tree):
        """The test rows if ``tree`` can take them, else None."""
        held = self.held_out
        return held if held is not None and tree is not None and held.fits(tree) else None

    def _algorithm(self):
        return self.settings.algorithm if self.settings is not None else None

    def test_figures(self, tree=None):
        """The test rows' figures of ``tree`` (the tree on screen by default): every node's
        training and test rows and errors (``NodeRows``), or None (no test rows, rows that do
        not fit the tree, or a big count still running aside: ``test_counted`` says when)."""
        from engine.evaluate.per_node import known_node_rows

        tree = self.tree if tree is None else tree
        held = self._held_for(tree)
        return None if held is None else known_node_rows(tree, held)

    def _count_test_rows(self, tree) -> None:
        """Count the test rows on ``tree``: at once when that is quick, else on a worker."""
        held = self._held_for(tree)
        if held is None or self.test_figures(tree) is not None or id(tree) in self._counting:
            return
        from engine.evaluate.per_node import node_rows_of

        algorithm = self._algorithm()
        if count_at_once(held.data.n_rows, tree):
            node_rows_of(tree, held, algorithm)
            self.test_counted.emit(tree)
            return
        from gui.session.jobs import run_aside

        self._counting.add(id(tree))
        job = Job(
            f"Counting {held.label} on the tree",
            lambda monitor: node_rows_of(tree, held, algorithm),
        )

        def done(_figures, tree=tree) -> None:
            self._counting.discard(id(tree))
            if held is self.held_out:
                self.test_counted.emit(tree)

        job.finished.connect(done)
        job.failed.connect(lambda *_, t=tree: self._counting.discard(id(t)))
        run_aside(job)

    def select_node(self, node_id: int) -> None:
        if not _has_node(self.tree, node_id):
            node_id = -1
        if node_id != self.selected:
            self.selected = node_id
            self.node_selected.emit(node_id)

    # ------------------------------------------------------------------ rows and nodes
    def rows_reaching(self, node_id: int) -> set[int]:
        """Positions in the table of the training rows that reach ``node_id`` of the tree on screen."""
        if self.tree is None or self.data is None:
            return set()
        from engine.learn.explain import node_rows

        rows, weights = node_rows(self.tree, self.data, node_id, self.settings)
        rows = rows[weights > 0]
        if self._split is not None and self.data is self._split_data:
            rows = self._split[2][rows]  # rows of the split's training part, in the table
        frame = self.doc.frame
        keep = frame.index[frame[self.doc.target].notna()]
        return {int(keep[r]) for r in rows} if len(keep) else set()

    def nodes_reached(self, rows: list[int]) -> set[int]:
        """Ids of the nodes on the paths of table rows ``rows`` (the first 5,000) through the tree."""
        if self.tree is None or not rows:
            return set()
        from engine.data.encoding import encode_columns
        from engine.predict import leaf_weights

        tree = self.tree
        try:
            X = encode_columns(self.doc.frame.iloc[rows[:5000]], tree.schema.attributes)
        except (ArborError, KeyError):
            return set()  # the table's columns no longer match the tree's
        nodes = set()
        for leaf in leaf_weights(tree, X):
            nodes.update(n.id for n, _ in tree.path_to(leaf))
        return nodes

    def predict_row(self, row: int) -> str | None:
        """What the tree on screen predicts for table row ``row``, as a sentence."""
        if self.tree is None:
            return None
        from engine.data.encoding import encode_columns
        from engine.predict import class_codes, predict_proba, predict_value

        tree = self.tree
        try:
            X = encode_columns(self.doc.frame.iloc[[row]], tree.schema.attributes)
        except (ArborError, KeyError):
            return None
        if tree.is_regression:
            said = f"{predict_value(tree, X)[0]:.4g}"
        else:
            algorithm = self.settings.algorithm if self.settings is not None else None
            said = tree.classes[int(class_codes(predict_proba(tree, X), algorithm, tree.costs)[0])]
        return f"Row {row + 1}: the tree predicts {tree.schema.target} = {said}"


def _has_node(tree, node_id: int) -> bool:
    """Whether ``tree`` has a node ``node_id``. Ids are pre-order positions (0 to n - 1) but for
    the Growth tab's, which a node keeps for the tree's life (a collapse leaves gaps)."""
    if tree is None or node_id < 0:
        return False
    try:  # a walk down for pre-order ids, a search for others
        tree.node(node_id)
    except KeyError:
        return False
    return True

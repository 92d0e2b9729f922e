"""The window's model: the open table, the chosen options, what was trained, what is on screen.

Panels and the window observe a :class:`Controller` through its signals and change it
through its methods; they never set its state by hand and never reach into each other.
It holds no widgets, so everything here can be driven (and tested) without a window.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from PySide6.QtCore import QObject, Signal

from engine.errors import ArborError
from gui.document import DataDocument
from gui.jobs import Job, JobRunner, TrainResult, train_call

#: How the tree on screen came to be (``Controller.origin``).
TRAINED, PRUNED, CV_ALPHA, EDITED, STEPPED, OPENED = (
    "trained", "pruned", "cv-alpha", "edited", "stepped", "opened")


@dataclass(frozen=True)
class Options:
    """What the Algorithm panel asks for now: learner options and how to evaluate."""

    params: dict = field(default_factory=dict)
    cv_folds: int = 10
    seed: int = 1


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
        How it came to be: ``TRAINED``, ``PRUNED``, ``CV_ALPHA``, ``EDITED``, ``STEPPED``, ``OPENED``.
    selected : int
        The selected node of the tree on screen (-1: none).
    busy : bool
        A job (training, reading a file, cross-validation) is running.

    Methods
    -------
    set_options(params, cv_folds, seed); train() -> Job | None; cancel();
    cross_validate_alpha() -> Job | None; start(job) runs any other job with the same
    progress, cancel and error reporting; load_table(table, path, sample=None);
    load_tree(tree, data, settings, origin) puts a tree from elsewhere (a project) on screen;
    show_tree(tree, select=-1, origin=EDITED) replaces the tree on screen (undo commands,
    pruning, growth steps); drop_tree(); growth_source() -> (data, settings) for stepping;
    select_node(node_id); rows_reaching(node_id); nodes_reached(rows); predict_row(row);
    say(text); fail(message, details=""); new_table().

    Signals
    -------
    table_loaded() : a different table was opened (the tree and results were dropped).
    options_loaded(object) : a project brought its options (``Settings``): show them.
    result_changed(object) : a training finished (its TrainResult), or None when dropped.
    tree_changed(object, int) : the tree on screen (or None) and the node to select (-1 none).
    node_selected(int) : the selected node changed (-1: none).
    alpha_chosen(object) : cross-validating alpha finished (an ``AlphaChoice``).
    busy_changed(bool) : a job started, or the last one ended.
    progress_changed(float, str) : fraction done (-1: unknown, a busy bar) and what is being done.
    message(str) : a line for the status bar.
    failed(str, str) : something the user must be told (message, details).
    """

    table_loaded = Signal()
    options_loaded = Signal(object)
    result_changed = Signal(object)
    tree_changed = Signal(object, int)
    node_selected = Signal(int)
    alpha_chosen = Signal(object)
    busy_changed = Signal(bool)
    progress_changed = Signal(float, str)
    message = Signal(str)
    failed = Signal(str, str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.doc = DataDocument(self)
        self.runner = JobRunner(self)
        self.runner.busy_changed.connect(self.busy_changed)
        self.options = Options()
        self.result: TrainResult | None = None
        self.data = None
        self.settings = None
        self.tree = None
        self.origin = TRAINED
        self.selected = -1

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
    def set_options(self, params: dict, cv_folds: int, seed: int) -> None:
        self.options = Options(dict(params), cv_folds, seed)

    def new_table(self) -> None:
        """A blank table to type into (undo history cleared); the tree and results are dropped."""
        self.drop_tree()
        self.doc.sample_name = None
        self.doc.new_blank()
        self.table_loaded.emit()

    def load_table(self, table, path: str | None, sample: str | None = None) -> None:
        """Make ``table`` the open table (undo history cleared) and drop the tree and results."""
        self.drop_tree()
        self.doc.sample_name = sample
        self.doc.load(table, path)
        self.table_loaded.emit()

    # ------------------------------------------------------------------ jobs
    def start(self, job: Job, report_failure: bool = True, fractions: bool = True) -> Job:
        """Run ``job`` (cancelling the one still going) with its progress reported here, and its
        failure unless the caller reports it; a job without ``fractions`` shows a busy bar."""
        job.progress_changed.connect(self.progress_changed)
        if report_failure:
            job.failed.connect(lambda msg, details, j=job: self.runner.is_current(j) and self.fail(msg, details))
        self.runner.start(job)
        if not fractions:
            self.progress_changed.emit(-1.0, job.name)
        return job

    def cancel(self) -> None:
        self.runner.cancel()

    def train(self) -> Job | None:
        """Train with the current options on a snapshot of the table (a worker thread)."""
        try:
            table = self.doc.snapshot()
        except ArborError as err:
            self.fail(str(err))
            return None
        options = self.options
        job = Job("Training", train_call(table, options.params, options.cv_folds, options.seed))
        job.finished.connect(lambda result, j=job: self._on_train_finished(j, result))
        job.failed.connect(lambda *_, j=job: self.runner.is_current(j) and self.say(
            "Training failed; the table and the previous tree are unchanged"))
        job.cancelled.connect(lambda j=job: self.runner.is_current(j) and self.say(
            "Cancelled; the previous tree is unchanged"))
        self.start(job)
        self.say("Training…")
        return job

    def _on_train_finished(self, job: Job, result: TrainResult) -> None:
        if not self.runner.is_current(job):
            return  # superseded by a newer run
        self.result = result
        self.data = result.data
        self.settings = result.model.settings_
        self.result_changed.emit(result)
        tree = result.model.tree_
        self._show(tree, -1, TRAINED)
        self.say(f"Trained: {tree.n_leaves} leaves, {tree.n_nodes} nodes, depth {tree.depth}")

    def cross_validate_alpha(self) -> Job | None:
        """CV error per alpha of the last CART training's full tree; ``alpha_chosen`` reports it."""
        if self.result is None or self.result.full_tree is None:
            self.fail("Train a CART tree first: the pruning path belongs to it.")
            return None
        from engine.evaluate.alpha import choose_alpha

        trained = self.result.model.settings_
        full, data = self.result.full_tree, self.result.data
        settings = replace(trained, cv_alpha=trained.cv_alpha or 10)
        job = Job("Cross-validating alpha", lambda monitor: choose_alpha(full, data, settings, monitor))
        job.finished.connect(lambda choice, j=job: self.runner.is_current(j) and self.alpha_chosen.emit(choice))
        return self.start(job)

    # ------------------------------------------------------------------ the tree on screen
    def load_tree(self, tree, data, settings, origin: str = OPENED) -> None:
        """Put a tree made elsewhere (a saved project) on screen with the rows and options it needs."""
        self.result, self.data, self.settings = None, data, settings
        self.result_changed.emit(None)
        self._show(tree, -1, origin)

    def show_tree(self, tree, select: int = -1, origin: str = EDITED) -> None:
        """Replace the tree on screen (a hand edit, a pruning, a growth step, an undo)."""
        self._show(tree, select, origin)

    def _show(self, tree, select: int, origin: str) -> None:
        self.tree, self.origin = tree, origin
        self.selected = select if tree is not None and 0 <= select < tree.n_nodes else -1
        self.tree_changed.emit(tree, self.selected)

    def drop_tree(self) -> None:
        """Forget the tree, the training and its rows (a new table, a new blank table)."""
        self.runner.cancel()
        self.result, self.data, self.settings = None, None, None
        self.result_changed.emit(None)
        self._show(None, -1, TRAINED)

    def growth_source(self):
        """(encoded rows, settings) to grow step by step from the current table and options."""
        from engine.data.encoding import encode
        from engine.settings import resolve

        table = self.doc.snapshot()
        settings = resolve(**self.options.params)
        data = encode(table, settings.task)
        self.data, self.settings = data, settings
        return data, settings

    def select_node(self, node_id: int) -> None:
        if self.tree is None or not 0 <= node_id < self.tree.n_nodes:
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
        frame = self.doc.frame
        keep = frame.index[frame[self.doc.target].notna()]
        return {int(keep[r]) for r in rows[weights > 0]} if len(keep) else set()

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
        from engine.predict import predict_proba, predict_value

        tree = self.tree
        try:
            X = encode_columns(self.doc.frame.iloc[[row]], tree.schema.attributes)
        except (ArborError, KeyError):
            return None
        if tree.is_regression:
            said = f"{predict_value(tree, X)[0]:.4g}"
        else:
            said = tree.classes[int(predict_proba(tree, X)[0].argmax())]
        return f"Row {row + 1}: the tree predicts {tree.schema.target} = {said}"

"""Watching the algorithm work: grow the tree one split at a time (Step, or Play at a speed),
with a log of every step and, for best-first growth, the queue of open leaves; in exam mode
the student names each split before it is shown."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSlider,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import ArborError
from engine.evaluate.per_node import NO_CV_CURVE
from engine.export.labels import attribute_name, condition, number
from engine.growth import StableIds, grow, grow_steps, with_stable_ids
from engine.learn.exam import ask
from engine.learn.explain import node_rows, used_on_path
from engine.tree import THRESHOLD, Tree
from gui.panels.error_plot import ErrorPlot
from gui.panels.exam import ExamBox
from gui.plain_text import plain_label, plain_tip

#: Play's speeds, in seconds per step; the default lets a person read each step.
SECONDS_PER_STEP = (8.0, 5.0, 3.0, 2.0, 1.5, 1.0, 0.5, 0.25, 0.1)
DEFAULT_SPEED = SECONDS_PER_STEP.index(2.0)


def _table(headers: list[str], tip: str, numbered: bool = False) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(headers)
    table.setToolTip(tip)
    table.verticalHeader().setVisible(numbered)  # the log's row numbers are the step numbers
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
    table.horizontalHeader().setStretchLastSection(True)
    return table


class GrowthPanel(QWidget):
    """Step / Play / Start over over :func:`engine.growth.grow_steps`, with the log of
    steps taken and the queue of leaves still to split. Node ids are kept for the life of
    the tree (:class:`engine.growth.StableIds`): the log's "node 3" is node 3 to the end.
    C4.5's growth ends with a step of its own, the collapse Train makes too.

    Signals
    -------
    step_taken(object, int) : the tree so far and the id of the node just split.
    started_over(object) : the tree back to its root alone.
    node_chosen(int) : a node picked in the log or the queue (its id in the tree on screen).
    finished() : the tree is fully grown.
    question_asked(int) : exam mode asks how the node with this id splits (-1: no question
        open); its candidate splits stay hidden until the pick is checked.
    """

    step_taken = Signal(object, int)
    started_over = Signal(object)
    node_chosen = Signal(int)
    finished = Signal()
    question_asked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._steps = None
        self._schema = None
        self._settings = None
        self._tree: Tree | None = None
        self._ids = StableIds()
        self._log_ids: list[int] = []
        self._queue_ids: list[int] = []
        self._collapsed = False  # C4.5's closing collapse step taken
        self.count = 0
        self._exam_on = False
        self._pending = None  # exam mode: the step held back until the pick is checked
        self.exam = ExamBox()
        self.exam.setVisible(False)
        self.exam.answered.connect(self._on_exam_answered)
        self.step_button = QPushButton("Step")
        self.step_button.setToolTip(
            "Grow one split (depth-first as ID3's recursion, or best-first "
            "through the priority queue, as the Growth option says)"
        )
        self.play_button = QPushButton("Play")
        self.play_button.setCheckable(True)
        self.play_button.setToolTip("Keep stepping at the chosen speed (press again to pause)")
        self.reset_button = QPushButton("Start over")
        self.reset_button.setToolTip("Back to the root alone, with the current table and options")
        self.speed = QSlider(Qt.Orientation.Horizontal)
        self.speed.setRange(0, len(SECONDS_PER_STEP) - 1)
        self.speed.setValue(DEFAULT_SPEED)
        self.speed.setToolTip("How fast Play steps")
        self.speed_label = QLabel()
        self.status = plain_label(
            "Press Step to grow the tree split by split."
        )  # names split nodes
        self.status.setWordWrap(True)
        self.log = _table(
            ["node", "split", "score", "priority"],
            "Every split so far, in the order taken, with its score and, growing "
            "best-first, its priority (the queue's key: n/N × ΔI, or ΔI with the Queue key "
            "option); click one to select its node",
            numbered=True,
        )
        self.queue_title = QLabel()
        self.queue_title.setWordWrap(True)
        self.queue = _table(
            ["", "node", "rows", "gain", "priority"],
            "The leaves still to split: rows n, the gain ΔI of their best split, and "
            "their priority, the key the queue ranks by (n/N × ΔI, or ΔI); ▶ marks the next",
        )
        # Training against test error step by step (issue 32): over-fitting, seen as it grows.
        self.errors = ErrorPlot("step")
        self.errors.setToolTip(
            "The tree's error after each step: on its training rows (its leaves' counts) and, "
            "once a run is evaluated on a test file, on those test rows"
        )
        self._held = lambda: None  # the window's test rows (bind sets it)
        self._grown: list[tuple[float, Tree]] = []  # (step, tree) drawn on the error plot
        self._errors: list[tuple[float, float]] = []  # their (training, test) errors
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.step)
        self.step_button.clicked.connect(self.step)
        self.play_button.toggled.connect(self._on_play_button_toggled)
        self.reset_button.clicked.connect(self.start_over)
        self.speed.valueChanged.connect(self._on_speed_value_changed)
        self.log.itemSelectionChanged.connect(lambda: self._on_pick(self.log, self._log_ids))
        self.queue.itemSelectionChanged.connect(lambda: self._on_pick(self.queue, self._queue_ids))
        row = QHBoxLayout()
        for w in (self.step_button, self.play_button, self.reset_button):
            row.addWidget(w)
        speed_row = QHBoxLayout()
        speed_row.addWidget(QLabel("Speed"))
        speed_row.addWidget(self.speed, 1)
        speed_row.addWidget(self.speed_label)
        layout = QVBoxLayout(self)
        layout.addLayout(row)
        layout.addLayout(speed_row)
        layout.addWidget(self.status)
        layout.addWidget(self.exam)
        # Above the log: what over-fitting looks like should be in view as the tree grows.
        layout.addWidget(QLabel("<b>Training and test error</b>"))
        layout.addWidget(self.errors, 2)
        layout.addWidget(QLabel("<b>Growth log</b>"))
        layout.addWidget(self.log, 3)
        layout.addWidget(self.queue_title)
        layout.addWidget(self.queue, 2)
        self._source = None
        self._on_speed_value_changed(self.speed.value())
        self._show_queue_title()

    def bind(self, controller) -> None:
        """Grow from the controller's table and options; each step goes on screen."""
        from gui.controller import STEPPED

        self.set_source(controller.growth_source)
        self.step_taken.connect(
            lambda tree, expanded: controller.show_tree(tree, expanded, STEPPED)
        )
        self.started_over.connect(lambda tree: controller.show_tree(tree, 0, STEPPED))
        self.node_chosen.connect(controller.select_node)
        controller.result_changed.connect(lambda *_: self.reset())
        self._held = lambda: controller.held_out
        controller.held_out_changed.connect(lambda *_: self._recount())

    def set_source(self, source) -> None:
        """``source()`` returns (encoded data, settings) to grow from, or raises ArborError."""
        self._source = source
        self.reset()

    # ------------------------------------------------------------------ stepping
    def reset(self) -> None:
        """Forget the steps (the tree on screen stays as it is)."""
        self._timer.stop()
        self.play_button.setChecked(False)
        self._steps, self._tree, self.count = None, None, 0
        if self._pending is not None:
            self._pending = None
            self.question_asked.emit(-1)
        self.exam.clear()
        self._log_ids, self._queue_ids, self._collapsed = [], [], False
        self._grown, self._errors = [], []
        self.errors.clear()
        self.log.setRowCount(0)
        self.queue.setRowCount(0)
        self.status.setText("Press Step to grow the tree split by split.")

    def start_over(self) -> None:
        """Back to the beginning, and show the root alone on the canvas."""
        self.reset()
        if not self._begin():
            return
        data, settings = self._data, self._settings
        root = grow(data, replace(settings, max_depth=0), compiled=False)
        self._tree = Tree(self._ids.apply(root)[0], data.schema)
        self._record(0, self._tree)
        self.status.setText("The root alone: press Step to split it.")
        self.started_over.emit(self._tree)

    def _begin(self) -> bool:
        if self._source is None:
            return False
        try:
            self._data, self._settings = self._source()
            steps = grow_steps(self._data, self._settings)
        except ArborError as err:
            self.status.setText(f"Cannot grow: {err}")
            return False
        self._schema = self._data.schema
        self._ids = StableIds()
        self._steps = with_stable_ids(steps, self._ids)
        self._show_queue_title()
        return True

    def step(self) -> bool:
        """Grow one split (in exam mode: ask about it first). False when there is nothing
        more to grow; True while an exam question waits for its answer."""
        if self._pending is not None:
            self.status.setText("Exam: pick the split and press Check first (Hint helps).")
            return True
        if self._steps is None and not self._begin():
            return False
        try:
            step = next(self._steps)
        except StopIteration:
            if self._collapse():
                return True
            self._timer.stop()
            self.play_button.setChecked(False)
            self.status.setText(
                f"Done: the tree is fully grown after {self.count} splits{self._collapse_words()}."
            )
            self.queue.setRowCount(0)
            self.finished.emit()
            return False
        except ArborError as err:
            self.status.setText(f"Cannot grow: {err}")
            return False
        if self._exam_on and not self.signalsBlocked() and self._ask(step):
            return True
        self._take(step)
        return True

    def _take(self, step) -> None:
        """Show ``step``: the tree, the log, the queue."""
        self.count += 1
        tree = Tree(step.root, self._schema)
        self._tree = tree
        self._record(self.count, tree)
        node = tree.node(step.expanded)
        split, score = self._split_words(tree, node)
        self.status.setText(
            f"Step {self.count}: node {step.expanded} splits on {split} "
            f"({self._score_name()} {score})."
        )
        self.log.horizontalHeaderItem(2).setText(self._score_name())
        self._log(tree, step, split, score)
        self._fill_queue(tree, step)
        self.step_taken.emit(tree, step.expanded)

    # ------------------------------------------------------------------ exam mode
    @property
    def exam_on(self) -> bool:
        return self._exam_on

    def set_exam(self, on: bool) -> None:
        """Exam mode on (each Step asks for the split first; Play is off) or off (a question
        still open is answered by showing the step)."""
        self._exam_on = on
        self.exam.setVisible(on)
        self.play_button.setEnabled(not on)
        if on:
            self.play_button.setChecked(False)
            self.exam.reset_score()
            self.status.setText("Exam mode: press Step, then pick the split Arbor will take.")
        elif self._pending is not None:
            step, self._pending = self._pending, None
            self.exam.clear()
            self.question_asked.emit(-1)
            self._take(step)

    def _ask(self, step) -> bool:
        """Hold ``step`` back and ask which split it takes; False when no question can be
        put (a regression tree: there is no attribute table to mark against)."""
        if self._tree is None:  # the first step: the root alone goes on screen to be asked about
            root = grow(self._data, replace(self._settings, max_depth=0), compiled=False)
            self._tree = Tree(self._ids.apply(root)[0], self._schema)
            self._record(0, self._tree)
            self.started_over.emit(self._tree)
        tree, node_id = self._tree, step.expanded
        split = Tree(step.root, self._schema).node(node_id).split
        used = frozenset() if self._settings.binary else used_on_path(tree, node_id)
        try:
            rows, weights = node_rows(tree, self._data, node_id, self._settings)
            question = ask(
                self._data,
                self._settings,
                rows,
                weights,
                used,
                node_id,
                split.attribute,
                split.threshold if split.kind == THRESHOLD else None,
            )
        except ArborError as err:
            self.status.setText(f"Exam mode cannot ask here ({err}): the step is shown.")
            return False
        self._pending = step
        spread = ", ".join(f"{c} {v:g}" for c, v in question.class_counts)
        name = {"id3": "ID3", "c45": "C4.5", "cart": "CART"}.get(self._settings.algorithm, "Arbor")
        self.exam.ask(
            question,
            f"Node {node_id} ({self._rule(tree, node_id)}): {question.n:g} rows ({spread}). "
            f"Which attribute does {name} split it on?",
        )
        self.question_asked.emit(node_id)
        self.node_chosen.emit(node_id)
        self.status.setText(f"Exam: how does node {node_id} split? Pick, then Check.")
        return True

    def _on_exam_answered(self, verdict) -> None:
        """The pick is marked: show Arbor's step (its node selected, the inspector's numbers)."""
        step, self._pending = self._pending, None
        if step is None:
            return
        self.question_asked.emit(-1)
        self._take(step)
        self.status.setText(("Right. " if verdict.right else "Not quite. ") + self.status.text())

    def back(self) -> bool:
        """One step back (a presentation's Page Up): growth is a generator, so the tree is
        grown again from the root to the step before, quietly, and only that one is shown.
        False when there is no step to go back from."""
        if self._steps is None or self.count == 0 and not self._collapsed:
            return False
        target = self.count if self._collapsed else self.count - 1
        self.blockSignals(True)  # the replayed steps are not shown one by one (Play stops)
        try:
            self.start_over()
            for _ in range(target):
                self.step()
        finally:
            self.blockSignals(False)
        if target == 0:
            self.started_over.emit(self._tree)
        else:
            self.step_taken.emit(self._tree, self._log_ids[-1])
        return True

    def _collapse(self) -> bool:
        """C4.5's closing step, once growth is done: splits that do not lower the training
        error become leaves, as Train does (J48 does it even with pruning off). True if it
        changed the tree (a step of its own in the log), False if there was nothing to do."""
        if self._collapsed or self._tree is None or self._settings.algorithm != "c45":
            return False
        from engine.prune.pessimistic import collapse_tree

        self._collapsed = True
        before = self._tree
        after = Tree(
            self._ids.apply(collapse_tree(before, self._data, self._settings).root)[0], self._schema
        )
        if after.n_leaves == before.n_leaves:
            return False
        made_leaves = sorted(
            n.id for n in after.nodes() if n.is_leaf and not before.node(n.id).is_leaf
        )
        self._tree = after
        self._record(self.count + 1, after)
        names = ", ".join(str(i) for i in made_leaves)
        row = self.log.rowCount()
        self.log.insertRow(row)
        for col, text in enumerate((names, "collapse: become leaves", "", "")):
            self.log.setItem(row, col, QTableWidgetItem(text))
        plural = len(made_leaves) > 1
        why = (
            f"C4.5 ends growth by collapsing splits that do not lower the training error: "
            f"node{'s' if plural else ''} {names} become{'' if plural else 's'} "
            f"{'leaves' if plural else 'a leaf'}, {before.n_leaves} leaves become {after.n_leaves}, "
            "as Train makes them (J48 does this even with pruning off)."
        )
        self.log.item(row, 1).setToolTip(plain_tip(why))
        self._log_ids.append(made_leaves[0])
        self.log.scrollToBottom()
        pruning = self._settings.prune != "none"
        self.status.setText(
            f"{why}{' Train then prunes as well (the Pruning tab shows how).' if pruning else ''}"
        )
        self.queue.setRowCount(0)
        self._queue_ids = []
        self.step_taken.emit(after, made_leaves[0])
        return True

    # ------------------------------------------------------------------ training and test error
    def _error_of(self, tree: Tree, held) -> tuple[float, float]:
        from engine.data.encoding import without_rows
        from engine.evaluate.per_node import node_rows, node_rows_of

        algorithm = self._settings.algorithm if self._settings is not None else None
        figures = node_rows_of(tree, held, algorithm) if held is not None else None
        if figures is None:  # no test rows (or rows of another table): the training side
            figures = node_rows(tree, without_rows(tree.schema), algorithm)
        return figures.error_rates()

    def _record(self, step: float, tree: Tree) -> None:
        """A tree of the growth: its training and test error, drawn."""
        self._grown.append((step, tree))
        self._errors.append((math.nan, math.nan))
        self._count(len(self._grown) - 1)
        self._draw_errors()

    def _count(self, k: int) -> None:
        """Step ``k``'s errors: at once when quick, else its test rows counted on a worker
        (the point is drawn when they are; the window stays live on big test sets)."""
        from gui.session.jobs import Job, count_at_once, run_aside

        tree = self._grown[k][1]
        held = self._usable_held(tree)
        if held is None or count_at_once(held.data.n_rows, tree):
            self._errors[k] = self._error_of(tree, held)
            return
        self._errors[k] = (self._error_of(tree, None)[0], math.nan)
        grown = self._grown
        job = Job("Counting the test rows", lambda monitor: self._error_of(tree, held))

        def done(errors, k=k) -> None:
            if self._grown is grown and held is self._held():  # not started over since
                self._errors[k] = errors
                self._draw_errors()

        job.finished.connect(done)
        run_aside(job)

    def _usable_held(self, tree: Tree):
        """The test rows to count on a step's tree; never cross-validation's (their
        predictions are the fold trees', whatever step this tree is at)."""
        held = self._held()
        usable = held is not None and not held.cross_validated and held.fits(tree)
        return held if usable else None

    def _recount(self) -> None:
        """Test rows came or went: every step's errors again."""
        self._errors = [(math.nan, math.nan)] * len(self._grown)
        for k in range(len(self._grown)):
            self._count(k)
        self._draw_errors()

    def _draw_errors(self) -> None:
        if not self._grown:
            self.errors.clear()
            return
        held = self._usable_held(self._grown[-1][1])
        errors = np.array(self._errors, dtype=float)
        self.errors.show_curve(
            [s for s, _ in self._grown],
            errors[:, 0],
            errors[:, 1] if held is not None else None,
            "RMSE" if self._grown[-1][1].is_regression else "error rate",
            held.label if held is not None else "",
            absent=NO_CV_CURVE if self._held() is not None and self._held().cross_validated else "",
        )

    def _collapse_words(self) -> str:
        """The end of the Done line: whether C4.5's collapse was a step of its own."""
        return ", then C4.5's collapse" if self.log.rowCount() > self.count else ""

    def _split_words(self, tree: Tree, node) -> tuple[str, str]:
        split = attribute_name(tree, node)
        if node.split.kind == THRESHOLD:
            split = f"{split} <= {number(node.split.threshold)}"
        ratio = self._settings.criterion == "gain_ratio"
        value = node.stats.get("gain_ratio" if ratio else "gain", 0.0)
        return split, f"{value:.3f}"

    def _score_name(self) -> str:
        return "gain ratio" if self._settings.criterion == "gain_ratio" else "gain"

    def _best_first(self) -> bool:
        return self._settings is not None and self._settings.growth == "best"

    def _log(self, tree: Tree, step, split: str, score: str) -> None:
        row = self.log.rowCount()
        self.log.insertRow(row)
        priority = f"{step.priority:.4f}" if self._best_first() else ""
        for col, text in enumerate((str(step.expanded), split, score, priority)):
            self.log.setItem(row, col, QTableWidgetItem(text))
        self.log.item(row, 0).setToolTip(plain_tip(self._rule(tree, step.expanded)))
        self._log_ids.append(step.expanded)  # ids stay for the life of the tree: no renumbering
        self.log.scrollToBottom()

    def _fill_queue(self, tree: Tree, step) -> None:
        self.queue.blockSignals(True)
        self.queue.setRowCount(0)
        self._queue_ids = []
        bold = QFont()
        bold.setBold(True)
        for k, (node_id, priority) in enumerate(step.queue):
            node = tree.node(node_id)
            if self._by_gain():  # the key is the gain itself (ΔI)
                gain = priority
            else:
                gain = priority * tree.root.weight / node.weight if node.weight > 0 else math.nan
            cells = (
                "▶" if k == 0 else "",
                str(node_id),
                number(round(node.weight, 2)),
                f"{gain:.4f}",
                f"{priority:.4f}",
            )
            self.queue.insertRow(k)
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if k == 0:
                    item.setFont(bold)
                self.queue.setItem(k, col, item)
            self.queue.item(k, 1).setToolTip(plain_tip(self._rule(tree, node_id)))
            self._queue_ids.append(node_id)
        self.queue.blockSignals(False)

    def _by_gain(self) -> bool:
        return self._best_first() and self._settings.priority == "gain"

    def _show_queue_title(self) -> None:
        key = "ΔI" if self._by_gain() else "n/N × ΔI"
        for table in (self.log, self.queue):
            header = table.horizontalHeaderItem(table.columnCount() - 1)
            header.setText(f"priority ({key})" if self._best_first() else "priority")
        if self._by_gain():
            self.queue_title.setText(
                "<b>Queue</b>: open leaves by ΔI, the gain of their best split (seed 004, "
                "Algorithm 3: the priority queue ranked by ΔI); the first is split next"
            )
        elif self._best_first():
            self.queue_title.setText(
                "<b>Queue</b>: open leaves by n/N × ΔI, the gain of their best split times "
                "their share of the rows (seed 004, Algorithm 3, weighted as scikit-learn's "
                "max_leaf_nodes); the first is split next"
            )
        else:
            self.queue_title.setText(
                "<b>Stack</b>: open leaves, depth-first (the last one put in is split next)"
            )

    @staticmethod
    def _rule(tree: Tree, node_id: int) -> str:
        return (
            " AND ".join(condition(tree, a, b) for a, b in tree.path_to(node_id)[:-1]) or "the root"
        )

    def _on_pick(self, table: QTableWidget, ids: list[int]) -> None:
        rows = table.selectionModel().selectedRows()
        if rows and self._tree is not None and rows[0].row() < len(ids):
            node_id = ids[rows[0].row()]
            try:
                self._tree.node(node_id)
            except KeyError:  # below a split C4.5's collapse took back
                self.status.setText(
                    f"Node {node_id} is gone: the collapse step made its parent a leaf."
                )
                return
            self.node_chosen.emit(node_id)

    def _on_speed_value_changed(self, index: int) -> None:
        seconds = SECONDS_PER_STEP[index]
        self._timer.setInterval(int(seconds * 1000))
        self.speed_label.setText(f"a step every {seconds:g} s")

    def _on_play_button_toggled(self, on: bool) -> None:
        if on:
            self._timer.start(int(SECONDS_PER_STEP[self.speed.value()] * 1000))
        else:
            self._timer.stop()

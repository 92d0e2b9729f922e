"""Pruning, seen. For CART: leaves, training and CV error against alpha, with a slider that
prunes the tree on the canvas live. For C4.5's pessimistic and reduced-error pruning: what was
decided where, what was cut (drawn on the canvas), and a walk through the decisions in the
order they were made."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QFontMetricsF, QPainterPath
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSlider,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from engine.evaluate.per_node import NO_CV_CURVE
from engine.prune.cost_complexity import cost_complexity_path, prune_to_step
from engine.prune.record import COLLAPSED, IS_LEAF, KEPT, PRUNED, RAISED, RECORD_LIMIT, node_at
from gui.panels.cards import Card
from gui.panels.error_plot import ErrorPlot
from gui.panels.lazy_plot import LazyPlot
from gui.panels.pruning_text import decision_html
from gui.wheel_guard import PlotInPanel

#: Said under the path instead of a test curve when cross-validation's rows are on the tree.
NO_CV_PATH = (
    "Cross-validation's held-out rows are on the tree, but no test curve is drawn along the "
    "path: their predictions are the fold trees', which pruning this tree does not change. "
    "Cross-validate alpha gives the cross-validated error of every step."
)

INTROS = {
    "pessimistic": (
        "C4.5 prunes bottom-up (seed 001): at each node, keep the subtree, make a "
        "leaf, or raise the biggest branch, whichever has the fewest estimated errors."
    ),
    "reduced-error": (
        "Reduced-error pruning goes bottom-up over rows held out from growing (seed "
        "004): a subtree becomes a leaf when that adds no error on them."
    ),
}
DETAILS = {
    "pessimistic": (
        "An estimate is the rows times the upper confidence bound on the error rate; "
        "a subtree's is the sum over its leaves. Before that, splits that do not lower "
        "the training error are collapsed."
    ),
    "reduced-error": "The held-out rows are routed through the grown tree; errors are counted, not estimated.",
}
#: The test rows' error along the path: not the slider marker's colour, nor the CV curve's.
TEST_COLOUR = "#7B3294"
#: The walk-through's error plot has a point for at most this many of its states.
WALK_POINTS = 200
#: ... and at most about this many nodes counted over all its points,
NODE_BUDGET = 200_000
#: ... on the window's thread up to this many (more are counted on a worker).
NODES_AT_ONCE = 20_000

HOW = (
    "Select a node to see its options in the Inspector (leaves too), show what was cut on the "
    "canvas, or walk through the decisions in the order they were made."
)


class _Plots(PlotInPanel, pg.GraphicsLayoutWidget):
    """Plots that ask for little room: in a scrolling dock the panel's height follows its parts'
    size hints (the wrapped labels make it height-for-width), and pyqtgraph asks for 480 px."""

    HINT = QSize(300, 200)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT


class _StepSample(pg.ItemSample):
    """A legend sample drawn as a step, for a curve drawn as steps."""

    def paint(self, p, *args):
        p.setPen(pg.mkPen(self.item.opts["pen"]))
        path = QPainterPath(QPointF(0, 16))
        for x, y in ((7, 16), (7, 9), (14, 9), (14, 2), (20, 2)):
            path.lineTo(QPointF(x, y))
        p.drawPath(path)


def _plain_axis(axis: pg.AxisItem, label: str) -> None:
    axis.enableAutoSIPrefix(False)  # "0.02", not "20 (x0.001)"
    axis.setLabel(label)


class PruningPanel(QWidget):
    """The pruning of the tree on screen, as its method allows.

    Signals
    -------
    pruned(object, float) : the tree pruned at the slider's alpha, and that alpha.
    cv_requested() : the user asked for the cross-validated error per alpha.
    walk_shown(object, int) : a walk-through state to show, and the node decided next (-1: none).
    ghosts_toggled(bool) : the user asked to show (or hide) what pruning cut.
    """

    pruned = Signal(object, float)
    cv_requested = Signal()
    walk_shown = Signal(object, int)
    ghosts_toggled = Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.full = None
        self.measure = "impurity"  # what the path's alphas weigh: see engine.prune.cost_complexity
        self.path = None
        self.alphas = np.zeros(0)
        self.steps = np.zeros(0, dtype=int)  # per alpha: the path's last step taken at it
        self.record = None
        self.pruned_tree = None
        self.walk: list[int] = []  # decisions a person follows (leaves' bounds are in them)
        self.position = -1  # in ``walk``; len(walk): the end; -1: not walking
        self.held = None  # the window's test rows, drawn along the path and the walk (issue 32)
        self.algorithm: str | None = None
        self._path_errors = None  # (full tree, test rows, their error per step) once counted
        self._walk_token = 0  # counts the walk's error plots asked for (a late one is dropped)
        self._walk_job = None  # the worker counting the walk's errors, if one was started
        self._walk_x = np.zeros(0)  # the walk positions the error plot has a point for
        self.pages = QStackedWidget()
        self.message = QLabel("Train a tree to see how it was pruned.")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.pages.addWidget(self.message)
        self.pages.addWidget(self._build_path_page())
        self.pages.addWidget(self._build_record_page())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.pages)

    # ------------------------------------------------------------------ CART's path
    def _build_path_page(self) -> QWidget:
        # Made when the page is first shown or a path drawn (issue 29): most trees are not CART's.
        self.figure = LazyPlot(self._set_up_plots, make=_Plots, hint=_Plots.HINT)
        self._leaves_axis: pg.ViewBox | None = None  # the right axis's view, made with the plot
        self._tick_x = np.zeros(0)  # where the path's alphas sit on the x axis, to name some
        self.marker = pg.InfiniteLine(angle=90, pen=pg.mkPen("#D55E00", width=2))
        self.scale = QComboBox()
        self.scale.addItems(["rank", "log"])
        self.scale.setToolTip(
            "Space the alphas evenly (rank) or by their logarithm (log); "
            "the ticks name the alphas either way"
        )
        self.scale.currentTextChanged.connect(lambda *_: self._redraw())
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setToolTip("Prune at the k-th alpha of the path: the canvas follows")
        self.slider.valueChanged.connect(self._on_slider_value_changed)
        self.cv_button = QPushButton("Cross-validate alpha")
        self.cv_button.setToolTip("K-fold CV error per alpha, with the one-standard-error band")
        self.cv_button.clicked.connect(self.cv_requested.emit)
        self.info = QLabel("Train a CART tree to see its pruning path.")
        self.info.setWordWrap(True)
        self.test_note = QLabel(NO_CV_PATH)
        self.test_note.setWordWrap(True)
        self.test_note.setStyleSheet("color: #6B7280")
        self.test_note.hide()
        self._choice = None
        page = QWidget()
        row = QHBoxLayout()
        row.addWidget(QLabel("alpha axis"))
        row.addWidget(self.scale)
        row.addStretch(1)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.figure, 1)
        layout.addLayout(row)
        layout.addWidget(self.slider)
        layout.addWidget(self.cv_button)
        layout.addWidget(self.info)
        layout.addWidget(self.test_note)
        return page

    @property
    def plot(self) -> pg.PlotItem:
        """The path's plot (under the legend's row), made the first time it is needed."""
        return self.figure.plot.getItem(1, 0)

    @property
    def legend(self) -> pg.LegendItem:
        """The curves' names, in a row of their own above the plot, so they never cover a curve."""
        return self.figure.plot.getItem(0, 0)

    @property
    def leaves_axis(self) -> pg.ViewBox:
        """The view of the leaves' axis (right), made with the plot."""
        _ = self.figure.plot
        return self._leaves_axis

    def _set_up_plots(self, graphics: pg.GraphicsLayoutWidget) -> None:
        graphics.setBackground("w")
        graphics.addItem(pg.LegendItem(colCount=2, labelTextColor="#1E2430"), row=0, col=0)
        plot = graphics.addPlot(row=1, col=0)
        _plain_axis(plot.getAxis("bottom"), "alpha (effective), by rank")
        _plain_axis(plot.getAxis("left"), "share of the rows")
        self._leaves_axis = leaves = pg.ViewBox()
        plot.showAxis("right")
        _plain_axis(plot.getAxis("right"), "leaves")
        plot.scene().addItem(leaves)
        plot.getAxis("right").linkToView(leaves)
        leaves.setXLink(plot)
        plot.getViewBox().sigResized.connect(
            lambda: leaves.setGeometry(plot.getViewBox().sceneBoundingRect())
        )
        # The labels that fit depend on the plot's width and range: thinned again as they change.
        plot.getViewBox().sigResized.connect(lambda *_: self._fit_ticks())
        plot.getViewBox().sigResized.connect(lambda *_: self._fit_legend())
        plot.getViewBox().sigXRangeChanged.connect(lambda *_: self._fit_ticks())

    def _x(self) -> np.ndarray:
        """Where each alpha of the path sits on the x axis."""
        if self.scale.currentText() == "rank" or not len(self.alphas):
            return np.arange(len(self.alphas), dtype=float)
        positive = self.alphas[self.alphas > 0]
        floor = np.log10(positive.min()) - 0.5 if len(positive) else 0.0
        with np.errstate(divide="ignore"):
            return np.where(self.alphas > 0, np.log10(np.maximum(self.alphas, 1e-300)), floor)

    def _fit_legend(self) -> None:
        """The curves' names in two columns where two fit the plot's width, else in one: at
        1024 px the dock is too narrow for two, and "training error" read "training"."""
        legend = self.legend
        widths = [
            sample.boundingRect().width() + label.boundingRect().width() + 12
            for sample, label in legend.items
        ]
        two = max((sum(widths[k : k + 2]) for k in range(0, len(widths), 2)), default=0.0)
        legend.setColumnCount(2 if two + 24 <= self.figure.plot.width() else 1)

    def _ticks(self, x: np.ndarray) -> None:
        self._tick_x = x
        self._fit_ticks()
        scale = self.scale.currentText()
        units = ", in errors" if self.measure == "errors" else ""
        self.plot.getAxis("bottom").setLabel(
            f"alpha (effective{units}), {'by rank' if scale == 'rank' else 'log scale'}"
        )

    def _fit_ticks(self) -> None:
        """Name as many alphas as fit at the plot's width, each label clear of the last by a
        gap (issue 30: at 1024 px the dock is narrow and eight labels ran into each other)."""
        x = self._tick_x
        if not len(x) or len(x) != len(self.alphas) or not self.figure.built:
            return
        axis, box = self.plot.getAxis("bottom"), self.plot.getViewBox()
        metrics = QFontMetricsF(axis.style.get("tickFont") or axis.font())
        gap = metrics.horizontalAdvance("  ")
        (left, right), width = box.viewRange()[0], box.width()
        span = right - left
        ticks, end = [], -np.inf
        for k in range(len(x)):
            text = f"{self.alphas[k]:.3g}"
            half = metrics.horizontalAdvance(text) / 2
            at = (x[k] - left) / span * width if span > 0 and width > 0 else 0.0
            if span > 0 and width > 0 and at - half < end + gap:
                continue  # would run into the label before it
            ticks.append((float(x[k]), text))
            end = at + half
        axis.setTicks([ticks, []])

    def set_tree(self, full_tree, path=None, measure: str = "impurity") -> None:
        """``full_tree``: the unpruned CART tree whose path to show (None clears); ``path`` its
        cost-complexity path in ``measure``'s units when already worked out (a big tree's
        takes a moment)."""
        self.full, self._choice, self.measure = full_tree, None, measure
        if full_tree is None:
            self.path, self.alphas = None, np.zeros(0)
            if self.figure.built:
                self.plot.clear()
                self.leaves_axis.clear()
                self.legend.clear()
            self.info.setText("Train a CART tree to see its pruning path.")
            return
        self.path = path if path is not None else cost_complexity_path(full_tree, measure)
        self.alphas, _ = np.unique(self.path.alphas, return_index=True)
        # The tree pruned at an alpha has taken every step with that alpha: the last one counts.
        self.steps = (
            len(self.path.alphas) - 1 - np.unique(self.path.alphas[::-1], return_index=True)[1]
        )
        self._redraw()
        self.slider.blockSignals(True)
        self.slider.setRange(0, len(self.alphas) - 1)
        self.slider.setValue(0)
        self.slider.blockSignals(False)
        self.marker.setValue(float(self._x()[0]))
        leaves = self.path.n_leaves[np.unique(self.path.alphas, return_index=True)[1]]
        self.info.setText(
            f"{len(self.alphas)} subtrees from {leaves[0]} leaves down to 1. "
            "Drag the slider to prune."
        )

    def _redraw(self) -> None:
        """Draw the path now if the plot is on screen, else when it shows or is asked for: a
        CART training redrew it behind the Inspector, with its legend, ticks and CV band."""
        if self.full is not None:
            self.figure.paint(self._draw_path)

    def _draw_path(self) -> None:
        if self.full is None:
            return
        self.plot.clear()
        self.leaves_axis.clear()
        self.legend.clear()
        x = self._x()
        first = np.unique(self.path.alphas, return_index=True)[1]
        impurity = self.path.impurities[first]
        label = "leaf impurity (training)"
        if self.measure == "errors":  # rows, not shares: over the root's, rpart's rel error
            root = float(self.path.impurities[-1])
            impurity = impurity / root if root > 0 else impurity * 0.0
            label = "relative error (training, rpart's)"
        curve = self.plot.plot(
            x,
            impurity,
            pen=pg.mkPen("#0072B2", width=2),
            symbol="o",
            symbolSize=5,
            symbolBrush="#0072B2",
        )
        self.legend.addItem(curve, label)
        if not self.full.is_regression:
            errors = self.path.errors[self.steps]
            curve = self.plot.plot(
                x,
                errors,
                pen=pg.mkPen("#E69F00", width=2),
                symbol="s",
                symbolSize=5,
                symbolBrush="#E69F00",
            )
            self.legend.addItem(curve, "training error")
        test = self._path_test()
        if test is not None:
            curve = self.plot.plot(
                x,
                test[self.steps],
                pen=pg.mkPen(TEST_COLOUR, width=2),
                symbol="d",
                symbolSize=7,
                symbolBrush=TEST_COLOUR,
            )
            self.legend.addItem(
                curve, "test squared error" if self.full.is_regression else "test error"
            )
        # Subtree k is the best from alpha k up to alpha k + 1: a step, not a slope.
        right = x[-1] + (1.0 if self.scale.currentText() == "rank" else 0.5)
        edges = np.append(x, right)
        leaves = self.path.n_leaves[first].astype(float)
        steps = pg.PlotCurveItem(
            edges,
            leaves,
            stepMode="center",
            pen=pg.mkPen("#6B7280", width=1.5, style=Qt.PenStyle.DashLine),
        )
        self.leaves_axis.addItem(steps)
        self.legend.addItem(_StepSample(steps), "leaves (right axis)")
        self.leaves_axis.setYRange(0, leaves.max() * 1.05)
        self._fit_legend()
        self.plot.addItem(self.marker)
        self.marker.setValue(float(x[self.slider.value()]) if len(x) > self.slider.value() else 0.0)
        self._ticks(x)
        if self._choice is not None:
            self._draw_cv(self._choice)

    def _path_test(self) -> np.ndarray | None:
        """The test rows' error at every step of the path (regression: their mean squared
        error, beside the leaves' impurity), or None without test rows that fit the tree."""
        held, full, path = self.held, self.full, self.path
        if held is None or full is None or held.cross_validated or not held.fits(full):
            return None  # cross-validation's rows: the fold trees' predictions, not the path's
        known = self._path_errors
        if known is not None and known[0] is full and known[1] is held:
            return known[2]
        from engine.evaluate.per_node import path_curve
        from gui.session.jobs import Job, count_at_once, run_aside

        def count(_monitor=None):
            curve = path_curve(full, path, held.data, "cart")
            return curve.test**2 if full.is_regression else curve.test

        if count_at_once(held.data.n_rows, full):
            self._path_errors = (full, held, count())
            return self._path_errors[2]
        self._path_errors = (full, held, None)  # counting: drawn when done

        def done(errors) -> None:
            if self.full is full and self.held is held:
                self._path_errors = (full, held, errors)
                self._redraw()

        job = Job("Counting the test rows along the path", count)
        job.finished.connect(done)
        run_aside(job)
        return None

    def set_held_out(self, held) -> None:
        """Test rows (an ``engine.evaluate.per_node.HeldOut``) to draw along the path and the
        walk-through, or None."""
        self.held = held
        self.test_note.setVisible(held is not None and held.cross_validated)
        if self.full is not None:
            self._redraw()
        if self.record is not None:
            self._draw_walk_errors()

    def show_cv(self, choice) -> None:
        """Draw the CV error per alpha with its one-standard-error band and mark the choice."""
        self._choice = choice
        self._redraw()
        self.select_alpha(choice.chosen_alpha)
        self.info.setText(
            f"Minimum CV error at alpha = {choice.min_alpha:.4g}; one-standard-error "
            f"rule: alpha = {choice.one_se_alpha:.4g} (chosen: {choice.chosen_alpha:.4g})."
        )

    def _draw_cv(self, choice) -> None:
        x = np.interp(choice.alphas, self.alphas, self._x())
        err, se = choice.cv_error, choice.cv_se
        curve = self.plot.plot(
            x,
            err,
            pen=pg.mkPen("#009E73", width=2),
            symbol="t",
            symbolSize=6,
            symbolBrush="#009E73",
        )
        self.legend.addItem(curve, "cross-validated error (± 1 SE)")
        upper = pg.PlotCurveItem(x, err + se, pen=pg.mkPen(None))
        lower = pg.PlotCurveItem(x, err - se, pen=pg.mkPen(None))
        self.plot.addItem(pg.FillBetweenItem(upper, lower, brush=pg.mkBrush(0, 158, 115, 50)))
        best = err.min() + se[int(np.argmin(err))]
        self.plot.addItem(
            pg.InfiniteLine(pos=best, angle=0, pen=pg.mkPen("#009E73", style=Qt.PenStyle.DotLine))
        )
        chosen = float(np.interp(choice.chosen_alpha, self.alphas, self._x()))
        self.plot.addItem(
            pg.InfiniteLine(
                pos=chosen, angle=90, pen=pg.mkPen("#CC79A7", width=2, style=Qt.PenStyle.DashLine)
            )
        )

    def select_alpha(self, alpha: float, emit: bool = True) -> None:
        """Move the slider to ``alpha``; without ``emit`` the tree on screen stays as it is."""
        k = max(0, int(np.searchsorted(self.alphas, alpha + 1e-15, side="right") - 1))
        self.slider.blockSignals(not emit)
        self.slider.setValue(k)
        self.slider.blockSignals(False)
        if not emit and self.full is not None and len(self.alphas):
            self.marker.setValue(float(self._x()[k]))

    def _on_slider_value_changed(self, k: int) -> None:
        if self.full is None or not len(self.alphas):
            return
        alpha = float(self.alphas[k])
        self.marker.setValue(float(self._x()[k]))
        tree = prune_to_step(self.full, self.path, int(self.steps[k]))
        self.info.setText(f"alpha = {alpha:.4g}: {tree.n_leaves} leaves, {tree.n_nodes} nodes.")
        self.pruned.emit(tree, alpha)

    # ------------------------------------------------------------------ C4.5 and reduced-error
    def _build_record_page(self) -> QWidget:
        self.intro = QLabel()
        self.intro.setWordWrap(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.ghosts = QCheckBox("Show what pruning cut on the canvas")
        self.ghosts.setToolTip(
            "Draw the removed subtrees faintly below the leaves pruning left "
            "(View > Show what pruning cut, Ctrl+G)"
        )
        self.ghosts.toggled.connect(self.ghosts_toggled)
        self.walk_start = QPushButton("« Start")
        self.walk_start.setToolTip("Back to the tree as grown, before the first decision")
        self.walk_back = QPushButton("◀ Back")
        self.walk_next = QPushButton("Next ▶")
        self.walk_next.setToolTip("Make this decision and go to the next (bottom-up)")
        self.walk_end = QPushButton("End »")
        self.walk_end.setToolTip("The pruned tree, every decision made")
        self.walk_start.clicked.connect(lambda: self.walk_to(0))
        self.walk_back.clicked.connect(lambda: self.walk_to(max(self.position - 1, 0)))
        self.walk_next.clicked.connect(lambda: self.walk_to(self.position + 1))
        self.walk_end.clicked.connect(lambda: self.walk_to(len(self.walk)))
        self.walk_label = QLabel("Press Start to walk through pruning, bottom-up.")
        self.walk_label.setWordWrap(True)
        self.decision = Card("")
        self.walk_errors = ErrorPlot("decisions made")
        self.walk_errors.setToolTip(
            "The tree's error as the walk's decisions are made: on its training rows and, "
            "once a run is evaluated on a test file, on those test rows"
        )
        # The plot scrolls with the decision, under it: what is weighed comes first, and the
        # card keeps the dock's height (at 1024 x 700 there is little of it).
        walked = QWidget()
        walked_layout = QVBoxLayout(walked)
        walked_layout.setContentsMargins(0, 0, 0, 0)
        walked_layout.addWidget(self.decision)
        walked_layout.addWidget(self.walk_errors)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(walked)
        buttons = QHBoxLayout()
        for button in (self.walk_start, self.walk_back, self.walk_next, self.walk_end):
            # Narrow docks: the four share what there is rather than widen the panel.
            button.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
            button.setMinimumWidth(48)
            buttons.addWidget(button)
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.intro)
        layout.addWidget(self.summary)
        layout.addWidget(self.ghosts)
        layout.addWidget(QLabel("<b>Walk through pruning</b>"))
        layout.addLayout(buttons)
        layout.addWidget(self.walk_label)
        layout.addWidget(scroll, 1)
        return page

    def set_record(self, tree) -> None:
        """Show the decisions of the pruning that made ``tree`` (its ``pruning`` record)."""
        self.record, self.pruned_tree = tree.pruning, tree
        self.walk = [d.step for d in self.record.decisions if d.verdict != IS_LEAF]
        self.position = -1
        counts = Counter(self.record.decisions[k].verdict for k in self.walk)
        words = [
            f"{counts[v]} {w}"
            for v, w in (
                (PRUNED, "pruned to a leaf"),
                (RAISED, "raised"),
                (COLLAPSED, "collapsed"),
                (KEPT, "kept"),
            )
            if counts[v]
        ]
        before, after = self.record.before.n_nodes, tree.n_nodes
        self.intro.setText(INTROS[self.record.method])
        self.intro.setToolTip(f"{DETAILS[self.record.method]} {HOW}")
        self.summary.setText(
            f"{len(self.walk)} decision{'s' if len(self.walk) != 1 else ''} "
            f"({', '.join(words) or 'none'}): "
            f"{before} nodes as grown, {after} after."
        )
        self.walk_label.setText("Press Start to walk through pruning, bottom-up.")
        self.decision.setText("")
        self._draw_walk_errors()
        self._enable_walk()

    def walk_to(self, position: int) -> None:
        """Show the tree just before the ``position``-th decision (``len(walk)``: the pruned tree)."""
        if self.record is None:
            return
        self.position = max(0, min(position, len(self.walk)))
        if self.position == len(self.walk):
            self.walk_label.setText(f"All {len(self.walk)} decisions made: the pruned tree.")
            self.decision.setText("")
            self.walk_shown.emit(self.pruned_tree, -1)
        else:
            decision = self.record.decisions[self.walk[self.position]]
            state = self.record.tree_at(decision.step)
            node = node_at(state.root, decision.path)
            self.walk_label.setText(
                f"Decision {self.position + 1} of {len(self.walk)}: node "
                f"{node.id} (highlighted), in the order C4.5 makes them"
                if self.record.method == "pessimistic"
                else f"Decision {self.position + 1} of {len(self.walk)}: node {node.id}"
            )
            self.decision.setText(
                decision_html(
                    state,
                    decision,
                    self.record,
                    decision.before if decision.before is not None else node,
                )
            )
            self.walk_shown.emit(state, node.id)
        self._mark_walk()
        self._enable_walk()

    def _walk_states(self) -> list[int]:
        """The walk positions the error plot has a point for: every one (0: as grown; the
        last: all decisions made), or as many as :data:`WALK_POINTS` evenly spread."""
        n = len(self.walk)
        # Each point is a tree of its own to count: fewer for big trees, so it stays quick.
        points = max(20, min(WALK_POINTS, NODE_BUDGET // max(self.record.before.n_nodes, 1)))
        if n + 1 <= points:
            return list(range(n + 1))
        return sorted(set(np.linspace(0, n, points).round().astype(int).tolist()))

    def _draw_walk_errors(self) -> None:
        """Training and test error of the tree after each decision of the walk."""
        if self._walk_job is not None:  # an older walk's count is not wanted any more
            self._walk_job.cancel()
            self._walk_job = None
        if self.record is None:
            self._walk_token += 1
            self.walk_errors.clear()
            return
        from engine.data.encoding import without_rows
        from engine.evaluate.per_node import error_curve
        from gui.session.jobs import Job, count_at_once, run_aside

        record, pruned, walk, algorithm = self.record, self.pruned_tree, self.walk, self.algorithm
        positions = self._walk_states()
        held = self.held
        cv = held is not None and held.cross_validated  # the fold trees': no curve of this walk
        held = held if held is not None and not cv and held.fits(pruned) else None
        rows = held.data if held is not None else without_rows(pruned.schema)

        def count(_monitor=None):
            trees = [
                pruned if p == len(walk) else record.tree_at(record.decisions[walk[p]].step)
                for p in positions
            ]
            return error_curve(trees, rows, algorithm)

        self._walk_token += 1
        token = self._walk_token

        def show(curve) -> None:
            if token != self._walk_token:
                return  # another record or other test rows since
            self._walk_x = np.array(positions, dtype=float)
            self.walk_errors.show_curve(
                self._walk_x,
                curve.train,
                curve.test if held is not None else None,
                curve.measure,
                held.label if held is not None else "",
                absent=NO_CV_CURVE if cv else "",
            )
            self._mark_walk()

        # Each point is a tree built again and counted: many of a big tree go to a worker.
        quick = len(positions) * record.before.n_nodes <= NODES_AT_ONCE
        if quick and (held is None or count_at_once(rows.n_rows, pruned)):
            self._walk_x = np.array(positions, dtype=float)  # the walk's marks need them now
            self.walk_errors.show_later(lambda: show(count()))  # counted once it is looked at
            return
        self.walk_errors.clear()

        def start() -> None:
            job = Job("Counting the test rows along the walk", count)
            job.finished.connect(show)
            self._walk_job = run_aside(job)

        # Started once the plot is looked at, as the quick count is: after every C4.5 training
        # of a thousand rows it held a worker and the interpreter for a second, the plot
        # unseen, and the next F5's fit and drawing waited on it.
        self.walk_errors.show_later(start)

    def _mark_walk(self) -> None:
        """Mark the walk's position on its error plot (as grown before the walk starts)."""
        position = self.position if self.position >= 0 else len(self.walk)
        at = np.flatnonzero(self._walk_x <= position)
        self.walk_errors.mark(int(at[-1]) if len(at) else 0)

    def _enable_walk(self) -> None:
        walking = self.record is not None and bool(self.walk)
        self.walk_start.setEnabled(walking)
        self.walk_back.setEnabled(walking and self.position > 0)
        self.walk_next.setEnabled(walking and self.position < len(self.walk))
        self.walk_end.setEnabled(walking and self.position != len(self.walk))

    # ------------------------------------------------------------------ what to show
    def show_result(self, result) -> None:
        """The page for a training's result: CART's path, a pruning record, or why neither."""
        self.set_tree(None)
        self.record = None
        if result is None:
            self.message.setText("Train a tree to see how it was pruned.")
            self.pages.setCurrentIndex(0)
            return
        tree, settings = result.model.tree_, result.model.settings_
        self.algorithm = settings.algorithm
        if result.full_tree is not None and settings.prune != "reduced-error":
            self.set_tree(result.full_tree, result.path, settings.ccp_measure)
            self.pages.setCurrentIndex(1)
            if (
                settings.prune == "cost-complexity"
            ):  # the trained tree is on screen: so are slider and marker
                alpha = alpha_on_screen(tree, result.path, settings.alpha)
                self.select_alpha(alpha, emit=False)
                how = (
                    f"chosen by {settings.cv_alpha}-fold cross-validation"
                    f"{', one-standard-error rule' if settings.one_se else ''}"
                    if settings.cv_alpha
                    else "as set in the Algorithm panel"
                )
                self.info.setText(
                    f"The tree on screen is pruned at alpha = {alpha:.4g} ({how}): "
                    f"{tree.n_leaves} leaves. Drag the slider to prune differently."
                )
            return
        if tree.pruning is not None:
            self.set_record(tree)
            self.pages.setCurrentIndex(2)
            return
        self.message.setText(_why_nothing(settings))
        self.pages.setCurrentIndex(0)

    def bind(self, controller) -> None:
        """Show each training's pruning; the slider, CV alpha and the walk put trees on screen."""
        from gui.controller import CV_ALPHA, PRUNED, TRAINED, WALKED

        origin = [PRUNED]

        def on_alpha_chosen(choice) -> None:
            origin[0] = CV_ALPHA
            try:
                self.show_cv(choice)
            finally:
                origin[0] = PRUNED

        controller.result_changed.connect(self.show_result)
        controller.held_out_changed.connect(self.set_held_out)
        controller.alpha_chosen.connect(on_alpha_chosen)
        self.pruned.connect(lambda tree, alpha: controller.show_pruned(tree, alpha, origin[0]))
        self.cv_requested.connect(controller.cross_validate_alpha)

        def on_walk_shown(tree, node_id: int) -> None:
            if node_id >= 0:
                controller.show_tree(tree, node_id, WALKED)
            else:  # the walk's end: the trained tree again, with its training's figures
                recipe = (
                    controller.result.model.settings_ if controller.result is not None else None
                )
                controller.show_tree(tree, -1, TRAINED, recipe)

        self.walk_shown.connect(on_walk_shown)


def alpha_on_screen(tree, path, alpha: float | None) -> float:
    """The alpha of the path at which ``tree`` (a CART tree pruned on that path) stands.

    Cross-validation chooses alpha inside the training and the tree keeps no note of it; the
    path's subtrees each have fewer leaves than the one before, so the leaves say which it is.
    """
    hits = np.flatnonzero(np.asarray(path.n_leaves) == tree.n_leaves)
    return float(path.alphas[hits[0]]) if len(hits) else float(alpha or 0.0)


def _why_nothing(settings) -> str:
    """What the Pruning tab offers when the tree on screen has neither a path nor a record."""
    if settings.prune == "none":
        if settings.algorithm == "c45":
            return (
                "C4.5 with pruning off: only its collapse step ran (splits that do not lower the "
                "training error become leaves). Choose pessimistic pruning (C4.5's own) or "
                "reduced-error pruning and train again: this tab then shows every decision, "
                "lets you walk through them and draws what was cut."
            )
        return (
            "This tree is not pruned. Choose reduced-error pruning and train again to see its "
            "decisions here."
        )
    return (
        f"The grown tree had more than {RECORD_LIMIT:,} nodes, so its pruning decisions were "
        "not kept: each node's estimates are still in the Inspector."
    )

"""The selected run's evaluations: per-class figures and confusion matrix, ROC and
precision-recall curves (or predicted against actual and residuals for regression), and the
report as text to copy."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from engine.errors import ArborError
from engine.evaluate.gains import curve_least_cost, gains_points, lift_points
from engine.evaluate.report import evaluation_text, per_class_rows
from gui.drawing import palette
from gui.panels.bias_and_variance import (
    BIAS_VARIANCE,
    LEARNING,
    BiasVarianceView,
    LearningCurveView,
)
from gui.panels.confusion_view import ConfusionView
from gui.panels.importance import IMPORTANCE, ImportanceView
from gui.panels.lazy_plot import LazyPlot

CURVES = ("ROC", "Precision-recall", "Cumulative gains", "Lift")
PLOTS = ("Predicted against actual", "Residuals")


def _cell(value) -> str:
    return "?" if value is None or np.isnan(value) else f"{value:.3f}"


class CurvesView(QWidget):
    """ROC or precision-recall curves of every class (classification), or predicted against
    actual and the residuals (regression), with the legend below the plot, not over it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind = QComboBox()
        self.kind.setToolTip(
            "ROC: true against false positive rate as the threshold falls; precision-"
            "recall: how pure the rows called positive are as more are found; cumulative "
            "gains: the share of the class found against the share of rows targeted, most "
            "probable first; lift: how many times better than targeting at random"
        )
        # Made when the tab is first shown or there is something to draw (issue 29).
        self.figure = LazyPlot(self._set_up, make=lambda: pg.PlotWidget(background="w"))
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kind)
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.legend)
        layout.addWidget(self._costs_row())
        self.kind.currentIndexChanged.connect(lambda *_: self._draw())
        self.evaluation = None
        self._lines: dict[str, object] = {}

    def _costs_row(self) -> QWidget:
        """Two classes: the costs of the two errors and the threshold of least total cost."""
        self.costs = QWidget()
        self.positive = QComboBox()
        self.positive.setToolTip("The class whose predicted probability is thresholded")
        self.cost_fp, self.cost_fn = QDoubleSpinBox(), QDoubleSpinBox()
        for box, tip in (
            (self.cost_fp, "The cost of calling a row of the other class positive"),
            (self.cost_fn, "The cost of missing a row of the positive class"),
        ):
            box.setRange(0.0, 1e6)
            box.setDecimals(2)
            box.setValue(1.0)
            box.setToolTip(tip)
            box.valueChanged.connect(lambda *_: self._show_least_cost())
        self.positive.currentIndexChanged.connect(lambda *_: self._show_least_cost())
        self.least_cost = QLabel()
        self.least_cost.setWordWrap(True)
        self.least_cost.setTextFormat(Qt.TextFormat.PlainText)  # class names from the file
        # A form, not one row: one row was 550 px wide, wider than the dock at 1280.
        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Positive class:", self.positive)
        form.addRow("Cost of a false positive:", self.cost_fp)
        form.addRow("Cost of a miss:", self.cost_fn)
        box = QVBoxLayout(self.costs)
        box.setContentsMargins(0, 0, 0, 0)
        box.addLayout(form)
        box.addWidget(self.least_cost)
        self.costs.hide()
        return self.costs

    def _show_least_cost(self) -> None:
        ev = self.evaluation
        two = ev is not None and ev.classes is not None and len(ev.classes) == 2
        self.costs.setVisible(two)
        if not two:
            return
        names = [c.label for c in ev.curves] or list(ev.classes)
        if [self.positive.itemText(i) for i in range(self.positive.count())] != names:
            self.positive.blockSignals(True)
            self.positive.clear()
            self.positive.addItems(names)
            self.positive.setCurrentIndex(len(names) - 1)
            self.positive.blockSignals(False)
        k = self.positive.currentIndex()
        if not ev.curves or k < 0:
            self.least_cost.setText("The curves of this evaluation are not kept.")
            return
        try:
            op = curve_least_cost(ev.curves[k], self.cost_fp.value(), self.cost_fn.value())
        except ArborError as err:
            self.least_cost.setText(f"No cost-optimal threshold: {err}.")
            return
        other = names[1 - k]
        rule = (
            f"never predict {op.positive}"
            if np.isinf(op.threshold)
            else f"predict {op.positive} when its probability is at least {op.threshold:.3g}"
        )
        self.least_cost.setText(
            f"Least total cost: {rule}, else {other} ({op.false_positives:g} false, "
            f"{op.false_negatives:g} missed; cost {op.cost:g}, {op.average_cost:.3g} a row)"
        )

    @property
    def plot(self) -> pg.PlotWidget:
        """The plot, made the first time it is needed."""
        return self.figure.plot

    @staticmethod
    def _set_up(plot: pg.PlotWidget) -> None:
        plot.setMenuEnabled(False)
        plot.showGrid(x=True, y=True, alpha=0.15)

    def show_evaluation(self, ev) -> None:
        self.evaluation = ev
        wanted = PLOTS if ev is not None and ev.classes is None else CURVES
        if tuple(self.kind.itemText(i) for i in range(self.kind.count())) != wanted:
            self.kind.blockSignals(True)
            self.kind.clear()
            self.kind.addItems(list(wanted))
            self.kind.blockSignals(False)
        self._draw()

    @property
    def lines(self) -> dict[str, object]:
        """Each class's curve as drawn, drawn now if it was waiting for the plot."""
        if self.figure.built or self.evaluation is not None:
            _ = self.figure.plot
        return self._lines

    def _draw(self) -> None:
        """The legend now; the curves now if they are on screen, else when they show (a
        training redraws them, most often behind another tab)."""
        self._lines = {}
        ev = self.evaluation
        self._show_least_cost()
        if ev is None:
            self.legend.setText("")
        else:
            self._draw_on(ev, None)  # the legend alone
        self.figure.paint(lambda: self._draw_on(self.evaluation, self.plot))

    def _draw_on(self, ev, plot: pg.PlotWidget | None) -> None:
        """Draw ``ev`` on ``plot`` and write the legend (``plot`` None: the legend alone)."""
        self._lines = {}
        if plot is not None:
            plot.clear()
            if ev is None:
                return
        if ev.classes is None:
            self._draw_regression(ev, plot)
        else:
            self._draw_curves(ev, plot)
        if plot is not None:
            plot.getViewBox().autoRange(padding=0.02)

    def _draw_curves(self, ev, plot) -> None:
        if self.kind.currentText() in CURVES[2:]:
            self._draw_gains(ev, plot, lift=self.kind.currentText() == CURVES[3])
            return
        roc = self.kind.currentText() != CURVES[1]
        if plot is not None:
            plot.setLabel("bottom", "false positive rate" if roc else "recall")
            plot.setLabel("left", "true positive rate" if roc else "precision")
        kept = [c for c in ev.curves if len(c.roc)]
        if not kept:
            self.legend.setText(
                "The curve points of older runs are not kept (their areas are, in the "
                "Per class tab); show the run's tree and evaluate it again to draw them."
            )
            return
        if roc and plot is not None:
            plot.plot([0, 1], [0, 1], pen=pg.mkPen("#B0B7C3", style=Qt.PenStyle.DashLine))
        entries = []
        for k, curve in enumerate(ev.curves):
            if not len(curve.roc):
                continue
            colour = palette.class_colour(k)
            if plot is not None:
                points = curve.roc if roc else curve.pr
                if not roc:  # the curve starts at recall 0
                    points = np.vstack([[0.0, points[0, 1]], points])
                ok = ~np.isnan(points).any(axis=1)
                self._lines[curve.label] = plot.plot(
                    points[ok, 0], points[ok, 1], pen=pg.mkPen(colour, width=2), stepMode=None
                )
            value = curve.roc_auc if roc else curve.average_precision
            baseline = "" if roc else f", random {curve.positives / curve.n:.3f}" if curve.n else ""
            entries.append(
                f"<span style='color:{colour.name()}'>&#9632;</span>&nbsp;{escape(curve.label)} "
                f"({'AUC' if roc else 'AP'} {_cell(value)}{baseline})"
            )
        if plot is not None:
            plot.setXRange(0, 1, padding=0.02)
            plot.setYRange(0, 1, padding=0.02)
        note = (
            "each class against the rest; dashed: a random ranking"
            if roc
            else "each class against the rest; AP: average precision"
        )
        self.legend.setText(
            " &nbsp; ".join(entries) + f"<br><span style='color:#6B7280'>{note}</span>"
        )

    def _draw_gains(self, ev, plot, lift: bool) -> None:
        """Cumulative gains or lift of each class (from its ROC curve and size)."""
        if plot is not None:
            plot.setLabel("bottom", "share of rows targeted, most probable first")
            plot.setLabel("left", "lift" if lift else "share of the class found")
        entries = []
        for k, curve in enumerate(ev.curves):
            points = lift_points(curve) if lift else gains_points(curve)
            if not len(points):
                continue
            colour = palette.class_colour(k)
            if plot is not None:
                self._lines[curve.label] = plot.plot(
                    points[:, 0], points[:, 1], pen=pg.mkPen(colour, width=2)
                )
            best = f", best lift {points[:, 1].max():.2f}" if lift else ""
            entries.append(
                f"<span style='color:{colour.name()}'>&#9632;</span>&nbsp;{escape(curve.label)}"
                f" ({curve.positives / curve.n:.0%} of the rows{best})"
            )
        if not entries:
            self.legend.setText(
                "The curve points of older runs are not kept; show the run's tree and "
                "evaluate it again to draw them."
            )
            return
        if plot is not None:
            dashed = pg.mkPen("#B0B7C3", style=Qt.PenStyle.DashLine)
            plot.plot([0, 1], [1, 1] if lift else [0, 1], pen=dashed)
            plot.setXRange(0, 1, padding=0.02)
            if not lift:
                plot.setYRange(0, 1, padding=0.02)
        note = "each class against the rest; dashed: targeting at random"
        self.legend.setText(
            " &nbsp; ".join(entries) + f"<br><span style='color:#6B7280'>{note}</span>"
        )

    def _draw_regression(self, ev, plot) -> None:
        points = ev.points
        if points is None or not len(points):
            self.legend.setText(
                "The points of older runs are not kept; show the run's tree and "
                "evaluate it again to draw them."
            )
            return
        actual, predicted = points[:, 0], points[:, 1]
        brush = pg.mkBrush(
            palette.REGRESSION.red(), palette.REGRESSION.green(), palette.REGRESSION.blue(), 140
        )
        dashed = pg.mkPen("#B0B7C3", style=Qt.PenStyle.DashLine)
        if self.kind.currentText() == PLOTS[0]:
            if plot is not None:
                lo, hi = (
                    float(min(actual.min(), predicted.min())),
                    float(max(actual.max(), predicted.max())),
                )
                plot.plot([lo, hi], [lo, hi], pen=dashed)
                plot.addItem(pg.ScatterPlotItem(actual, predicted, size=5, pen=None, brush=brush))
                plot.setLabel("bottom", "actual")
                plot.setLabel("left", "predicted")
            note = "dashed: predicted = actual"
        else:
            if plot is not None:
                residual = actual - predicted
                plot.addItem(pg.InfiniteLine(pos=0, angle=0, pen=dashed))
                plot.addItem(pg.ScatterPlotItem(predicted, residual, size=5, pen=None, brush=brush))
                plot.setLabel("bottom", "predicted")
                plot.setLabel("left", "residual")
            note = "residual = actual − predicted" + (
                "; one value per leaf, so they stand in columns" if len(ev.fold_scores) <= 1 else ""
            )
        shown = (
            f"{len(points):,} of {ev.n:g} rows"
            if len(points) < ev.n
            else f"all {len(points):,} rows"
        )
        self.legend.setText(
            f"<span style='color:#6B7280'>{shown}; {note}; RMSE {ev.rmse:.4g}, "
            f"R² {ev.r2:.3f}</span>"
        )


class EvaluationPanel(QWidget):
    """Figures of the run selected in the Runs list, one evaluation at a time; and the run's
    learning curve and bias-variance view, once computed.

    Signals
    -------
    curve_requested(str, dict) : compute the learning curve or the bias and variance
        (``LEARNING`` or ``BIAS_VARIANCE``) of the selected run with these options.
    """

    curve_requested = Signal(str, dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.controller = None
        self.run = None
        self.title = QLabel("Train a tree (F5): each run's figures show here.")
        self.title.setWordWrap(True)
        self.choice = QComboBox()
        self.choice.setToolTip(
            "Which evaluation of the run to show: the training rows, cross-validation, "
            "a test file or a percentage split"
        )
        self.headline = QLabel()
        self.headline.setWordWrap(True)
        self.per_class = QTableWidget()
        self.per_class.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.per_class.setToolTip(
            "Precision: of the rows predicted as the class, the share that are; recall: "
            "of the rows of the class, the share found; F1: their harmonic mean; ROC: "
            "the area under the class's ROC curve against the rest; PR: its average "
            "precision (the area under its precision-recall curve)"
        )
        self.per_class.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.confusion = ConfusionView()
        figures = QWidget()
        top_layout = QVBoxLayout(figures)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.headline)
        top_layout.addWidget(self.per_class, 1)
        self.curves = CurvesView()
        self.report = QPlainTextEdit()
        self.report.setReadOnly(True)
        self.report.setFont(QFont("DejaVu Sans Mono", 9))
        self.report.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        copy = QPushButton("Copy")
        copy.setToolTip("Copy the report to the clipboard")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.report.toPlainText()))
        report = QWidget()
        report_layout = QVBoxLayout(report)
        report_layout.setContentsMargins(0, 0, 0, 0)
        report_layout.addWidget(self.report, 1)
        report_layout.addWidget(copy, 0, Qt.AlignmentFlag.AlignRight)
        self.tabs = QTabWidget()
        self.tabs.addTab(figures, "Per class")
        self.tabs.addTab(self.confusion, "Confusion")
        self.tabs.addTab(self.curves, "Curves")
        self.tabs.addTab(report, "Report")
        self.learning = LearningCurveView()
        self.bias_variance = BiasVarianceView()
        self.tabs.addTab(self.learning, "Learning curve")
        self.tabs.addTab(self.bias_variance, "Bias-variance")
        self.importance = ImportanceView()
        self.tabs.addTab(self.importance, "Importance")
        self.importance.requested.connect(
            lambda options: self.curve_requested.emit(IMPORTANCE, options)
        )
        self.learning.requested.connect(
            lambda options: self.curve_requested.emit(LEARNING, options)
        )
        self.bias_variance.requested.connect(
            lambda options: self.curve_requested.emit(BIAS_VARIANCE, options)
        )
        self._curves: dict[tuple[str, int], object] = {}  # (kind, run number): its result
        row = QHBoxLayout()
        row.addWidget(QLabel("Evaluation:"))
        row.addWidget(self.choice, 1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addLayout(row)
        layout.addWidget(self.tabs, 1)
        self.choice.currentIndexChanged.connect(lambda *_: self._show_chosen())
        self.setEnabled(False)

    def bind(self, controller) -> None:
        self.controller = controller
        controller.run_selected.connect(self._on_controller_run_selected)

    def _on_controller_run_selected(self, number: int) -> None:
        self.show_run(
            self.controller.runs[number] if number >= 0 and number in self.controller.runs else None
        )

    def show_run(self, run) -> None:
        """Show ``run``'s evaluations: its newest on held-out rows (or its training figures); the same
        run again keeps the one chosen, unless an evaluation was just added."""
        previous = self.choice.currentText()
        same = run is not None and self.run is not None and run.number == self.run.number
        grew = same and len(run.evaluations) > len(self.run.evaluations)
        self.run = run
        self.setEnabled(run is not None)
        self.choice.blockSignals(True)
        self.choice.clear()
        self._show_curves()
        if run is None:
            self.title.setText("Train a tree (F5): each run's figures show here.")
            self.choice.blockSignals(False)
            self._show(None)
            return
        self.title.setText(f"<b>Run {run.number}</b>: {escape(run.title)}, {run.n_leaves} leaves")
        methods = [ev.method for ev in run.evaluations]
        self.choice.addItems(methods)
        if grew:  # an evaluation was just added: show it
            index = len(methods) - 1
        elif same and previous in methods:
            index = methods.index(previous)
        else:
            index = next((k for k, ev in enumerate(run.evaluations) if ev is run.honest), 0)
        self.choice.setCurrentIndex(index)
        self.choice.blockSignals(False)
        self._show_chosen()

    def evaluation(self):
        k = self.choice.currentIndex()
        return (
            self.run.evaluations[k]
            if self.run is not None and 0 <= k < len(self.run.evaluations)
            else None
        )

    def _show_chosen(self) -> None:
        self._show(self.evaluation())

    def _show(self, ev) -> None:
        self.curves.show_evaluation(ev)
        if ev is None:
            self.headline.setText("")
            self.per_class.setRowCount(0)
            self.report.setPlainText("")
            return
        target = (
            self.run.tree.schema.target
            if self.run.tree is not None
            else self.controller.doc.target or "class"
        )
        self.report.setPlainText(evaluation_text(ev, target))
        if ev.classes is None:
            self.headline.setText(
                f"{escape(ev.method)} ({ev.n:g} rows): RMSE {ev.rmse:.4g}, MAE {ev.mae:.4g}, "
                f"R² {ev.r2:.3f}"
            )
            self.per_class.setRowCount(0)
            self.per_class.hide()
            self.tabs.setTabVisible(1, False)
            self.tabs.setTabText(0, "Figures")
            self.tabs.setTabText(2, "Plots")
            return
        self.tabs.setTabText(0, "Per class")
        self.tabs.setTabText(2, "Curves")
        self.tabs.setTabVisible(1, True)
        spread = (
            f" ± {100 * ev.accuracy_std:.2f} over {len(ev.fold_scores)} folds"
            if len(ev.fold_scores) > 1
            else ""
        )
        auc = f", ROC area {ev.roc_auc:.3f}" if ev.curves and ev.roc_auc is not None else ""
        cost = (
            f", cost {ev.total_cost:g} in all, {ev.average_cost:.4g} a row"
            if ev.cost_matrix
            else ""
        )
        self.headline.setText(
            f"{escape(ev.method)} ({ev.n:g} rows): accuracy {100 * ev.accuracy:.2f}%{spread}, "
            f"kappa {ev.kappa:.3f}{auc}{cost}"
        )
        self._fill_per_class(ev)
        self.per_class.show()
        self.confusion.show_matrix(ev.classes, ev.confusion, target, ev.method)

    def _fill_per_class(self, ev) -> None:
        rows = per_class_rows(ev)
        heads = ("precision", "recall", "F1", "ROC", "PR")
        self.per_class.clear()
        self.per_class.setColumnCount(len(heads))
        self.per_class.setRowCount(len(rows))
        self.per_class.setHorizontalHeaderLabels(list(heads))
        self.per_class.setVerticalHeaderLabels([label for label, _ in rows])
        for r, (label, values) in enumerate(rows):
            for c, value in enumerate(values):
                item = QTableWidgetItem(_cell(value))
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                if label == "Weighted avg.":
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                self.per_class.setItem(r, c, item)
        self.per_class.resizeColumnsToContents()

    def text(self) -> str:
        return self.report.toPlainText()

    # ------------------------------------------------------------------ bias and variance
    def curve_view(self, kind: str):
        return {
            LEARNING: self.learning,
            BIAS_VARIANCE: self.bias_variance,
            IMPORTANCE: self.importance,
        }[kind]

    def request(self, kind: str) -> None:
        """Show ``kind``'s tab and compute it with its view's options."""
        view = self.curve_view(kind)
        self.tabs.setCurrentWidget(view)
        if self.run is not None and not view.running:
            view.request()

    def follow(self, kind: str, job) -> None:
        """Show ``job`` (computing ``kind``; None: it did not start) in its view."""
        if job is not None:
            self.curve_view(kind).follow(job)

    def show_curve(self, kind: str, number: int, result) -> None:
        """``result``, run ``number``'s ``kind``, is kept for the run and shown while it is."""
        self._curves[(kind, number)] = result
        if self.run is not None and self.run.number == number:
            self._show_curves()

    def _show_curves(self) -> None:
        run = self.run
        for kind in (LEARNING, BIAS_VARIANCE, IMPORTANCE):
            key = self.curve_view(kind).SHORTCUT
            view = self.curve_view(kind)
            if run is None:
                view.show_result(None, "")
                continue
            result = self._curves.get((kind, run.number))
            caption = f"Run {run.number} ({run.title})"
            hint = f"Compute ({key}) works out run {run.number}'s {view.WHAT} with its options."
            view.show_result(result, caption if result is not None else hint)

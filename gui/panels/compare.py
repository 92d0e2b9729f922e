"""Two runs side by side: their settings and figures with the differences, their confusion
matrices, and their trees."""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.evaluate.paired_test import same_folds_test
from engine.runs import settings_summary
from engine.settings import ALGORITHM_LABELS
from gui.canvas.tree_canvas import TreeCanvas
from gui.panels.confusion_view import ConfusionView
from gui.plain_text import plain_tip

BETTER, WORSE = QColor("#DCFCE7"), QColor("#FEE2E2")

#: What the paired test is, for the sentence's tooltip.
PAIRED_TIP = (
    "The corrected resampled paired t-test (Nadeau and Bengio; Weka's Experimenter): the two "
    "runs' scores on the same cross-validation folds, paired fold by fold. The folds' training "
    "sets overlap, so the variance of the mean difference is multiplied by "
    "(1/k + n_test/n_train) instead of 1/k; the plain test finds differences too often. Runs "
    "on different data, folds or seeds cannot be paired."
)


def _value(v, kind: str) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return "—"
    if kind == "%":
        return f"{100 * v:.2f}%"
    if kind == "int":
        return f"{v:,}"
    return f"{v:.4g}" if kind == "g" else f"{v:.3f}"


def held_out(ev) -> bool:
    """An evaluation on rows the tree was not grown on (cross-validation, a test file, a split)."""
    return ev is not None and not ev.method.startswith("training")


#: Why a row is never coloured: training figures reward a tree that learns its rows' noise.
TRAINING_TIP = (
    "Not coloured: on the rows it was grown on, the bigger tree nearly always scores "
    "better, noise learnt included; compare held-out figures (cross-validation, a test "
    "file or a split) instead"
)


def training_errors(ev) -> float | None:
    """Misclassified training weight (None: no classification evaluation)."""
    if ev is None or ev.classes is None:
        return None
    return float(ev.confusion.sum() - np.trace(ev.confusion))


def greedy_note(a, b) -> str:
    """Seed 000's sentence made concrete, when one run is an optimal tree and the other a
    greedy one of the same depth limit; else ""."""
    optimal = [r for r in (a, b) if r.settings.algorithm == "optimal"]
    if len(optimal) != 1 or a.settings.max_depth != b.settings.max_depth:
        return ""
    best = optimal[0]
    greedy = b if best is a else a
    errors = [training_errors(r.evaluations[0] if r.evaluations else None) for r in (greedy, best)]
    if None in errors:
        return ""
    label = ALGORITHM_LABELS.get(greedy.settings.algorithm, greedy.settings.algorithm)
    return (
        "Seed 000: finding the optimal tree is NP-hard, and greedy growth has no guarantee "
        f"of finding it. At depth {best.settings.max_depth} the greedy {label} tree makes "
        f"{errors[0]:g} training errors, the optimal tree {errors[1]:g}."
    )


def comparison_rows(a, b, method_a: str, method_b: str):
    """(label, value a, value b, kind, higher_is_better) for two runs' chosen evaluations.

    ``higher_is_better`` is None for rows that are not coloured: sizes, settings, and every
    figure on training rows (issue 30: the higher training accuracy was green, rewarding
    over-fitting). Held-out figures are coloured only when both sides are held out."""
    rows = [
        ("Settings", settings_summary(a.settings), settings_summary(b.settings), "text", None),
        (
            "Data",
            f"{a.data_name} ({a.n_rows:,} rows)",
            f"{b.data_name} ({b.n_rows:,} rows)",
            "text",
            None,
        ),
        ("Leaves", a.n_leaves, b.n_leaves, "int", None),
        ("Nodes", a.n_nodes, b.n_nodes, "int", None),
        ("Depth", a.depth, b.depth, "int", None),
    ]
    ea = next((ev for ev in a.evaluations if ev.method == method_a), None)
    eb = next((ev for ev in b.evaluations if ev.method == method_b), None)
    ta, tb = (
        (a.evaluations[0] if a.evaluations else None),
        (b.evaluations[0] if b.evaluations else None),
    )
    regression = (ea or eb or ta or tb) is not None and (ea or eb or ta or tb).classes is None
    held = held_out(ea) and held_out(eb)

    def scored(higher: bool) -> bool | None:
        return higher if held else None

    def get(ev, name):
        return getattr(ev, name) if ev is not None else None

    if regression:
        rows.append(("Training RMSE", get(ta, "rmse"), get(tb, "rmse"), "g", None))
        rows += [
            (
                f"RMSE ({'evaluated' if ea is not ta else 'training'})",
                get(ea, "rmse"),
                get(eb, "rmse"),
                "g",
                scored(False),
            ),
            ("MAE", get(ea, "mae"), get(eb, "mae"), "g", scored(False)),
            ("R²", get(ea, "r2"), get(eb, "r2"), "f", scored(True)),
        ]
        return rows, ea, eb
    rows.append(("Training accuracy", get(ta, "accuracy"), get(tb, "accuracy"), "%", None))
    rows.append(("Training errors", training_errors(ta), training_errors(tb), "g", None))
    rows += [
        ("Accuracy", get(ea, "accuracy"), get(eb, "accuracy"), "%", scored(True)),
        (
            "± across folds",
            get(ea, "accuracy_std") if ea is not None and len(ea.fold_scores) > 1 else None,
            get(eb, "accuracy_std") if eb is not None and len(eb.fold_scores) > 1 else None,
            "%",
            None,
        ),
        ("Kappa", get(ea, "kappa"), get(eb, "kappa"), "f", scored(True)),
        ("ROC area (weighted)", get(ea, "roc_auc"), get(eb, "roc_auc"), "f", scored(True)),
    ]
    if ea is not None and eb is not None and ea.classes == eb.classes:
        for k, label in enumerate(ea.classes):
            rows.append((f"F1 {label}", ea.f1[k], eb.f1[k], "f", scored(True)))
    return rows, ea, eb


class _TreeSide(QStackedWidget):
    """One run's tree, or a note and a button to grow it again when the log no longer keeps it."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.canvas = TreeCanvas()
        self.missing = QWidget()
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.grow_button = QPushButton("Grow it again")
        self.grow_button.setToolTip(
            "Grow the tree again from the run's settings on the open table "
            "(it must be the table the run was trained on)"
        )
        layout = QVBoxLayout(self.missing)
        layout.addStretch(1)
        layout.addWidget(self.note)
        layout.addWidget(self.grow_button, 0, Qt.AlignmentFlag.AlignCenter)
        layout.addStretch(1)
        self.addWidget(self.canvas)
        self.addWidget(self.missing)
        self.tree = None

    def fit(self) -> None:
        if self.tree is not None:
            self.canvas.fit_to_window()

    def show_run(self, run) -> None:
        if run.tree is None:
            self.tree = None
            self.canvas.set_tree(None)
            self.note.setText(
                f"Run {run.number}'s tree is no longer kept (the Runs list keeps the newest trees "
                "only)."
            )
            self.setCurrentWidget(self.missing)
            return
        self.setCurrentWidget(self.canvas)
        if run.tree is not self.tree:
            self.tree = run.tree
            self.canvas.set_tree(run.tree, keep_view=False)


class CompareView(QWidget):
    """Runs ``a`` and ``b`` of the controller's log, side by side; follows the log as it changes."""

    def __init__(self, controller, parent=None):
        super().__init__(parent)
        self.controller = controller
        self.numbers: tuple[int, int] | None = None
        self.title = QLabel()
        self.title.setWordWrap(True)
        self.note = QLabel()
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        self.note.setToolTip(
            "The greedy tree chooses each split on its own; the optimal tree is the best of "
            "all trees of its depth on the training rows (held-out figures may still favour "
            "either)"
        )
        self.note.hide()
        self.method_a, self.method_b = QComboBox(), QComboBox()
        for box in (self.method_a, self.method_b):
            box.setToolTip("Which evaluation of the run to compare")
            box.currentIndexChanged.connect(lambda *_: self._fill())
        self.table = QTableWidget()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(True)
        self.table.setToolTip(
            "Green: the better of the two on held-out rows; red: the worse. "
            "Training figures and sizes are not coloured"
        )
        # Wrapped text takes as many lines as each new column width needs.
        self.table.horizontalHeader().sectionResized.connect(
            lambda *_: self.table.resizeRowsToContents()
        )
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.paired = QLabel()
        self.paired.setWordWrap(True)
        self.paired.setTextFormat(Qt.TextFormat.PlainText)
        self.paired.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.paired.setToolTip(PAIRED_TIP)
        self.confusion_a, self.confusion_b = (
            ConfusionView(letters=True),
            ConfusionView(letters=True),
        )
        self.tree_a, self.tree_b = _TreeSide(), _TreeSide()
        self.tree_a.grow_button.clicked.connect(lambda: self._grow(0))
        self.tree_b.grow_button.clicked.connect(lambda: self._grow(1))
        copy = QPushButton("Copy figures")
        copy.setToolTip("Copy the table of figures as tab-separated text")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.figures_text()))
        choose = QHBoxLayout()
        choose.addWidget(QLabel("Evaluations:"))
        choose.addWidget(self.method_a, 1)
        choose.addWidget(QLabel("against"))
        choose.addWidget(self.method_b, 1)
        choose.addWidget(copy)
        # The matrices one above the other beside the figures (issue 30: side by side, at 1024
        # both were cut on the right); the window's size changes the figures and the trees.
        matrices = QWidget()
        stack = QVBoxLayout(matrices)
        stack.setContentsMargins(0, 0, 0, 0)
        stack.addWidget(self.confusion_a)
        stack.addWidget(self.confusion_b)
        self.upper = upper = QSplitter(Qt.Orientation.Horizontal)
        upper.addWidget(self.table)
        upper.addWidget(matrices)
        upper.setStretchFactor(0, 1)
        upper.setStretchFactor(1, 0)
        upper.setSizes([700, 300])
        trees = QSplitter(Qt.Orientation.Horizontal)
        trees.addWidget(self.tree_a)
        trees.addWidget(self.tree_b)
        self.body = body = QSplitter(Qt.Orientation.Vertical)
        body.addWidget(upper)
        body.addWidget(trees)
        body.setStretchFactor(0, 0)
        body.setStretchFactor(1, 1)
        body.setSizes([300, 400])
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.note)
        layout.addLayout(choose)
        layout.addWidget(self.paired)
        layout.addWidget(body, 1)
        controller.runs_changed.connect(self.refresh)

    def compare(self, a: int, b: int) -> None:
        self.numbers = (a, b)
        self.method_a.clear()
        self.method_b.clear()
        self.refresh()

    def refresh(self) -> None:
        if self.numbers is None:
            return
        runs = self.controller.runs
        missing = [n for n in self.numbers if n not in runs]
        if missing:
            self.title.setText(f"Run {missing[0]} was removed from the Runs list.")
            self.table.setRowCount(0)
            return
        a, b = (runs[n] for n in self.numbers)
        self.title.setText(
            f"<b>Run {a.number}</b> ({escape(a.title)}) against <b>run {b.number}</b> "
            f"({escape(b.title)})"
        )
        for box, run in ((self.method_a, a), (self.method_b, b)):
            methods = [ev.method for ev in run.evaluations]
            if [box.itemText(i) for i in range(box.count())] != methods:
                chosen = box.currentText()
                box.blockSignals(True)
                box.clear()
                box.addItems(methods)
                honest = (
                    run.honest.method if run.honest is not None else (methods[0] if methods else "")
                )
                box.setCurrentText(chosen if chosen in methods else honest)
                box.blockSignals(False)
        note = greedy_note(a, b)
        self.note.setText(note)
        self.note.setVisible(bool(note))
        self.tree_a.show_run(a)
        self.tree_b.show_run(b)
        self._fill()

    def _fill(self) -> None:
        if self.numbers is None or any(n not in self.controller.runs for n in self.numbers):
            return
        a, b = (self.controller.runs[n] for n in self.numbers)
        rows, ea, eb = comparison_rows(
            a, b, self.method_a.currentText(), self.method_b.currentText()
        )
        self.table.clear()
        self.table.setColumnCount(3)
        self.table.setRowCount(len(rows))
        self.table.setHorizontalHeaderLabels([f"Run {a.number}", f"Run {b.number}", "Difference"])
        self.table.setVerticalHeaderLabels([r[0] for r in rows])
        evaluated = f"{ea.method} against {eb.method}" if ea is not None and eb is not None else ""
        held = held_out(ea) and held_out(eb)
        for r, (label, va, vb, kind, higher) in enumerate(rows):
            items = [
                QTableWidgetItem(str(va) if kind == "text" else _value(va, kind)),
                QTableWidgetItem(str(vb) if kind == "text" else _value(vb, kind)),
            ]
            diff, tip = "", ""
            if kind != "text" and va is not None and vb is not None:
                d = vb - va
                diff = (
                    f"{100 * d:+.2f} points"
                    if kind == "%"
                    else f"{d:+,}"
                    if kind == "int"
                    else f"{d:+.3f}"
                    if kind == "f"
                    else f"{d:+.4g}"
                )
                if higher is not None and d != 0:
                    better_b = (d > 0) == higher
                    items[0].setBackground(WORSE if better_b else BETTER)
                    items[1].setBackground(BETTER if better_b else WORSE)
                    better = b.number if better_b else a.number
                    tip = (
                        f"Better: run {better}, in {label} on held-out rows ({evaluated}); "
                        f"{'higher' if higher else 'lower'} is better"
                    )
                elif kind != "int" and (label.startswith("Training") or not held):
                    tip = TRAINING_TIP
            items.append(QTableWidgetItem(diff))
            for c, item in enumerate(items):
                if kind == "text":
                    item.setToolTip(plain_tip(item.text()))
                elif tip:
                    item.setToolTip(plain_tip(tip))
                self.table.setItem(r, c, item)
        self._fit_columns()
        test = same_folds_test(ea, eb, a.data_key, b.data_key, a.n_rows)
        self.paired.setText(test.sentence(f"Run {a.number}", f"Run {b.number}"))
        target = self.controller.doc.target or "class"
        for view, ev, run in ((self.confusion_a, ea, a), (self.confusion_b, eb, b)):
            if ev is not None and ev.classes is not None:
                tree_target = run.tree.schema.target if run.tree is not None else target
                view.show_matrix(
                    ev.classes, ev.confusion, tree_target, f"Run {run.number}, {ev.method}"
                )
                view.show()
            else:
                view.hide()
        self._fit_layout()

    def _fit_layout(self) -> None:
        """The matrices as wide as they need (at most half the window), the figures and the
        matrices as tall as they need (at most two thirds of it): at 1024x700 no matrix is cut
        and the figures do not scroll; the trees have the rest."""
        views = [v for v in (self.confusion_a, self.confusion_b) if not v.isHidden()]
        width = self.upper.width() if self.upper.isVisible() else self.width()
        handle = self.upper.handleWidth()
        wide = max((v.needed_size().width() for v in views), default=0)
        wide = min(wide, (width - handle) // 2)
        self.upper.setSizes([width - handle - wide, wide])
        t = self.table
        figures = (
            t.horizontalHeader().sizeHint().height()
            + t.verticalHeader().length()
            + 2 * t.frameWidth()
        )
        spacing = views[0].parentWidget().layout().spacing() if views else 0
        matrices = sum(v.needed_size().height() for v in views) + spacing * (len(views) - 1)
        height = self.body.height() if self.body.isVisible() else max(self.height() - 80, 0)
        handle = self.body.handleWidth()
        tall = min(max(figures, matrices), (height - handle) * 2 // 3)
        self.body.setSizes([tall, height - handle - tall])

    def _fit_columns(self) -> None:
        """Difference as wide as its figures, the two runs sharing the rest, so Difference is
        never cut or scrolled out of view (issue 30: at 1280 it was cut, at 1024 out of sight
        behind the settings' long text); long text wraps onto more lines instead."""
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setMinimumSectionSize(40)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.resizeRowsToContents()

    def fit_trees(self) -> None:
        """Fit both trees to their halves (once the window has its size)."""
        self.tree_a.fit()
        self.tree_b.fit()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        QTimer.singleShot(0, self, self._fit_layout)
        QTimer.singleShot(0, self, self.fit_trees)

    def _grow(self, side: int) -> None:
        if self.numbers is not None and self.numbers[side] in self.controller.runs:
            self.controller.grow_run_again(self.numbers[side])

    def figures_text(self) -> str:
        heads = [
            "",
            *(self.table.horizontalHeaderItem(c).text() for c in range(self.table.columnCount())),
        ]
        lines = ["\t".join(heads)]
        for r in range(self.table.rowCount()):
            cells = [self.table.verticalHeaderItem(r).text()]
            cells += [
                self.table.item(r, c).text() if self.table.item(r, c) else ""
                for c in range(self.table.columnCount())
            ]
            lines.append("\t".join(cells))
        return "\n".join([*lines, "", self.paired.text()])

"""The results panel: the numbers of the tree on screen, each saying how it was measured
(training set or cross-validation), beside 0-R and 1-R measured the same way, and whether
they are out of date."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout, QWidget

from engine.evaluate.figures import few_rows_note
from engine.export.labels import number
from gui.panels.confusion_view import ConfusionView

EMPTY = "Train a tree (F5) to see its results."
STALE_STYLE = (
    "QLabel { background: #FEF0C7; color: #7A2E0E; border: 1px solid #FEC84B; padding: 4px; }"
)


def _label(name: str, value) -> str:
    from engine.settings import OPTIONS

    option = next((o for o in OPTIONS if o.name == name), None)
    choice = option.choice(value) if option is not None else None
    return choice.label if choice is not None else str(value)


def describe(origin: str, recipe, settings, tree) -> str:
    """What the tree on screen is, in words: how it was made and its size."""
    from gui.controller import CV_ALPHA, EDITED, OPENED, PRUNED, RUN, STEPPED, TRAINED, WALKED

    algorithm = _label("algorithm", settings.algorithm) if settings is not None else "a"
    alpha = f"{recipe.alpha:.4g}" if recipe is not None and recipe.alpha is not None else "?"
    what = {
        TRAINED: f"trained {algorithm} tree",
        PRUNED: f"the trained {algorithm} tree pruned at alpha = {alpha}",
        CV_ALPHA: f"the trained {algorithm} tree pruned at the cross-validated alpha = {alpha}",
        EDITED: "a tree edited by hand",
        STEPPED: "a tree grown step by step",
        OPENED: "a tree opened from a project",
        RUN: f"an earlier run's {algorithm} tree",
        WALKED: f"the {algorithm} tree as the pruning walk-through has it",
    }.get(origin, "a tree")
    return (
        f"<b>On screen:</b> {escape(what)} — {tree.n_leaves} leaves, {tree.n_nodes} nodes, "
        f"depth {tree.depth}"
    )


def _classification_cells(ev, spread: bool) -> tuple[str, str]:
    wrong = ev.n * (1 - ev.accuracy)
    acc = f"{100 * ev.accuracy:.2f}%"
    if spread and len(ev.fold_scores) > 1:
        acc += f" ± {100 * ev.accuracy_std:.2f}"
    return acc, f"{number(round(wrong, 2))} of {number(round(ev.n, 2))} wrong"


def figures_html(figures, tree) -> str:
    """The table of figures: rows tree / 0-R / 1-R, a column per way of measuring."""
    columns = [figures.training] + ([figures.cv] if figures.cv is not None else [])
    heads = ["Training set<br><small>(the rows it was made from)</small>"]
    if figures.cv is not None:
        heads.append(
            f"{figures.cv.folds}-fold cross-validation<br><small>(rows left out of each fit)</small>"
        )
    head = "<tr><th></th>" + "".join(f"<th align=left>{h}</th>" for h in heads) + "</tr>"
    rows = []
    if tree.is_regression:
        rows.append(("<b>Tree</b>: RMSE", [f"<b>{m.tree.rmse:.4g}</b>" for m in columns]))
        rows.append(("Tree: R²", [f"{m.tree.r2:.4f}" for m in columns]))
        rows.append((f"0-R: {figures.zero_r_says}", [f"RMSE {m.zero_r.rmse:.4g}" for m in columns]))
    else:
        spread = [m is figures.cv for m in columns]
        cells = [_classification_cells(m.tree, s) for m, s in zip(columns, spread, strict=True)]
        rows.append(("<b>Tree</b>", [f"<b>{a}</b><br><small>{w}</small>" for a, w in cells]))
        for name, says, get in (
            ("0-R", figures.zero_r_says, lambda m: m.zero_r),
            ("1-R", figures.one_r_says, lambda m: m.one_r),
        ):
            if get(columns[0]) is None:
                continue
            cells = [_classification_cells(get(m), False) for m in columns]
            rows.append(
                (f"{name}: {escape(says)}", [f"{a}<br><small>{w}</small>" for a, w in cells])
            )
        rows.append(("Kappa of the tree", [f"{m.tree.kappa:.3f}" for m in columns]))
    body = "".join(
        f"<tr><td valign=top>{name}</td>"
        + "".join(f"<td valign=top>{c}</td>" for c in cells)
        + "</tr>"
        for name, cells in rows
    )
    return f"<table cellspacing=2 cellpadding=3>{head}{body}</table>"


def notes_html(figures, n_rows: float) -> str:
    """What the figures mean: the spread, small folds, what cross-validation refitted."""
    notes = []
    cv = figures.cv
    if cv is None:
        notes.append(
            "Training figures score the tree on the rows it was made from, so they flatter it; "
            "cross-validate it for an honest estimate."
        )
    else:
        if cv.tree.classes is not None:
            notes.append(
                f"± is the standard deviation of the accuracy over the {cv.folds} folds. "
                "In each fold 0-R and 1-R are fitted on the same rows as the tree."
            )
        hint = few_rows_note(n_rows, cv.folds)
        if hint:
            notes.append(hint)
        if cv.refit == "structure":
            notes.append(
                "Cross-validation kept this tree's splits and re-counted its leaves from each fold's "
                "training rows; the splits were chosen on all the rows, so this still flatters it."
            )
    return "".join(f"<p style='color:#475467'>{escape(n, quote=False)}</p>" for n in notes)


class ResultsPanel(QWidget):
    """The figures of the controller's tree on screen, with what they are and whether they are current."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._controller = None
        self.header = QLabel(EMPTY)
        self.header.setWordWrap(True)
        self.stale = QLabel()
        self.stale.setWordWrap(True)
        self.stale.setStyleSheet(STALE_STYLE)
        self.stale.hide()
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.cv_button = QPushButton("Cross-validate this tree")
        self.cv_button.setToolTip(
            "Work out cross-validated figures for the tree on screen in the background, "
            "with 0-R and 1-R on the same folds (folds and seed from the Algorithm panel)"
        )
        self.cv_button.hide()
        self.cv_rows_button = QPushButton("Show the held-out rows on the tree")
        self.cv_rows_button.setToolTip(
            "Put cross-validation's held-out rows on the nodes, beside the training rows: "
            "every row once, scored by its out-of-fold prediction (made by the tree of the "
            "fold that held it out), placed on the nodes of this tree, grown on all the rows. "
            "The fold trees are not this tree: the nodes show where their mistakes land on it"
        )
        self.cv_rows_button.hide()
        self.notes = QLabel()
        self.notes.setWordWrap(True)
        self.confusion = ConfusionView()
        self.confusion.table.setMinimumHeight(120)
        self.confusion.hide()
        layout = QVBoxLayout(self)
        for widget in (
            self.header,
            self.stale,
            self.summary,
            self.cv_button,
            self.cv_rows_button,
            self.notes,
        ):
            layout.addWidget(widget)
        layout.addWidget(self.confusion, 1)
        layout.addStretch(0)

    def bind(self, controller) -> None:
        """Show the figures of the tree on screen, and mark them when they are out of date."""
        self._controller = controller
        controller.figures_changed.connect(lambda *_: self.refresh())
        controller.stale_changed.connect(lambda *_: self.refresh())
        self.cv_button.clicked.connect(controller.cross_validate_tree)
        self.cv_rows_button.clicked.connect(controller.show_cv_rows)
        controller.held_out_changed.connect(lambda *_: self._show_cv_rows_button())

    def refresh(self) -> None:
        c = self._controller
        tree, figures = c.tree, c.figures
        if tree is None:
            self.clear()
            return
        self.header.setText(describe(c.origin, c.recipe, c.settings, tree))
        self.stale.setVisible(bool(c.stale))
        self.stale.setText(
            f"<b>Out of date:</b> {escape('; '.join(c.stale))}. Train again (F5) to bring "
            "the tree and its numbers up to date."
            if c.stale
            else ""
        )
        if figures is None:
            self.summary.setText(
                "<p>No figures: the rows this tree was made from are not at hand.</p>"
            )
            self.cv_button.hide()
            self.cv_rows_button.hide()
            self.notes.setText("")
            self.confusion.hide()
            return
        html = figures_html(figures, tree)
        result = c.result
        if result is not None and tree is c.trained_tree and result.notes:
            html += "".join(f"<p style='color:#6B7280'>{escape(n)}</p>" for n in result.notes)
        self.summary.setText(html)
        self.summary.setEnabled(not c.stale)  # greyed while out of date
        # Not while a training's own cross-validation is on its way.
        self.cv_button.setVisible(figures.cv is None and not c.cv_pending)
        self.cv_button.setText(f"Cross-validate this tree ({c.options.cv_folds or 10} folds)")
        self._show_cv_rows_button()
        self.notes.setText(notes_html(figures, figures.training.tree.n))
        shown = figures.cv if figures.cv is not None else figures.training
        if shown.tree.classes is None:
            self.confusion.hide()
            return
        title = f"{shown.folds}-fold cross-validation" if shown is figures.cv else "Training set"
        self.confusion.show_matrix(
            shown.tree.classes,
            shown.tree.confusion,
            tree.schema.target,
            f"Confusion matrix, {title}",
        )
        self.confusion.show()

    def _show_cv_rows_button(self) -> None:
        """Offered while the tree on screen is cross-validated and its held-out rows are not on
        it (a training's own cross-validation puts none there unasked)."""
        c = self._controller
        self.cv_rows_button.setVisible(c is not None and c.cv_rows_available())

    def clear(self) -> None:
        self.header.setText(EMPTY)
        for widget in (self.stale, self.cv_button, self.cv_rows_button, self.confusion):
            widget.hide()
        self.summary.setText("")
        self.notes.setText("")

    def text(self) -> str:
        """Everything the panel says, as rich text (for tests and copying)."""
        parts = [
            self.header.text(),
            self.stale.text() if self.stale.isVisibleTo(self) else "",
            self.summary.text(),
            self.notes.text(),
        ]
        return "".join(parts)

"""Variable importance on screen (issue 33): the Evaluation panel's Importance view, a bar
per attribute, most important on top. The numbers are the engine's
(:mod:`engine.evaluate.importance`), computed by a job (:mod:`gui.session.curve_jobs`):
impurity decrease from the run's tree grown again, or permutation importance on
cross-validation's held-out rows, with its spread over the repeats as error bars."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel

from gui.panels.bias_and_variance import CurveView, _grey, _spin

IMPORTANCE = "importance"
KINDS = {"impurity": "Impurity decrease", "permutation": "Permutation on held-out folds"}
BAR_COLOUR, SPREAD_COLOUR = "#0072B2", "#222222"
NOTE = (
    "Impurity decrease credits what the tree split on with its training rows; permutation "
    "measures what the score on rows it never saw loses when an attribute is shuffled, so "
    "an attribute the tree leans on only to fit noise scores near 0 there."
)


class ImportanceView(CurveView):
    """Each attribute's importance as a horizontal bar; permutation's spread as error bars."""

    WHAT = "variable importance"
    NOTE = NOTE
    SHORTCUT = "Ctrl+Alt+I"

    def __init__(self, parent=None):
        super().__init__(parent)
        self.kind = QComboBox()
        for key, text in KINDS.items():
            self.kind.addItem(text, key)
        self.kind.setToolTip(
            "Impurity decrease: each attribute's share of the tree's weighted impurity "
            "decrease (scikit-learn's feature_importances_; quick). Permutation: the drop in "
            "cross-validated accuracy (rise in RMSE) when the attribute is shuffled among a "
            "fold's held-out rows, over seeded repeats"
        )
        self.repeats = _spin(1, 100, 5, "Shuffles per attribute (permutation; seeded)")
        self.folds = _spin(2, 20, 5, "Stratified folds whose held-out rows are shuffled")
        # The kind on a row of its own: with the counts and Compute beside it, the row was
        # wider than the Evaluation dock at 1280 and pushed the plot out of sight.
        kind_row = QHBoxLayout()
        kind_label = QLabel("&Kind")
        kind_label.setBuddy(self.kind)
        kind_row.addWidget(kind_label)
        kind_row.addWidget(self.kind, 1)
        self.layout().insertLayout(0, kind_row)
        self._label("repeats", "Re&peats")
        self._label("folds", "Fo&lds")
        self.kind.currentIndexChanged.connect(lambda *_: self._follow_kind())
        self._follow_kind()

    def _follow_kind(self) -> None:
        permutation = self.kind.currentData() == "permutation"
        self.repeats.setEnabled(permutation)
        self.folds.setEnabled(permutation)

    def options(self) -> dict:
        return {
            "kind": self.kind.currentData(),
            "repeats": self.repeats.value(),
            "folds": self.folds.value(),
        }

    def _draw(self, imp, caption: str) -> None:
        plot = self.plot
        order = imp.ranked()[::-1]  # the most important at the top
        values = np.asarray(imp.values)[order]
        y = np.arange(len(order), dtype=float)
        plot.addItem(
            pg.BarGraphItem(
                x0=np.minimum(values, 0), y=y, height=0.7, width=np.abs(values),
                brush=BAR_COLOUR, pen=pg.mkPen(BAR_COLOUR),
            )
        )  # fmt: skip
        self.lines = {"bars": values}
        plot.addItem(
            pg.InfiniteLine(0, angle=90, pen=pg.mkPen("#6B7280", style=Qt.PenStyle.DashLine))
        )
        if imp.spread is not None:
            spread = np.asarray(imp.spread)[order]
            plot.addItem(
                pg.ErrorBarItem(
                    x=values, y=y, width=2 * spread, beam=0.2, pen=pg.mkPen(SPREAD_COLOUR)
                )
            )
        # Axis ticks are drawn as plain text, so a name from the file cannot become markup.
        names = [imp.names[j] for j in order]
        plot.getAxis("left").setTicks([list(enumerate(names))])
        regression = imp.score is not None and imp.score < 0
        plot.setLabel(
            "bottom",
            "share of the impurity decrease"
            if imp.kind == "impurity"
            else ("rise in RMSE" if regression else "drop in accuracy") + " when shuffled",
        )
        plot.setLabel("left", "")
        top = imp.ranked()[:3]
        figures = ", ".join(
            f"{escape(imp.names[j])} {imp.values[j]:.3f}"
            + (f" ± {imp.spread[j]:.3f}" if imp.spread is not None else "")
            for j in top
        )
        what = f"{KINDS[imp.kind]}, {escape(imp.method)}" + (
            f", {imp.repeats} repeats; bars: ± one standard deviation"
            if imp.spread is not None
            else ""
        )
        unused = sum(1 for v in imp.values if v == 0)
        self.legend.setText(
            f"Most important: {figures}"
            + (f"; {unused} with none" if unused else "")
            + "<br>"
            + _grey(f"{escape(caption)}: {what}")
        )

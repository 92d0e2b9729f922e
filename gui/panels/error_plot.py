"""Training against test error as a tree changes, step by step (issue 32): the Growth tab's
steps, the pruning walk-through's decisions. The numbers are the engine's
(:mod:`engine.evaluate.per_node`); this draws them, with a mark at the step on screen."""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from gui.panels.lazy_plot import LazyPlot
from gui.wheel_guard import PlotInPanel

TRAIN_COLOUR, TEST_COLOUR, MARK_COLOUR = "#0072B2", "#D55E00", "#6B7280"


class _Small(PlotInPanel, pg.PlotWidget):
    """A plot that asks for little room: a dock's other parts need it at 1024 x 700."""

    HINT = QSize(260, 150)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT


class ErrorPlot(QWidget):
    """Training error (and test error, when there are test rows) against a step number, the
    step on screen marked; the legend, with the marked step's figures, under the plot."""

    def __init__(self, x_label: str, parent=None):
        super().__init__(parent)
        self.x_label = x_label
        self.figure = LazyPlot(self._set_up, make=lambda: _Small(background="w"), hint=_Small.HINT)
        self.figure.setMinimumHeight(120)
        self.legend = QLabel()
        self.legend.setWordWrap(True)
        self.legend.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.figure, 1)
        layout.addWidget(self.legend)
        self.x = np.zeros(0)
        self.train = np.zeros(0)
        self.test: np.ndarray | None = None
        self.measure = "error rate"
        self.test_label = ""
        self.absent = ""
        self.marked = -1
        self._lines: dict[str, object] = {}

    @property
    def plot(self) -> pg.PlotWidget:
        return self.figure.plot

    def _set_up(self, plot: pg.PlotWidget) -> None:
        plot.setMenuEnabled(False)
        plot.showGrid(x=True, y=True, alpha=0.15)
        plot.getAxis("bottom").enableAutoSIPrefix(False)
        plot.getAxis("left").enableAutoSIPrefix(False)
        plot.setLabel("bottom", self.x_label)

    def show_curve(
        self,
        x,
        train,
        test=None,
        measure: str = "error rate",
        test_label: str = "",
        marked: int = -1,
        absent: str = "",
    ) -> None:
        """Draw ``train`` (and ``test``) against ``x``; ``marked``: the index of the step on
        screen (-1: the last); ``absent``: why there is no test curve, when there are rows
        that cannot make one (cross-validation's)."""
        self.absent = absent
        self.x = np.asarray(x, dtype=float)
        self.train = np.asarray(train, dtype=float)
        self.test = None if test is None else np.asarray(test, dtype=float)
        self.measure, self.test_label = measure, test_label
        self.marked = marked
        self._draw()

    def clear(self) -> None:
        self.show_curve([], [])

    def mark(self, index: int) -> None:
        """Mark step ``index`` (its figures go in the legend)."""
        self.marked = index
        self._draw()

    @property
    def lines(self) -> dict[str, object]:
        """The curves drawn ("training", "test"), drawn now if they were waiting for the plot."""
        if self.figure.built or len(self.x):
            _ = self.figure.plot
        return self._lines

    def _draw(self) -> None:
        self._lines = {}
        if not len(self.x) and not self.figure.built:
            self.figure.paint(lambda: None)  # nothing to draw: a drawing waiting is dropped
            self.legend.setText("")
            return
        k = self.marked if 0 <= self.marked < len(self.x) else len(self.x) - 1
        self.legend.setText(self._legend(k) if len(self.x) else "")
        self.figure.paint(self._paint)  # hidden (a tab behind another): when it shows

    def _paint(self) -> None:
        self._lines = {}
        plot = self.plot
        plot.clear()
        plot.setLabel("left", self.measure)
        if not len(self.x):
            return
        self._lines["training"] = plot.plot(
            self.x,
            self.train,
            pen=pg.mkPen(TRAIN_COLOUR, width=2),
            symbol="o",
            symbolSize=5,
            symbolBrush=TRAIN_COLOUR,
        )
        if self.test is not None and np.isfinite(self.test).any():  # none yet: being counted
            self._lines["test"] = plot.plot(
                self.x,
                self.test,
                pen=pg.mkPen(TEST_COLOUR, width=2),
                symbol="s",
                symbolSize=5,
                symbolBrush=TEST_COLOUR,
            )
        k = self.marked if 0 <= self.marked < len(self.x) else len(self.x) - 1
        plot.addItem(
            pg.InfiniteLine(
                pos=float(self.x[k]),
                angle=90,
                pen=pg.mkPen(MARK_COLOUR, width=1.5, style=Qt.PenStyle.DashLine),
            )
        )
        plot.getViewBox().autoRange(padding=0.05)

    def _legend(self, k: int) -> str:
        def value(v: float) -> str:
            if np.isnan(v):
                return "–"
            return f"{v:.4g}" if self.measure == "RMSE" else f"{100 * v:.1f}%"

        parts = [
            f"<span style='color:{TRAIN_COLOUR}'>&#9632;</span>&nbsp;training "
            f"{value(self.train[k])}"
        ]
        if self.test is not None:
            parts.append(
                f"<span style='color:{TEST_COLOUR}'>&#9632;</span>&nbsp;test "
                f"{value(self.test[k])} <span style='color:#6B7280'>"
                f"({escape(self.test_label)})</span>"
            )
        else:
            parts.append(
                f"<span style='color:#6B7280'>{escape(self.absent)}</span>"
                if self.absent
                else "<span style='color:#6B7280'>test rows: evaluate a run on a test file "
                "(Model menu) to draw their error too</span>"
            )
        return " &nbsp; ".join(parts) + (
            f"<br><span style='color:#6B7280'>{escape(self.x_label)} "
            f"{self.x[k]:g} (dashed line)</span>"
        )

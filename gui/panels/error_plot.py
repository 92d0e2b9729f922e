"""Training against test error as a tree changes, step by step (issue 32): the Growth tab's
steps, the pruning walk-through's decisions. The numbers are the engine's
(:mod:`engine.evaluate.per_node`); this draws them, with a mark at the step on screen."""

from __future__ import annotations

from collections.abc import Callable
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
        self._x = np.zeros(0)
        self._train = np.zeros(0)
        self._test: np.ndarray | None = None
        self.measure = "error rate"
        self.test_label = ""
        self.absent = ""
        self._marked = -1
        self._lines: dict[str, object] = {}
        self._source: Callable[[], None] | None = None  # a curve to work out when needed

    # What was drawn, worked out first if it waits for the plot to show (see show_later).
    x = property(lambda self: self._resolved("_x"), doc="The steps drawn.")
    train = property(lambda self: self._resolved("_train"), doc="The training error per step.")
    test = property(lambda self: self._resolved("_test"), doc="The test error per step (or None).")
    marked = property(lambda self: self._resolved("_marked"), doc="The index of the step marked.")

    def _resolved(self, name: str):
        make, self._source = self._source, None
        if make is not None:
            make()
        return getattr(self, name)

    def show_later(self, make: Callable[[], None]) -> None:
        """``make()`` works the curve out and shows it (with :meth:`show_curve`): now if the
        plot is on screen, else when it shows or its numbers are read. Working out the
        pruning walk's errors rebuilds a tree per decision, more than a small training costs,
        and the plot sits in a tab most trainings never open."""
        if self.isVisible():
            self._source = None
            make()
        else:
            self._source = make

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        if self._source is not None:
            self._resolved("_x")
        super().showEvent(event)

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
        self._source = None  # a newer curve than the one waiting
        self.absent = absent
        self._x = np.asarray(x, dtype=float)
        self._train = np.asarray(train, dtype=float)
        self._test = None if test is None else np.asarray(test, dtype=float)
        self.measure, self.test_label = measure, test_label
        self._marked = marked
        self._draw()

    def clear(self) -> None:
        self.show_curve([], [])

    def mark(self, index: int) -> None:
        """Mark step ``index`` (its figures go in the legend)."""
        self._marked = index
        if self._source is None:  # else the curve waiting is marked when it is worked out
            self._draw()

    @property
    def lines(self) -> dict[str, object]:
        """The curves drawn ("training", "test"), drawn now if they were waiting for the plot."""
        if self.figure.built or len(self.x):  # self.x: the curve waiting, worked out
            _ = self.figure.plot
        return self._lines

    def _draw(self) -> None:
        self._lines = {}
        if not len(self._x) and not self.figure.built:
            self.figure.paint(None)  # nothing to draw: a drawing waiting is dropped
            self.legend.setText("")
            return
        k = self._marked if 0 <= self._marked < len(self._x) else len(self._x) - 1
        self.legend.setText(self._legend(k) if len(self._x) else "")
        self.figure.paint(self._paint)  # hidden (a tab behind another): when it shows

    def _paint(self) -> None:
        self._lines = {}
        plot = self.plot
        plot.clear()
        plot.setLabel("left", self.measure)
        if not len(self._x):
            return
        self._lines["training"] = plot.plot(
            self._x,
            self._train,
            pen=pg.mkPen(TRAIN_COLOUR, width=2),
            symbol="o",
            symbolSize=5,
            symbolBrush=TRAIN_COLOUR,
        )
        if self._test is not None and np.isfinite(self._test).any():  # none yet: being counted
            self._lines["test"] = plot.plot(
                self._x,
                self._test,
                pen=pg.mkPen(TEST_COLOUR, width=2),
                symbol="s",
                symbolSize=5,
                symbolBrush=TEST_COLOUR,
            )
        k = self._marked if 0 <= self._marked < len(self._x) else len(self._x) - 1
        plot.addItem(
            pg.InfiniteLine(
                pos=float(self._x[k]),
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
            f"{value(self._train[k])}"
        ]
        if self._test is not None:
            parts.append(
                f"<span style='color:{TEST_COLOUR}'>&#9632;</span>&nbsp;test "
                f"{value(self._test[k])} <span style='color:#6B7280'>"
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
            f"{self._x[k]:g} (dashed line)</span>"
        )

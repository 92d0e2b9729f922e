"""The split curve of one attribute at the selected node (issue 32), as JMP plots the
splitting criterion against the cut point: information gain, gain ratio and Gini gain (and
for C4.5 the gain after its MDL penalty) at every candidate cut, the cut the algorithm's
scorer picks ("best") and the node's own split ("chosen") marked. For a nominal attribute,
each grouping the scorer tries, one point per grouping.

The numbers are :func:`engine.learn.split_curves.split_curve`'s; this widget only draws them.
A collapsible section under the inspector's splits table; clicking a row of that table picks
its attribute. Nodes with many rows are scored on a worker thread.
"""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QToolButton,
    QToolTip,
    QVBoxLayout,
    QWidget,
)

from engine.export.labels import number
from engine.learn.explain import node_rows
from engine.learn.split_curves import LABELS, split_curve
from gui.drawing.palette import SELECTED, TEXT
from gui.panels.lazy_plot import LazyPlot
from gui.session.jobs import start_on_pool
from gui.wheel_guard import PlotInPanel

#: A node with at least this much training weight is scored on a worker thread.
BACKGROUND_WEIGHT = 50_000
#: Curves kept, so going back to a node or attribute draws at once.
CACHED = 64
MUTED = "#6B7280"
CHOSEN = "#009E73"
#: Each measure's pen: colour, and dashed for C4.5's MDL-corrected figures.
PENS = {
    "info_gain": ("#0072B2", Qt.PenStyle.SolidLine),
    "gain_ratio": ("#E69F00", Qt.PenStyle.SolidLine),
    "gini_gain": ("#CC79A7", Qt.PenStyle.SolidLine),
    "mdl_gain": ("#0072B2", Qt.PenStyle.DashLine),
    "mdl_gain_ratio": ("#E69F00", Qt.PenStyle.DashLine),
}
SHORT = {
    "info_gain": "info gain",
    "gain_ratio": "gain ratio",
    "gini_gain": "Gini gain",
    "mdl_gain": "MDL gain",
    "mdl_gain_ratio": "MDL ratio",
}


class _PlotWidget(PlotInPanel, pg.GraphicsLayoutWidget):
    """The plot with its legend underneath (inside it, the legend hid the peaks in a narrow
    dock), asking for little room: the inspector scrolls."""

    HINT = QSize(280, 250)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT


class _Relay(QObject):
    ready = Signal(object, object)  # the key, the curve (or the error's text)


class SplitCurveView(QWidget):
    """A heading that folds the section, an attribute picker, the plot and a caption.

    Signals
    -------
    curve_shown(object) : the :class:`SplitCurve` now drawn (None: nothing is drawn).
    """

    curve_shown = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.shown = None  # the SplitCurve drawn
        self._lines: dict[str, pg.PlotDataItem] = {}  # one per measure drawn
        self._marks: dict[str, pg.InfiniteLine] = {}  # "best" and "chosen"
        self._node = None  # (tree, node id, data, settings)
        self._cache: dict[tuple, object] = {}
        self._wanted = None  # the key being scored on a worker
        self._viewport = None  # the scroll area's, once shown in one
        self._picked = None  # the attribute last picked by hand (kept at leaves)
        self.relay = _Relay(self)
        self.relay.ready.connect(self._on_ready)
        self.fold = QToolButton()
        self.fold.setText("Split curve")
        self.fold.setCheckable(True)
        self.fold.setChecked(True)
        self.fold.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.fold.setArrowType(Qt.ArrowType.DownArrow)
        self.fold.setAutoRaise(True)
        self.fold.setStyleSheet("QToolButton { font-weight: bold; }")
        self.fold.setToolTip(
            "Every candidate cut of an attribute at this node, scored (fold or unfold)"
        )
        self.fold.toggled.connect(self._on_fold)
        self.attribute = QComboBox()
        self.attribute.setToolTip(
            "The attribute whose cuts are scored (or click a row of the table above)"
        )
        self.attribute.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.attribute.setMinimumContentsLength(8)
        self.attribute.currentIndexChanged.connect(self._on_attribute)
        head = QHBoxLayout()
        head.setContentsMargins(0, 0, 0, 0)
        head.addWidget(self.fold)
        head.addWidget(self.attribute, 1)
        # Made on the first curve to draw (issue 29): hidden until then, as an empty plot was.
        self.figure = LazyPlot(self._set_up, make=_PlotWidget, hint=_PlotWidget.HINT)
        self.hover_line = pg.InfiniteLine(
            angle=90, pen=pg.mkPen(MUTED, width=1, style=Qt.PenStyle.DotLine)
        )
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)  # names in it are escaped
        self.caption.setWordWrap(True)
        self.hover = QLabel()  # the values at the cut under the mouse
        self.hover.setTextFormat(Qt.TextFormat.RichText)
        self.hover.setWordWrap(True)
        self.body = QWidget()
        body = QVBoxLayout(self.body)
        body.setContentsMargins(0, 0, 0, 0)
        body.addWidget(self.figure)
        body.addWidget(self.hover)
        body.addWidget(self.caption)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addLayout(head)
        layout.addWidget(self.body)
        self.clear()

    @property
    def plot(self) -> pg.GraphicsLayoutWidget:
        """The plot above its legend, made the first time it is needed."""
        return self.figure.plot

    @property
    def axes(self) -> pg.PlotItem:
        """The curves' axes (in the plot's first row)."""
        return self.plot.getItem(0, 0)

    @property
    def legend(self) -> pg.LegendItem:
        """The measures' names (in the row under the axes)."""
        return self.plot.getItem(1, 0)

    def _set_up(self, plot: pg.GraphicsLayoutWidget) -> None:
        plot.setBackground("w")
        plot.setMinimumHeight(210)
        plot.ci.setContentsMargins(2, 2, 2, 2)
        axes = plot.addPlot(row=0, col=0)
        axes.setMenuEnabled(False)
        # A million-row node has a cut per distinct value: draw each pixel's extremes only.
        axes.setDownsampling(auto=True, mode="peak")
        axes.setClipToView(True)
        axes.hideButtons()
        for side in ("left", "bottom"):
            axis = axes.getAxis(side)
            axis.enableAutoSIPrefix(False)
            axis.setTextPen(pg.mkPen(TEXT))
            axis.setPen(pg.mkPen(MUTED))
        axes.getAxis("left").setLabel("score")
        plot.addItem(
            pg.LegendItem(
                colCount=3, labelTextColor=TEXT, labelTextSize="7pt", horSpacing=6, verSpacing=-8
            ),
            row=1,
            col=0,
        )
        plot.scene().sigMouseMoved.connect(self._on_mouse)

    # ------------------------------------------------------------------ wiring
    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Once shown inside a scroll area (the inspector), stay as wide as its visible part:
        a wide card above widens the page, and the plot should not run off the narrow dock."""
        super().showEvent(event)
        if self._viewport is None:
            parent = self.parentWidget()
            while parent is not None and not isinstance(parent, QScrollArea):
                parent = parent.parentWidget()
            if parent is not None:
                self._viewport = parent.viewport()
                self._viewport.installEventFilter(self)
                self._fit(self._viewport.width())

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if watched is self._viewport and event.type() == QEvent.Type.Resize:
            self._fit(event.size().width())
        return super().eventFilter(watched, event)

    def _fit(self, width: int) -> None:
        layout = self.parentWidget().layout() if self.parentWidget() is not None else None
        margins = layout.contentsMargins() if layout is not None else None
        spare = margins.left() + margins.right() if margins is not None else 0
        self.setMaximumWidth(max(0, width - spare))

    def follow(self, table) -> None:
        """Pick the attribute of a row clicked in the inspector's splits table (its rows are the
        attributes, in order)."""
        table.cellClicked.connect(lambda row, _col: self.select_attribute(row))
        table.verticalHeader().sectionClicked.connect(self.select_attribute)

    def select_attribute(self, index: int) -> None:
        if 0 <= index < self.attribute.count():
            self.attribute.setCurrentIndex(index)

    def _on_fold(self, open_: bool) -> None:
        self.fold.setArrowType(Qt.ArrowType.DownArrow if open_ else Qt.ArrowType.RightArrow)
        self.body.setVisible(open_)
        if open_:
            self._request()

    # ------------------------------------------------------------------ what to show
    def clear(self, message: str = "Click a node to see its split curves.") -> None:
        self._node = None
        self._wanted = None
        self.attribute.blockSignals(True)
        self.attribute.clear()
        self.attribute.blockSignals(False)
        self.attribute.setEnabled(False)
        self._draw(None)
        self.caption.setText(f"<span style='color:{MUTED}'>{escape(message)}</span>")

    def show_node(self, tree, node_id: int, data, settings) -> None:
        """Show node ``node_id``'s curve for its split's attribute (or the attribute picked)."""
        if tree is None or node_id < 0:
            self.clear()
            return
        if data is None or settings is None or tree.is_regression:
            self.clear(
                "Split curves need the rows the tree was grown from and a class target."
                if not tree.is_regression
                else "Split curves are for classification trees."
            )
            return
        if self._node is None or self._node[0] is not tree:
            self._cache = {}
        names = [a.name for a in data.schema.attributes]
        split = tree.node(node_id).split
        keep = self._picked if split is None else None  # a leaf: the attribute last picked
        self._node = (tree, node_id, data, settings)
        self.attribute.blockSignals(True)
        if [self.attribute.itemText(k) for k in range(self.attribute.count())] != names:
            self.attribute.clear()
            self.attribute.addItems(names)
        index = (
            split.attribute if split is not None else (names.index(keep) if keep in names else 0)
        )
        self.attribute.setCurrentIndex(index)
        self.attribute.blockSignals(False)
        self.attribute.setEnabled(True)
        self._request()

    def _on_attribute(self, _index: int) -> None:
        self._picked = self.attribute.currentText() or self._picked
        if self._node is not None:
            self._request()

    def _request(self) -> None:
        if self._node is None or not self.fold.isChecked() or self.attribute.currentIndex() < 0:
            return
        tree, node_id, data, settings = self._node
        key = (id(tree), node_id, self.attribute.currentIndex())
        if key in self._cache:
            self._wanted = None
            self._show(self._cache[key])
            return
        args = (tree, node_id, data, settings, self.attribute.currentIndex())
        weight = tree.node(node_id).weight
        if weight < BACKGROUND_WEIGHT:
            self._wanted = None
            self._store(key, self._work(*args))
            return
        self._wanted = key
        self._draw(None)
        self.caption.setText(f"<i>Scoring every cut over {escape(number(weight))} rows…</i>")
        start_on_pool(lambda: self._run(key, args))

    def _run(self, key, args) -> None:
        """On a worker: skipped if another node or attribute was asked for meanwhile."""
        if self._wanted != key:
            return
        self.relay.ready.emit(key, self._work(*args))

    @staticmethod
    def _work(tree, node_id, data, settings, attribute):
        try:
            rows, weights = node_rows(tree, data, node_id, settings)
            return split_curve(data, settings, attribute, rows, weights, tree.node(node_id).split)
        except Exception as err:  # noqa: BLE001 - said under the plot rather than lost in a thread
            return f"The split curve could not be worked out: {err}"

    def _on_ready(self, key, result) -> None:
        if self._node is None or key[0] != id(self._node[0]):
            return  # a tree replaced meanwhile
        if key == self._wanted:
            self._wanted = None
            self._store(key, result)
        elif not isinstance(result, str) and len(self._cache) < CACHED:
            self._cache[key] = result

    def _store(self, key, result) -> None:
        if not isinstance(result, str):
            if len(self._cache) >= CACHED:
                self._cache.clear()
            self._cache[key] = result
        self._show(result)

    def _show(self, result) -> None:
        if isinstance(result, str):
            self._draw(None)
            self.caption.setText(f"<span style='color:{MUTED}'>{escape(result)}</span>")
            return
        self._draw(result)

    # ------------------------------------------------------------------ drawing
    def _x(self, curve) -> np.ndarray:
        return (
            np.arange(len(curve), dtype=float)
            if curve.nominal
            else np.asarray(curve.thresholds, float)
        )

    @property
    def lines(self) -> dict[str, pg.PlotDataItem]:
        """One curve per measure drawn (drawn now if it was waiting for the plot)."""
        if self.figure.waiting:
            _ = self.figure.plot
        return self._lines

    @property
    def marks(self) -> dict[str, pg.InfiniteLine]:
        """The "best" and "chosen" lines drawn (drawn now if they were waiting for the plot)."""
        if self.figure.waiting:
            _ = self.figure.plot
        return self._marks

    def _draw(self, curve) -> None:
        """The caption now; the plot now if it is shown, else when it shows (the Inspector's
        dock closed or behind another, or the window not shown) or is asked for."""
        self._lines, self._marks = {}, {}
        self.shown = curve
        self.hover.setText("")
        has_cuts = curve is not None and len(curve) > 0
        self.figure.setVisible(has_cuts)
        if curve is not None and not has_cuts:
            self.caption.setText(
                f"<span style='color:{MUTED}'>{escape(curve.attribute)} offers no "
                f"split here: it has one value, or none known, or no cut gains "
                f"anything or leaves both sides big enough.</span>"
            )
        elif has_cuts:
            self.caption.setText(self._caption(curve))
        self.figure.paint((lambda: self._paint(curve)) if has_cuts or self.figure.built else None)
        self.curve_shown.emit(curve)

    def _paint(self, curve) -> None:
        self._lines, self._marks = {}, {}
        self.axes.clear()
        self.legend.clear()
        self.axes.enableAutoRange()
        bottom = self.axes.getAxis("bottom")
        bottom.setTicks(None)
        bottom.setLabel("")
        if curve is not None and len(curve) > 0:
            self._curve(curve)

    def _curve(self, curve) -> None:
        x = self._x(curve)
        for key in LABELS:
            if key not in curve.values:
                continue
            colour, style = PENS[key]
            width = 2.5 if key == curve.criterion else 1.5
            symbol = "o" if (curve.nominal or len(x) <= 40) else None
            item = self.axes.plot(
                x,
                curve.values[key],
                pen=None if curve.nominal else pg.mkPen(colour, width=width, style=style),
                symbol=symbol,
                symbolSize=5 if not curve.nominal else 8,
                symbolBrush=colour,
                symbolPen=None,
            )
            self._lines[key] = item
            self.legend.addItem(item, SHORT[key])
        self.axes.addItem(self.hover_line, ignoreBounds=True)
        self.hover_line.hide()
        marks = [("best", curve.best, SELECTED, Qt.PenStyle.DashLine)]
        marks.append(("chosen", curve.chosen, CHOSEN, Qt.PenStyle.SolidLine))
        for name, index, colour, style in marks:
            if index is None:
                continue
            label = "chosen = best" if (name == "chosen" and curve.chosen == curve.best) else name
            line = pg.InfiniteLine(
                pos=float(x[index]),
                angle=90,
                pen=pg.mkPen(colour, width=1.5, style=style),
                label=label,
                labelOpts={
                    "position": 0.92 if name == "best" else 0.78,
                    "color": colour,
                    "anchors": [(0, 0.5), (0, 0.5)],
                },
            )
            self.axes.addItem(line)
            self._marks[name] = line
        bottom = self.axes.getAxis("bottom")
        if curve.nominal:
            bottom.setTicks([[(k, str(k + 1)) for k in range(len(curve))], []])
            bottom.setLabel(f"{escape(curve.attribute)}: grouping")  # shown as rich text
            self.axes.setXRange(-0.5, len(curve) - 0.5, padding=0.05)
        else:
            bottom.setLabel(f"{escape(curve.attribute)} ≤ cut")

    def _caption(self, curve) -> str:
        what = "groupings" if curve.nominal else "cuts"
        parts = [
            f"{len(curve)} candidate {what} over {escape(number(round(curve.n, 3)))} rows; "
            f"the scorer maximises {escape(SHORT[curve.criterion])}"
        ]
        best = curve.cut(curve.best)
        if best is not None:
            parts.append(
                f"<span style='color:{SELECTED.name()}'>best</span>: "
                f"{escape(self._cut_text(curve, curve.best))}, "
                f"{escape(SHORT[curve.criterion])} {curve.values[curve.criterion][curve.best]:.4f}"
            )
        if curve.chosen is not None:
            parts.append(
                f"<span style='color:{CHOSEN}'>chosen</span> (this node's split): "
                f"{escape(self._cut_text(curve, curve.chosen))}"
            )
        if curve.nominal and len(curve) > 1:
            parts.append(
                "groupings: "
                + "; ".join(f"{k + 1}: {escape(curve.cut(k))}" for k in range(min(len(curve), 12)))
                + (" …" if len(curve) > 12 else "")
            )
        if "mdl_gain" in curve.values:
            parts.append(
                f"dashed: C4.5's figures after its MDL penalty (log2 {len(curve)} / "
                f"{escape(number(round(curve.n, 3)))})"
            )
        parts.append(f"<span style='color:{MUTED}'>hover the plot for the values at a cut</span>")
        return "<br>".join(parts)

    @staticmethod
    def _cut_text(curve, index: int) -> str:
        return curve.cut(index) if curve.nominal else f"≤ {number(float(curve.thresholds[index]))}"

    def _on_mouse(self, pos) -> None:
        curve = self.shown
        if curve is None or len(curve) == 0 or not self.axes.vb.sceneBoundingRect().contains(pos):
            return
        x = self.axes.vb.mapSceneToView(pos).x()
        index = self.nearest(x)
        self.hover_line.setPos(float(self._x(curve)[index]))
        self.hover_line.show()
        text = self.values_text(index)
        self.hover.setText(
            text
        )  # under the plot, and beside the mouse (a short dock hides the line)
        QToolTip.showText(
            QCursor.pos(), self.values_text(index, coloured=False).replace(" · ", "<br>"), self.plot
        )

    def nearest(self, x: float) -> int:
        """The cut (or grouping) nearest to ``x`` on the plot."""
        xs = self._x(self.shown)
        k = int(np.clip(np.searchsorted(xs, x), 1, len(xs) - 1)) if len(xs) > 1 else 0
        return k - 1 if k > 0 and abs(xs[k - 1] - x) <= abs(xs[k] - x) else k  # xs ascend

    def values_text(self, index: int, coloured: bool = True) -> str:
        """Every measure at one cut, as the hover line shows them (names in their curve's
        colour, or plain on a tooltip's yellow)."""
        curve = self.shown
        values = " · ".join(
            f"<span style='color:{PENS[k][0] if coloured else TEXT.name()}'>{escape(SHORT[k])}</span> "
            f"{curve.values[k][index]:.4f}"
            for k in LABELS
            if k in curve.values
        )
        return f"<b>{escape(self._cut_text(curve, index))}</b>: {values}"

    # ------------------------------------------------------------------ for tests
    def plotted(self, measure: str) -> tuple[np.ndarray, np.ndarray]:
        """The (x, y) drawn for one measure."""
        item = self.lines[measure]  # the data given, not the pixels' downsampled share
        return np.asarray(item.xData), np.asarray(item.yData)

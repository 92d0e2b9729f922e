"""The selected node's data as a plot (issue 32), as dtreeviz draws a node: a numeric split's
histogram by class with the cut marked, a nominal split's bars per category, a regression
split's points with each branch's mean, a leaf's classes or target histogram.

The numbers are :func:`engine.export.node_data.node_data`'s; this widget only draws them.
Nodes with many rows are worked out on a worker thread.
"""

from __future__ import annotations

from html import escape

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, QSize, Qt, Signal
from PySide6.QtWidgets import QLabel, QScrollArea, QVBoxLayout, QWidget

from engine.export.labels import number
from engine.export.node_data import (
    LeafData,
    NominalSplitData,
    NumericSplitData,
    RegressionSplitData,
    node_data,
)
from gui.drawing.palette import CLASS_COLOURS, REGRESSION, SELECTED, TEXT, class_colour
from gui.panels.lazy_plot import LazyPlot
from gui.session.jobs import start_on_pool
from gui.wheel_guard import PlotInPanel

#: A node with at least this much training weight is worked out on a worker thread.
BACKGROUND_WEIGHT = 50_000
#: Nodes whose data is kept, so clicking back and forth draws at once.
CACHED = 64
MUTED = "#6B7280"


def _percent(share: float) -> str:
    return f"{100 * share:.0f}%"


def _unbroken(text: str) -> str:
    """``text`` escaped, kept on one line: Qt's labels ignore ``white-space: nowrap`` on a
    span and break at hyphens, so word joiners (U+2060) sit between the characters."""
    return escape("\u2060".join(text)).replace(" ", "\u00a0")


def _swatch(colour: str, name: str) -> str:
    return f"<span style='color:{colour}'>&#9632;</span>&nbsp;{_unbroken(name)}"


class _PlotWidget(PlotInPanel, pg.PlotWidget):
    """A plot that asks for little room (pyqtgraph asks for 480 px): the inspector scrolls."""

    HINT = QSize(280, 190)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT


class _Relay(QObject):
    ready = Signal(object, object)  # the key, the node data (or the error's text)


class NodePlot(QWidget):
    """The data behind the selected node, drawn with pyqtgraph.

    Signals
    -------
    plot_shown(object) : the node data now drawn (None: nothing is drawn).
    """

    plot_shown = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.shown = None  # the node data drawn
        self._bars: list[pg.BarGraphItem] = []  # one per class (or one: a target histogram)
        self._points: pg.ScatterPlotItem | None = None
        self._means: list[pg.PlotCurveItem] = []
        self._cut: pg.InfiniteLine | None = None
        self._share_labels: list[pg.TextItem] = []
        self._tree = None
        self._cache: dict[int, object] = {}
        self._wanted = None  # (tree, node id) being worked out on a worker
        self.relay = _Relay(self)
        self.relay.ready.connect(self._on_relay_ready)
        self.title = QLabel("<b>Node plot</b>")
        # Made on the first node to draw (issue 29): hidden until then, as an empty plot was.
        self.figure = LazyPlot(
            self._set_up, make=lambda: _PlotWidget(background="w"), hint=_PlotWidget.HINT
        )
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)  # names in it are escaped
        self.caption.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.figure)
        layout.addWidget(self.caption)
        self.clear()

    @property
    def plot(self) -> pg.PlotWidget:
        """The plot, made the first time it is needed."""
        return self.figure.plot

    @staticmethod
    def _set_up(plot: pg.PlotWidget) -> None:
        plot.setMinimumHeight(150)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.enableAutoSIPrefix(False)
            axis.setTextPen(pg.mkPen(TEXT))
            axis.setPen(pg.mkPen(MUTED))

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """In a scroll area (the inspector), keep within its visible width even when a wide card
        widens the page, so the whole plot is in view with the page scrolled to the left."""
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None and area is not getattr(self, "_area", None):
            self._area = area
            area.viewport().installEventFilter(self)
            self._fit_width(area.viewport().width())
        super().showEvent(event)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        if (
            event.type() == QEvent.Type.Resize
            and watched is getattr(self, "_area", None).viewport()
        ):
            self._fit_width(event.size().width())
        return super().eventFilter(watched, event)

    def _fit_width(self, width: int) -> None:
        margins = (
            self.parentWidget().layout().contentsMargins() if self.parentWidget().layout() else None
        )
        spare = margins.left() + margins.right() if margins is not None else 0
        self.setMaximumWidth(max(0, width - spare))

    # ------------------------------------------------------------------ what to show
    def clear(self, message: str = "Click a node to see the data behind it.") -> None:
        self._wanted = None
        self._draw(None)
        self.caption.setText(f"<span style='color:{MUTED}'>{escape(message)}</span>")

    def show_node(self, tree, node_id: int, data, settings) -> None:
        """Plot node ``node_id``'s rows of ``data`` (on a worker when there are many)."""
        if tree is None or node_id < 0:
            self.clear()
            return
        if data is None:
            self.clear("The rows this tree was grown from are not loaded.")
            return
        if tree is not self._tree:
            self._tree, self._cache = tree, {}
        if node_id in self._cache:
            self._wanted = None
            self._show(self._cache[node_id])
            return
        key = (tree, node_id)
        weight = tree.node(node_id).weight
        if weight < BACKGROUND_WEIGHT:
            self._wanted = None
            self._show(self._work(key, data, settings))
            return
        self._wanted = key
        self._draw(None)
        self.caption.setText(f"<i>Binning {escape(number(weight))} rows…</i>")
        start_on_pool(lambda: self._run(key, data, settings))

    def _run(self, key, data, settings) -> None:
        """On a worker: skipped if another node was asked for meanwhile."""
        if self._wanted is not key:
            return
        self.relay.ready.emit(key, self._work(key, data, settings))

    @staticmethod
    def _work(key, data, settings):
        tree, node_id = key
        try:
            return node_data(tree, data, node_id, settings)
        except Exception as err:  # noqa: BLE001 - said under the plot rather than lost in a thread
            return f"The node's rows could not be plotted: {err}"

    def _on_relay_ready(self, key, result) -> None:
        tree, node_id = key
        if tree is self._tree and not isinstance(result, str):
            self._cache[node_id] = result
        if key is self._wanted:
            self._wanted = None
            self._show(result)

    def _show(self, result) -> None:
        if isinstance(result, str):
            self.clear(result)
            return
        if len(self._cache) < CACHED:
            self._cache[result.node_id] = result
        self._draw(result)

    # ------------------------------------------------------------------ drawing
    def _draw(self, plot) -> None:
        """The title and caption now; the plot now if it is shown, else when it shows (the
        Inspector's dock closed or behind another, or the window not shown) or is asked for."""
        self._forget_items()
        self.shown = plot
        self.figure.setVisible(plot is not None)  # no empty axes taking the inspector's room
        self._render(plot, draw=False)
        self.figure.paint(
            (lambda: self._paint(plot)) if plot is not None or self.figure.built else None
        )
        self.plot_shown.emit(plot)

    def _forget_items(self) -> None:
        self._bars, self._points, self._means, self._cut = [], None, [], None
        self._share_labels: list[pg.TextItem] = []

    def _paint(self, plot) -> None:
        self._forget_items()
        self.plot.clear()
        self.plot.enableAutoRange()
        bottom = self.plot.getAxis("bottom")
        bottom.setTicks(None)
        bottom.setLabel("")
        self.plot.getAxis("left").setLabel("")
        self._render(plot, draw=True)

    def _render(self, plot, draw: bool) -> None:
        """Title and caption; the plot's items too when ``draw``."""
        if plot is None:
            self.title.setText("<b>Node plot</b>")
        elif isinstance(plot, NumericSplitData):
            self._numeric(plot, draw)
        elif isinstance(plot, NominalSplitData):
            self._nominal(plot, draw)
        elif isinstance(plot, RegressionSplitData):
            self._regression(plot, draw)
        else:
            self._leaf(plot, draw)

    def _drawn(self, items):
        """``items`` drawn, drawing them now if they wait for the plot (for whoever reads them)."""
        if self.figure.waiting:
            _ = self.figure.plot
        return getattr(self, items)

    bars = property(lambda self: self._drawn("_bars"), doc="One bar item per class drawn.")
    points = property(lambda self: self._drawn("_points"), doc="A regression node's points.")
    means = property(lambda self: self._drawn("_means"), doc="A regression split's mean lines.")
    cut = property(lambda self: self._drawn("_cut"), doc="The cut's (or the mean's) line.")
    share_labels = property(lambda self: self._drawn("_share_labels"), doc="Sides' shares.")

    def _stacked(self, x0, x1, counts: np.ndarray) -> None:
        """One bar item per class, stacked in class order."""
        base = np.zeros(counts.shape[1])
        for c, row in enumerate(counts):
            colour = class_colour(c)
            item = pg.BarGraphItem(
                x0=x0,
                x1=x1,
                y0=base.copy(),
                y1=base + row,
                brush=colour,
                pen=pg.mkPen(colour.darker(130), width=0.5),
            )
            self.plot.addItem(item)
            self._bars.append(item)
            base = base + row

    def _legend(self, classes, by_class) -> str:
        return " &nbsp;".join(
            _swatch(
                CLASS_COLOURS[c] if c < len(CLASS_COLOURS) else class_colour(c).name(),
                f"{name} {number(round(w, 3))}",
            )
            for c, (name, w) in enumerate(zip(classes, by_class, strict=True))
        )

    def _rows(self, plot) -> str:
        return f"{number(plot.n_rows)} rows"

    def _numeric(self, plot: NumericSplitData, draw: bool) -> None:
        self.title.setText(f"<b>Node {plot.node_id}</b>: {escape(plot.attribute)} by class")
        cut = number(plot.threshold)
        if draw:
            self._stacked(plot.edges[:-1], plot.edges[1:], plot.counts)
            self._cut = pg.InfiniteLine(
                pos=plot.threshold,
                angle=90,
                pen=pg.mkPen(SELECTED, width=2, style=Qt.PenStyle.DashLine),
            )
            self.plot.addItem(self._cut)
            top = float(plot.counts.sum(axis=0).max()) if plot.counts.size else 1.0
            # Each side's share in its top corner: at the cut, a cut near an edge pushed it out.
            corners = ((plot.edges[0], (0, 0)), (plot.edges[-1], (1, 0)))
            for side, (share, (x, anchor)) in enumerate(zip(plot.shares, corners, strict=True)):
                label = pg.TextItem(
                    f"{'≤' if side == 0 else '>'} {cut}: {_percent(share)}",
                    color=TEXT,
                    anchor=anchor,
                    fill=pg.mkBrush(255, 255, 255, 230),
                )
                label.setZValue(10)  # over the cut's line
                label.setPos(float(x), top * 1.3)
                self.plot.addItem(label)
                self._share_labels.append(label)
            self.plot.getAxis("bottom").setLabel(escape(plot.attribute))  # shown as rich text
            self.plot.getAxis("left").setLabel("rows")
            self.plot.setYRange(0, top * 1.3, padding=0.02)
        missing = plot.missing.sum()
        note = (
            f"<br>{number(round(missing, 3))} of them have no {escape(plot.attribute)} "
            f"(not drawn; they go down both branches, weighted)"
            if missing > 0
            else ""
        )
        self.caption.setText(
            f"{self._rows(plot)}, cut at {escape(cut)}: ≤ {_percent(plot.shares[0])}, "
            f"&gt; {_percent(plot.shares[1])}{note}<br>" + self._legend(plot.classes, plot.by_class)
        )

    def _nominal(self, plot: NominalSplitData, draw: bool) -> None:
        self.title.setText(f"<b>Node {plot.node_id}</b>: {escape(plot.attribute)} by class")
        # A branch per category (ID3, C4.5) needs no numbers; CART's groups say their branch.
        grouped = len(plot.shares) < len([b for b in plot.branch if b >= 0])
        if draw:
            x = np.arange(len(plot.categories), dtype=float)
            self._stacked(x - 0.4, x + 0.4, plot.counts)
            self.plot.getAxis("bottom").setTicks(
                [
                    [
                        (k, f"{name} [{b + 1}]" if grouped and b >= 0 else name)
                        for k, (name, b) in enumerate(
                            zip(plot.categories, plot.branch, strict=True)
                        )
                    ],
                    [],
                ]
            )
            self.plot.getAxis("left").setLabel("rows")
        branches = []
        for b, share in enumerate(plot.shares):
            names = ", ".join(
                name for name, k in zip(plot.categories, plot.branch, strict=True) if k == b
            )
            branches.append(
                f"{f'[{b + 1}] ' if grouped else ''}{_unbroken(names)}: {_percent(share)}"
            )
        missing = plot.missing.sum()
        note = (
            f"<br>{number(round(missing, 3))} have no {escape(plot.attribute)} (not drawn)"
            if missing > 0
            else ""
        )
        self.caption.setText(
            f"{self._rows(plot)}; {' · '.join(branches)}{note}<br>"
            + self._legend(plot.classes, plot.by_class)
        )

    def _regression(self, plot: RegressionSplitData, draw: bool) -> None:
        self.title.setText(f"<b>Node {plot.node_id}</b>: target against {escape(plot.attribute)}")
        if draw:
            self._regression_items(plot)
        sample = (
            f"; a sample of {number(plot.n_sampled)} of the {number(plot.n_known)} points"
            if plot.sampled
            else ""
        )
        means = " · ".join(
            f"[{b + 1}] mean {escape(number(round(m, 4)))} ({_percent(s)})"
            for b, (m, s) in enumerate(zip(plot.means, plot.shares, strict=True))
        )
        cut = f", cut at {escape(number(plot.threshold))}" if plot.threshold is not None else ""
        self.caption.setText(f"{self._rows(plot)}{cut}{sample}<br>{means}")

    def _regression_items(self, plot: RegressionSplitData) -> None:
        x = plot.x
        if plot.categories:  # spread each category's points a little, the same way every time
            x = x + (np.random.default_rng(0).random(len(x)) - 0.5) * 0.5
            self.plot.getAxis("bottom").setTicks([list(enumerate(plot.categories)), []])
        colour = REGRESSION
        self._points = pg.ScatterPlotItem(
            x,
            plot.y,
            size=4,
            pen=None,
            brush=pg.mkBrush(colour.red(), colour.green(), colour.blue(), 110),
        )
        self.plot.addItem(self._points)
        lo = float(np.min(plot.x)) if len(plot.x) else 0.0
        hi = float(np.max(plot.x)) if len(plot.x) else 1.0
        for b, mean in enumerate(plot.means):
            if plot.threshold is not None:
                xs = (
                    [min(lo, plot.threshold), plot.threshold]
                    if b == 0
                    else [plot.threshold, max(hi, plot.threshold)]
                )
                segments = [xs]
            else:
                segments = [[k - 0.35, k + 0.35] for k, g in enumerate(plot.branch) if g == b]
            for xs in segments:
                line = pg.PlotCurveItem(xs, [mean, mean], pen=pg.mkPen(SELECTED, width=2.5))
                self.plot.addItem(line)
                self._means.append(line)
        if plot.threshold is not None:
            self._cut = pg.InfiniteLine(
                pos=plot.threshold,
                angle=90,
                pen=pg.mkPen(MUTED, width=1.5, style=Qt.PenStyle.DashLine),
            )
            self.plot.addItem(self._cut)
        self.plot.getAxis("bottom").setLabel(escape(plot.attribute))  # shown as rich text
        target = self._tree.schema.target if self._tree is not None else "target"
        self.plot.getAxis("left").setLabel(escape(target))

    def _leaf(self, plot: LeafData, draw: bool) -> None:
        if plot.classes is not None:
            self.title.setText(f"<b>Node {plot.node_id}</b> (leaf): classes")
            if draw:
                k = len(plot.classes)
                x = np.arange(k, dtype=float)
                self._stacked(x - 0.4, x + 0.4, np.diag(plot.counts) if k else np.zeros((0, 0)))
                self.plot.getAxis("bottom").setTicks([list(enumerate(plot.classes)), []])
                self.plot.getAxis("left").setLabel("rows")
            self.caption.setText(
                f"{self._rows(plot)}<br>" + self._legend(plot.classes, plot.by_class)
            )
            return
        self.title.setText(f"<b>Node {plot.node_id}</b> (leaf): target")
        if draw:
            item = pg.BarGraphItem(
                x0=plot.edges[:-1],
                x1=plot.edges[1:],
                y0=np.zeros(len(plot.counts)),
                y1=plot.counts,
                brush=REGRESSION,
                pen=pg.mkPen(REGRESSION.darker(130)),
            )
            self.plot.addItem(item)
            self._bars.append(item)
            self._cut = pg.InfiniteLine(pos=plot.mean, angle=90, pen=pg.mkPen(SELECTED, width=2))
            self.plot.addItem(self._cut)
            self.plot.getAxis("left").setLabel("rows")
        self.caption.setText(f"{self._rows(plot)}, mean {escape(number(round(plot.mean, 4)))}")

    # ------------------------------------------------------------------ for tests and copying
    def plotted_counts(self) -> np.ndarray:
        """The bars' heights as drawn, one row per bar item (class)."""
        return np.array([np.asarray(b.opts["y1"]) - np.asarray(b.opts["y0"]) for b in self.bars])

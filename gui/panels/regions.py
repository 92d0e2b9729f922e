"""The Regions dock (issue 32): the plane of two numeric attributes coloured by the leaf each
point falls in, with the rows drawn on it, and a split drawn there with the mouse, as Weka's
UserClassifier lets a student draw one.

The boxes are :func:`engine.export.regions.decision_regions`' (exact, the tree's own routing)
and the points :func:`engine.export.regions.plane_points`' (at most 50,000, the sample said);
this widget only draws them. Hovering a box lights its leaf on the canvas (``nodes_lit``);
the node selected or hovered on the canvas lights its boxes here. A line dragged inside a
leaf's box, parallel to an axis, asks for that hand split (``split_drawn``): the window sends
it down the same path as the node menu's "at a threshold I type", onto the undo stack.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape
from itertools import islice

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QBoxLayout,
    QComboBox,
    QGridLayout,
    QLabel,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.errors import ArborError
from engine.export.labels import number
from engine.export.regions import (
    PlanePoints,
    Regions,
    decision_regions,
    fit_on_two,
    plane_points,
)
from engine.monitor import NULL_MONITOR
from gui.drawing.palette import SELECTED, TEXT, class_colour
from gui.panels.lazy_plot import LazyPlot
from gui.session.jobs import Job, run_aside

#: Tables with more rows than this are worked out in a worker (the tree on two is a fit).
WORKER_ROWS = 20_000
MUTED = "#6B7280"
#: How opaque a box's fill is: light enough for the points of every class to show on it.
FILL_ALPHA = 70
#: Regression: the means are shown in this many shades, light (low) to dark (high).
SHADES = 7
LIGHT, DARK = QColor("#DCEAF6"), QColor("#08519C")
#: The nodes looked at (from the root down) for the attributes a tree asks about first.
SEARCHED = 5_000
#: The controls' column beside the plane; narrower than twice this, they go above it.
SIDE_WIDTH = 300
ON_SCREEN, ON_TWO = 0, 1
DRAW_TIP = (
    "Draw a split: drag inside a leaf's box, along the line you want — a mostly vertical "
    "drag cuts the x attribute where it starts, a mostly horizontal one the y attribute. "
    "Shift+drag draws without this button. Undo takes the split back."
)


@dataclass(frozen=True, eq=False)
class Plane:
    """What the dock draws: the boxes, the points, and the tree they come from (the tree on
    screen, or one grown on the two attributes alone) with the row held."""

    regions: Regions
    points: PlanePoints
    tree: object
    on_screen: bool
    row: int
    x_name: str
    y_name: str


def make_plane(tree, data, settings, x: int, y: int, on_screen: bool, row: int, monitor=None):
    """The plane of attributes ``x`` and ``y`` of ``data``: coloured by ``tree`` with the other
    attributes as in row ``row``, or by a tree grown with ``settings`` on the two alone."""
    monitor = monitor or NULL_MONITOR
    points = plane_points(data, x, y)
    if on_screen:
        used, regions = tree, decision_regions(tree, x, y, data.X[row])
    else:
        used = fit_on_two(data, settings, x, y, monitor)
        regions = decision_regions(used, 0, 1)
    names = data.schema.attributes
    return Plane(regions, points, used, on_screen, row, names[x].name, names[y].name)


def snapped(value: float, pixel: float) -> float:
    """The roundest decimal within a pixel of ``value`` (a pixel is ``pixel`` wide): the
    threshold a person would type for a line drawn there.

    >>> snapped(2.4537, 0.013), snapped(71.26, 0.4), snapped(0.5, 0.0)
    (2.45, 71.3, 0.5)
    """
    if not pixel > 0 or not math.isfinite(pixel):
        return float(value)
    exponent = math.floor(math.log10(pixel))
    step = 10.0**exponent
    return float(f"{round(value / step) * step:.{max(0, -exponent)}f}")


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def _interval(name: str, lo: float, hi: float) -> str:
    if math.isinf(lo) and math.isinf(hi):
        return f"any {name}"
    if math.isinf(lo):
        return f"{name} ≤ {number(hi)}"
    if math.isinf(hi):
        return f"{name} > {number(lo)}"
    return f"{number(lo)} < {name} ≤ {number(hi)}"


def _shade(fraction: float) -> QColor:
    f = min(max(fraction, 0.0), 1.0)
    return QColor.fromRgbF(
        LIGHT.redF() + f * (DARK.redF() - LIGHT.redF()),
        LIGHT.greenF() + f * (DARK.greenF() - LIGHT.greenF()),
        LIGHT.blueF() + f * (DARK.blueF() - LIGHT.blueF()),
    )


class _PlaneBox(pg.ViewBox):
    """Pans and zooms as any plot does, but a left drag while drawing (or with Shift) draws
    a split line instead of panning."""

    def __init__(self, panel: RegionsPanel):
        super().__init__()
        self._panel = panel

    def mouseDragEvent(self, ev, axis=None) -> None:  # noqa: N802 - pyqtgraph override
        drawing = self._panel.drawing() or bool(ev.modifiers() & Qt.KeyboardModifier.ShiftModifier)
        if ev.button() != Qt.MouseButton.LeftButton or not drawing:
            super().mouseDragEvent(ev, axis)
            return
        ev.accept()
        down, now = ev.buttonDownPos(), ev.pos()
        vertical = abs(now.y() - down.y()) >= abs(now.x() - down.x())
        self._panel.drag_line(self.mapToView(down), vertical, ev.isFinish())


class _PlotWidget(pg.PlotWidget):
    """The plane, asking for a square of the dock; leaving it puts the canvas's light back."""

    HINT = QSize(280, 260)

    def __init__(self, panel: RegionsPanel):
        super().__init__(background="w", viewBox=_PlaneBox(panel))
        self._panel = panel

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return self.HINT

    def leaveEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._panel.hover_region(-1)
        super().leaveEvent(event)


class RegionsPanel(QWidget):
    """Two attribute pickers, which tree colours the plane (and the row held), the Draw split
    button, the plane, and what it shows in words.

    Signals
    -------
    nodes_lit(object) : the set of node ids a hovered box stands for on the canvas (empty: none).
    split_drawn(int, int, float) : a split drawn in a leaf's box: the leaf, the attribute and
        the threshold.
    plane_shown(object) : the :class:`Plane` now drawn (None: nothing is drawn).
    """

    nodes_lit = Signal(object)
    split_drawn = Signal(int, int, float)
    plane_shown = Signal(object)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.controller = None
        self.plane: Plane | None = None
        self.lit: np.ndarray = np.zeros(0, np.intp)  # the boxes lit now
        self.fills: list[pg.BarGraphItem] = []
        self.dots: list[pg.ScatterPlotItem] = []
        self._stale = True
        self._key = None  # what the plane drawn (or being worked out) was made from
        self._job: Job | None = None
        self._hovered = -1  # the box under the mouse
        self._canvas_node = -1  # the node under the mouse on the canvas
        self._attributes: tuple = ()  # the schema's attributes the pickers list
        self.x_box, self.y_box = QComboBox(), QComboBox()
        for box, axis in ((self.x_box, "across"), (self.y_box, "up")):
            box.setToolTip(f"The numeric attribute drawn {axis} the plane")
            box.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            box.setMinimumContentsLength(6)
            box.currentIndexChanged.connect(self._on_choice_changed)
        self.source = QComboBox()
        self.source.addItems(["The tree on screen", "A tree on these two only"])
        self.source.setToolTip(
            "Colour the plane by the tree on screen, its other attributes held at one row's "
            "values; or by a tree grown with the same options on the two attributes alone"
        )
        self.source.currentIndexChanged.connect(self._on_choice_changed)
        self.row = QSpinBox()
        self.row.setRange(1, 1)
        self.row.setToolTip(
            "The training row whose values the other attributes are held at (click a point "
            "on the plane to take its row)"
        )
        self.row.valueChanged.connect(self._on_choice_changed)
        self.draw_button = QToolButton()
        self.draw_button.setText("Draw split")
        self.draw_button.setCheckable(True)
        self.draw_button.setToolTip(DRAW_TIP)
        self.draw_button.toggled.connect(self._on_draw_toggled)
        self.figure = LazyPlot(self._set_up, make=lambda: _PlotWidget(self), hint=_PlotWidget.HINT)
        self.figure.hide()
        self.hover = QLabel()  # the box under the mouse, or the line being drawn
        self.hover.setTextFormat(Qt.TextFormat.RichText)
        self.hover.setWordWrap(True)
        self.caption = QLabel()
        self.caption.setTextFormat(Qt.TextFormat.RichText)  # names in it are escaped
        self.caption.setWordWrap(True)
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(4)
        grid.setVerticalSpacing(2)
        grid.addWidget(QLabel("x"), 0, 0)
        grid.addWidget(self.x_box, 0, 1)
        grid.addWidget(QLabel("y"), 0, 2)
        grid.addWidget(self.y_box, 0, 3)
        grid.addWidget(self.source, 1, 0, 1, 2)
        self.row_label = QLabel("row")
        self.row_label.setToolTip(self.row.toolTip())
        grid.addWidget(self.row_label, 1, 2)
        grid.addWidget(self.row, 1, 3)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.side = QWidget()  # the controls and the words, beside the plane or above it
        side = QVBoxLayout(self.side)
        side.setContentsMargins(0, 0, 0, 0)
        side.setSpacing(3)
        side.addLayout(grid)
        side.addWidget(self.draw_button)
        side.addWidget(self.hover)
        side.addWidget(self.caption)
        side.addStretch(1)
        self.side.setMaximumWidth(SIDE_WIDTH)
        layout = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.setSpacing(6)
        layout.addWidget(self.side)
        layout.addWidget(self.figure, 1)
        self._say("Train a tree to see the regions its leaves cut a plane of two attributes into.")

    # ------------------------------------------------------------------ the plot
    @property
    def plot(self) -> pg.PlotWidget:
        """The plane, made the first time it is needed."""
        return self.figure.plot

    def _set_up(self, plot: pg.PlotWidget) -> None:
        plot.setMinimumHeight(150)
        plot.setMenuEnabled(False)
        plot.hideButtons()
        for side in ("left", "bottom"):
            axis = plot.getAxis(side)
            axis.enableAutoSIPrefix(False)
            axis.setTextPen(pg.mkPen(TEXT))
            axis.setPen(pg.mkPen(MUTED))
        self.outline = pg.BarGraphItem(
            x0=[],
            x1=[],
            y0=[],
            y1=[],
            brush=QColor(255, 224, 138, 110),
            pen=pg.mkPen(SELECTED, width=2.5),
        )
        self.outline.setZValue(5)
        self.line = pg.PlotDataItem(pen=pg.mkPen(SELECTED, width=2.5, style=Qt.PenStyle.DashLine))
        self.line.setZValue(10)
        plot.scene().sigMouseMoved.connect(self._on_mouse_moved)
        if self.drawing():
            plot.viewport().setCursor(Qt.CursorShape.CrossCursor)

    def use_draw_action(self, action) -> None:
        """Let the window's Draw split command (its shortcut, its menu entry) be the button."""
        self.draw_button.setDefaultAction(action)

    def drawing(self) -> bool:
        return self.draw_button.isChecked()

    def _on_draw_toggled(self, on: bool) -> None:
        """A cross over the plane while a drag draws, the hand's arrow while it pans."""
        if self.figure.built:
            shape = Qt.CursorShape.CrossCursor if on else Qt.CursorShape.ArrowCursor
            self.plot.viewport().setCursor(shape)

    # ------------------------------------------------------------------ following the window
    def bind(self, controller) -> None:
        self.controller = controller
        controller.tree_changed.connect(self._on_controller_tree_changed)
        controller.node_selected.connect(lambda *_: self._light_nodes())

    def _on_controller_tree_changed(self, tree, _select) -> None:
        self._fill_pickers()
        self._invalidate()

    def _invalidate(self) -> None:
        self._stale = True
        if self.isVisible():
            self.refresh()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().showEvent(event)
        if self._stale:
            self.refresh()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """Beside the plane in a wide dock (under the canvas), above it in a narrow one."""
        wide = event.size().width() >= 2 * SIDE_WIDTH
        layout = self.layout()
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if layout.direction() != direction:
            layout.setDirection(direction)
            self.side.setMaximumWidth(SIDE_WIDTH if wide else 16_777_215)
        super().resizeEvent(event)

    def _fill_pickers(self) -> None:
        """The numeric attributes of the rows the tree was made from; the pair shown stays
        while it still can, else the two the tree splits on first."""
        c = self.controller
        data = c.data if c is not None else None
        attributes = data.schema.attributes if data is not None else ()
        if data is not None:
            self.row.blockSignals(True)
            self.row.setRange(1, max(1, data.n_rows))
            self.row.blockSignals(False)
        if attributes == self._attributes:
            return
        self._attributes = attributes
        numeric = [j for j, a in enumerate(attributes) if not a.is_nominal]
        first = self._first_used(numeric)
        for box, pick in ((self.x_box, first[0:1]), (self.y_box, first[1:2])):
            box.blockSignals(True)
            box.clear()
            for j in numeric:
                box.addItem(attributes[j].name, j)
            if pick:
                box.setCurrentIndex(numeric.index(pick[0]))
            box.blockSignals(False)

    def _first_used(self, numeric: list[int]) -> list[int]:
        """Numeric attributes in the order the tree first splits on them, then the rest."""
        tree = self.controller.tree if self.controller is not None else None
        order = []
        if tree is not None:
            for node in islice(tree.nodes(), SEARCHED):
                a = node.split.attribute if node.split is not None else None
                if a in numeric and a not in order:
                    order.append(a)
                if len(order) == 2:
                    break
        return order + [j for j in numeric if j not in order]

    def _on_choice_changed(self, *_) -> None:
        self.row.setEnabled(self.source.currentIndex() == ON_SCREEN)
        self.row_label.setEnabled(self.row.isEnabled())
        self._invalidate()

    # ------------------------------------------------------------------ working it out
    def choice(self) -> tuple[int, int, bool, int]:
        """(x attribute, y attribute, colour by the tree on screen, the row held: 0-based)."""
        return (
            self.x_box.currentData(),
            self.y_box.currentData(),
            self.source.currentIndex() == ON_SCREEN,
            self.row.value() - 1,
        )

    def refresh(self) -> None:
        """Work the plane out again for the tree and choices now (a big table in a worker)."""
        self._stale = False
        c = self.controller
        tree = c.tree if c is not None else None
        data = c.data if c is not None else None
        if tree is None:
            return self._nothing("Train a tree to see the regions its leaves cut a plane into.")
        if data is None:
            return self._nothing(
                "Decision regions need the rows the tree was trained on: open the data and train."
            )
        if self.x_box.count() < 2:
            return self._nothing(
                "Decision regions need two numeric attributes; this table has "
                f"{self.x_box.count() or 'none'}."
            )
        x, y, on_screen, row = self.choice()
        if x == y:
            return self._nothing("Choose two different attributes.")
        settings = c.settings
        if not on_screen and settings is None:
            return self._nothing("The tree's options are not known, so no tree can be grown here.")
        # The objects, not their ids: a table freed after a retraining could lend its id to
        # the next one, and the plane of the old rows would be kept. (Encoded and Tree compare
        # by identity.)
        key = (tree if on_screen else None, data, settings, x, y, on_screen, row)
        if key == self._key and (self.plane is not None or self._job is not None):
            return None
        self._key = key
        if self._job is not None:
            self._job.cancel()
            self._job = None
        args = (tree, data, settings, x, y, on_screen, min(row, data.n_rows - 1))
        if data.n_rows <= WORKER_ROWS:
            try:
                plane = make_plane(*args)
            except ArborError as err:
                return self._nothing(str(err))
            return self._show(plane)
        job = Job("Decision regions", lambda monitor: make_plane(*args, monitor=monitor))
        self._job = job
        job.finished.connect(lambda plane, j=job: self._job is j and self._show(plane))
        job.failed.connect(lambda message, _d, j=job: self._job is j and self._nothing(message))
        what = "Growing a tree on the two attributes" if not on_screen else "Cutting the plane"
        self.caption.setText(f"<i>{escape(what)} over {data.n_rows:,} rows…</i>")
        run_aside(job)
        return None

    def _nothing(self, message: str) -> None:
        self._job = None
        self._key = None
        self._draw(None)
        self._say(message)

    def _say(self, message: str) -> None:
        self.caption.setText(f"<span style='color:{MUTED}'>{escape(message)}</span>")

    def _show(self, plane: Plane) -> None:
        self._job = None
        self._draw(plane)
        self.caption.setText(self._caption(plane))

    # ------------------------------------------------------------------ drawing
    def _frame(self, plane: Plane) -> tuple[float, float, float, float]:
        """The part of the plane painted: the rows' ranges and as much again on every side, so
        panning a little never runs off the colours."""
        (x0, x1), (y0, y1) = plane.points.x_range, plane.points.y_range
        w, h = x1 - x0, y1 - y0
        return x0 - w, x1 + w, y0 - h, y1 + h

    def _clipped(self, plane: Plane, index: np.ndarray):
        left, right, bottom, top = self._frame(plane)
        r = plane.regions
        return (
            np.clip(r.x0[index], left, right),
            np.clip(r.x1[index], left, right),
            np.clip(r.y0[index], bottom, top),
            np.clip(r.y1[index], bottom, top),
        )

    def _costs(self, regions) -> tuple:
        """The cost matrix the regions' tree predicts by (``--costs``), in its classes' order."""
        from engine.learn.costs import settings_costs

        settings = self.controller.settings
        if settings is None or not settings.costs:
            return ()
        try:
            return settings_costs(settings, regions.classes)
        except ArborError:  # a matrix for another table: the training said so already
            return ()

    def _colours(self, plane: Plane) -> tuple[np.ndarray, list[QColor], np.ndarray]:
        """A colour group per box and per point, and the group's colour: the predicted class,
        or (regression) the shade of the mean."""
        r, p = plane.regions, plane.points
        if r.classes is not None:
            algorithm = self.controller.settings.algorithm if self.controller.settings else None
            groups = r.predicted(algorithm, self._costs(r))
            return groups, [class_colour(k) for k in range(len(r.classes))], p.target
        lo = float(min(r.outputs.min(initial=np.inf), p.target.min(initial=np.inf)))
        hi = float(max(r.outputs.max(initial=-np.inf), p.target.max(initial=-np.inf)))
        span = hi - lo if hi > lo else 1.0

        def shade_of(values):
            return np.clip(((values - lo) / span * SHADES).astype(np.intp), 0, SHADES - 1)

        colours = [_shade(k / (SHADES - 1)) for k in range(SHADES)]
        return shade_of(r.outputs), colours, shade_of(np.asarray(p.target, np.float64))

    def _draw(self, plane: Plane | None) -> None:
        previous = self.plane
        self.plane = plane
        self._hovered = -1
        self.hover.setText("")
        self.figure.setVisible(plane is not None)
        if plane is None:
            if self.figure.built:
                self.plot.clear()
            self.fills, self.dots, self.lit = [], [], np.zeros(0, np.intp)
            self.plane_shown.emit(None)
            return
        plot = self.plot
        plot.clear()
        self.fills, self.dots = [], []
        groups, colours, point_groups = self._colours(plane)
        shared = plane.regions.shared
        for k, colour in enumerate(colours):
            index = np.flatnonzero(groups == k)
            if not len(index):
                continue
            x0, x1, y0, y1 = self._clipped(plane, index)
            fill = QColor(colour)
            fill.setAlpha(FILL_ALPHA)
            item = pg.BarGraphItem(
                x0=x0, x1=x1, y0=y0, y1=y1, brush=fill, pen=pg.mkPen("w", width=1)
            )
            plot.addItem(item)
            self.fills.append(item)
            hatched = index[shared[index]]
            if len(hatched):  # shared among leaves: hatched in the same colour
                x0, x1, y0, y1 = self._clipped(plane, hatched)
                plot.addItem(
                    pg.BarGraphItem(
                        x0=x0,
                        x1=x1,
                        y0=y0,
                        y1=y1,
                        brush=QBrush(QColor(colour), Qt.BrushStyle.BDiagPattern),
                        pen=pg.mkPen(None),
                    )
                )
        points = plane.points
        for k, colour in enumerate(colours):
            chosen = np.flatnonzero(point_groups == k)
            if not len(chosen):
                continue
            dots = pg.ScatterPlotItem(
                x=points.x[chosen],
                y=points.y[chosen],
                size=5 if len(points.x) <= 5_000 else 3,
                brush=pg.mkBrush(colour),
                pen=pg.mkPen(QColor(255, 255, 255, 170), width=0.6),
                hoverable=False,
            )
            dots.setZValue(3)
            dots.sigClicked.connect(self._on_points_clicked)
            dots.rows = points.rows[chosen]  # a row per point (pyqtgraph's per-point data is slow)
            plot.addItem(dots)
            self.dots.append(dots)
        plot.addItem(self.outline)
        plot.addItem(self.line)
        self.line.setData([], [])
        bottom, left = plot.getAxis("bottom"), plot.getAxis("left")
        bottom.setLabel(escape(plane.x_name))  # pyqtgraph shows a label as rich text
        left.setLabel(escape(plane.y_name))
        same_axes = previous is not None and (previous.x_name, previous.y_name) == (
            plane.x_name,
            plane.y_name,
        )
        if not same_axes:  # a new pair: show the rows; the same pair keeps the zoom
            plot.setXRange(*points.x_range, padding=0)
            plot.setYRange(*points.y_range, padding=0)
        left_edge, right_edge, bottom_edge, top_edge = self._frame(plane)
        plot.getViewBox().setLimits(
            xMin=left_edge, xMax=right_edge, yMin=bottom_edge, yMax=top_edge
        )
        self._light_nodes()
        self.plane_shown.emit(plane)

    def _caption(self, plane: Plane) -> str:
        p, r = plane.points, plane.regions
        if p.sampled:
            drawn = f"{len(p.x):,} of {p.n_known:,} rows drawn (a fixed sample)"
        else:
            drawn = f"{p.n_known:,} rows drawn"
        if p.n_known < p.n_rows:
            drawn += f"; {p.n_rows - p.n_known:,} lack a value of the two"
        parts = [escape(drawn)]
        if plane.on_screen:
            parts.append(
                escape(f"Coloured by the tree on screen: {_count(len(r), 'box', 'boxes')}; ")
                + self._held_text(plane)
            )
            if r.shared.any():
                parts.append(
                    escape(
                        "Hatched: shared among leaves, as C4.5 shares a row with a missing value"
                    )
                )
        else:
            parts.append(
                escape(
                    f"Coloured by a tree grown on {plane.x_name} and {plane.y_name} alone with "
                    f"the tree's options: {plane.tree.n_leaves} leaves (its own, not the canvas's)"
                )
            )
        parts.append(self._legend(plane))
        hint = "hover a box to light its leaf on the canvas"
        if plane.on_screen:
            hint += "; Draw split (Ctrl+Shift+D) or Shift+drag in a leaf's box splits it there"
        parts.append(f"<span style='color:{MUTED}'>{escape(hint)}</span>")
        return "<br>".join(parts)

    def _held_text(self, plane: Plane) -> str:
        """The held values of the other attributes the tree asks about (a few)."""
        tree, held = plane.tree, plane.regions.held
        asked = []
        for node in islice(tree.nodes(), SEARCHED):
            a = node.split.attribute if node.split is not None else None
            plane_pair = (plane.regions.x_attribute, plane.regions.y_attribute)
            if a is not None and a not in plane_pair and a not in asked:
                asked.append(a)
            if len(asked) > 4:
                break
        if not asked:
            return escape(f"it asks about nothing else (row {plane.row + 1} changes nothing)")
        attributes = tree.schema.attributes
        said = []
        for a in asked[:4]:
            value = held[a]
            if np.isnan(value):
                text = "?"
            elif attributes[a].is_nominal:
                text = attributes[a].categories[int(value)]
            else:
                text = number(float(value))
            said.append(f"{attributes[a].name} = {text}")
        more = ", …" if len(asked) > 4 else ""
        return escape(f"the others as in row {plane.row + 1}: {', '.join(said)}{more}")

    def _legend(self, plane: Plane) -> str:
        classes = plane.regions.classes
        if classes is None:
            r, p = plane.regions, plane.points
            lo = min(r.outputs.min(initial=np.inf), p.target.min(initial=np.inf))
            hi = max(r.outputs.max(initial=-np.inf), p.target.max(initial=-np.inf))
            return escape(
                f"Light to dark: {plane.tree.schema.target} from {number(float(lo))} to "
                f"{number(float(hi))} (boxes: the leaf's mean; points: the row's value)"
            )
        return "&nbsp;&nbsp; ".join(
            f"<span style='color:{class_colour(k).name()}'>■</span>&nbsp;{escape(c)}"
            for k, c in enumerate(classes)
        )

    # ------------------------------------------------------------------ lighting
    def _light(self, index: np.ndarray) -> None:
        self.lit = np.asarray(index, dtype=np.intp)
        if self.plane is None or not self.figure.built:
            return
        if not len(self.lit):
            self.outline.setOpts(x0=[], x1=[], y0=[], y1=[])
            return
        x0, x1, y0, y1 = self._clipped(self.plane, self.lit)
        self.outline.setOpts(x0=x0, x1=x1, y0=y0, y1=y1)

    def _linked(self) -> bool:
        """Whether the boxes are the canvas's tree's leaves."""
        c = self.controller
        return (
            self.plane is not None
            and self.plane.on_screen
            and c is not None
            and (self.plane.tree is c.tree)
        )

    def light_canvas_node(self, node_id: int) -> None:
        """The node under the mouse on the canvas (-1: none): its boxes are lit."""
        self._canvas_node = node_id
        self._light_nodes()

    def _light_nodes(self) -> None:
        """Light the boxes of the box hovered, else of the node hovered on the canvas, else
        of the node selected."""
        if self._hovered >= 0:
            self._light(np.array([self._hovered]))
            return
        if not self._linked():
            self._light(np.zeros(0, np.intp))
            return
        node_id = self._canvas_node if self._canvas_node >= 0 else self.controller.selected
        tree = self.plane.tree
        try:
            node = tree.node(node_id) if node_id >= 0 else None
        except KeyError:
            node = None
        leaves = [n.id for n in node.walk() if n.is_leaf] if node is not None else []
        self._light(self.plane.regions.reaching(leaves) if leaves else np.zeros(0, np.intp))

    def _on_mouse_moved(self, scene_pos) -> None:
        if self.plane is None:
            return
        box = self.plot.getViewBox()
        if not box.sceneBoundingRect().contains(scene_pos):
            self.hover_region(-1)
            return
        point = box.mapSceneToView(scene_pos)
        self.hover_region(int(self.plane.regions.at(point.x(), point.y())[0]))

    def hover_region(self, index: int) -> None:
        """Box ``index`` is under the mouse (-1: none): lit here, its leaf lit on the canvas."""
        if index == self._hovered:
            return
        had = self._hovered
        self._hovered = index
        self._light_nodes()
        if index < 0:
            self.hover.setText("")
            if had >= 0 and self._linked():
                self.nodes_lit.emit(set())
            return
        self.hover.setText(self._region_text(index))
        if self._linked():
            self.nodes_lit.emit(set(self.plane.regions.leaves[index]))

    def _region_text(self, index: int) -> str:
        plane = self.plane
        r = plane.regions
        where = ", ".join(
            t
            for t in (
                _interval(plane.x_name, r.x0[index], r.x1[index]),
                _interval(plane.y_name, r.y0[index], r.y1[index]),
            )
            if not t.startswith("any ")
        )
        if r.classes is not None:
            algorithm = self.controller.settings.algorithm if self.controller.settings else None
            said = r.classes[int(r.predicted(algorithm, self._costs(r))[index])]
        else:
            settings = self.controller.settings
            median = settings is not None and settings.criterion == "absolute_error"
            said = f"{'median' if median else 'mean'} {number(float(r.outputs[index]))}"
        leaves = r.leaves[index]
        tree = plane.tree
        if len(leaves) == 1:
            node = tree.node(leaves[0])
            whose = f"Leaf {leaves[0]}: {said} ({number(round(node.weight, 2))} rows)"
        else:
            shares = ", ".join(
                f"{leaf} ({100 * share:.0f}%)"
                for leaf, share in zip(leaves, r.shares[index], strict=True)
            )
            whose = f"Shared by leaves {shares}: {said}"
        return f"<b>{escape(whose)}</b>" + (f"<br>{escape(where)}" if where else "")

    def _on_points_clicked(self, item, points, _event=None) -> None:
        """A point clicked: the tree on screen, the others held at that point's row."""
        if not len(points) or self.drawing():
            return
        self.source.setCurrentIndex(ON_SCREEN)
        self.row.setValue(int(item.rows[points[0].index()]) + 1)

    # ------------------------------------------------------------------ drawing a split
    def drag_line(self, start, vertical: bool, finished: bool) -> None:
        """The line being dragged from view point ``start``: vertical cuts the x attribute at
        ``start``'s x, horizontal the y attribute at its y. On release, the split is asked for."""
        plane = self.plane
        if plane is None:
            return
        self.line.setData([], [])
        if not self._linked():
            self._say_drawing(
                "Draw a split on the tree on screen: the tree on these two only is the plane's own"
                if plane is not None and not plane.on_screen
                else "The plane is not worked out for the tree on screen yet"
            )
            return
        r = plane.regions
        k = int(r.at(start.x(), start.y())[0])
        if k < 0:
            return
        if len(r.leaves[k]) > 1:
            self._say_drawing(
                f"This box is shared by several leaves (row {plane.row + 1} lacks a value the "
                "tree asks about): hold the others at another row to draw here"
            )
            return
        pixel_x, pixel_y = self.plot.getViewBox().viewPixelSize()
        if vertical:
            attribute, name = r.x_attribute, plane.x_name
            threshold = snapped(start.x(), pixel_x)
            lo, hi = r.x0[k], r.x1[k]
        else:
            attribute, name = r.y_attribute, plane.y_name
            threshold = snapped(start.y(), pixel_y)
            lo, hi = r.y0[k], r.y1[k]
        if not lo < threshold < hi:
            self._say_drawing("Draw inside a box, away from its edges")
            return
        leaf = r.leaves[k][0]
        left, right, bottom, top = self._frame(plane)
        if vertical:
            ys = [max(r.y0[k], bottom), min(r.y1[k], top)]
            self.line.setData([threshold, threshold], ys)
        else:
            xs = [max(r.x0[k], left), min(r.x1[k], right)]
            self.line.setData(xs, [threshold, threshold])
        said = f"Split leaf {leaf} at {name} ≤ {number(threshold)}"
        if not finished:
            self.hover.setText(f"<b>{escape(said)}</b> (release to split)")
            return
        self.line.setData([], [])
        self.hover.setText(escape(said))
        self.split_drawn.emit(leaf, attribute, threshold)

    def _say_drawing(self, message: str) -> None:
        self.hover.setText(f"<span style='color:{MUTED}'>{escape(message)}</span>")

    # ------------------------------------------------------------------ for tests
    def drawn_boxes(self) -> int:
        """How many boxes are filled on the plane."""
        return sum(len(item.opts["x0"]) for item in self.fills)

    def drawn_points(self) -> int:
        return sum(len(item.data) for item in self.dots)

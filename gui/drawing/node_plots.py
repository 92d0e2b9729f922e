"""The small plot of a node's rows drawn inside its box (issue 32), as dtreeviz draws a node: a
numeric split's histogram stacked by class with the cut, a nominal split's bars per category,
a regression split's points with each branch's mean, a leaf's classes or target histogram.

The numbers are :func:`engine.export.node_data.node_data`'s (many nodes at once:
:func:`engine.export.node_data.nodes_data`); :func:`plot_marks` turns them into marks in the
data's own units, and :func:`paint_plot` maps those into the box, so a test reads what is
drawn without a painter. The canvas and the image export paint through here.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen

from engine.export.node_data import LeafData, NominalSplitData, NumericSplitData
from gui.drawing import palette

#: Points drawn for a regression split: a small plot shows the shape, not every row.
THUMB_POINTS = 300
#: What a plot says when the rows its tree was grown from are not at hand.
NO_ROWS = "rows not loaded"
#: Room between a category's bar and the next, as a share of the slot.
GAP = 0.15
PLACEHOLDER = QColor("#F1F3F6")


def plot_size(body_px: int) -> tuple[float, float]:
    """Width and height of the plot inside a box, for body text ``body_px`` tall: a slide's
    larger type gets a larger plot."""
    return 10.0 * body_px, 4.0 * body_px


@dataclass(frozen=True)
class PlotMarks:
    """A node plot as marks in the data's units: ``bars`` rows of (x0, x1, y0, y1, class; -1
    the regression colour), ``points`` rows of (x, y), ``means`` rows of (x0, x1, y) drawn as
    level lines, ``cut`` the split point (None: none), within ``x_range`` and ``y_range``."""

    bars: np.ndarray
    points: np.ndarray
    means: np.ndarray
    cut: float | None
    x_range: tuple[float, float]
    y_range: tuple[float, float]


def _stacked(x0: np.ndarray, x1: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Bars stacked in class order: one row per (class, cell) with any weight."""
    n_classes, n_cells = counts.shape
    tops = np.cumsum(counts, axis=0)
    bottoms = tops - counts
    classes = np.repeat(np.arange(n_classes), n_cells)
    rows = np.column_stack(
        [np.tile(x0, n_classes), np.tile(x1, n_classes), bottoms.ravel(), tops.ravel(), classes]
    )
    return rows[counts.ravel() > 0]


def _range(values: np.ndarray, *more: float, pad: float = 0.0) -> tuple[float, float]:
    """The span of ``values`` and ``more``, widened by ``pad`` of it on each side (points
    drawn at the very edge would sit on the box's baseline)."""
    finite = np.concatenate([np.asarray(values, dtype=np.float64).ravel(), more])
    finite = finite[np.isfinite(finite)]
    if not len(finite):
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    if hi <= lo:
        return lo - 0.5, hi + 0.5
    return lo - pad * (hi - lo), hi + pad * (hi - lo)


def _slots(n: int) -> tuple[np.ndarray, np.ndarray]:
    x = np.arange(n, dtype=np.float64)
    return x + GAP, x + 1 - GAP


def plot_marks(plot) -> PlotMarks:
    """What :func:`paint_plot` draws for ``plot`` (a :data:`engine.export.node_data.NodeData`)."""
    none2, none3 = np.zeros((0, 2)), np.zeros((0, 3))
    if isinstance(plot, NumericSplitData):
        counts = plot.counts
        top = float(counts.sum(axis=0).max()) if counts.size else 0.0
        return PlotMarks(
            _stacked(plot.edges[:-1], plot.edges[1:], counts),
            none2,
            none3,
            plot.threshold,
            (float(plot.edges[0]), float(plot.edges[-1])),
            (0.0, top or 1.0),
        )
    if isinstance(plot, NominalSplitData):
        counts = plot.counts
        top = float(counts.sum(axis=0).max()) if counts.size else 0.0
        return PlotMarks(
            _stacked(*_slots(len(plot.categories)), counts),
            none2,
            none3,
            None,
            (0.0, float(max(len(plot.categories), 1))),
            (0.0, top or 1.0),
        )
    if isinstance(plot, LeafData):
        if plot.classes is not None:  # one bar per class, in its colour
            k = len(plot.classes)
            top = float(plot.counts.max()) if k else 0.0
            return PlotMarks(
                _stacked(*_slots(k), np.diag(plot.counts) if k else np.zeros((0, 0))),
                none2,
                none3,
                None,
                (0.0, float(max(k, 1))),
                (0.0, top or 1.0),
            )
        n = len(plot.counts)
        bars = np.column_stack(
            [plot.edges[:-1], plot.edges[1:], np.zeros(n), plot.counts, np.full(n, -1.0)]
        )
        top = float(plot.counts.max()) if n else 0.0
        return PlotMarks(
            bars[plot.counts > 0],
            none2,
            none3,
            None if not np.isfinite(plot.mean) else plot.mean,
            (float(plot.edges[0]), float(plot.edges[-1])),
            (0.0, top or 1.0),
        )
    # A regression split: the target against the attribute, each branch's mean as a level.
    x, y = np.asarray(plot.x, dtype=np.float64), np.asarray(plot.y, dtype=np.float64)
    if plot.categories:  # a category per slot, its points spread across it the same way each time
        x = x + 0.5 + (np.random.default_rng(0).random(len(x)) - 0.5) * 0.6
        x_range = (0.0, float(len(plot.categories)))
        means = [
            (k + GAP, k + 1 - GAP, plot.means[b])
            for k, b in enumerate(plot.branch)
            if b >= 0 and np.isfinite(plot.means[b])
        ]
    else:
        extra = () if plot.threshold is None else (plot.threshold,)
        x_range = _range(x, *extra, pad=0.03)
        cut = plot.threshold if plot.threshold is not None else x_range[0]
        sides = ((x_range[0], cut), (cut, x_range[1]))
        means = [(*sides[b], m) for b, m in enumerate(plot.means[:2]) if np.isfinite(m)]
    return PlotMarks(
        np.zeros((0, 5)),
        np.column_stack([x, y]) if len(x) else none2,
        np.array(means, dtype=np.float64).reshape(-1, 3),
        plot.threshold,
        x_range,
        _range(y, *(m for *_, m in means), pad=0.1),
    )


def paint_plot(painter: QPainter, rect: QRectF, plot, font=None) -> None:
    """``plot`` in ``rect``: node data, None (being worked out: an empty grey panel), or a note
    to say instead (``font`` its type)."""
    painter.save()
    if plot is None or isinstance(plot, str):
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(PLACEHOLDER)
        painter.drawRect(rect)
        if plot and font is not None:  # no font: too small to read
            painter.setFont(font)
            painter.setPen(palette.MUTED)
            painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, plot)
        painter.restore()
        return
    marks = plot_marks(plot)
    (x_lo, x_hi), (y_lo, y_hi) = marks.x_range, marks.y_range
    sx = rect.width() / (x_hi - x_lo)
    sy = rect.height() / (y_hi - y_lo)

    def at_x(x):
        return rect.left() + (x - x_lo) * sx

    def at_y(y):
        return rect.bottom() - (y - y_lo) * sy

    bars = marks.bars
    painter.setPen(Qt.PenStyle.NoPen)
    for k in np.unique(bars[:, 4]).astype(int).tolist() if len(bars) else []:
        painter.setBrush(palette.REGRESSION if k < 0 else palette.class_colour(k))
        chosen = bars[bars[:, 4] == k]
        left, right = at_x(chosen[:, 0]), at_x(chosen[:, 1])
        top, bottom = at_y(chosen[:, 3]), at_y(chosen[:, 2])
        painter.drawRects(
            [
                QRectF(x0, y0, max(x1 - x0, 0.6), y1 - y0)
                for x0, x1, y0, y1 in zip(
                    left.tolist(), right.tolist(), top.tolist(), bottom.tolist(), strict=True
                )
            ]
        )
    if len(marks.points):
        colour = QColor(palette.REGRESSION)
        colour.setAlpha(170)
        pen = QPen(colour, 3.0)
        pen.setCapStyle(Qt.PenCapStyle.RoundCap)
        painter.setPen(pen)
        xs, ys = at_x(marks.points[:, 0]).tolist(), at_y(marks.points[:, 1]).tolist()
        painter.drawPoints([QPointF(x, y) for x, y in zip(xs, ys, strict=True)])
    painter.setPen(QPen(palette.MUTED, 0.8))
    painter.drawLine(QLineF(rect.left(), rect.bottom(), rect.right(), rect.bottom()))
    if marks.cut is not None:
        pen = QPen(palette.SELECTED if not len(marks.means) else palette.MUTED, 1.4)
        pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        x = at_x(marks.cut)
        painter.drawLine(QLineF(x, rect.top(), x, rect.bottom()))
    if len(marks.means):
        painter.setPen(QPen(palette.SELECTED, 2.0))
        for x0, x1, y in marks.means.tolist():
            painter.drawLine(QLineF(at_x(x0), at_y(y), at_x(x1), at_y(y)))
    painter.restore()

"""How edges look: their curves between node boxes, and their labels, elided to the room they have.

Geometry is numpy (one row per edge) and one path, worked out at once on any thread; the
canvas's edges item and the image export both paint from it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from PySide6.QtCore import QByteArray, QDataStream, QIODevice, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetricsF, QPainter, QPainterPath, QPen

from gui.drawing import palette

#: Space kept between two edge labels side by side, and the narrowest label worth drawing.
LABEL_GAP, LABEL_MIN = 6.0, 18.0
LABEL_FILL = QColor(255, 255, 255, 235)


def label_room(
    anchors: np.ndarray, orientation: str, spans: np.ndarray, widths: np.ndarray | None = None
) -> np.ndarray:
    """The widest each edge label may be drawn without touching another.

    Top-down, labels of one level sit on one line: each may take the distance to its nearer
    neighbour on that line (so two neighbours' halves never meet). Given the labels' own
    ``widths`` (their plates), a label may also take what a short neighbour leaves over, so
    "= overcast" between "= sunny" and "= rainy" is not cut where it fits. Left to right, a
    label sits over its own edge and may take the edge's horizontal ``spans``.
    """
    n = len(anchors)
    if n == 0:
        return np.zeros(0)
    if orientation != "top-down":
        return np.maximum(spans - LABEL_GAP, 0.0)
    row = np.round(anchors[:, 1], 1)
    order = np.lexsort((anchors[:, 0], row))
    x, same_row = anchors[order, 0], np.diff(row[order]) == 0
    gap = np.where(same_row, np.diff(x), np.inf)
    half = (gap - LABEL_GAP) / 2  # each side's share of the space between two anchors
    if widths is None:
        toward_left = toward_right = half
    else:
        w = np.asarray(widths, dtype=np.float64)[order]
        with np.errstate(invalid="ignore"):  # inf - inf where a row ends: its share stays inf
            toward_right = np.maximum(gap - LABEL_GAP - w[1:] / 2, half)
            toward_left = np.maximum(gap - LABEL_GAP - w[:-1] / 2, half)
    room = np.empty(n)
    room[order] = 2 * np.minimum(np.r_[np.inf, toward_left], np.r_[toward_right, np.inf])
    return np.minimum(room, 1e6)


@dataclass(frozen=True)
class EdgeGeometry:
    """Every edge's curve (start, two control points, end), label anchor and room, bounding
    box, and all the curves as one path."""

    curves: np.ndarray
    anchors: np.ndarray
    room: np.ndarray
    boxes: np.ndarray
    path: QPainterPath


def edge_geometry(
    box: np.ndarray,
    parent: np.ndarray,
    child: np.ndarray,
    orientation: str,
    label_widths: np.ndarray | None = None,
) -> EdgeGeometry:
    """Edges between node boxes (rows of left, top, right, bottom): numpy, and a path of plain
    Qt values, so it may be worked out on any thread. ``label_widths``: each edge label's
    plate, when known (see :func:`label_room`)."""
    pa, ch = box[parent], box[child]
    if orientation == "top-down":
        sx, sy = (pa[:, 0] + pa[:, 2]) / 2, pa[:, 3] - 3
        ex, ey = (ch[:, 0] + ch[:, 2]) / 2, ch[:, 1] + 3
        mid = (sy + ey) / 2
        curves = np.column_stack([sx, sy, sx, mid, ex, mid, ex, ey])
        anchors = np.column_stack([ex, mid + (ey - mid) * 0.45])
        spans = np.zeros(len(ex))
    else:
        sx, sy = pa[:, 2] - 3, (pa[:, 1] + pa[:, 3]) / 2
        ex, ey = ch[:, 0] + 3, (ch[:, 1] + ch[:, 3]) / 2
        mid = (sx + ex) / 2
        curves = np.column_stack([sx, sy, mid, sy, mid, ey, ex, ey])
        anchors = np.column_stack([mid + (ex - mid) * 0.5, ey - 9])
        spans = ex - mid
    c = curves
    boxes = np.column_stack(
        [
            np.minimum(c[:, 0], c[:, 6]),
            np.minimum(c[:, 1], c[:, 7]),
            np.maximum(c[:, 0], c[:, 6]),
            np.maximum(c[:, 1], c[:, 7]),
        ]
    )
    return EdgeGeometry(
        curves,
        anchors,
        label_room(anchors, orientation, spans, label_widths),
        boxes,
        curves_path(curves),
    )


def edges_bounds(boxes: np.ndarray) -> QRectF:
    """What the edges cover, with room for their labels (a null rectangle when there are none)."""
    if not len(boxes):
        return QRectF()
    lo, hi = boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)
    return QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]).adjusted(-80, -20, 80, 20)


#: A path element as QDataStream writes one: its type, then x and y, big-endian.
_ELEMENT = np.dtype([("type", ">i4"), ("x", ">f8"), ("y", ">f8")])
#: Each curve's four elements: move to its start, then a cubic (control, control, end).
_CURVE_TYPES = (
    QPainterPath.ElementType.MoveToElement.value,
    QPainterPath.ElementType.CurveToElement.value,
    QPainterPath.ElementType.CurveToDataElement.value,
    QPainterPath.ElementType.CurveToDataElement.value,
)


def curves_path(curves: np.ndarray) -> QPainterPath:
    """Cubic curves (rows of start, two control points, end) as one path, read from bytes laid
    out as Qt streams a path (element count, the elements, the last subpath's start, the
    fill rule): the path a moveTo and cubicTo per curve makes, element for element, without a
    Python call per curve (70,000 edges: 0.05 s, not 0.25 s; again on every drag step)."""
    n = len(curves)
    if not n:
        return QPainterPath()
    elements = np.empty((n, 4), dtype=_ELEMENT)
    elements["type"] = _CURVE_TYPES
    elements["x"], elements["y"] = curves[:, 0::2], curves[:, 1::2]
    head = np.array([4 * n], dtype=">i4").tobytes()
    tail = np.array([4 * (n - 1), 0], dtype=">i4").tobytes()  # last subpath's start; odd-even
    data = QByteArray(head + elements.tobytes() + tail)  # held: the stream reads from it
    stream = QDataStream(data, QIODevice.OpenModeFlag.ReadOnly)
    path = QPainterPath()
    stream >> path
    return path


def paint_curves(painter: QPainter, path: QPainterPath) -> None:
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(palette.EDGE, 1.3))
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawPath(path)


def plate_width(text: str, metrics: QFontMetricsF) -> float:
    """How wide a label's plate is drawn: the text and 4 units either side."""
    return metrics.horizontalAdvance(text) + 8


def edge_label(text: str, anchor, room: float, metrics: QFontMetricsF) -> tuple[str, QRectF]:
    """A label as drawn at ``anchor`` (x, y): elided to ``room``, "" when there is none; and its box."""
    x, y = anchor
    w, h = plate_width(text, metrics), metrics.height() + 2
    if w > room:
        text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(room - 8, 0.0))
        w = metrics.horizontalAdvance(text) + 8 if room >= LABEL_MIN and text else 0.0
        text = text if w else ""
    return text, QRectF(x - w / 2, y - h / 2, w, h)


def paint_label(painter: QPainter, text: str, box: QRectF) -> None:
    """One edge label on its white plate (the painter's font is the style's edge font)."""
    painter.setPen(Qt.PenStyle.NoPen)
    plate = QColor(palette.current().paper)  # the page's colour, a little see-through
    plate.setAlpha(LABEL_FILL.alpha())
    painter.setBrush(plate)
    painter.drawRoundedRect(box, 3, 3)
    painter.setPen(palette.MUTED)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)

"""The overview: a small picture of the whole tree with the main view's area marked;
click or drag in it to move there.

The picture is rendered once per tree (a pixmap), so panning the main view only
repaints a rectangle over it, however big the tree. Its shape follows the tree's, but
never thinner than ``MIN_SIDE`` pixels: a wide tree of 60,000 nodes is stretched to a
usable strip instead of a hairline, and where its boxes would be under ``DENSITY_BELOW``
pixels wide it is drawn as node density (one pixel per area, darker where more nodes
are, in the colour of the class most of them predict) instead of boxes too small to see.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from gui.canvas.tree_scene import rects_path
from gui.drawing import palette
from gui.drawing.density import DENSITY_BELOW, density_image
from gui.drawing.nodes import tint

MARGIN = 6.0
#: The largest overview, and the thinnest its picture of the tree gets (either side).
MAX_SIZE, MIN_SIDE = QSize(220, 150), 56
#: The viewport's rectangle is drawn at least this big, so it can be seen and grabbed.
MIN_MARK = 8.0


def picture_size(
    source: QRectF, largest: QSize = MAX_SIZE, thinnest: float = MIN_SIDE
) -> tuple[float, float]:
    """The size of the tree's picture: ``source`` scaled to fit ``largest`` (less the margins)
    keeping its shape, then stretched to at least ``thinnest`` on a side too thin to use."""
    room_w, room_h = largest.width() - 2 * MARGIN, largest.height() - 2 * MARGIN
    if source.isEmpty():
        return room_w, room_h
    scale = min(room_w / source.width(), room_h / source.height())
    return (
        max(source.width() * scale, min(thinnest, room_w)),
        max(source.height() * scale, min(thinnest, room_h)),
    )


class Overview(QWidget):
    """A minimap over the canvas's scene (``density`` says it shows node density, not boxes)."""

    def __init__(self, canvas):
        super().__init__(canvas)
        self.canvas = canvas
        self.setFixedSize(MAX_SIZE)
        self.setToolTip("Overview: click or drag to move the view")
        self.density = False
        self._pixmap = QPixmap()
        self._source = QRectF()
        self._target = QRectF()
        canvas.horizontalScrollBar().valueChanged.connect(self.update)
        canvas.verticalScrollBar().valueChanged.connect(self.update)
        canvas.zoom_changed.connect(lambda *_: self.update())

    def picture_rect(self) -> QRectF:
        """Where the tree is drawn in the overview (empty: nothing yet)."""
        return QRectF(self._target)

    def refresh(self) -> None:
        """Draw the whole tree into the overview's picture: edges, and boxes in their class colours
        (or the nodes' density, for a tree too big for boxes). The overview takes the tree's shape.

        Drawn from the scene's geometry rather than rendered item by item: at this size
        the text is invisible anyway, and a 10,000-node tree takes milliseconds, not a second.
        """
        scene = self.canvas.scene()
        self._source = scene.content_rect().adjusted(-20, -20, 20, 20)
        width, height = picture_size(self._source)
        self.setFixedSize(round(width + 2 * MARGIN), round(height + 2 * MARGIN))
        self._pixmap = QPixmap(self.size())
        paper = QColor(palette.current().paper)
        paper.setAlpha(235)
        self._pixmap.fill(paper)
        self._target = QRectF()
        if self._source.isEmpty():
            return
        self._target = QRectF(MARGIN, MARGIN, width, height)
        sx, sy = width / self._source.width(), height / self._source.height()
        boxes = scene.node_boxes() + (3, 3, -3, -3)
        colours = [
            (tint(scene.tree, majority), rows) for majority, rows in scene.rows_by_majority()
        ]
        self.density = (
            bool(len(boxes)) and float(np.mean(boxes[:, 2] - boxes[:, 0])) * sx < DENSITY_BELOW
        )
        self.setToolTip(
            "Overview (node density: darker where more nodes are): click or drag to move the view"
            if self.density
            else "Overview: click or drag to move the view"
        )
        painter = QPainter(self._pixmap)
        if self.density:
            painter.drawImage(
                self._target,
                density_image(boxes, colours, self._source, round(width), round(height)),
            )
            painter.end()
            self.update()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(self._target.topLeft())
        painter.scale(sx, sy)
        painter.translate(-self._source.topLeft())
        edge_pen = QPen(QColor("#98A2B3"), 1.0)
        edge_pen.setCosmetic(True)
        painter.setPen(edge_pen)
        painter.drawPath(scene.edge_path())
        painter.setPen(Qt.PenStyle.NoPen)
        for colour, rows in colours:  # one colour at a time, no Python per node
            painter.setBrush(colour)
            painter.drawPath(rects_path(boxes[rows]))
        painter.end()
        self.update()

    def _to_widget(self, rect: QRectF) -> QRectF:
        sx = self._target.width() / self._source.width()
        sy = self._target.height() / self._source.height()
        return QRectF(
            self._target.left() + (rect.left() - self._source.left()) * sx,
            self._target.top() + (rect.top() - self._source.top()) * sy,
            rect.width() * sx,
            rect.height() * sy,
        )

    def _to_scene(self, point: QPointF) -> QPointF:
        sx = self._source.width() / self._target.width()
        sy = self._source.height() / self._target.height()
        return QPointF(
            self._source.left() + (point.x() - self._target.left()) * sx,
            self._source.top() + (point.y() - self._target.top()) * sy,
        )

    def view_mark(self) -> QRectF:
        """The main view's area as drawn: at least ``MIN_MARK`` a side, centred where it is."""
        mark = self._to_widget(self.canvas.visible_scene_rect()).intersected(self._target)
        centre = (
            mark.center()
            if not mark.isNull()
            else self._to_widget(self.canvas.visible_scene_rect()).center()
        )
        width, height = max(mark.width(), MIN_MARK), max(mark.height(), MIN_MARK)
        return QRectF(centre.x() - width / 2, centre.y() - height / 2, width, height)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._pixmap)
        painter.setPen(QPen(QColor("#D0D5DD")))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        if not self._target.isEmpty():
            painter.setPen(QPen(QColor("#D55E00"), 1.5))
            painter.setBrush(QColor(213, 94, 0, 40))
            painter.drawRect(self.view_mark())
        painter.end()

    def _move_to(self, event) -> None:
        if not self._target.isEmpty():
            self.canvas.centerOn(self._to_scene(event.position()))
            self.canvas._view_moved()

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._move_to(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_to(event)

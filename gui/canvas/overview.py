"""The overview: a small picture of the whole tree with the main view's area marked;
click or drag in it to move there.

The picture is rendered once per tree (a pixmap), so panning the main view only
repaints a rectangle over it, however big the tree.
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from gui.canvas.tree_scene import rects_path
from gui.drawing.nodes import tint

MARGIN = 6.0


class Overview(QWidget):
    """A minimap over the canvas's scene."""

    def __init__(self, canvas):
        super().__init__(canvas)
        self.canvas = canvas
        self.setFixedSize(220, 150)
        self.setToolTip("Overview: click or drag to move the view")
        self._pixmap = QPixmap()
        self._source = QRectF()
        self._target = QRectF()
        canvas.horizontalScrollBar().valueChanged.connect(self.update)
        canvas.verticalScrollBar().valueChanged.connect(self.update)
        canvas.zoom_changed.connect(lambda *_: self.update())

    def refresh(self) -> None:
        """Draw the whole tree into the overview's picture: edges, and boxes in their class colours.

        Drawn from the scene's geometry rather than rendered item by item: at this size
        the text is invisible anyway, and a 10,000-node tree takes milliseconds, not a second.
        """
        scene = self.canvas.scene()
        self._source = scene.content_rect().adjusted(-20, -20, 20, 20)
        self._pixmap = QPixmap(self.size())
        self._pixmap.fill(QColor(255, 255, 255, 235))
        if self._source.isEmpty():
            return
        area = QRectF(self.rect()).adjusted(MARGIN, MARGIN, -MARGIN, -MARGIN)
        scale = min(area.width() / self._source.width(), area.height() / self._source.height())
        size = self._source.size() * scale
        self._target = QRectF(area.center() - QPointF(size.width() / 2, size.height() / 2), size)
        painter = QPainter(self._pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.translate(self._target.topLeft())
        painter.scale(scale, scale)
        painter.translate(-self._source.topLeft())
        edge_pen = QPen(QColor("#98A2B3"), 1.0)
        edge_pen.setCosmetic(True)
        painter.setPen(edge_pen)
        painter.drawPath(scene.edge_path())
        painter.setPen(Qt.PenStyle.NoPen)
        boxes = scene.node_boxes() + (3, 3, -3, -3)
        for majority, rows in scene.rows_by_majority():  # one colour at a time, no Python per node
            painter.setBrush(tint(scene.tree, majority))
            painter.drawPath(rects_path(boxes[rows]))
        painter.end()
        self.update()

    def _to_widget(self, rect: QRectF) -> QRectF:
        sx = self._target.width() / self._source.width()
        sy = self._target.height() / self._source.height()
        return QRectF(self._target.left() + (rect.left() - self._source.left()) * sx,
                      self._target.top() + (rect.top() - self._source.top()) * sy,
                      rect.width() * sx, rect.height() * sy)

    def _to_scene(self, point: QPointF) -> QPointF:
        sx = self._source.width() / self._target.width()
        sy = self._source.height() / self._target.height()
        return QPointF(self._source.left() + (point.x() - self._target.left()) * sx,
                       self._source.top() + (point.y() - self._target.top()) * sy)

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.drawPixmap(0, 0, self._pixmap)
        painter.setPen(QPen(QColor("#D0D5DD")))
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        if not self._target.isEmpty():
            painter.setPen(QPen(QColor("#D55E00"), 1.5))
            painter.setBrush(QColor(213, 94, 0, 40))
            painter.drawRect(self._to_widget(self.canvas.visible_scene_rect()).intersected(self._target))
        painter.end()

    def _move_to(self, event) -> None:
        if not self._target.isEmpty():
            self.canvas.centerOn(self._to_scene(event.position()))

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._move_to(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_to(event)

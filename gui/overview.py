"""The overview: a small picture of the whole tree with the main view's area marked;
click or drag in it to move there."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import QFrame, QGraphicsView


class Overview(QGraphicsView):
    """A minimap over the canvas's scene."""

    def __init__(self, canvas):
        super().__init__(canvas.scene(), canvas)
        self.canvas = canvas
        self.setFixedSize(220, 150)
        self.setFrameShape(QFrame.Shape.Box)
        self.setStyleSheet("background: rgba(255,255,255,230); border: 1px solid #D0D5DD;")
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setInteractive(False)
        self.setRenderHint(QPainter.RenderHint.Antialiasing, False)
        self.setToolTip("Overview: click or drag to move the view")
        canvas.horizontalScrollBar().valueChanged.connect(self.viewport().update)
        canvas.verticalScrollBar().valueChanged.connect(self.viewport().update)
        canvas.zoom_changed.connect(lambda *_: self.viewport().update())

    def refresh(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if not rect.isEmpty():
            self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
        self.viewport().update()

    def drawForeground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802 - Qt override
        visible = self.canvas.visible_scene_rect()
        painter.setPen(QPen(QColor("#D55E00"), 0))
        painter.setBrush(QColor(213, 94, 0, 40))
        painter.drawRect(visible)

    def _move_to(self, event) -> None:
        self.canvas.centerOn(self.mapToScene(event.position().toPoint()))

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._move_to(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._move_to(event)

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt override
        event.ignore()

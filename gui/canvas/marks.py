"""Small badges on node boxes (a near-tie's "≈"), each with its own tooltip: child items of
the node's box, so they move with it; placed again when the scene makes its boxes anew."""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem

from gui.plain_text import plain_tip

BADGE = 16.0
#: The near-tie badge's colour (amber: a caution, not an error), and what the legend says.
NEAR_TIE_COLOUR = QColor("#D97706")
NEAR_TIE_SIGN = "≈"


class Badge(QGraphicsItem):
    """A filled circle with a sign at the top-right corner of its node's box."""

    def __init__(self, parent: QGraphicsItem, sign: str, tip: str, colour: QColor):
        super().__init__(parent)
        self.sign, self.colour = sign, colour
        box = parent.boundingRect()
        self.setPos(box.right() - BADGE / 2 - 3, box.top() + BADGE / 2 + 3)
        self.setToolTip(plain_tip(tip))
        self.setAcceptHoverEvents(True)
        self.setZValue(2)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return QRectF(-BADGE / 2 - 1, -BADGE / 2 - 1, BADGE + 2, BADGE + 2)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(QColor("white"), 1.2))
        painter.setBrush(self.colour)
        rect = QRectF(-BADGE / 2, -BADGE / 2, BADGE, BADGE)
        painter.drawEllipse(rect)
        font = QFont(painter.font())
        font.setBold(True)
        font.setPixelSize(int(BADGE * 0.8))
        painter.setFont(font)
        painter.setPen(QColor("white"))
        painter.drawText(rect, Qt.AlignmentFlag.AlignCenter, self.sign)


class NodeMarks:
    """The badges a canvas shows: ``{node id: tooltip}``, put on the boxes now shown."""

    def __init__(self, canvas, sign: str = NEAR_TIE_SIGN, colour: QColor = NEAR_TIE_COLOUR):
        self.canvas, self.sign, self.colour = canvas, sign, colour
        self.tips: dict[int, str] = {}
        self.badges: dict[int, Badge] = {}
        canvas.tree_scene().layout_changed.connect(self.place)

    def set(self, tips: dict[int, str]) -> None:
        self.clear()
        self.tips = dict(tips)
        self.place()

    def clear(self) -> None:
        scene = self.canvas.tree_scene()
        for badge in self.badges.values():
            if _alive(badge) and badge.scene() is scene:
                scene.removeItem(badge)
        self.badges, self.tips = {}, {}

    def place(self) -> None:
        """Badges on the boxes that lack theirs (the scene may have made its boxes anew)."""
        items = self.canvas.tree_scene().items_by_id
        for node_id, tip in self.tips.items():
            item = items.get(node_id)
            badge = self.badges.get(node_id)
            if item is None or (badge is not None and _alive(badge) and badge.parentItem() is item):
                continue
            self.badges[node_id] = Badge(item, self.sign, tip, self.colour)


def _alive(badge: Badge) -> bool:
    """Whether Qt still holds ``badge`` (a scene deletes its boxes' children with them)."""
    return shiboken6.isValid(badge)

"""One tree node on the canvas: a box with its headline, label lines and class-distribution bar.

Painting is cached and switches level of detail with the zoom: below
``LOD_BOX`` only the box (tinted by the majority class), below ``LOD_TEXT``
the box and its headline, above that everything. What the lines say and the
type sizes come from a :class:`gui.drawing.figure_style.FigureStyle`.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from engine.export.labels import attribute_name, condition, number, predicted
from engine.export.node_labels import node_lines
from engine.tree import Node, Tree
from gui.drawing import palette
from gui.drawing.figure_style import SCREEN, FigureStyle

LOD_BOX, LOD_TEXT = 0.3, 0.55
PAD_X, PAD_Y, BAR_H = 10.0, 6.0, 7.0


def headline(tree: Tree, node: Node, parent: Node | None) -> str:
    if node.is_leaf:
        return predicted(tree, node, parent)
    return attribute_name(tree, node)


def node_texts(tree: Tree, node: Node, parent: Node | None, hidden: int = 0,
               style: FigureStyle = SCREEN) -> tuple[str, tuple[str, ...]]:
    """The headline and the lines under it."""
    return headline(tree, node, parent), tuple(node_lines(tree, node, style.labels, hidden))


def node_size(tree: Tree, node: Node, parent: Node | None, hidden: int = 0,
              texts: tuple[str, tuple[str, ...]] | None = None,
              style: FigureStyle = SCREEN, metrics=None) -> tuple[float, float]:
    """Width and height of a node's box; ``metrics`` (title, body) measure off the GUI thread
    (:func:`new_metrics`), where the style's shared ones must not be used."""
    head, lines = texts or node_texts(tree, node, parent, hidden, style)
    title_metrics, body_metrics = metrics or (style.title_metrics, style.body_metrics)
    width = max(72.0, title_metrics.horizontalAdvance(head),
                *(body_metrics.horizontalAdvance(line) for line in lines)) + 2 * PAD_X
    height = title_metrics.height() + len(lines) * body_metrics.height() + 2 * PAD_Y
    if style.labels.bar:
        height += BAR_H + 4
    return width, height


def new_metrics(style: FigureStyle = SCREEN) -> tuple[QFontMetricsF, QFontMetricsF]:
    """Title and body metrics of their own, for a thread that measures text."""
    return QFontMetricsF(QFont(style.title_font)), QFontMetricsF(QFont(style.body_font))


def tint(tree: Tree, majority: int) -> QColor:
    """A node's colour: its majority class's (``majority`` -1: none, or a regression tree)."""
    if majority < 0:
        return palette.REGRESSION if tree.is_regression else palette.NODE_FILL
    return palette.class_colour(majority)


def box_colour(tree: Tree, majority: int) -> QColor:
    """The fill of the bare box a node is drawn as when zoomed far out."""
    tinted = QColor(tint(tree, majority))
    tinted.setAlpha(150)
    return tinted


_FLAGS = QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable


class NodeItem(QGraphicsItem):
    """A node box; draggable and selectable. The canvas listens to its moves to redraw edges."""

    def __init__(self, tree: Tree, node: Node, parent: Node | None, hidden: int = 0,
                 size: tuple[float, float] | None = None,
                 texts: tuple[str, tuple[str, ...]] | None = None, style: FigureStyle = SCREEN):
        super().__init__()
        self.tree, self.node, self.parent_node, self.hidden = tree, node, parent, hidden
        self.style = style
        self.title, self.lines = texts or node_texts(tree, node, parent, hidden, style)
        w, h = size or node_size(tree, node, parent, hidden, (self.title, self.lines), style)
        self._rect = QRectF(-w / 2, -h / 2, w, h)
        self._bounds = QRectF(-w / 2 - 3, -h / 2 - 3, w + 6, h + 6)  # asked for often: made once
        self.highlighted = False
        dist = node.distribution.tolist()
        total = sum(dist)
        # Plain floats: thousands of items are made at once, and numpy per item costs more than it saves.
        self._shares = [v / total for v in dist] if total > 0 and not tree.is_regression else []
        self._majority = dist.index(max(dist)) if total > 0 else -1
        self.setFlags(_FLAGS)
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.setAcceptHoverEvents(True)
        self.setZValue(1)

    def hoverEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        # The rule costs a walk from the root, so it is built on first hover, not for every node.
        if not self.toolTip():  # also the cursor: set per hover, not per item up front
            self.setToolTip(tooltip(self.tree, self.node.id))
            self.setCursor(Qt.CursorShape.PointingHandCursor)
        super().hoverEnterEvent(event)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def set_highlighted(self, on: bool) -> None:
        if on != self.highlighted:
            self.highlighted = on
            self.update()

    def tint(self) -> QColor:
        return tint(self.tree, self._majority)

    def box_colour(self) -> QColor:
        """The fill of the bare box a node is drawn as when zoomed far out."""
        return box_colour(self.tree, self._majority)

    def is_dashed(self) -> bool:
        """Pruned or raised by C4.5: drawn with a dashed border."""
        return bool(self.node.stats.get("pruned") or self.node.stats.get("raised"))

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        selected = self.isSelected()
        border = QPen(palette.SELECTED if selected else palette.NODE_BORDER, 2.5 if selected else 1.2)
        if self.is_dashed():
            border.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(border)
        fill = palette.HIGHLIGHT if self.highlighted else palette.NODE_FILL
        if lod < LOD_BOX:
            painter.setBrush(QBrush(self.box_colour()))
            painter.drawRect(self._rect)
            return
        painter.setBrush(QBrush(fill))
        painter.drawRoundedRect(self._rect, 6, 6)
        style = self.style
        title_h = style.title_metrics.height()
        top = self._rect.top() + PAD_Y
        painter.setPen(palette.TEXT)
        painter.setFont(style.title_font)
        painter.drawText(QRectF(self._rect.left(), top, self._rect.width(), title_h),
                         Qt.AlignmentFlag.AlignCenter, self.title)
        if lod < LOD_TEXT:
            return
        body_h = style.body_metrics.height()
        painter.setFont(style.body_font)
        painter.setPen(palette.MUTED)
        for k, line in enumerate(self.lines):
            painter.drawText(QRectF(self._rect.left(), top + title_h + k * body_h, self._rect.width(),
                                    body_h), Qt.AlignmentFlag.AlignCenter, line)
        if style.labels.bar:
            self._paint_bar(painter, QRectF(self._rect.left() + PAD_X,
                                            self._rect.bottom() - PAD_Y - BAR_H,
                                            self._rect.width() - 2 * PAD_X, BAR_H))

    def _paint_bar(self, painter: QPainter, bar: QRectF) -> None:
        painter.setPen(Qt.PenStyle.NoPen)
        if not self._shares:
            painter.setBrush(QColor("#E5E7EB") if not self.tree.is_regression else palette.REGRESSION)
            painter.drawRect(bar)
            return
        x = bar.left()
        for k, share in enumerate(self._shares):
            if share <= 0:
                continue
            w = bar.width() * share
            painter.setBrush(palette.class_colour(k))
            painter.drawRect(QRectF(x, bar.top(), w, bar.height()))
            x += w

    # Moves are reported from mouseMoveEvent, not itemChange: on Python 3.11 an itemChange
    # override that returns None for most changes corrupts None's refcount under PySide6
    # ("Fatal Python error: none_dealloc").
    def mouseMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().mouseMoveEvent(event)
        if self.scene() is not None:
            self.scene().node_moved(self)


def tooltip(tree: Tree, node_id: int) -> str:
    """A node's hover text: the rule that leads to it and its counts (rich text, data escaped)."""
    path = tree.path_to(node_id)
    rule = " AND ".join(condition(tree, a, b) for a, b in path[:-1]) or "(root: every instance)"
    node = path[-1][0]
    if tree.is_regression:
        counts = f"mean {number(node.value)} over {number(node.weight)} instances"
    else:
        counts = ", ".join(f"{escape(c)}: {number(round(v, 2))}" for c, v in zip(tree.classes, node.distribution,
                                                                          strict=True))
    return f"<b>{escape(rule)}</b><br>{counts}"

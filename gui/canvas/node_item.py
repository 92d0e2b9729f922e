"""One tree node on the canvas: a selectable, draggable box, painted (with a pixmap cache) as
:func:`gui.drawing.nodes.paint_node` paints every node, on screen and in files."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGraphicsItem, QStyleOptionGraphicsItem

from engine.export.labels import condition, number
from engine.tree import Node, Tree
from gui.drawing.figure_style import SCREEN, FigureStyle
from gui.drawing.nodes import (
    LOD_BOX,
    box_colour,
    is_dashed,
    node_size,
    node_texts,
    paint_node,
    shares,
    tint,
)

_FLAGS = (
    QGraphicsItem.GraphicsItemFlag.ItemIsSelectable | QGraphicsItem.GraphicsItemFlag.ItemIsMovable
)
#: Looked up once: tens of thousands of items are made at a time, and each enum lookup costs.
_FAR_OUT = _FLAGS | QGraphicsItem.GraphicsItemFlag.ItemHasNoContents
_CACHED = QGraphicsItem.CacheMode.DeviceCoordinateCache


class NodeItem(QGraphicsItem):
    """A node box; draggable and selectable. The canvas listens to its moves to redraw edges."""

    def __init__(
        self,
        tree: Tree,
        node: Node,
        parent: Node | None,
        hidden: int = 0,
        size: tuple[float, float] | None = None,
        texts: tuple[str, tuple[str, ...]] | None = None,
        style: FigureStyle = SCREEN,
        far_out: bool = False,
    ):
        """``far_out``: made as zoomed far out, with no contents (the scene's boxes item draws
        every box then)."""
        super().__init__()
        self.tree, self.node, self.parent_node, self.hidden = tree, node, parent, hidden
        self.style = style
        self.title, self.lines = texts or node_texts(tree, node, parent, hidden, style)
        w, h = size or node_size(tree, node, parent, hidden, (self.title, self.lines), style)
        self._rect = QRectF(-w / 2, -h / 2, w, h)
        self._bounds = QRectF(-w / 2 - 3, -h / 2 - 3, w + 6, h + 6)  # asked for often: made once
        self.highlighted = False
        self._looks: tuple[list[float], int] | None = None  # class shares and majority, when drawn
        self.setFlags(_FAR_OUT if far_out else _FLAGS)
        self.setCacheMode(_CACHED)
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

    def _shares(self) -> tuple[list[float], int]:
        """The class shares and majority class, worked out when first drawn: a 60,000-node
        tree's items are made in bulk, and most are never drawn close enough to need them."""
        if self._looks is None:
            self._looks = shares(self.tree, self.node)
        return self._looks

    def tint(self) -> QColor:
        return tint(self.tree, self._shares()[1])

    def box_colour(self) -> QColor:
        """The fill of the bare box a node is drawn as when zoomed far out."""
        return box_colour(self.tree, self._shares()[1])

    def is_dashed(self) -> bool:
        """Pruned or raised by C4.5: drawn with a dashed border."""
        return is_dashed(self.node)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        plot = None
        class_shares, majority = self._shares()
        if self.style.labels.plots and lod >= LOD_BOX and self.scene() is not None:
            plot = self.scene().plots.plot_for(self.node.id)  # asks for it when not yet here
        paint_node(
            painter,
            self._rect,
            self.title,
            self.lines,
            class_shares,
            self.tree,
            majority,
            self.style,
            lod,
            selected=self.isSelected(),
            highlighted=self.highlighted,
            dashed=self.is_dashed(),
            plot=plot,
        )

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
        counts = ", ".join(
            f"{escape(c)}: {number(round(v, 2))}"
            for c, v in zip(tree.classes, node.distribution, strict=True)
        )
    return f"<b>{escape(rule)}</b><br>{counts}"

"""The scene of a tree: node items placed by the tidy layout, and every edge in one item.

The canvas shows it and the image exporter renders it, so the picture on
screen and in a file is drawn by the same code.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem

from engine.export.labels import branch_condition
from engine.graph import to_digraph
from engine.layout import tidy_layout
from engine.tree import Tree
from gui import palette
from gui.node_item import LOD_TEXT, NodeItem, count_line, headline, node_size

EDGE_FONT = QFont("DejaVu Sans", 8)


class EdgesItem(QGraphicsItem):
    """All edges as one path, with their conditions as labels when zoomed in enough."""

    def __init__(self, scene: TreeScene):
        super().__init__()
        self._scene = scene
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._path = QPainterPath()
        self._labels: list[tuple[QPointF, str]] = []
        self._curves: list[tuple[QPointF, QPointF, QPointF, QPointF]] = []
        self._boxes = np.zeros((0, 4))
        self.setZValue(0)

    def rebuild(self) -> None:
        self.prepareGeometryChange()
        path, labels, curves = QPainterPath(), [], []
        vertical = self._scene.orientation == "top-down"
        for parent_id, child_id, text in self._scene.edges:
            a, b = self._scene.items_by_id[parent_id], self._scene.items_by_id[child_id]
            ra, rb = a.sceneBoundingRect(), b.sceneBoundingRect()
            if vertical:
                start, end = QPointF(ra.center().x(), ra.bottom() - 3), QPointF(rb.center().x(), rb.top() + 3)
                mid_y = (start.y() + end.y()) / 2
                curves.append((start, QPointF(start.x(), mid_y), QPointF(end.x(), mid_y), end))
                labels.append((QPointF(end.x(), mid_y + (end.y() - mid_y) * 0.45), text))
            else:
                start, end = QPointF(ra.right() - 3, ra.center().y()), QPointF(rb.left() + 3, rb.center().y())
                mid_x = (start.x() + end.x()) / 2
                curves.append((start, QPointF(mid_x, start.y()), QPointF(mid_x, end.y()), end))
                labels.append((QPointF(mid_x + (end.x() - mid_x) * 0.5, end.y() - 9), text))
        for a, b, c, d in curves:
            path.moveTo(a)
            path.cubicTo(b, c, d)
        self._path, self._labels, self._curves = path, labels, curves
        self._boxes = np.array([[min(a.x(), d.x()), min(a.y(), d.y()), max(a.x(), d.x()), max(a.y(), d.y())]
                                for a, _, _, d in curves]).reshape(-1, 4)
        self.update()

    def _visible(self, rect: QRectF) -> np.ndarray:
        b = self._boxes
        return np.flatnonzero((b[:, 2] >= rect.left()) & (b[:, 0] <= rect.right())
                              & (b[:, 3] >= rect.top()) & (b[:, 1] <= rect.bottom()))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._path.boundingRect().adjusted(-80, -20, 80, 20)

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(palette.EDGE, 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        exposed = option.exposedRect
        visible = self._visible(exposed) if not exposed.isEmpty() else np.arange(len(self._curves))
        if len(visible) > len(self._curves) // 2:
            painter.drawPath(self._path)
        else:  # panning a big tree: draw only the edges in view
            path = QPainterPath()
            for k in visible:
                a, b, c, d = self._curves[k]
                path.moveTo(a)
                path.cubicTo(b, c, d)
            painter.drawPath(path)
        if option.levelOfDetailFromTransform(painter.worldTransform()) < LOD_TEXT:
            return
        painter.setFont(EDGE_FONT)
        metrics = QFontMetricsF(EDGE_FONT)
        for k in visible:
            point, text = self._labels[k]
            w, h = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
            box = QRectF(point.x() - w / 2, point.y() - h / 2, w, h)
            if not exposed.isEmpty() and not exposed.intersects(box):
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 235))
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(palette.MUTED)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)


class TreeScene(QGraphicsScene):
    """Node items and edges for one tree.

    Signals
    -------
    layout_changed : emitted after nodes are moved by hand.
    """

    layout_changed = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self.tree: Tree | None = None
        self.orientation = "top-down"
        self.collapsed: set[int] = set()
        self.items_by_id: dict[int, NodeItem] = {}
        self.edges: list[tuple[int, int, str]] = []
        self.layout_positions: dict[int, tuple[float, float]] = {}
        self._edges_item: EdgesItem | None = None
        self._building = False

    def build(self, tree: Tree | None, orientation: str | None = None,
              collapsed: set[int] | None = None) -> None:
        """(Re)create the items for ``tree``; collapsed nodes hide their descendants."""
        self._building = True
        self.clear()
        self.items_by_id, self.edges, self.layout_positions = {}, [], {}
        self._edges_item = None
        self.tree = tree
        if orientation:
            self.orientation = orientation
        self.collapsed = set(collapsed or ()) if tree is not None else set()
        if tree is None:
            self._building = False
            return
        graph = to_digraph(tree)
        parents = tree.parents()
        hidden_counts = {}
        for node_id in list(self.collapsed):
            if node_id not in graph:
                self.collapsed.discard(node_id)
                continue
            below = [d for d in _descendants(graph, node_id)]
            hidden_counts[node_id] = len(below)
            graph.remove_nodes_from(below)
        nodes = {n.id: n for n in tree.nodes()}
        texts = {}
        for node_id in graph.nodes:
            node, parent, hidden = nodes[node_id], parents.get(node_id), hidden_counts.get(node_id, 0)
            texts[node_id] = (headline(tree, node, parent), count_line(node, hidden))
            w, h = node_size(tree, node, parent, hidden, texts[node_id])
            graph.nodes[node_id]["width"], graph.nodes[node_id]["height"] = w, h
        self.layout_positions = tidy_layout(graph, orientation=self.orientation,
                                            level_gap=46.0 if self.orientation == "top-down" else 70.0)
        for node_id, (x, y) in self.layout_positions.items():
            size = (graph.nodes[node_id]["width"], graph.nodes[node_id]["height"])
            item = NodeItem(tree, nodes[node_id], parents.get(node_id), hidden_counts.get(node_id, 0), size,
                            texts[node_id])
            item.setPos(x, y)
            self.addItem(item)
            self.items_by_id[node_id] = item
        for parent_id, child_id, data in graph.edges(data=True):
            text = branch_condition(tree, nodes[parent_id], data["order"])
            self.edges.append((parent_id, child_id, text))
        self._edges_item = EdgesItem(self)
        self.addItem(self._edges_item)
        self._edges_item.rebuild()
        # Generous margins so zooming under the cursor can always scroll to keep its anchor.
        self.setSceneRect(self.itemsBoundingRect().adjusted(-2000, -2000, 2000, 2000))
        self._building = False

    def node_moved(self, item: NodeItem) -> None:
        if self._building or self._edges_item is None:
            return
        self._edges_item.rebuild()
        self.layout_changed.emit()

    def set_caching(self, on: bool) -> None:
        """Pixmap caching speeds up the screen; vector export (SVG, PDF) needs it off."""
        mode = NodeItem.CacheMode.DeviceCoordinateCache if on else NodeItem.CacheMode.NoCache
        for item in self.items_by_id.values():
            item.setCacheMode(mode)

    def move_node(self, node_id: int, x: float, y: float) -> None:
        """Place a node by hand (what dragging does); its edges follow."""
        self.items_by_id[node_id].setPos(x, y)
        self.node_moved(self.items_by_id[node_id])

    def positions(self) -> dict[int, tuple[float, float]]:
        return {i: (it.pos().x(), it.pos().y()) for i, it in self.items_by_id.items()}

    def apply_positions(self, positions: dict[int, tuple[float, float]]) -> None:
        self._building = True
        for node_id, (x, y) in positions.items():
            if node_id in self.items_by_id:
                self.items_by_id[node_id].setPos(x, y)
        self._building = False
        if self._edges_item is not None:
            self._edges_item.rebuild()

    def reset_layout(self) -> None:
        self.apply_positions(self.layout_positions)

    def edge_path(self) -> QPainterPath:
        return QPainterPath(self._edges_item._path) if self._edges_item else QPainterPath()


def _descendants(graph, node_id) -> list[int]:
    out, stack = [], list(graph.successors(node_id))
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(graph.successors(n))
    return out


def tooltip(tree: Tree, node_id: int) -> str:
    from engine.export.labels import condition, number

    path = tree.path_to(node_id)
    rule = " AND ".join(condition(tree, a, b) for a, b in path[:-1]) or "(root: every instance)"
    node = path[-1][0]
    if tree.is_regression:
        counts = f"mean {number(node.value)} over {number(node.weight)} instances"
    else:
        counts = ", ".join(f"{c}: {number(round(v, 2))}" for c, v in zip(tree.classes, node.distribution,
                                                                          strict=True))
    return f"<b>{rule}</b><br>{counts}"

"""The scene of a tree: node items placed by the tidy layout, and every edge in one item.

The canvas shows it and the image exporter renders it, so the picture on
screen and in a file is drawn by the same code.
"""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem

from engine.export.graph import to_digraph
from engine.export.labels import branch_condition
from engine.export.layout import tidy_layout
from engine.tree import Tree
from gui import palette
from gui.figure_style import SCREEN, FigureStyle
from gui.node_item import BAR_H, LOD_TEXT, PAD_X, PAD_Y, NodeItem, node_size, node_texts


class EdgesItem(QGraphicsItem):
    """All edges as one path, with their conditions as labels when zoomed in enough.

    Geometry is kept in numpy arrays (one row per edge) and recomputed from the
    scene's node boxes at once, so a 10,000-node tree builds, and a dragged node
    redraws its edges, without a Python call per edge beyond the path itself.
    """

    def __init__(self, scene: TreeScene):
        super().__init__()
        self._scene = scene
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)
        self._path = QPainterPath()
        self._texts: list[str] = []
        self._curves = np.zeros((0, 8))  # start, two control points, end: x, y each
        self._anchors = np.zeros((0, 2))  # where each label sits
        self._boxes = np.zeros((0, 4))
        self._bounds = QRectF()
        self.setZValue(0)

    def rebuild(self) -> None:
        self.prepareGeometryChange()
        scene = self._scene
        self._texts = [text for _, _, text in scene.edges]
        box = scene.node_boxes()
        parent, child = scene.edge_rows()
        pa, ch = box[parent], box[child]
        if self._scene.orientation == "top-down":
            sx, sy = (pa[:, 0] + pa[:, 2]) / 2, pa[:, 3] - 3
            ex, ey = (ch[:, 0] + ch[:, 2]) / 2, ch[:, 1] + 3
            mid = (sy + ey) / 2
            self._curves = np.column_stack([sx, sy, sx, mid, ex, mid, ex, ey])
            self._anchors = np.column_stack([ex, mid + (ey - mid) * 0.45])
        else:
            sx, sy = pa[:, 2] - 3, (pa[:, 1] + pa[:, 3]) / 2
            ex, ey = ch[:, 0] + 3, (ch[:, 1] + ch[:, 3]) / 2
            mid = (sx + ex) / 2
            self._curves = np.column_stack([sx, sy, mid, sy, mid, ey, ex, ey])
            self._anchors = np.column_stack([mid + (ex - mid) * 0.5, ey - 9])
        c = self._curves
        self._boxes = np.column_stack([np.minimum(c[:, 0], c[:, 6]), np.minimum(c[:, 1], c[:, 7]),
                                       np.maximum(c[:, 0], c[:, 6]), np.maximum(c[:, 1], c[:, 7])])
        self._path = _curves_path(c)
        if len(c):
            lo, hi = self._boxes[:, :2].min(axis=0), self._boxes[:, 2:].max(axis=0)
            self._bounds = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]).adjusted(-80, -20, 80, 20)
        else:
            self._bounds = QRectF()
        self.update()

    def _visible(self, rect: QRectF) -> np.ndarray:
        b = self._boxes
        return np.flatnonzero((b[:, 2] >= rect.left()) & (b[:, 0] <= rect.right())
                              & (b[:, 3] >= rect.top()) & (b[:, 1] <= rect.bottom()))

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(QPen(palette.EDGE, 1.3))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        exposed = option.exposedRect
        visible = self._visible(exposed) if not exposed.isEmpty() else np.arange(len(self._curves))
        if len(visible) > len(self._curves) // 2:
            painter.drawPath(self._path)
        else:  # panning a big tree: draw only the edges in view
            painter.drawPath(_curves_path(self._curves[visible]))
        if option.levelOfDetailFromTransform(painter.worldTransform()) < LOD_TEXT:
            return
        style = self._scene.style
        painter.setFont(style.edge_font)
        metrics = style.edge_metrics
        for k in visible:
            (x, y), text = self._anchors[k], self._texts[k]
            w, h = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
            box = QRectF(x - w / 2, y - h / 2, w, h)
            if not exposed.isEmpty() and not exposed.intersects(box):
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 235))
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(palette.MUTED)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)


def _order(parent, child) -> int:
    return next(b for b, c in enumerate(parent.children) if c is child)


def _curves_path(curves: np.ndarray) -> QPainterPath:
    path = QPainterPath()
    for x0, y0, x1, y1, x2, y2, x3, y3 in curves.tolist():
        path.moveTo(x0, y0)
        path.cubicTo(x1, y1, x2, y2, x3, y3)
    return path


class BoxesItem(QGraphicsItem):
    """Every node as its tinted box, in one item: what the node items draw when zoomed far out.

    Shown instead of the node items' own painting below ``LOD_BOX`` (the items stay, without
    contents, for clicks, drags and tooltips): 10,000 items painting themselves took 0.3 s for
    the first frame of a whole big tree and 35 ms for each pan step; this takes a few ms.
    """

    def __init__(self, scene: TreeScene):
        super().__init__()
        self._scene = scene
        self._groups: list[tuple[QColor, list[QRectF]]] = []
        self._dashed: list[int] = []
        self._rects: list[QRectF] = []
        self._bounds = QRectF()
        self.setZValue(0.5)  # above the edges, below the node items

    def rebuild(self) -> None:
        """Boxes from the scene's geometry (after a layout, a drag or new positions)."""
        self.prepareGeometryChange()
        scene = self._scene
        box = scene.node_boxes() + np.array([3.0, 3.0, -3.0, -3.0])  # without the item's margin
        self._rects = [QRectF(x0, y0, x1 - x0, y1 - y0) for x0, y0, x1, y1 in box.tolist()]
        items = [scene.items_by_id[i] for i in scene.row_ids()]
        groups: dict[int, tuple[QColor, list[QRectF]]] = {}
        for item, rect in zip(items, self._rects, strict=True):
            colour = item.box_colour()
            groups.setdefault(colour.rgba(), (colour, []))[1].append(rect)
        self._groups = list(groups.values())
        self._dashed = [k for k, item in enumerate(items) if item.is_dashed()]
        self._bounds = scene.content_rect().adjusted(-4, -4, 4, 4)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setPen(QPen(palette.NODE_BORDER, 1.2))
        for colour, rects in self._groups:
            painter.setBrush(colour)
            painter.drawRects(rects)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
        for k in self._dashed:
            painter.drawRect(self._rects[k])
        rows = self._scene.row_of()
        painter.setPen(QPen(palette.SELECTED, 2.5))
        for item in self._scene.selectedItems():
            if isinstance(item, NodeItem) and item.node.id in rows:
                painter.drawRect(self._rects[rows[item.node.id]])


class GhostsItem(QGraphicsItem):
    """What pruning cut away, drawn faintly below the leaves it left: boxes, words and edges.

    Laid out with the tree (room is made for them) but not node items: nothing to select or
    drag. Each ghost keeps its offset from the leaf it hangs from, so it follows that leaf
    when the leaf is dragged.
    """

    def __init__(self, scene: TreeScene, ghosts: list[tuple[int, tuple[float, float], tuple[float, float],
                                                             str, tuple[str, ...], list[float]]],
                 edges: list[tuple[int, int | None, str]]):
        super().__init__()
        self._scene = scene
        self._ghosts = ghosts  # owner leaf id, offset from it, size, title, lines, class shares
        self._edges = edges  # (ghost index, parent ghost index or None for the owner leaf, text)
        self._bounds = QRectF()
        self.setZValue(0.25)
        self.rebuild()

    def _centre(self, k: int) -> tuple[float, float]:
        owner, (dx, dy), *_ = self._ghosts[k]
        pos = self._scene.items_by_id[owner].pos()
        return pos.x() + dx, pos.y() + dy

    def rebuild(self) -> None:
        self.prepareGeometryChange()
        rect = QRectF()
        for k, (_, _, (w, h), *_rest) in enumerate(self._ghosts):
            x, y = self._centre(k)
            rect = rect.united(QRectF(x - w / 2, y - h / 2, w, h))
        self._bounds = rect.adjusted(-80, -40, 80, 20)
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        style = self._scene.style
        painter.setOpacity(0.45)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        detail = option.levelOfDetailFromTransform(painter.worldTransform()) >= LOD_TEXT
        vertical = self._scene.orientation == "top-down"
        for k, parent, text in self._edges:
            x1, y1 = self._centre(k)
            w1, h1 = self._ghosts[k][2]
            if parent is None:
                owner = self._scene.items_by_id[self._ghosts[k][0]]
                px, py = owner.pos().x(), owner.pos().y()
                pw, ph = owner.boundingRect().width() - 6, owner.boundingRect().height() - 6
            else:
                px, py = self._centre(parent)
                pw, ph = self._ghosts[parent][2]
            path = QPainterPath()
            if vertical:
                start, end = QPointF(px, py + ph / 2), QPointF(x1, y1 - h1 / 2)
                mid = (start.y() + end.y()) / 2
                path.moveTo(start)
                path.cubicTo(QPointF(start.x(), mid), QPointF(end.x(), mid), end)
                anchor = QPointF(end.x(), mid + (end.y() - mid) * 0.45)
            else:
                start, end = QPointF(px + pw / 2, py), QPointF(x1 - w1 / 2, y1)
                mid = (start.x() + end.x()) / 2
                path.moveTo(start)
                path.cubicTo(QPointF(mid, start.y()), QPointF(mid, end.y()), end)
                anchor = QPointF(mid + (end.x() - mid) * 0.5, end.y() - 9)
            painter.setPen(QPen(palette.EDGE, 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(path)
            if detail:
                painter.setFont(style.edge_font)
                painter.setPen(palette.MUTED)
                width = style.edge_metrics.horizontalAdvance(text) + 8
                painter.drawText(QRectF(anchor.x() - width / 2, anchor.y() - 9, width, 18),
                                 Qt.AlignmentFlag.AlignCenter, text)
        for k, (_, _, (w, h), title, lines, shares) in enumerate(self._ghosts):
            x, y = self._centre(k)
            box = QRectF(x - w / 2, y - h / 2, w, h)
            painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
            painter.setBrush(QColor("#F3F4F6"))
            painter.drawRoundedRect(box, 6, 6)
            if not detail:
                continue
            painter.setPen(palette.TEXT)
            painter.setFont(style.title_font)
            top = box.top() + PAD_Y
            title_h = style.title_metrics.height()
            painter.drawText(QRectF(box.left(), top, w, title_h), Qt.AlignmentFlag.AlignCenter, title)
            painter.setFont(style.body_font)
            painter.setPen(palette.MUTED)
            body_h = style.body_metrics.height()
            for j, line in enumerate(lines):
                painter.drawText(QRectF(box.left(), top + title_h + j * body_h, w, body_h),
                                 Qt.AlignmentFlag.AlignCenter, line)
            if style.labels.bar and shares:
                bar = QRectF(box.left() + PAD_X, box.bottom() - PAD_Y - BAR_H, w - 2 * PAD_X, BAR_H)
                painter.setPen(Qt.PenStyle.NoPen)
                left = bar.left()
                for c, share in enumerate(shares):
                    if share > 0:
                        painter.setBrush(palette.class_colour(c))
                        painter.drawRect(QRectF(left, bar.top(), bar.width() * share, BAR_H))
                        left += bar.width() * share


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
        self.style: FigureStyle = SCREEN
        self.show_ghosts = False  # draw what pruning cut (the tree's pruning record) below its leaves
        self.ghosts_item: GhostsItem | None = None
        self.collapsed: set[int] = set()
        self.items_by_id: dict[int, NodeItem] = {}
        self.edges: list[tuple[int, int, str]] = []
        self.layout_positions: dict[int, tuple[float, float]] = {}
        self._edges_item: EdgesItem | None = None
        self._building = False
        self._row: dict[int, int] = {}  # node id -> row of the geometry arrays
        self._centers = np.zeros((0, 2))
        self._half = np.zeros((0, 2))  # half width and height of each item's bounding box
        self._edge_rows = (np.zeros(0, np.intp), np.zeros(0, np.intp))
        self._boxes_item: BoxesItem | None = None
        self.low_detail = False  # zoomed out below LOD_BOX: boxes drawn in one item
        self.selectionChanged.connect(self._on_selection_changed)

    def build(self, tree: Tree | None, orientation: str | None = None,
              collapsed: set[int] | None = None, style: FigureStyle | None = None,
              ghosts: bool | None = None) -> None:
        """(Re)create the items for ``tree``; collapsed nodes hide their descendants.
        ``style``: type sizes and node labels; ``ghosts``: draw what pruning cut (default:
        as before)."""
        self._building = True
        self.clear()
        self.items_by_id, self.edges, self.layout_positions = {}, [], {}
        self._edges_item = self._boxes_item = None
        self._row, self._centers, self._half = {}, np.zeros((0, 2)), np.zeros((0, 2))
        self._edge_rows = (np.zeros(0, np.intp), np.zeros(0, np.intp))
        self.tree = tree
        if orientation:
            self.orientation = orientation
        if style is not None:
            self.style = style
        if ghosts is not None:
            self.show_ghosts = ghosts
        self.ghosts_item = None
        self.collapsed = set(collapsed or ()) if tree is not None else set()
        if tree is None:
            self._building = False
            return
        nodes = {n.id: n for n in tree.nodes()}
        self.collapsed = {i for i in self.collapsed if i in nodes and not nodes[i].is_leaf}
        graph = to_digraph(tree, self.collapsed)  # what is below a collapsed node stays out
        parents = {child: nodes[parent] for parent, child in graph.edges}
        # A collapsed node inside another collapsed subtree stays collapsed for when that opens.
        hidden_counts = {i: sum(1 for _ in nodes[i].walk()) - 1 for i in self.collapsed if i in graph}
        texts = {}
        for node_id in graph.nodes:
            node, parent, hidden = nodes[node_id], parents.get(node_id), hidden_counts.get(node_id, 0)
            texts[node_id] = node_texts(tree, node, parent, hidden, self.style)
            w, h = node_size(tree, node, parent, hidden, texts[node_id], self.style)
            graph.nodes[node_id]["width"], graph.nodes[node_id]["height"] = w, h
        ghosts = self._add_ghosts(tree, graph, parents) if self.show_ghosts else []
        self.layout_positions = tidy_layout(graph, orientation=self.orientation,
                                            level_gap=46.0 if self.orientation == "top-down" else 70.0)
        ghost_at = {key: self.layout_positions.pop(key) for key, *_ in ghosts}
        graph.remove_nodes_from(ghost_at)  # laid out; drawn by their own item, not as nodes
        order = list(self.layout_positions)
        self._row = {node_id: k for k, node_id in enumerate(order)}
        self._centers = np.array([self.layout_positions[i] for i in order], dtype=np.float64).reshape(-1, 2)
        self._half = np.array([(graph.nodes[i]["width"] / 2 + 3, graph.nodes[i]["height"] / 2 + 3)
                               for i in order], dtype=np.float64).reshape(-1, 2)
        for node_id, (x, y) in self.layout_positions.items():
            size = (graph.nodes[node_id]["width"], graph.nodes[node_id]["height"])
            item = NodeItem(tree, nodes[node_id], parents.get(node_id), hidden_counts.get(node_id, 0), size,
                            texts[node_id], self.style)
            item.setPos(x, y)
            self.addItem(item)
            self.items_by_id[node_id] = item
        for parent_id, child_id, data in graph.edges(data=True):
            text = branch_condition(tree, nodes[parent_id], data["order"])
            self.edges.append((parent_id, child_id, text))
        self._edge_rows = (np.array([self._row[p] for p, _, _ in self.edges], dtype=np.intp),
                           np.array([self._row[c] for _, c, _ in self.edges], dtype=np.intp))
        self._edges_item = EdgesItem(self)
        self.addItem(self._edges_item)
        self._edges_item.rebuild()
        self._boxes_item = BoxesItem(self)
        self.addItem(self._boxes_item)
        if ghosts:
            self._place_ghosts(ghosts, ghost_at)
        self._apply_detail()
        # Generous margins so zooming under the cursor can always scroll to keep its anchor.
        self.setSceneRect(self.content_rect().adjusted(-2000, -2000, 2000, 2000))
        self._building = False

    def _add_ghosts(self, tree: Tree, graph, parents) -> list:
        """Put what pruning cut below each leaf it made into ``graph`` (for the layout to make
        room); returns (key, owner, parent key, branch text, node) per ghost node."""
        record = tree.pruning
        if record is None:
            return []
        found = []
        for node_id in [n for n in graph.nodes if graph.nodes[n]["is_leaf"]]:
            removed = record.removed(tree, node_id)
            if removed is None:
                continue
            stack = [(child, (node_id,), b, removed) for b, child in enumerate(removed.children)]
            while stack:
                node, parent_key, branch, parent = stack.pop()
                key = ("ghost", node_id, len(found))
                found.append((key, node_id, parent_key, branch_condition(tree, parent, branch), node,
                              parent))
                stack.extend((c, key, b, node) for b, c in enumerate(node.children))
        for key, _owner, parent_key, _text, node, parent in found:
            texts = node_texts(tree, node, parent, 0, self.style)
            w, h = node_size(tree, node, parent, 0, texts, self.style)
            graph.add_node(key, node=node, is_leaf=node.is_leaf, width=w, height=h, texts=texts)
            graph.add_edge(parent_key[0] if len(parent_key) == 1 else parent_key, key,
                           order=_order(parent, node))
        return found

    def _place_ghosts(self, ghosts, ghost_at) -> None:
        graph_info = []
        index = {key: k for k, (key, *_rest) in enumerate(ghosts)}
        edges = []
        for k, (key, owner, parent_key, text, node, parent) in enumerate(ghosts):
            ox, oy = self.layout_positions[owner]
            x, y = ghost_at[key]
            head, lines = node_texts(self.tree, node, parent, 0, self.style)
            size = node_size(self.tree, node, parent, 0, (head, lines), self.style)
            dist = node.distribution.tolist()
            total = sum(dist)
            shares = [v / total for v in dist] if total > 0 and not self.tree.is_regression else []
            graph_info.append((owner, (x - ox, y - oy), size, head, lines, shares))
            edges.append((k, None if len(parent_key) == 1 else index[parent_key], text))
        self.ghosts_item = GhostsItem(self, graph_info, edges)
        self.addItem(self.ghosts_item)

    def set_low_detail(self, on: bool) -> None:
        """Zoomed out so far that nodes are bare boxes: draw them all in one item."""
        if on != self.low_detail:
            self.low_detail = on
            self._apply_detail()

    def _apply_detail(self) -> None:
        if self._boxes_item is None:
            return
        for item in self.items_by_id.values():
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, self.low_detail)
        self._boxes_item.setVisible(self.low_detail)
        if self.low_detail:
            self._boxes_item.rebuild()

    def _on_selection_changed(self) -> None:
        if self.low_detail and self._boxes_item is not None:
            self._boxes_item.update()

    def row_ids(self) -> list[int]:
        """Node ids in the order of the geometry arrays' rows."""
        return list(self._row)

    def row_of(self) -> dict[int, int]:
        return self._row

    def node_boxes(self) -> np.ndarray:
        """(left, top, right, bottom) of every node item's bounding box, one row per node."""
        return np.hstack([self._centers - self._half, self._centers + self._half])

    def edge_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows of ``node_boxes`` for each edge's parent and child."""
        return self._edge_rows

    def content_rect(self) -> QRectF:
        """What the tree covers: its nodes and edges (with room for the edge labels)."""
        if not len(self._centers):
            return QRectF()
        box = self.node_boxes()
        lo, hi = box[:, :2].min(axis=0), box[:, 2:].max(axis=0)
        rect = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1])
        if self.ghosts_item is not None:
            rect = rect.united(self.ghosts_item.boundingRect())
        return rect.united(self._edges_item.boundingRect()) if self._edges_item and self.edges else rect

    def node_moved(self, item: NodeItem) -> None:
        if self._building or self._edges_item is None:
            return
        for moved in {item, *(i for i in self.selectedItems() if isinstance(i, NodeItem))}:
            row = self._row.get(moved.node.id)
            if row is not None:  # a drag moves every selected node, not just the grabbed one
                self._centers[row] = (moved.pos().x(), moved.pos().y())
        self._geometry_changed()
        self.layout_changed.emit()

    def _geometry_changed(self) -> None:
        self._edges_item.rebuild()
        if self.ghosts_item is not None:
            self.ghosts_item.rebuild()
        if self.low_detail and self._boxes_item is not None:
            self._boxes_item.rebuild()

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
                self._centers[self._row[node_id]] = (x, y)
        self._building = False
        if self._edges_item is not None:
            self._geometry_changed()

    def reset_layout(self) -> None:
        self.apply_positions(self.layout_positions)

    def edge_path(self) -> QPainterPath:
        return QPainterPath(self._edges_item._path) if self._edges_item else QPainterPath()


def tooltip(tree: Tree, node_id: int) -> str:
    from engine.export.labels import condition, number

    path = tree.path_to(node_id)
    rule = " AND ".join(condition(tree, a, b) for a, b in path[:-1]) or "(root: every instance)"
    node = path[-1][0]
    if tree.is_regression:
        counts = f"mean {number(node.value)} over {number(node.weight)} instances"
    else:
        counts = ", ".join(f"{escape(c)}: {number(round(v, 2))}" for c, v in zip(tree.classes, node.distribution,
                                                                          strict=True))
    return f"<b>{escape(rule)}</b><br>{counts}"

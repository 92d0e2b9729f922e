"""The scene of a tree: node items placed by the tidy layout, and every edge in one item.

The canvas shows it and the image exporter renders it, so the picture on
screen and in a file is drawn by the same code.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem

from engine.export.graph import to_digraph
from engine.export.labels import branch_condition
from engine.export.tidy_tree import tidy_layout
from engine.tree import Tree
from gui.canvas.node_item import (
    BAR_H,
    LOD_TEXT,
    PAD_X,
    PAD_Y,
    NodeItem,
    box_colour,
    node_size,
    node_texts,
)
from gui.drawing import palette
from gui.drawing.figure_style import SCREEN, FigureStyle

#: Space kept between two edge labels side by side, and the narrowest label worth drawing.
LABEL_GAP, LABEL_MIN = 6.0, 18.0


def label_room(anchors: np.ndarray, orientation: str, spans: np.ndarray) -> np.ndarray:
    """The widest each edge label may be drawn without touching another.

    Top-down, labels of one level sit on one line: each may take the distance to its nearer
    neighbour on that line (so two neighbours' halves never meet). Left to right, a label
    sits over its own edge and may take the edge's horizontal ``spans``.
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
    room = np.empty(n)
    room[order] = np.minimum(np.r_[np.inf, gap], np.r_[gap, np.inf]) - LABEL_GAP
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


def edge_geometry(box: np.ndarray, parent: np.ndarray, child: np.ndarray, orientation: str) -> EdgeGeometry:
    """Edges between node boxes (rows of left, top, right, bottom): numpy, and a path of plain
    Qt values, so it may be worked out on any thread."""
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
    boxes = np.column_stack([np.minimum(c[:, 0], c[:, 6]), np.minimum(c[:, 1], c[:, 7]),
                             np.maximum(c[:, 0], c[:, 6]), np.maximum(c[:, 1], c[:, 7])])
    return EdgeGeometry(curves, anchors, label_room(anchors, orientation, spans), boxes, _curves_path(curves))


class EdgesItem(QGraphicsItem):
    """All edges as one path, with their conditions as labels when zoomed in enough.

    Geometry is kept in numpy arrays (one row per edge) and recomputed from the
    scene's node boxes at once, so a 10,000-node tree builds, and a dragged node
    redraws its edges, without a Python call per edge beyond the path itself.
    Labels never overlap: one too long for the room beside its neighbours is elided, and
    hovering it shows the whole condition.
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
        self._room = np.zeros(0)  # the widest each label may be drawn
        self._bounds = QRectF()
        self.setZValue(0)
        self.setAcceptHoverEvents(True)
        self.setAcceptedMouseButtons(Qt.MouseButton.NoButton)

    def rebuild(self, geometry: EdgeGeometry | None = None) -> None:
        """Geometry from the scene's node boxes (after a layout, a drag or new positions), or as
        worked out already for a new layout (:func:`plan_scene` does it off the GUI thread)."""
        self.prepareGeometryChange()
        scene = self._scene
        self._texts = [text for _, _, text in scene.edges]
        if geometry is None:
            geometry = edge_geometry(scene.node_boxes(), *scene.edge_rows(), scene.orientation)
        self._curves, self._anchors, self._room = geometry.curves, geometry.anchors, geometry.room
        self._boxes, self._path = geometry.boxes, geometry.path
        if len(self._curves):
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
        painter.setFont(self._scene.style.edge_font)
        for k in visible:
            shown, box = self.label(k)
            if not shown or (not exposed.isEmpty() and not exposed.intersects(box)):
                continue
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(QColor(255, 255, 255, 235))
            painter.drawRoundedRect(box, 3, 3)
            painter.setPen(palette.MUTED)
            painter.drawText(box, Qt.AlignmentFlag.AlignCenter, shown)

    def label(self, k: int) -> tuple[str, QRectF]:
        """Edge ``k``'s label as drawn (elided to its room; "" when there is no room) and its box."""
        (x, y), text = self._anchors[k], self._texts[k]
        metrics = self._scene.style.edge_metrics
        w, h = metrics.horizontalAdvance(text) + 8, metrics.height() + 2
        room = self._room[k]
        if w > room:
            text = metrics.elidedText(text, Qt.TextElideMode.ElideRight, max(room - 8, 0.0))
            w = metrics.horizontalAdvance(text) + 8 if room >= LABEL_MIN and text else 0.0
            text = text if w else ""
        return text, QRectF(x - w / 2, y - h / 2, w, h)

    def label_at(self, point) -> int:
        """The edge whose label is under scene ``point`` (-1: none)."""
        if not len(self._anchors):
            return -1
        half_h = (self._scene.style.edge_metrics.height() + 2) / 2
        dx, dy = np.abs(self._anchors[:, 0] - point.x()), np.abs(self._anchors[:, 1] - point.y())
        for k in np.flatnonzero((dy <= half_h) & (dx <= self._room / 2 + 1)):
            text, box = self.label(int(k))
            if text and box.contains(point):
                return int(k)
        return -1

    def hoverMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        k = self.label_at(event.pos())
        tip = ""
        if k >= 0:  # the whole condition, with its attribute: the drawn label may be cut short
            node = self._scene.items_by_id[self._scene.edges[k][0]].node
            name = self._scene.tree.schema.attributes[node.split.attribute].name
            tip = f"<span>{escape(f'{name} {self._texts[k]}')}</span>"  # rich text, so names stay text
        if tip != self.toolTip():
            self.setToolTip(tip)
        super().hoverMoveEvent(event)


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
        self._groups: list[tuple[QColor, QPainterPath]] = []
        self._dashed: list[int] = []
        self._box = np.zeros((0, 4))
        self._bounds = QRectF()
        self.setZValue(0.5)  # above the edges, below the node items

    def rebuild(self, paths: list | None = None) -> None:
        """Boxes from the scene's geometry (after a layout, a drag or new positions); ``paths``
        (majority, path) as :func:`box_paths` made them for a new layout."""
        self.prepareGeometryChange()
        scene = self._scene
        box = scene.node_boxes() + np.array([3.0, 3.0, -3.0, -3.0])  # without the item's margin
        self._box = box
        if paths is None:
            paths = box_paths(box, scene.rows_by_majority())
        self._groups = [(box_colour(scene.tree, k), path) for k, path in paths]
        self._dashed = scene.dashed_rows()
        self._bounds = scene.content_rect().adjusted(-4, -4, 4, 4)
        self.update()

    def _rect(self, row: int) -> QRectF:
        x0, y0, x1, y1 = self._box[row].tolist()
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        painter.setPen(QPen(palette.NODE_BORDER, 1.2))
        for colour, path in self._groups:
            painter.setBrush(colour)
            painter.drawPath(path)
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(palette.NODE_BORDER, 1.2, Qt.PenStyle.DashLine))
        for k in self._dashed:
            painter.drawRect(self._rect(k))
        rows = self._scene.row_of()
        painter.setPen(QPen(palette.SELECTED, 2.5))
        for item in self._scene.selectedItems():
            if isinstance(item, NodeItem) and item.node.id in rows:
                painter.drawRect(self._rect(rows[item.node.id]))


def box_paths(box: np.ndarray, rows_by_majority) -> list[tuple[int, QPainterPath]]:
    """(majority class, the outline path of its nodes' boxes) per colour."""
    return [(k, rects_path(box[rows])) for k, rows in rows_by_majority]


def rects_path(box: np.ndarray) -> QPainterPath:
    """Rectangles (rows of left, top, right, bottom) as one path, made from arrays at once:
    100,000 boxes take milliseconds where a QRectF each took a second."""
    import pyqtgraph as pg

    if not len(box):
        return QPainterPath()
    x = box[:, [0, 2, 2, 0, 0]].ravel()
    y = box[:, [1, 1, 3, 3, 1]].ravel()
    connect = np.ones(len(x), dtype=bool)
    connect[4::5] = False  # each box is its own closed outline
    return pg.arrayToQPath(x, y, connect)


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


@dataclass(frozen=True)
class ScenePlan:
    """A tree laid out for the scene, with no Qt items yet: made on any thread, shown on the GUI one.

    ``positions`` holds the centre of every node shown (in layout order), ``sizes`` and
    ``texts`` its box and label, ``hidden`` how many nodes a collapsed one hides, ``edges``
    (parent, child, condition) for every edge shown; ``ghosts`` what pruning cut, to be drawn
    below its leaves (at ``ghost_at``), when ``ghosts_shown``.
    """

    tree: Tree
    orientation: str
    style: FigureStyle
    ghosts_shown: bool
    collapsed: frozenset
    nodes: dict
    parents: dict
    positions: dict
    sizes: dict
    texts: dict
    hidden: dict
    edges: tuple
    ghosts: list
    ghost_at: dict
    centres: np.ndarray  # one row per node, in the order of ``positions``
    half: np.ndarray  # half width and height of each node's box
    majority: np.ndarray  # each node's majority class (-1: none)
    dashed: tuple  # rows of the nodes drawn with a dashed border
    edge_rows: tuple  # (parent rows, child rows) of every edge
    edge_geometry: EdgeGeometry
    box_paths: list | None = None  # the far-out boxes, when made ahead (:func:`with_box_paths`)

    @property
    def n_shown(self) -> int:
        return len(self.positions)

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the nodes' boxes."""
        lo, hi = (self.centres - self.half).min(axis=0), (self.centres + self.half).max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def plan_scene(tree: Tree, orientation: str = "top-down", collapsed=(), style: FigureStyle = SCREEN,
               ghosts: bool = False, monitor=None, metrics=None) -> ScenePlan:
    """Lay ``tree`` out with ``collapsed`` nodes closed (what is below them stays out).

    Pure computation, safe on a worker thread given its own ``metrics`` (``new_metrics(style)``);
    ``monitor`` (an engine Monitor) is checked between phases so a big layout can be cancelled.
    """
    nodes = {n.id: n for n in tree.nodes()}
    collapsed = frozenset(i for i in collapsed if i in nodes and not nodes[i].is_leaf)
    graph = to_digraph(tree, collapsed)  # what is below a collapsed node stays out
    parents = {child: nodes[parent] for parent, child in graph.edges}
    # A collapsed node inside another collapsed subtree stays collapsed for when that opens.
    hidden = {i: _count_below(nodes[i]) for i in collapsed if i in graph}
    if monitor is not None:
        monitor.check()
        monitor.report(0.2, "measuring the labels")
    texts, sizes = {}, {}
    for k, node_id in enumerate(graph.nodes):
        node, parent, hid = nodes[node_id], parents.get(node_id), hidden.get(node_id, 0)
        texts[node_id] = node_texts(tree, node, parent, hid, style)
        w, h = sizes[node_id] = node_size(tree, node, parent, hid, texts[node_id], style, metrics)
        graph.nodes[node_id]["width"], graph.nodes[node_id]["height"] = w, h
        if monitor is not None and k % 5000 == 4999:
            monitor.check()
            monitor.report(0.2 + 0.4 * k / len(graph), "measuring the labels")
    found = _ghost_nodes(tree, graph, style, metrics) if ghosts else []
    if monitor is not None:
        monitor.check()
        monitor.report(0.6, "laying the tree out")
    positions = tidy_layout(graph, orientation=orientation, level_gap=46.0 if orientation == "top-down" else 70.0)
    ghost_at = {key: positions.pop(key) for key, *_ in found}
    graph.remove_nodes_from(ghost_at)  # laid out; drawn by their own item, not as nodes
    if monitor is not None:
        monitor.check()
        monitor.report(0.9, "the branch labels")
    edges = tuple((p, c, branch_condition(tree, nodes[p], data["order"])) for p, c, data in graph.edges(data=True))
    order = list(positions)
    centres = np.array([positions[i] for i in order], dtype=np.float64).reshape(-1, 2)
    half = np.array([sizes[i] for i in order], dtype=np.float64).reshape(-1, 2) / 2
    majority = np.fromiter((_majority(tree, nodes[i]) for i in order), dtype=np.intp, count=len(order))
    dashed = tuple(k for k, i in enumerate(order) if nodes[i].stats.get("pruned") or nodes[i].stats.get("raised"))
    row = {node_id: k for k, node_id in enumerate(order)}
    edge_rows = (np.array([row[p] for p, _, _ in edges], dtype=np.intp),
                 np.array([row[c] for _, c, _ in edges], dtype=np.intp))
    geometry = edge_geometry(np.hstack([centres - half - 3, centres + half + 3]), *edge_rows, orientation)
    return ScenePlan(tree, orientation, style, ghosts, collapsed, nodes, parents, positions, sizes, texts, hidden,
                     edges, found, ghost_at, centres, half, majority, dashed, edge_rows, geometry)


def with_box_paths(plan: ScenePlan) -> ScenePlan:
    """The plan with its far-out boxes drawn ahead (for a layout that will show zoomed far out)."""
    from dataclasses import replace

    box = np.hstack([plan.centres - plan.half, plan.centres + plan.half])
    rows = [(int(k), np.flatnonzero(plan.majority == k)) for k in np.unique(plan.majority)]
    return replace(plan, box_paths=box_paths(box, rows))


def _ghost_nodes(tree: Tree, graph, style: FigureStyle, metrics=None) -> list:
    """Put what pruning cut below each leaf it made into ``graph`` (for the layout to make
    room); returns (key, owner, parent key, branch text, node, parent) per ghost node."""
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
            found.append((key, node_id, parent_key, branch_condition(tree, parent, branch), node, parent))
            stack.extend((c, key, b, node) for b, c in enumerate(node.children))
    for key, _owner, parent_key, _text, node, parent in found:
        texts = node_texts(tree, node, parent, 0, style)
        w, h = node_size(tree, node, parent, 0, texts, style, metrics)
        graph.add_node(key, node=node, is_leaf=node.is_leaf, width=w, height=h, texts=texts)
        graph.add_edge(parent_key[0] if len(parent_key) == 1 else parent_key, key, order=_order(parent, node))
    return found


def make_items(plan: ScenePlan, monitor=None, low_detail: bool = False) -> dict:
    """The node items of a plan, not yet in any scene: made on a worker thread for a big tree
    (a Qt graphics item belongs to no thread until a scene takes it), checked for Cancel;
    ``low_detail`` makes them as they are when zoomed far out (the boxes item draws them)."""
    items, tree = {}, plan.tree
    for k, (node_id, (x, y)) in enumerate(plan.positions.items()):
        item = NodeItem(tree, plan.nodes[node_id], plan.parents.get(node_id), plan.hidden.get(node_id, 0),
                        plan.sizes[node_id], plan.texts[node_id], plan.style)
        item.setPos(x, y)
        if low_detail:
            item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
        items[node_id] = item
        if monitor is not None and k % 2000 == 1999:
            monitor.check()
            monitor.report(k / plan.n_shown, f"{k + 1:,} of {plan.n_shown:,} nodes")
    return items


def count_shown(tree: Tree, collapsed) -> int:
    """How many nodes a layout with ``collapsed`` closed shows (without laying anything out)."""
    count, stack = 0, [tree.root]
    while stack:
        node = stack.pop()
        count += 1
        if node.id not in collapsed:
            stack.extend(node.children)
    return count


def _count_below(node) -> int:
    count, stack = 0, list(node.children)
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.children)
    return count


def _majority(tree: Tree, node) -> int:
    if tree.is_regression:
        return -1
    dist = node.distribution
    return int(np.argmax(dist)) if dist.sum() > 0 else -1


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
        self._majority = np.zeros(0, np.intp)
        self._dashed: list[int] = []
        self._boxes_item: BoxesItem | None = None
        self.low_detail = False  # zoomed out below LOD_BOX: boxes drawn in one item
        self.selectionChanged.connect(self._on_selection_changed)

    def build(self, tree: Tree | None, orientation: str | None = None,
              collapsed: set[int] | None = None, style: FigureStyle | None = None,
              ghosts: bool | None = None) -> None:
        """(Re)create the items for ``tree``; collapsed nodes hide their descendants.
        ``style``: type sizes and node labels; ``ghosts``: draw what pruning cut (default:
        as before)."""
        if tree is None:
            self.apply(None)
            return
        self.apply(plan_scene(tree, orientation or self.orientation, collapsed or (), style or self.style,
                              self.show_ghosts if ghosts is None else ghosts))

    def apply(self, plan: ScenePlan | None, items: dict | None = None, items_low_detail: bool | None = None) -> None:
        """Show a laid-out tree (None: nothing): one item per node shown (``items`` made already by
        :func:`make_items` with ``items_low_detail``, or made here), the edges and the ghosts."""
        self._building = True
        self.clear()
        self.items_by_id, self.edges, self.layout_positions = {}, [], {}
        self._edges_item = self._boxes_item = None
        self._row, self._centers, self._half = {}, np.zeros((0, 2)), np.zeros((0, 2))
        self._edge_rows = (np.zeros(0, np.intp), np.zeros(0, np.intp))
        self.ghosts_item = None
        self.tree = plan.tree if plan is not None else None
        self.collapsed = set(plan.collapsed) if plan is not None else set()
        if plan is None:
            self._building = False
            return
        self.orientation, self.style, self.show_ghosts = plan.orientation, plan.style, plan.ghosts_shown
        self.layout_positions = plan.positions
        self._row = {node_id: k for k, node_id in enumerate(plan.positions)}
        self._centers = plan.centres.copy()  # moved by drags
        self._half = plan.half + 3
        for node_id, item in (items if items is not None else make_items(plan)).items():
            self.addItem(item)
            self.items_by_id[node_id] = item
        self.edges = list(plan.edges)
        self._edge_rows = plan.edge_rows
        self._majority, self._dashed = plan.majority, list(plan.dashed)
        self._edges_item = EdgesItem(self)
        self.addItem(self._edges_item)
        self._edges_item.rebuild(plan.edge_geometry)
        self._boxes_item = BoxesItem(self)
        self.addItem(self._boxes_item)
        if plan.ghosts:
            self._place_ghosts(plan.ghosts, plan.ghost_at)
        self._apply_detail(items_ready=items is not None and items_low_detail == self.low_detail,
                           box_paths=plan.box_paths)
        # Generous margins so zooming under the cursor can always scroll to keep its anchor.
        self.setSceneRect(self.content_rect().adjusted(-2000, -2000, 2000, 2000))
        self._building = False

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

    def _apply_detail(self, items_ready: bool = False, box_paths: list | None = None) -> None:
        if self._boxes_item is None:
            return
        if not items_ready:
            for item in self.items_by_id.values():
                item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, self.low_detail)
        self._boxes_item.setVisible(self.low_detail)
        if self.low_detail:
            self._boxes_item.rebuild(box_paths)

    def _on_selection_changed(self) -> None:
        if self.low_detail and self._boxes_item is not None:
            self._boxes_item.update()

    def rows_by_majority(self) -> list[tuple[int, np.ndarray]]:
        """(majority class index, rows of the geometry arrays) for each colour the boxes take."""
        return [(int(k), np.flatnonzero(self._majority == k)) for k in np.unique(self._majority)]

    def dashed_rows(self) -> list[int]:
        """Rows of the nodes drawn with a dashed border (pruned or raised by C4.5)."""
        return list(self._dashed)

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


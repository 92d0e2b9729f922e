"""The scene of a tree: node items placed by the tidy layout, every edge in one item, the
far-out boxes in one item, and the ghosts of what pruning cut.

The items paint through :mod:`gui.drawing` (nodes, edges, ghosts), which the image export
paints through too, so the picture on screen and in a file is drawn by the same code.
"""

from __future__ import annotations

from html import escape

import numpy as np
from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsScene, QStyleOptionGraphicsItem

from engine.tree import Tree
from gui.canvas.node_item import NodeItem
from gui.canvas.plot_store import PlotStore
from gui.drawing import palette
from gui.drawing.density import DENSITY_BELOW, density_image
from gui.drawing.edges import (
    EdgeGeometry,
    curves_path,
    edge_geometry,
    edge_label,
    paint_curves,
    paint_label,
)
from gui.drawing.figure_style import SCREEN, FigureStyle
from gui.drawing.ghosts import ghost_centres, ghost_marks, ghosts_bounds, paint_ghosts
from gui.drawing.nodes import LOD_TEXT, box_colour, headline_room, paint_short_headline
from gui.drawing.plan import ScenePlan, plan_scene


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
            self._bounds = QRectF(lo[0], lo[1], hi[0] - lo[0], hi[1] - lo[1]).adjusted(
                -80, -20, 80, 20
            )
        else:
            self._bounds = QRectF()
        self.update()

    def _visible(self, rect: QRectF) -> np.ndarray:
        b = self._boxes
        return np.flatnonzero(
            (b[:, 2] >= rect.left())
            & (b[:, 0] <= rect.right())
            & (b[:, 3] >= rect.top())
            & (b[:, 1] <= rect.bottom())
        )

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        exposed = option.exposedRect
        visible = self._visible(exposed) if not exposed.isEmpty() else np.arange(len(self._curves))
        if len(visible) > len(self._curves) // 2:
            paint_curves(painter, self._path)
        else:  # panning a big tree: draw only the edges in view
            paint_curves(painter, curves_path(self._curves[visible]))
        if option.levelOfDetailFromTransform(painter.worldTransform()) < LOD_TEXT:
            return
        painter.setFont(self._scene.style.edge_font)
        for k in visible:
            shown, box = self.label(k)
            if shown and (exposed.isEmpty() or exposed.intersects(box)):
                paint_label(painter, shown, box)

    def label(self, k: int) -> tuple[str, QRectF]:
        """Edge ``k``'s label as drawn (elided to its room; "" when there is no room) and its box."""
        return edge_label(
            self._texts[k], self._anchors[k], self._room[k], self._scene.style.edge_metrics
        )

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


class BoxesItem(QGraphicsItem):
    """Every node as its tinted box, in one item: what the node items draw when zoomed far out.

    Shown instead of the node items' own painting below ``LOD_BOX`` (the items stay, without
    contents, for clicks, drags and tooltips): 10,000 items painting themselves took 0.3 s for
    the first frame of a whole big tree and 35 ms for each pan step; this takes a few ms.
    """

    def __init__(self, scene: TreeScene):
        super().__init__()
        self._scene = scene
        self._groups: list[tuple[QColor, QPainterPath]] | None = []  # None: made when drawn
        self._dashed: list[int] = []
        self._box = np.zeros((0, 4))
        self._rows: list[tuple[QColor, np.ndarray]] = []  # each colour's rows of ``_box``
        self._mean_width = 0.0
        self._title_list: list[str] = []
        self._bounds = QRectF()
        self.setZValue(0.5)  # above the edges, below the node items
        # Told what is exposed, not just its bounds: the density is drawn for that much only.
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemUsesExtendedStyleOption)

    def rebuild(self, paths: list | None = None) -> None:
        """Boxes from the scene's geometry (after a layout, a drag or new positions); ``paths``
        (majority, path) as :func:`box_paths` made them for a new layout."""
        self.prepareGeometryChange()
        scene = self._scene
        box = scene.node_boxes() + np.array([3.0, 3.0, -3.0, -3.0])  # without the item's margin
        self._box = box
        self._title_list = []  # remade for these rows when next painted
        rows = scene.rows_by_majority()
        # Without paths made ahead, they are made when first drawn as boxes: zoomed out to a
        # density, or dragging far out, 70,000 boxes' outlines would be made for nothing.
        self._groups = None if paths is None else [(box_colour(scene.tree, k), p) for k, p in paths]
        self._rows = [(box_colour(scene.tree, k), r) for k, r in rows]
        self._mean_width = float(np.mean(box[:, 2] - box[:, 0])) if len(box) else 0.0
        self._dashed = scene.dashed_rows()
        self._bounds = scene.content_rect().adjusted(-4, -4, 4, 4)
        self.update()

    def _rect(self, row: int) -> QRectF:
        x0, y0, x1, y1 = self._box[row].tolist()
        return QRectF(x0, y0, x1 - x0, y1 - y0)

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        if self._mean_width * lod < DENSITY_BELOW and len(self._box):
            self._paint_density(painter, option.exposedRect, lod)
        else:
            painter.setPen(QPen(palette.NODE_BORDER, 1.2))
            if self._groups is None:
                self._groups = [(c, rects_path(self._box[rows])) for c, rows in self._rows]
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
        self._paint_headlines(painter, option)

    def _paint_density(self, painter: QPainter, exposed: QRectF, lod: float) -> None:
        """Boxes under a pixel or two on screen, drawn as their density over what is exposed: a
        60,000-node tree fitted to the window filled 70,000 sub-pixel boxes for 0.4 s a frame;
        counting them into an image takes milliseconds."""
        area = self._bounds if exposed.isEmpty() else exposed.intersected(self._bounds)
        if area.isEmpty():
            return
        width = min(max(round(area.width() * lod), 1), 8192)
        height = min(max(round(area.height() * lod), 1), 8192)
        centre = (self._box[:, :2] + self._box[:, 2:]) / 2
        inside = (
            (centre[:, 0] >= area.left())
            & (centre[:, 0] <= area.right())
            & (centre[:, 1] >= area.top())
            & (centre[:, 1] <= area.bottom())
        )
        colours = [(colour, rows[inside[rows]]) for colour, rows in self._rows]
        painter.drawImage(area, density_image(self._box, colours, area, width, height))

    def _paint_headlines(self, painter: QPainter, option: QStyleOptionGraphicsItem) -> None:
        """Each box in view says its headline where it can be read (gui/drawing/nodes.py)."""
        lod = option.levelOfDetailFromTransform(painter.worldTransform())
        b, exposed = self._box, option.exposedRect
        if not len(b):
            return
        style = self._scene.style
        min_w, min_h = headline_room(lod, style)  # the boxes too small to say anything, at once
        shown = (b[:, 2] - b[:, 0] >= min_w) & (b[:, 3] - b[:, 1] >= min_h)
        if not exposed.isEmpty():
            shown &= (
                (b[:, 2] >= exposed.left())
                & (b[:, 0] <= exposed.right())
                & (b[:, 3] >= exposed.top())
                & (b[:, 1] <= exposed.bottom())
            )
        titles = self._titles()
        for row in np.flatnonzero(shown).tolist():
            paint_short_headline(painter, self._rect(row), titles[row], lod, style)

    def _titles(self) -> list[str]:
        """Each row's headline, made once per layout."""
        if len(self._title_list) != len(self._box):
            titles = [""] * len(self._box)
            for node_id, row in self._scene.row_of().items():
                titles[row] = self._scene.items_by_id[node_id].title
            self._title_list = titles
        return self._title_list


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
    when the leaf is dragged (:mod:`gui.drawing.ghosts` says what a ghost holds).
    """

    def __init__(self, scene: TreeScene, ghosts: list, edges: list):
        super().__init__()
        self._scene = scene
        self._ghosts, self._edges = ghosts, edges
        self._bounds = QRectF()
        self.setZValue(0.25)
        self.rebuild()

    def _centres(self) -> list[tuple[float, float]]:
        items = self._scene.items_by_id
        return ghost_centres(
            self._ghosts, lambda owner: (items[owner].pos().x(), items[owner].pos().y())
        )

    def _owner_box(self, owner: int) -> tuple[float, float, float, float]:
        item = self._scene.items_by_id[owner]
        return (
            item.pos().x(),
            item.pos().y(),
            item.boundingRect().width() - 6,
            item.boundingRect().height() - 6,
        )

    def rebuild(self) -> None:
        self.prepareGeometryChange()
        self._bounds = ghosts_bounds(self._ghosts, self._centres())
        self.update()

    def boundingRect(self) -> QRectF:  # noqa: N802 - Qt override
        return self._bounds

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        paint_ghosts(
            painter,
            self._ghosts,
            self._edges,
            self._centres(),
            self._owner_box,
            self._scene.style,
            option.levelOfDetailFromTransform(painter.worldTransform()),
            self._scene.orientation == "top-down",
        )


def with_box_paths(plan: ScenePlan) -> ScenePlan:
    """The plan with its far-out boxes drawn ahead (for a layout that will show zoomed far out)."""
    from dataclasses import replace

    box = np.hstack([plan.centres - plan.half, plan.centres + plan.half])
    rows = [(int(k), np.flatnonzero(plan.majority == k)) for k in np.unique(plan.majority)]
    return replace(plan, box_paths=box_paths(box, rows))


def make_items(plan: ScenePlan, monitor=None, low_detail: bool = False) -> dict:
    """The node items of a plan, not yet in any scene: made on a worker thread for a big tree
    (a Qt graphics item belongs to no thread until a scene takes it), checked for Cancel;
    ``low_detail`` makes them as they are when zoomed far out (the boxes item draws them)."""
    items, tree = {}, plan.tree
    for k, (node_id, (x, y)) in enumerate(plan.positions.items()):
        item = NodeItem(
            tree,
            plan.nodes[node_id],
            plan.parents.get(node_id),
            plan.hidden.get(node_id, 0),
            plan.sizes[node_id],
            plan.texts[node_id],
            plan.style,
            low_detail,
        )
        item.setPos(x, y)
        items[node_id] = item
        if monitor is not None and k % 2000 == 1999:
            monitor.check()
            monitor.report(k / plan.n_shown, f"{k + 1:,} of {plan.n_shown:,} nodes")
    return items


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
        self.show_ghosts = (
            False  # draw what pruning cut (the tree's pruning record) below its leaves
        )
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
        self.plots = PlotStore(self)  # the data of the plots inside the nodes, when drawn
        self.plots.arrived.connect(self._on_plots_arrived)
        self.selectionChanged.connect(self._on_selection_changed)

    def build(
        self,
        tree: Tree | None,
        orientation: str | None = None,
        collapsed: set[int] | None = None,
        style: FigureStyle | None = None,
        ghosts: bool | None = None,
    ) -> None:
        """(Re)create the items for ``tree``; collapsed nodes hide their descendants.
        ``style``: type sizes and node labels; ``ghosts``: draw what pruning cut (default:
        as before)."""
        # Kept with no tree too: options chosen before the first tree are drawn with it.
        self.orientation = orientation or self.orientation
        self.style = style or self.style
        self.show_ghosts = self.show_ghosts if ghosts is None else ghosts
        if tree is None:
            self.apply(None)
            return
        self.apply(
            plan_scene(tree, self.orientation, collapsed or (), self.style, self.show_ghosts)
        )

    def apply(
        self,
        plan: ScenePlan | None,
        items: dict | None = None,
        items_low_detail: bool | None = None,
    ) -> None:
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
        self.plots.set_tree(self.tree)
        self.collapsed = set(plan.collapsed) if plan is not None else set()
        if plan is None:
            self._building = False
            return
        self.orientation, self.style, self.show_ghosts = (
            plan.orientation,
            plan.style,
            plan.ghosts_shown,
        )
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
            self._place_ghosts(plan)
        self._apply_detail(
            items_ready=items is not None and items_low_detail == self.low_detail,
            box_paths=plan.box_paths,
        )
        # Generous margins so zooming under the cursor can always scroll to keep its anchor.
        self.setSceneRect(self.content_rect().adjusted(-2000, -2000, 2000, 2000))
        self._building = False

    def _place_ghosts(self, plan: ScenePlan) -> None:
        self.ghosts_item = GhostsItem(self, *ghost_marks(plan))
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

    def set_rows(self, data) -> None:
        """The encoded rows the tree was grown from, for the plots inside the nodes."""
        if self.plots.set_rows(data) and self.style.labels.plots:
            self._on_plots_arrived(list(self.items_by_id))

    def _on_plots_arrived(self, node_ids: list) -> None:
        for node_id in node_ids:
            item = self.items_by_id.get(node_id)
            if item is not None:
                item.update()

    def _on_selection_changed(self) -> None:
        if self.low_detail and self._boxes_item is not None:
            self._boxes_item.update()

    def rows_by_majority(self) -> list[tuple[int, np.ndarray]]:
        """(majority class index, rows of the geometry arrays) for each colour the boxes take."""
        return [(int(k), np.flatnonzero(self._majority == k)) for k in np.unique(self._majority)]

    def dashed_rows(self) -> list[int]:
        """Rows of the nodes drawn with a dashed border (pruned or raised by C4.5)."""
        return list(self._dashed)

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
        return (
            rect.united(self._edges_item.boundingRect())
            if self._edges_item and self.edges
            else rect
        )

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

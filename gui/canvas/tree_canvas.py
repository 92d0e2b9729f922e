"""The tree canvas: a zoomable, pannable view of a :class:`gui.canvas.tree_scene.TreeScene`.

QGraphicsView rather than pyqtgraph: nodes are real items (selection, drag,
tooltips, per-item cached painting and level of detail come with Qt's item
model), painted by the same functions as the exported images (:mod:`gui.drawing`).
pyqtgraph serves the charts, where its plotting is what we want.
"""

from __future__ import annotations

from PySide6.QtCore import QPoint, QTimer, Signal
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QGraphicsView, QLabel

from engine.tree import Tree
from gui.canvas.corners import CornersMixin
from gui.canvas.finding import FindMixin
from gui.canvas.layout import LayoutMixin
from gui.canvas.node_item import NodeItem
from gui.canvas.overview import Overview
from gui.canvas.pointer import PointerMixin
from gui.canvas.subtrees import SHOW_AT_MOST, SubtreesMixin, top_levels
from gui.canvas.tree_scene import TreeScene
from gui.canvas.zooming import ZoomMixin
from gui.drawing import palette
from gui.drawing.nodes import LOD_BOX


class TreeCanvas(
    ZoomMixin, LayoutMixin, SubtreesMixin, FindMixin, PointerMixin, CornersMixin, QGraphicsView
):
    """Shows a tree; wheel zooms under the cursor, dragging empty space pans.

    What it does is held by a mixin per concern, each in its own module: zooming
    (:mod:`~gui.canvas.zooming`), layout (:mod:`~gui.canvas.layout`), open subtrees
    (:mod:`~gui.canvas.subtrees`), find (:mod:`~gui.canvas.finding`), the mouse
    (:mod:`~gui.canvas.pointer`), the legend and overview (:mod:`~gui.canvas.corners`);
    this class holds the tree shown and the selection.

    Signals
    -------
    node_selected(int) : a node was selected (-1: selection cleared).
    node_activated(int) : a node was double-clicked (it also collapses or expands).
    node_context_menu_requested(int, QPoint) : right-click on a node, global position.
    zoom_changed(float) : the view's scale changed.
    rows_dropped(list) : table rows were dropped on the canvas (their indices).
    big_tree_shown(int, int, int) : a new tree too big to draw whole opened with its top levels.
    opened(int, int, int) : a node (-1: every node) was opened; the nodes now shown, and in the tree.
    """

    node_selected = Signal(int)
    big_tree_shown = Signal(int, int, int)  # levels shown, nodes shown, nodes in the tree
    node_activated = Signal(int)
    node_context_menu_requested = Signal(int, QPoint)
    zoom_changed = Signal(float)
    rows_dropped = Signal(list)
    opened = Signal(int, int, int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._scene = TreeScene(self)
        self.setScene(self._scene)
        self.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
        self.setDragMode(QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self._hits: list[int] = []
        self._hit = -1
        self._start_job = None  # (name, call, done) -> bool: runs call(monitor) on a worker thread
        self._layout_token = 0  # the newest layout asked for; an older one arriving late is dropped
        self._legend = QLabel(self)
        self._paint_colours()
        self._legend.hide()
        self.overview = Overview(self)
        self._overview_stale = True
        self._legend_wanted = self._overview_wanted = False  # shown where a corner is free of nodes
        self._legend_forms = ("", "")  # the legend as a column, and as lines across
        self._legend_laid_out = None  # (text, width) the legend is laid out for
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.valueChanged.connect(lambda *_: self._show_overview_if_needed())
        # Dragged nodes show in the overview once the drag pauses, not on every mouse move.
        self._overview_timer = QTimer(self, singleShot=True, interval=150)
        self._overview_timer.timeout.connect(self._update_overview)
        self._scene.layout_changed.connect(self._overview_timer.start)
        self._scene.layout_changed.connect(self._place_corners)  # a node dragged under an overlay
        self.setAcceptDrops(True)
        self.overview.hide()
        self._scene.selectionChanged.connect(self._on_scene_selection_changed)
        self.zoom_changed.connect(lambda scale: self._scene.set_low_detail(scale < LOD_BOX))
        self.zoom_changed.connect(lambda *_: self._show_overview_if_needed())
        # The view stays fitted while the canvas changes size (the window laid out after a
        # tree was shown, a dock moved) until the view is zoomed or moved.
        self._fitted = False
        self.zoom_changed.connect(self._view_moved)
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.actionTriggered.connect(self._view_moved)  # the person scrolled (not setValue)

    def _paint_colours(self) -> None:
        colours = palette.current()
        self.setBackgroundBrush(QColor(colours.background))
        self._legend.setStyleSheet(
            f"background: {colours.legend_background}; color: {colours.text};"
            f" border: 1px solid {colours.node_border}; border-radius: 4px; padding: 4px 6px;"
        )

    def repaint_colours(self) -> None:
        """Draw again in the palette now in force (a theme or the presentation changed it)."""
        self._paint_colours()
        self._rebuild()  # node items cache their painting: made again, in the new colours
        self.viewport().update()

    def _view_moved(self, *_) -> None:
        self._fitted = False

    def tree(self) -> Tree | None:
        return self._scene.tree

    def tree_scene(self) -> TreeScene:
        return self._scene

    def set_tree(self, tree: Tree | None, *, keep_view: bool = True) -> None:
        """Show ``tree``; keep the selected node where it was if it still exists, else fit."""
        previous = self.selected_node()
        anchor = None
        if keep_view and previous >= 0 and previous in self._scene.items_by_id:
            anchor = self.mapFromScene(self._scene.items_by_id[previous].pos())
        same_shape = (
            tree is not None
            and self._scene.tree is not None
            and tree.n_nodes == self._scene.tree.n_nodes
        )
        collapsed = self._scene.collapsed if same_shape else set()
        big = tree is not None and not same_shape and tree.n_nodes > SHOW_AT_MOST
        self._layout_token += 1  # a layout still being made for the tree before is not wanted now
        if big:
            level, collapsed = top_levels(tree)
        self._scene.blockSignals(True)
        self._scene.build(tree, collapsed=collapsed)
        self._scene.blockSignals(False)
        self._scene.sceneRectChanged.emit(
            self._scene.sceneRect()
        )  # blocked above; the view must know
        if big:
            self.big_tree_shown.emit(level + 1, len(self._scene.items_by_id), tree.n_nodes)
        self._update_legend()
        self._update_overview()
        self._hits, self._hit = [], -1
        if tree is None:
            self.node_selected.emit(-1)
            return
        if anchor is not None and previous in self._scene.items_by_id:
            item = self._scene.items_by_id[previous]
            item.setSelected(True)
            target = self.mapToScene(anchor)
            delta = item.pos() - target
            self.centerOn(self.mapToScene(self.viewport().rect().center()) + delta)
        else:
            self.fit_to_window(readable=True)  # a new tree: its words readable (issue 38)
            self.node_selected.emit(-1)

    def set_rows(self, data) -> None:
        """The encoded rows the trees shown are grown from (None: not at hand): what the plots
        inside the nodes show, when drawn."""
        self._scene.set_rows(data)

    def clear(self) -> None:
        self.set_tree(None)

    def selected_node(self) -> int:
        items = [i for i in self._scene.selectedItems() if isinstance(i, NodeItem)]
        return items[0].node.id if items else -1

    def select_node(self, node_id: int, center: bool = False) -> None:
        item = self._scene.items_by_id.get(node_id)
        self._scene.clearSelection()
        if item is None:
            return
        item.setSelected(True)
        if center:
            self.ensureVisible(item, 60, 60)

    def _on_scene_selection_changed(self) -> None:
        self.node_selected.emit(self.selected_node())

    def highlight_nodes(self, ids) -> None:
        ids = set(ids)
        for node_id, item in self._scene.items_by_id.items():
            item.set_highlighted(node_id in ids)

    def node_view_position(self, node_id: int) -> QPoint:
        return self.mapFromScene(self._scene.items_by_id[node_id].pos())

"""The tree canvas: a zoomable, pannable view of a :class:`gui.canvas.tree_scene.TreeScene`.

QGraphicsView rather than pyqtgraph: nodes are real items (selection, drag,
tooltips, per-item cached painting and level of detail come with Qt's item
model), and the same scene renders to PNG, SVG and PDF for export. pyqtgraph
serves the charts, where its plotting is what we want.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from html import escape

import numpy as np
from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QKeySequence, QPainter, QWheelEvent
from PySide6.QtWidgets import QGraphicsView, QLabel

from engine.tree import Tree
from gui.canvas.node_item import NodeItem
from gui.canvas.tree_scene import TreeScene, make_items, with_box_paths
from gui.drawing import palette
from gui.drawing.nodes import LOD_BOX, new_metrics
from gui.drawing.plan import count_shown, plan_scene

MIN_SCALE, MAX_SCALE = 0.02, 6.0
#: The view following growth or pruning zooms in to this scale when it is further out.
READABLE = 0.85
#: A new tree with more nodes opens with only its top levels shown, at most ``FIRST_VIEW`` nodes:
#: a first look that is readable when fitted to the window, and quick to draw. Double-clicking
#: a node, or View > Expand all, shows more.
SHOW_AT_MOST, FIRST_VIEW = 3000, 31
#: A layout showing more nodes than this is made on a worker thread when the canvas has a job
#: starter (the window's): the window stays live, and Cancel stops it.
BACKGROUND_NODES = 3000


def fit_scale(plan, viewport) -> float:
    """The scale ``fit_to_window`` will give a laid-out tree in a viewport of this size."""
    left, top, right, bottom = plan.bounds()
    width, height = right - left + 40 + 160, bottom - top + 40 + 40  # its margins and the edge labels'
    scale = min(max(viewport.width() - 4, 1) / width, max(viewport.height() - 4, 1) / height)
    return float(min(scale, 1.5))


@contextmanager
def _collection_paused():
    """Python's cyclic garbage collector paused while a big layout makes its million objects:
    each full pass over them holds the interpreter lock for a second or more, freezing the
    window the layout runs beside. Collection resumes afterwards."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def top_levels(tree: Tree, limit: int = FIRST_VIEW, top=None) -> tuple[int, set[int]]:
    """The deepest level ``d`` (at least 1) with at most ``limit`` nodes down to it, and the
    split nodes on level ``d`` to collapse so that only those levels show; of the subtree
    below node ``top`` when given."""
    top = tree.root if top is None else top
    nodes = list(top.walk())
    depths = np.array([n.depth for n in nodes]) - top.depth
    per_level = np.bincount(depths)
    within = np.flatnonzero(np.cumsum(per_level) <= limit)
    level = max(int(within[-1]) if len(within) else 0, 1)
    return level, {n.id for n in nodes if n.depth - top.depth == level and not n.is_leaf}


class TreeCanvas(QGraphicsView):
    """Shows a tree; wheel zooms under the cursor, dragging empty space pans.

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
        self.setBackgroundBrush(QColor("#F7F8FA"))
        self._hits: list[int] = []
        self._hit = -1
        self._start_job = None  # (name, call, done) -> bool: runs call(monitor) on a worker thread
        self._layout_token = 0  # the newest layout asked for; an older one arriving late is dropped
        self._legend = QLabel(self)
        self._legend.setStyleSheet("background: rgba(255,255,255,225); border: 1px solid #D0D5DD;"
                                   " border-radius: 4px; padding: 4px 6px;")
        self._legend.hide()
        from gui.canvas.overview import Overview

        self.overview = Overview(self)
        self._overview_stale = True
        for bar in (self.horizontalScrollBar(), self.verticalScrollBar()):
            bar.valueChanged.connect(lambda *_: self._show_overview_if_needed())
        # Dragged nodes show in the overview once the drag pauses, not on every mouse move.
        self._overview_timer = QTimer(self, singleShot=True, interval=150)
        self._overview_timer.timeout.connect(self._update_overview)
        self._scene.layout_changed.connect(self._overview_timer.start)
        self.setAcceptDrops(True)
        self.overview.hide()
        self._scene.selectionChanged.connect(self._on_scene_selection_changed)
        self.zoom_changed.connect(lambda scale: self._scene.set_low_detail(scale < LOD_BOX))
        self.zoom_changed.connect(lambda *_: self._show_overview_if_needed())

    # ---------------------------------------------------------------- content
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
        same_shape = (tree is not None and self._scene.tree is not None
                      and tree.n_nodes == self._scene.tree.n_nodes)
        collapsed = self._scene.collapsed if same_shape else set()
        big = tree is not None and not same_shape and tree.n_nodes > SHOW_AT_MOST
        self._layout_token += 1  # a layout still being made for the tree before is not wanted now
        if big:
            level, collapsed = top_levels(tree)
        self._scene.blockSignals(True)
        self._scene.build(tree, collapsed=collapsed)
        self._scene.blockSignals(False)
        self._scene.sceneRectChanged.emit(self._scene.sceneRect())  # blocked above; the view must know
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
            self.fit_to_window()
            self.node_selected.emit(-1)

    def clear(self) -> None:
        self.set_tree(None)

    def _update_legend(self) -> None:
        """Class colours (when bars show them) and every mark drawn: as the exported legend."""
        tree = self._scene.tree
        rows = []
        if tree is not None and not tree.is_regression and self._scene.style.labels.bar:
            rows.append(f"<b>{escape(tree.schema.target)}</b>")
            rows += [f"<span style='color:{palette.class_colour(k).name()}'>&#9632;</span>&nbsp;{escape(c)}"
                     for k, c in enumerate(tree.classes)]
        if any(item.is_dashed() for item in self._scene.items_by_id.values()):
            rows.append(f"<span style='color:{palette.NODE_BORDER.name()}'>&#9633;</span>&nbsp;pruned here "
                        "(dashed)")
        if self._scene.ghosts_item is not None:
            rows.append("<span style='color:#B0B6BF'>&#9633;</span>&nbsp;cut by pruning (faint)")
        if not rows:
            self._legend.hide()
            return
        self._legend.setText("<br>".join(rows))
        self._legend.adjustSize()
        self._legend.show()
        self._place_legend()

    def _place_legend(self) -> None:
        """Top right, or top left when fewer nodes are under it there (a tree leaning right)."""
        right = QPoint(self.viewport().width() - self._legend.width() - 12, 10)
        left = QPoint(12, 10)
        self._legend.move(min((right, left), key=self._nodes_under_legend_at))
        self.overview.move(self.viewport().width() - self.overview.width() - 12,
                           self.viewport().height() - self.overview.height() - 12)

    def _nodes_under_legend_at(self, corner: QPoint) -> int:
        if self._scene.tree is None or not self._legend.isVisible():
            return 0
        area = self.mapToScene(QRect(corner, self._legend.size())).boundingRect()
        box = self._scene.node_boxes()
        return int(np.count_nonzero((box[:, 0] < area.right()) & (box[:, 2] > area.left())
                                    & (box[:, 1] < area.bottom()) & (box[:, 3] > area.top())))

    def _update_overview(self) -> None:
        """The tree or its layout changed: the overview's picture is redrawn when next shown."""
        self._overview_stale = True
        self._show_overview_if_needed()

    def _show_overview_if_needed(self) -> None:
        """The overview shows for a big tree while part of it is out of view: over a tree
        fitted whole it would only hide nodes."""
        show = len(self._scene.items_by_id) > 40  # first: every scroll step asks
        if show:
            content = self._scene.content_rect()
            show = not content.isEmpty() and not self.visible_scene_rect().adjusted(-1, -1, 1, 1).contains(content)
        if show and self._overview_stale:
            self._overview_stale = False
            self._place_legend()
            self.overview.refresh()
        self.overview.setVisible(show)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._place_legend()
        self._show_overview_if_needed()

    # ---------------------------------------------------------------- selection
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

    def follow(self, node_ids) -> None:
        """Bring these nodes into view at a scale their words can be read at, zooming out only
        as far as they need to fit."""
        items = [self._scene.items_by_id[i] for i in node_ids if i in self._scene.items_by_id]
        if not items:
            return
        rect = items[0].sceneBoundingRect()
        for item in items[1:]:
            rect = rect.united(item.sceneBoundingRect())
        rect = rect.adjusted(-30, -30, 30, 30)
        port = self.viewport().rect()
        fits = min(port.width() / rect.width(), port.height() / rect.height())
        scale = self.scale_factor()
        wanted = min(max(scale, READABLE), fits, 1.0)  # readable, not blown up
        if abs(wanted - scale) > 1e-3:
            self.resetTransform()
            self.scale(wanted, wanted)
            self.centerOn(rect.center())
            self.zoom_changed.emit(wanted)
        elif not self.visible_scene_rect().contains(rect):
            self.ensureVisible(rect, 0, 0)

    def _on_scene_selection_changed(self) -> None:
        self.node_selected.emit(self.selected_node())

    def highlight_nodes(self, ids) -> None:
        ids = set(ids)
        for node_id, item in self._scene.items_by_id.items():
            item.set_highlighted(node_id in ids)

    # ---------------------------------------------------------------- zoom and pan
    def scale_factor(self) -> float:
        return self.transform().m11()

    def _zoom_by(self, factor: float) -> None:
        current = self.scale_factor()
        factor = max(MIN_SCALE / current, min(MAX_SCALE / current, factor))
        self.scale(factor, factor)
        self.zoom_changed.emit(self.scale_factor())

    def zoom_in(self) -> None:
        self._zoom_by(1.25)

    def zoom_out(self) -> None:
        self._zoom_by(0.8)

    def reset_zoom(self) -> None:
        self.resetTransform()
        self.zoom_changed.emit(1.0)

    def fit_to_window(self) -> None:
        rect = self._scene.content_rect()
        if rect.isEmpty():
            return
        self.resetTransform()
        self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.AspectRatioMode.KeepAspectRatio)
        if self.scale_factor() > 1.5:
            self.resetTransform()
            self.scale(1.5, 1.5)
            self.centerOn(rect.center())
        self._place_legend()  # the corner with fewer nodes under it, at this zoom
        self.zoom_changed.emit(self.scale_factor())

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_at(event.position().toPoint(), 1.2 ** steps)
        event.accept()

    def zoom_at(self, view_pos: QPoint, factor: float) -> None:
        """Zoom keeping the scene point under ``view_pos`` where it is."""
        anchor = self.mapToScene(view_pos)
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.NoAnchor)
        self._zoom_by(factor)
        offset = self.viewport().rect().center() - view_pos
        scale = self.scale_factor()
        self.centerOn(anchor + QPointF(offset.x() / scale, offset.y() / scale))
        self.setTransformationAnchor(QGraphicsView.ViewportAnchor.AnchorUnderMouse)

    def keyPressEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.matches(QKeySequence.StandardKey.ZoomIn) or event.key() in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_in()
        elif event.matches(QKeySequence.StandardKey.ZoomOut) or event.key() == Qt.Key.Key_Minus:
            self.zoom_out()
        elif event.key() == Qt.Key.Key_0:
            self.fit_to_window()
        else:
            super().keyPressEvent(event)

    # ---------------------------------------------------------------- layout
    def set_orientation(self, orientation: str) -> None:
        self._scene.orientation = orientation
        if self._scene.tree is not None:
            self._relayout(set(self._scene.collapsed), "fit")

    def orientation(self) -> str:
        return self._scene.orientation

    def style(self):
        """The type sizes and node labels the canvas draws with (exports use the same)."""
        return self._scene.style

    def set_style(self, style) -> None:
        """Draw nodes with ``style`` (e.g. other node labels), keeping what is open."""
        self._rebuild(style=style)

    def ghosts(self) -> bool:
        return self._scene.show_ghosts

    def set_ghosts(self, on: bool) -> None:
        """Draw (or stop drawing) what pruning cut, faintly below the leaves it left."""
        self._rebuild(ghosts=on)

    def _rebuild(self, **options) -> None:
        tree = self._scene.tree
        selected = self.selected_node()
        centre = self.mapToScene(self.viewport().rect().center())
        self._scene.blockSignals(True)
        self._scene.build(tree, collapsed=self._scene.collapsed, **options)
        self._scene.blockSignals(False)
        self._update_legend()
        if tree is not None:
            if selected >= 0:
                self.select_node(selected)
            self.centerOn(centre)
            self._update_overview()

    def reset_layout(self) -> None:
        self._scene.reset_layout()

    def set_job_starter(self, start) -> None:
        """Let big layouts run on a worker thread: ``start(name, call, done)`` runs ``call(monitor)``
        as a job with progress and Cancel, calls ``done(result)`` on the GUI thread when it ends,
        and returns False when it cannot start now. Without one, every layout is made at once."""
        self._start_job = start

    def _relayout(self, collapsed: set[int], follow: str, focus: int = -1) -> None:
        """Show the tree with ``collapsed`` closed, then follow ``focus``: "keep" it where it was on
        screen, show the "subtree" opened below it, make it "readable", or "fit" the whole tree."""
        tree = self._scene.tree
        if tree is None:
            return
        self._layout_token += 1
        token, orientation = self._layout_token, self._scene.orientation
        style, ghosts = self._scene.style, self._scene.show_ghosts
        anchor = None
        if focus in self._scene.items_by_id:
            anchor = self.mapFromScene(self._scene.items_by_id[focus].pos())
        shown = count_shown(tree, collapsed)
        if shown <= BACKGROUND_NODES or self._start_job is None:
            plan = plan_scene(tree, orientation, collapsed, style, ghosts)
            self._show_plan(token, plan, None, None, follow, focus, anchor)
            return

        viewport, low_detail = self.viewport().size(), self._scene.low_detail

        def call(monitor):
            with _collection_paused():
                plan = plan_scene(tree, orientation, collapsed, style, ghosts, monitor.scaled(0.0, 0.5),
                                  new_metrics(style))
                low = bool(fit_scale(plan, viewport) < LOD_BOX) if follow == "fit" else low_detail
                if low:
                    plan = with_box_paths(plan)
                return plan, make_items(plan, monitor.scaled(0.5, 1.0), low), low

        what = "Laying out every node" if not collapsed else f"Laying out {shown:,} nodes"
        self._start_job(f"{what} of {tree.n_nodes:,}", call,
                        lambda out: self._show_plan(token, *out, follow, focus, anchor))

    def _show_plan(self, token: int, plan, items, items_low_detail, follow: str, focus: int, anchor) -> None:
        if token != self._layout_token or plan.tree is not self._scene.tree:
            return  # asked for again since, or another tree arrived meanwhile
        with _collection_paused():
            self._apply_plan(plan, items, items_low_detail, follow, focus, anchor)

    def _apply_plan(self, plan, items, items_low_detail, follow: str, focus: int, anchor) -> None:
        selected = self.selected_node()
        if follow == "fit":  # the detail the fitted view will have, so the items are set up once
            self._scene.low_detail = bool(fit_scale(plan, self.viewport().size()) < LOD_BOX)
        self._scene.blockSignals(True)
        self._scene.apply(plan, items, items_low_detail)
        self._scene.blockSignals(False)
        self._scene.sceneRectChanged.emit(self._scene.sceneRect())  # blocked above; the view must know
        self._update_overview()
        if selected >= 0 and focus not in self._scene.items_by_id and selected not in self._scene.items_by_id:
            self.node_selected.emit(-1)  # the selected node was closed away
        for node_id in (focus, selected):
            if node_id in self._scene.items_by_id:
                self._scene.items_by_id[node_id].setSelected(True)
                break
        item = self._scene.items_by_id.get(focus)
        if follow == "fit" or item is None:
            self.fit_to_window()
        elif follow == "readable":
            self.show_readable(focus)
        else:
            if anchor is not None:  # the node stays where it was on screen
                delta = item.pos() - self.mapToScene(anchor)
                self.centerOn(self.mapToScene(self.viewport().rect().center()) + delta)
            if follow == "subtree":
                self._follow_subtree(focus)
        if follow == "fit":
            self.opened.emit(-1, plan.n_shown, plan.tree.n_nodes)
        elif follow == "subtree":
            self.opened.emit(focus, plan.n_shown, plan.tree.n_nodes)

    def _follow_subtree(self, node_id: int) -> None:
        """Bring what was opened below ``node_id`` into view, zooming out only as far as needed."""
        self.follow([n.id for n in self._scene.tree.node(node_id).walk() if n.id in self._scene.items_by_id])

    def show_readable(self, node_id: int) -> None:
        """Centre ``node_id`` at a scale where its text can be read."""
        item = self._scene.items_by_id.get(node_id)
        if item is None:
            return
        if self.scale_factor() < READABLE:
            self.resetTransform()
            self.scale(READABLE, READABLE)
            self.zoom_changed.emit(self.scale_factor())
        self.centerOn(item)

    def toggle_collapsed(self, node_id: int) -> None:
        """Close an open node, or open a closed one: a subtree too big to read opens its top levels."""
        tree = self._scene.tree
        if tree is None or node_id not in self._scene.items_by_id:
            return
        node = self._scene.items_by_id[node_id].node
        if node.is_leaf:
            return
        collapsed = set(self._scene.collapsed)
        if node_id in collapsed:
            collapsed.discard(node_id)
            if self._scene.items_by_id[node_id].hidden > SHOW_AT_MOST:
                collapsed |= top_levels(tree, FIRST_VIEW, node)[1]
            self._relayout(collapsed, "subtree", node_id)
        else:
            self._relayout(collapsed | {node_id}, "keep", node_id)

    def expand_all(self) -> None:
        """Show every node (a big tree is laid out on a worker thread when the canvas has a starter)."""
        if self._scene.tree is not None and self._scene.collapsed:
            self._relayout(set(), "fit", self.selected_node())

    def expand_subtree(self, node_id: int) -> None:
        """Open every node below ``node_id``."""
        tree = self._scene.tree
        if tree is None or node_id not in self._scene.items_by_id:
            return
        below = {n.id for n in tree.node(node_id).walk()}
        collapsed = {i for i in self._scene.collapsed if i not in below}
        if collapsed != self._scene.collapsed:
            self._relayout(collapsed, "subtree", node_id)

    def reveal(self, node_id: int) -> bool:
        """Open the path down to ``node_id`` (only it: the siblings along the way stay closed) and
        show the node readable; False if the tree has no such node."""
        tree = self._scene.tree
        if tree is None or not 0 <= node_id < tree.n_nodes:
            return False
        if node_id in self._scene.items_by_id:
            self.select_node(node_id)
            self.show_readable(node_id)
            return True
        path = [n for n, _ in tree.path_to(node_id)]
        collapsed = set(self._scene.collapsed)
        first = next(k for k, n in enumerate(path) if n.id in collapsed)
        for k in range(first, len(path) - 1):
            collapsed.discard(path[k].id)
            collapsed |= {c.id for c in path[k].children if c is not path[k + 1] and not c.is_leaf}
        if not path[-1].is_leaf:
            collapsed.add(node_id)
        self._relayout(collapsed, "readable", node_id)
        return True

    def collapse(self, node_id: int) -> None:
        if node_id not in self._scene.collapsed:
            self.toggle_collapsed(node_id)

    def expand(self, node_id: int) -> None:
        if node_id in self._scene.collapsed:
            self.toggle_collapsed(node_id)

    # ---------------------------------------------------------------- find
    def find(self, text: str) -> list[int]:
        """Every node of the tree, shown or not, whose attribute, incoming condition or prediction
        contains ``text``; the first is opened, selected and shown readable."""
        from engine.export.search import find_nodes

        tree = self._scene.tree
        self._hits, self._hit = [], -1
        if tree is None or not text.strip():
            return []
        self._hits = find_nodes(tree, text)
        if self._hits:
            self.find_next()
        return list(self._hits)

    def prepare_find(self) -> None:
        """Write a big tree's search index on a worker thread (the find bar opened): the first
        search then scans it instead of formatting every node while the user waits."""
        tree = self._scene.tree
        if tree is None or tree.n_nodes < 20_000:
            return
        from engine.export.search import search_index
        from gui.session.jobs import Job, run_aside

        def call(monitor):
            with _collection_paused():
                return search_index(tree)

        run_aside(Job("Search index", call))

    def hits(self) -> tuple[list[int], int]:
        """The matches of the last find and the index of the one shown (-1: none)."""
        return list(self._hits), self._hit

    def find_next(self) -> int:
        return self._step(1)

    def find_previous(self) -> int:
        return self._step(-1)

    def _step(self, direction: int) -> int:
        if not self._hits:
            return -1
        self._hit = (self._hit + direction) % len(self._hits)
        node_id = self._hits[self._hit]
        self.reveal(node_id)
        return node_id

    # ---------------------------------------------------------------- mouse
    def _node_at(self, pos) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item
        return None

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        item = self._node_at(event.position().toPoint())
        if item is not None and event.modifiers() & Qt.KeyboardModifier.AltModifier:
            self._drag_to_pin(item.node.id)
            return
        # Empty space pans; a node is selected and dragged instead.
        self.setDragMode(QGraphicsView.DragMode.NoDrag if item else QGraphicsView.DragMode.ScrollHandDrag)
        super().mousePressEvent(event)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        from gui.mime import ROWS_MIME

        if event.mimeData().hasFormat(ROWS_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        from gui.mime import ROWS_MIME

        if event.mimeData().hasFormat(ROWS_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        from gui.mime import ROWS_MIME

        if event.mimeData().hasFormat(ROWS_MIME):
            text = bytes(event.mimeData().data(ROWS_MIME)).decode()
            self.rows_dropped.emit([int(r) for r in text.split(",") if r])
            event.acceptProposedAction()
        else:
            super().dropEvent(event)

    def _drag_to_pin(self, node_id: int) -> None:
        """Alt-drag a node: dropped on the inspector it is pinned there."""
        from PySide6.QtCore import QMimeData
        from PySide6.QtGui import QDrag

        from gui.mime import NODE_MIME

        mime = QMimeData()
        mime.setData(NODE_MIME, str(node_id).encode())
        drag = QDrag(self)
        drag.setMimeData(mime)
        drag.exec(Qt.DropAction.CopyAction)

    def mouseDoubleClickEvent(self, event) -> None:  # noqa: N802 - Qt override
        item = self._node_at(event.position().toPoint())
        if item is not None:
            node_id = item.node.id
            self.node_activated.emit(node_id)
            self.toggle_collapsed(node_id)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802 - Qt override
        item = self._node_at(event.pos())
        if item is not None:
            self.select_node(item.node.id)
            self.node_context_menu_requested.emit(item.node.id, event.globalPos())
            event.accept()
            return
        super().contextMenuEvent(event)

    def node_view_position(self, node_id: int) -> QPoint:
        return self.mapFromScene(self._scene.items_by_id[node_id].pos())

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()


def scene_point(canvas: TreeCanvas, node_id: int) -> QPointF:
    return canvas.tree_scene().items_by_id[node_id].pos()


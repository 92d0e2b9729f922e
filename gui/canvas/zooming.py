"""The canvas's zoom and view: the wheel zooms under the cursor, keys zoom in steps, and the
view fits the tree, follows nodes, or shows one at a scale its words can be read at."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QPointF, QRect, QRectF, Qt
from PySide6.QtGui import QKeySequence, QWheelEvent
from PySide6.QtWidgets import QGraphicsView

MIN_SCALE, MAX_SCALE = 0.02, 6.0
#: The view following growth or pruning zooms in to this scale when it is further out.
READABLE = 0.85
#: A tree growing step by step is framed whole down to this scale (nodes keep their full
#: text above LOD_TEXT, 0.55); a bigger one is followed at READABLE instead.
WHOLE_AT_LEAST = 0.6


class ZoomMixin:
    """Zooming and moving the view of a :class:`gui.canvas.tree_canvas.TreeCanvas`."""

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

    #: The smallest on-screen size (pixels) of a node's headline that a readable fit keeps
    #: (0: none). The window sets it (issue 38): a new tree too big to fit readably is framed
    #: at its root at this size, the overview showing the rest, rather than shrunk to bare
    #: boxes. Fit tree (Ctrl+0) and Expand all still fit the whole tree, as asked.
    min_label_px = 0.0

    def readable_scale(self) -> float:
        """The smallest scale at which node headlines are :attr:`min_label_px` on screen."""
        return self.min_label_px / self._scene.style.title_px

    #: Pixels of the view's right edge that a panel shown over the canvas covers (the side
    #: bar's, gui.side_bar): fitting and framing keep the tree to the rest.
    covered_right = 0

    def set_covered_right(self, pixels: int) -> None:
        """A panel now covers ``pixels`` of the view's right edge (0: none): the legend and
        overview move out from under it, and later fits keep beside it."""
        self.covered_right = pixels
        self._place_legend()

    def open_port(self) -> QRect:
        """The part of the viewport no panel covers (at least half of it)."""
        port = self.viewport().rect()
        return port.adjusted(0, 0, -min(self.covered_right, port.width() // 2), 0)

    def _centre_open(self, point: QPointF) -> None:
        """Centre ``point`` in :meth:`open_port`."""
        cover = self.viewport().rect().width() - self.open_port().width()
        self.centerOn(point + QPointF(cover / 2 / self.scale_factor(), 0))

    def fit_to_window(self, readable: bool = False) -> None:
        """The whole tree in view (at most at 1.5x); ``readable``: no smaller than
        :meth:`readable_scale`, its root end in view when the whole would be smaller."""
        rect = self._scene.content_rect()
        if rect.isEmpty():
            return
        self.resetTransform()
        framed = rect.adjusted(-20, -20, 20, 20)
        port = self.open_port()
        if port == self.viewport().rect():
            self.fitInView(framed, Qt.AspectRatioMode.KeepAspectRatio)
        else:
            fits = min(port.width() / framed.width(), port.height() / framed.height())
            self.scale(fits, fits)
            self._centre_open(framed.center())
        if self.scale_factor() > 1.5:
            self.resetTransform()
            self.scale(1.5, 1.5)
            self._centre_open(rect.center())
        elif readable and self.scale_factor() < self.readable_scale():
            self._frame_root(rect, self.readable_scale())
        self._place_legend()  # a place free of nodes, at this zoom
        self.zoom_changed.emit(self.scale_factor())
        # Until the view is zoomed or moved, a resize fits it again, the same way.
        self._fitted = "readable" if readable else "whole"

    def _frame_root(self, rect: QRectF, scale: float) -> None:
        """At ``scale``, the tree's root end in view: its top centred on the root (top-down),
        or its left end at the root's height (left to right)."""
        self.resetTransform()
        self.scale(scale, scale)
        root = self._scene.items_by_id.get(self._scene.tree.root.id) if self._scene.tree else None
        port = self.viewport().rect()
        half_w, half_h = port.width() / 2 / scale, port.height() / 2 / scale
        if root is None:
            self._centre_open(rect.center())
        elif self._scene.orientation == "left-to-right":
            self.centerOn(rect.left() - 20 + half_w, root.pos().y())
        else:
            self._centre_open(QPointF(root.pos().x(), rect.top() - 20 + half_h))

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt override
        steps = event.angleDelta().y() / 120
        if steps:
            self.zoom_at(event.position().toPoint(), 1.2**steps)
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
        if event.matches(QKeySequence.StandardKey.ZoomIn) or event.key() in (
            Qt.Key.Key_Plus,
            Qt.Key.Key_Equal,
        ):
            self.zoom_in()
        elif event.matches(QKeySequence.StandardKey.ZoomOut) or event.key() == Qt.Key.Key_Minus:
            self.zoom_out()
        elif event.key() == Qt.Key.Key_0:
            self.fit_to_window()
        else:
            super().keyPressEvent(event)

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
        port = self.open_port()
        fits = min(port.width() / rect.width(), port.height() / rect.height())
        scale = self.scale_factor()
        wanted = min(max(scale, READABLE), fits, 1.0)  # readable, not blown up
        if abs(wanted - scale) > 1e-3:
            self.resetTransform()
            self.scale(wanted, wanted)
            self._centre_open(rect.center())
            self.zoom_changed.emit(wanted)
        elif port != self.viewport().rect():
            if not self.mapToScene(port).boundingRect().contains(rect):
                self._centre_open(rect.center())
        elif not self.visible_scene_rect().contains(rect):
            self.ensureVisible(rect, 0, 0)

    def frame_growth(self, node_ids) -> None:
        """The whole tree in view when it can be read whole (at most at full size, centred),
        else :meth:`follow` these nodes: a tree growing step by step stays framed."""
        rect = self._scene.content_rect()
        if rect.isEmpty():
            return
        rect = rect.adjusted(-30, -30, 30, 30)
        port = self.open_port()
        fits = min(port.width() / rect.width(), port.height() / rect.height())
        if fits < WHOLE_AT_LEAST:
            self.follow(node_ids)
            return
        wanted = min(fits, 1.0)
        self.resetTransform()
        self.scale(wanted, wanted)
        self._centre_open(rect.center())
        self._place_legend()
        self.zoom_changed.emit(wanted)

    def show_readable(self, node_id: int) -> None:
        """Centre ``node_id`` at a scale where its text can be read."""
        item = self._scene.items_by_id.get(node_id)
        if item is None:
            return
        if self.scale_factor() < READABLE:
            self.resetTransform()
            self.scale(READABLE, READABLE)
            self.zoom_changed.emit(self.scale_factor())
        self._centre_open(item.sceneBoundingRect().center())

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

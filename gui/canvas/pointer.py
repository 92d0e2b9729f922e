"""The mouse on the canvas: select and drag nodes, pan empty space, double-click to open or
close, right-click for the node's menu, Alt-drag to pin, and table rows dropped on it."""

from __future__ import annotations

from PySide6.QtCore import QMimeData, Qt
from PySide6.QtGui import QDrag
from PySide6.QtWidgets import QGraphicsView

from gui.canvas.node_item import NodeItem
from gui.mime import NODE_MIME, ROWS_MIME


class PointerMixin:
    """Mouse and drop events of a :class:`gui.canvas.tree_canvas.TreeCanvas`."""

    def _node_at(self, pos) -> NodeItem | None:
        for item in self.items(pos):
            if isinstance(item, NodeItem):
                return item
        return None

    def mousePressEvent(self, event) -> None:  # noqa: N802 - Qt override
        item = self._node_at(event.position().toPoint())
        self._view_moved()  # panned or a node picked: a resize no longer fits the view
        if item is not None and event.modifiers() & Qt.KeyboardModifier.AltModifier:
            self._drag_to_pin(item.node.id)
            return
        # Empty space pans; a node is selected and dragged instead.
        self.setDragMode(
            QGraphicsView.DragMode.NoDrag if item else QGraphicsView.DragMode.ScrollHandDrag
        )
        super().mousePressEvent(event)

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(ROWS_MIME):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(ROWS_MIME):
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasFormat(ROWS_MIME):
            text = bytes(event.mimeData().data(ROWS_MIME)).decode()
            self.rows_dropped.emit([int(r) for r in text.split(",") if r])
            event.acceptProposedAction()
        else:
            super().dropEvent(event)

    def _drag_to_pin(self, node_id: int) -> None:
        """Alt-drag a node: dropped on the inspector it is pinned there."""

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

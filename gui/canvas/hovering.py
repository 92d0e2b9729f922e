"""Which node of the canvas the mouse is over, as a signal: the views that follow the
canvas (the decision regions) light what belongs to that node while the mouse is on it."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Signal

from gui.canvas.node_item import NodeItem


class NodeHover(QObject):
    """Watches a canvas's viewport (an event filter: the canvas itself is left as it is).

    Signals
    -------
    node_hovered(int) : the mouse came onto a node (its id), or off every node (-1).
    """

    node_hovered = Signal(int)

    def __init__(self, canvas):
        super().__init__(canvas)
        self.canvas = canvas
        self.hovered = -1
        canvas.viewport().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 - Qt override
        kind = event.type()
        if kind == QEvent.Type.MouseMove:
            self._set(self.node_at(event.position().toPoint()))
        elif kind == QEvent.Type.Leave:
            self._set(-1)
        return False

    def node_at(self, point) -> int:
        """The node under viewport ``point`` (-1: none)."""
        for item in self.canvas.items(point):
            if isinstance(item, NodeItem) and item.isVisible():
                return item.node.id
        return -1

    def _set(self, node_id: int) -> None:
        if node_id != self.hovered:
            self.hovered = node_id
            self.node_hovered.emit(node_id)

"""The data of the plots drawn inside the canvas's nodes (issue 32), worked out as they are
needed: a node painted at full detail asks for its plot, and the nodes asked for meanwhile are
worked out together on a worker thread (one walk down the tree:
:func:`engine.export.node_data.nodes_data`). A whole big tree seen from afar asks for nothing,
so a 10,000-node tree opens as fast with plots as without; zoomed in, only the few nodes in
view are worked out.
"""

from __future__ import annotations

from contextlib import suppress

from PySide6.QtCore import QObject, QTimer, Signal

from engine.export.node_data import nodes_data
from gui.drawing.node_plots import NO_ROWS, THUMB_POINTS
from gui.session.jobs import start_on_pool

#: Nodes worked out in one go on the worker (a view holds far fewer at plot-reading zoom).
BATCH = 400
#: Nodes whose plot data is kept, per tree; the oldest go first.
KEPT = 5000


class PlotStore(QObject):
    """Each node's plot data for one tree and the rows it was grown from.

    Signals
    -------
    arrived(list) : the plot data of these node ids is here (repaint them).
    """

    arrived = Signal(list)
    _done = Signal(object, object, object)  # from the worker: tree, rows, {id: data or note}

    def __init__(self, parent=None):
        super().__init__(parent)
        self._tree = None
        self._data = None
        self._kept: dict[int, object] = {}
        self._pending: set[int] = set()
        self._running = False
        self._timer = QTimer(self, singleShot=True, interval=0)  # gathers one paint's asks
        self._timer.timeout.connect(self._start)
        self._done.connect(self._on_done)

    def set_rows(self, data) -> bool:
        """The encoded rows the trees shown are grown from (None: not at hand); True when
        that changed what the plots show."""
        if data is self._data:
            return False
        self._data = data
        self._forget()
        return True

    def set_tree(self, tree) -> None:
        if tree is not self._tree:
            self._tree = tree
            self._forget()

    def _forget(self) -> None:
        self._kept, self._pending = {}, set()

    def plot_for(self, node_id: int):
        """The node's plot data; a note when it cannot have one; None while it is worked out
        (asked for here: :attr:`arrived` says when it is ready)."""
        if self._data is None:
            return NO_ROWS
        found = self._kept.get(node_id)
        if found is None:
            self._pending.add(node_id)
            if not self._running:
                self._timer.start()
        return found

    def kept(self) -> dict[int, object]:
        """The plot data worked out so far, by node id."""
        return dict(self._kept)

    def _start(self) -> None:
        if self._running or not self._pending or self._tree is None or self._data is None:
            return
        batch = sorted(self._pending)[:BATCH]
        self._pending.difference_update(batch)
        self._running = True
        tree, data = self._tree, self._data
        start_on_pool(lambda: self._work(tree, data, batch))

    def _work(self, tree, data, batch) -> None:
        """On a worker thread."""
        try:
            found = nodes_data(tree, data, batch, max_points=THUMB_POINTS)
        except Exception as err:  # noqa: BLE001 - said in the nodes rather than lost in a thread
            note = f"cannot plot: {err}"[:60]
            found = dict.fromkeys(batch, note)
        with suppress(RuntimeError):  # the canvas closed meanwhile: nobody to tell
            self._done.emit(tree, data, found)

    def _on_done(self, tree, data, found: dict) -> None:
        self._running = False
        if tree is self._tree and data is self._data:
            self._kept.update(found)
            for old in list(self._kept)[: max(0, len(self._kept) - KEPT)]:
                del self._kept[old]
            self.arrived.emit(list(found))
        if self._pending:
            self._timer.start()

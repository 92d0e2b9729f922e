"""Finding nodes on the canvas: every node of the tree, shown or not, and stepping through the matches."""

from __future__ import annotations

from engine.collection import collection_paused
from engine.export.search import find_nodes, search_index
from gui.session.jobs import Job, run_aside


class FindMixin:
    """The find of a :class:`gui.canvas.tree_canvas.TreeCanvas` and its matches."""

    def find(self, text: str) -> list[int]:
        """Every node of the tree, shown or not, whose attribute, incoming condition or prediction
        contains ``text``; the first is opened, selected and shown readable."""
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

        def call(monitor):
            with collection_paused():
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

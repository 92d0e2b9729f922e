"""Opening and closing subtrees on the canvas: a big tree opens with its top levels, a big
subtree opens its own, and a node found deep down opens the path to it."""

from __future__ import annotations

import numpy as np

from engine.tree import Tree

#: A new tree with more nodes opens with only its top levels shown, at most ``FIRST_VIEW`` nodes:
#: a first look that is readable when fitted to the window, and quick to draw. Double-clicking
#: a node, or View > Expand all, shows more.
SHOW_AT_MOST, FIRST_VIEW = 3000, 31


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


class SubtreesMixin:
    """Which nodes of a :class:`gui.canvas.tree_canvas.TreeCanvas` are open."""

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

    def reveal(self, node_id: int) -> bool:
        """Open the path down to ``node_id`` (only it: the siblings along the way stay closed) and
        show the node readable; False if the tree has no such node."""
        tree = self._scene.tree
        if tree is None or node_id < 0:
            return False
        if node_id in self._scene.items_by_id:
            self.select_node(node_id)
            self.show_readable(node_id)
            return True
        try:  # ids are pre-order positions, but the Growth tab's stay for a tree's life (with gaps)
            path = [n for n, _ in tree.path_to(node_id)]
        except KeyError:
            return False
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

    def _follow_subtree(self, node_id: int) -> None:
        """Bring what was opened below ``node_id`` into view, zooming out only as far as needed."""
        self.follow(
            [n.id for n in self._scene.tree.node(node_id).walk() if n.id in self._scene.items_by_id]
        )

"""The tidy layout as it was before it ran on rows (issue 34): node by node over a networkx
graph, with numpy for each pair of contours. Kept as the oracle the row layout
(:func:`engine.export.tidy_tree.tidy_rows`) must match to the last bit.

Tidy tree layout on a networkx graph (Reingold-Tilford style, variable node sizes).

Parents are centred over their first and last child, subtrees are packed as
close as their contours allow without any two boxes on a level overlapping,
and the same graph always gives the same picture. Contours are kept as deques
with a lazy shift and merged at the cost of the shallower side, so wide and
very deep trees (a 10,000-node chain) both lay out in linear-ish time with no
recursion.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Hashable

import networkx as nx
import numpy as np

DEFAULT_WIDTH, DEFAULT_HEIGHT = 40.0, 24.0


class _Contour:
    """Per-level extents relative to a subtree's centre: value = stored + shift."""

    __slots__ = ("left", "right", "lshift", "rshift")

    def __init__(self, half: float):
        self.left, self.right = deque([-half]), deque([half])
        self.lshift = self.rshift = 0.0


def _root(graph: nx.DiGraph) -> Hashable:
    if graph.number_of_nodes() == 0:
        raise ValueError("cannot lay out an empty graph")
    roots = [n for n, d in graph.in_degree() if d == 0]
    if len(roots) != 1 or not nx.is_arborescence(graph):
        raise ValueError(
            "the graph is not a rooted tree (expected one root, no cycles, one parent each)"
        )
    return roots[0]


def _children(graph: nx.DiGraph, node) -> list:
    succ = list(graph.successors(node))
    if succ and "order" in graph.edges[node, succ[0]]:
        succ.sort(key=lambda c: graph.edges[node, c]["order"])
    return succ


def _merge(acc: _Contour, child: _Contour, offset: float) -> None:
    """Put ``child`` (already placed at ``offset`` from acc's origin) to the right of ``acc``."""
    child_r = len(child.right)
    if child_r >= len(acc.right):
        acc.right, acc.rshift = child.right, child.rshift + offset
    else:
        for i in range(child_r):
            acc.right[i] = child.right[i] + child.rshift + offset - acc.rshift
    own = len(acc.left)
    if len(child.left) > own:
        base = child.left
        shift = child.lshift + offset
        for i in range(own):
            base[i] = acc.left[i] + acc.lshift - shift
        acc.left, acc.lshift = base, shift


def _separation(acc: _Contour, child: _Contour, sibling_gap: float, subtree_gap: float) -> float:
    depth = min(len(acc.right), len(child.left))
    right = np.fromiter((acc.right[i] for i in range(depth)), float, depth) + acc.rshift
    left = np.fromiter((child.left[i] for i in range(depth)), float, depth) + child.lshift
    gaps = np.full(depth, subtree_gap)
    gaps[0] = sibling_gap
    return float(np.max(right - left + gaps))


def tidy_layout(
    graph: nx.DiGraph,
    *,
    orientation: str = "top-down",
    level_gap: float = 60.0,
    sibling_gap: float = 16.0,
    subtree_gap: float = 24.0,
) -> dict[Hashable, tuple[float, float]]:
    """Centre positions of every node.

    Node attributes ``width`` and ``height`` size the boxes (defaults 40 x 24);
    the edge attribute ``order`` orders children. Top-down: the root is at
    x = 0, y = 0 and levels go down (y grows) by the tallest box on the level
    plus ``level_gap``. Left-to-right: the same with the axes swapped.

    Examples
    --------
    >>> g = nx.DiGraph([(0, 1), (0, 2)])
    >>> tidy_layout(g)[0], tidy_layout(g)[1][0] == -tidy_layout(g)[2][0]
    ((0.0, 0.0), True)
    """
    if orientation not in ("top-down", "left-to-right"):
        raise ValueError(f"unknown orientation {orientation!r}")
    across, along = ("width", "height") if orientation == "top-down" else ("height", "width")
    default = {"width": DEFAULT_WIDTH, "height": DEFAULT_HEIGHT}
    size = {
        n: (float(d.get(across, default[across])), float(d.get(along, default[along])))
        for n, d in graph.nodes(data=True)
    }
    root = _root(graph)
    children = {n: _children(graph, n) for n in graph.nodes}
    order, stack = [], [root]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(children[n]))
    contour: dict = {}
    rel: dict = {root: 0.0}
    for node in reversed(order):
        kids = children[node]
        half = size[node][0] / 2
        if not kids:
            contour[node] = _Contour(half)
            continue
        acc = contour.pop(kids[0])
        offsets = [0.0]
        for kid in kids[1:]:
            c = contour.pop(kid)
            offset = _separation(acc, c, sibling_gap, subtree_gap)
            offsets.append(offset)
            _merge(acc, c, offset)
        mid = (offsets[0] + offsets[-1]) / 2
        for kid, off in zip(kids, offsets, strict=True):
            rel[kid] = off - mid
        acc.lshift -= mid
        acc.rshift -= mid
        acc.left.appendleft(-half - acc.lshift)
        acc.right.appendleft(half - acc.rshift)
        contour[node] = acc
    depth = {root: 0}
    pos_across = {root: 0.0}
    for node in order:
        for kid in children[node]:
            depth[kid] = depth[node] + 1
            pos_across[kid] = pos_across[node] + rel[kid]
    levels = max(depth.values()) + 1
    extent = np.zeros(levels)
    for node, d in depth.items():
        extent[d] = max(extent[d], size[node][1])
    starts = np.concatenate([[0.0], np.cumsum(extent[:-1] + level_gap)])
    centre_along = starts + extent / 2 - extent[0] / 2
    if orientation == "top-down":
        return {n: (pos_across[n], float(centre_along[depth[n]])) for n in order}
    return {n: (float(centre_along[depth[n]]), pos_across[n]) for n in order}

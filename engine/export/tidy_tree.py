"""Tidy tree layout on a networkx graph (Reingold-Tilford style, variable node sizes).

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
    """How far right of ``acc``'s origin ``child`` goes: the widest overlap over the levels both
    reach, plus the gap (siblings' on the first level, subtrees' below). Plain floats over the
    two deques side by side: most contours are a few levels deep, where numpy costs more."""
    rshift, lshift = acc.rshift, child.lshift
    pairs = zip(acc.right, child.left, strict=False)  # as deep as the shallower
    right, left = next(pairs)
    best = (right + rshift) - (left + lshift) + sibling_gap
    for right, left in pairs:
        gap = (right + rshift) - (left + lshift) + subtree_gap
        if gap > best:
            best = gap
    return best


def tidy_rows(
    children: list[list[int]],
    across: np.ndarray,
    along: np.ndarray,
    *,
    level_gap: float = 60.0,
    sibling_gap: float = 16.0,
    subtree_gap: float = 24.0,
) -> tuple[np.ndarray, np.ndarray]:
    """The tidy layout of a tree given as rows: row 0 the root, ``children[r]`` row r's
    children in order, ``across`` / ``along`` each box's size across and along the levels.
    Returns each row's centre across (the root at 0) and along (the root's level at 0).

    What :func:`tidy_layout` computes, without a graph: the canvas lays out a 60,000-node
    tree from the rows it already has, where building and reading a networkx graph cost more
    than the layout itself.
    """
    n = len(children)
    across_l = np.asarray(across, dtype=np.float64).tolist()
    order, stack = [], [0]
    while stack:  # pre-order, children in order
        r = stack.pop()
        order.append(r)
        stack.extend(reversed(children[r]))
    if len(order) != n:
        raise ValueError("the rows are not one tree rooted at row 0")
    contour: list = [None] * n
    rel = [0.0] * n
    for node in reversed(order):
        kids = children[node]
        half = across_l[node] / 2
        if not kids:
            contour[node] = _Contour(half)
            continue
        acc = contour[kids[0]]
        contour[kids[0]] = None
        offsets = [0.0]
        for kid in kids[1:]:
            c = contour[kid]
            contour[kid] = None
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
    depth = [0] * n
    pos = [0.0] * n
    for node in order:  # parents before children
        d, x = depth[node] + 1, pos[node]
        for kid in children[node]:
            depth[kid] = d
            pos[kid] = x + rel[kid]
    level = np.array(depth, dtype=np.intp)
    extent = np.zeros(int(level.max()) + 1)
    np.maximum.at(extent, level, np.asarray(along, dtype=np.float64))
    starts = np.concatenate([[0.0], np.cumsum(extent[:-1] + level_gap)])
    centre_along = starts + extent / 2 - extent[0] / 2
    return np.array(pos, dtype=np.float64), centre_along[level]


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
    root = _root(graph)
    order, stack = [], [root]
    while stack:
        n = stack.pop()
        order.append(n)
        stack.extend(reversed(_children(graph, n)))
    row = {n: r for r, n in enumerate(order)}
    children = [[row[c] for c in _children(graph, n)] for n in order]
    data = graph.nodes
    x, y = tidy_rows(
        children,
        np.array([float(data[n].get(across, default[across])) for n in order]),
        np.array([float(data[n].get(along, default[along])) for n in order]),
        level_gap=level_gap,
        sibling_gap=sibling_gap,
        subtree_gap=subtree_gap,
    )
    if orientation == "top-down":
        return dict(zip(order, zip(x.tolist(), y.tolist(), strict=True), strict=True))
    return dict(zip(order, zip(y.tolist(), x.tolist(), strict=True), strict=True))


def bounding_boxes(graph: nx.DiGraph, positions) -> np.ndarray:
    """(n, 4) array of [x0, y0, x1, y1] per node, in ``graph.nodes`` order."""
    out = np.empty((graph.number_of_nodes(), 4))
    for i, (n, d) in enumerate(graph.nodes(data=True)):
        w, h = float(d.get("width", DEFAULT_WIDTH)), float(d.get("height", DEFAULT_HEIGHT))
        x, y = positions[n]
        out[i] = (x - w / 2, y - h / 2, x + w / 2, y + h / 2)
    return out

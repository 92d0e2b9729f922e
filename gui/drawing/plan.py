"""A tree laid out for drawing: every node's box, words and place, every edge's curve, and what
pruning cut, with no Qt items yet. Pure computation, made on any thread; the canvas's scene
shows it and the image export paints it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtGui import QFont, QFontMetricsF

from engine.export.labels import branch_condition
from engine.export.tidy_tree import tidy_rows
from engine.tree import Tree
from gui.drawing.edges import LABEL_GAP, EdgeGeometry, edge_geometry, plate_width
from gui.drawing.figure_style import SCREEN, FigureStyle
from gui.drawing.nodes import node_size, node_texts

#: Left to right, levels part to give edge labels up to this much room, no more.
LONGEST_ROOM = 200.0


def _order(parent, child) -> int:
    return next(b for b, c in enumerate(parent.children) if c is child)


@dataclass(frozen=True)
class ScenePlan:
    """A tree laid out for the scene, with no Qt items yet: made on any thread, shown on the GUI one.

    ``positions`` holds the centre of every node shown (in layout order), ``sizes`` and
    ``texts`` its box and label, ``hidden`` how many nodes a collapsed one hides, ``edges``
    (parent, child, condition) for every edge shown; ``ghosts`` what pruning cut, to be drawn
    below its leaves (at ``ghost_at``), when ``ghosts_shown``.
    """

    tree: Tree
    orientation: str
    style: FigureStyle
    ghosts_shown: bool
    collapsed: frozenset
    nodes: dict
    parents: dict
    positions: dict
    sizes: dict
    texts: dict
    hidden: dict
    edges: tuple
    ghosts: list
    ghost_at: dict
    centres: np.ndarray  # one row per node, in the order of ``positions``
    half: np.ndarray  # half width and height of each node's box
    majority: np.ndarray  # each node's majority class (-1: none)
    dashed: tuple  # rows of the nodes drawn with a dashed border
    edge_rows: tuple  # (parent rows, child rows) of every edge
    edge_geometry: EdgeGeometry
    box_paths: list | None = None  # the far-out boxes, when made ahead (:func:`with_box_paths`)

    @property
    def n_shown(self) -> int:
        return len(self.positions)

    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the nodes' boxes."""
        lo, hi = (self.centres - self.half).min(axis=0), (self.centres + self.half).max(axis=0)
        return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def plan_scene(
    tree: Tree,
    orientation: str = "top-down",
    collapsed=(),
    style: FigureStyle = SCREEN,
    ghosts: bool = False,
    monitor=None,
    metrics=None,
) -> ScenePlan:
    """Lay ``tree`` out with ``collapsed`` nodes closed (what is below them stays out).

    Pure computation, safe on a worker thread given its own ``metrics`` (``new_metrics(style)``);
    ``monitor`` (an engine Monitor) is checked between phases so a big layout can be cancelled.
    The nodes shown are rows in pre-order (no graph object: for a 60,000-node tree building
    a networkx graph cost more than laying it out), laid out by :func:`tidy_rows`.
    """
    nodes = {n.id: n for n in tree.nodes()}
    collapsed = frozenset(i for i in collapsed if i in nodes and not nodes[i].is_leaf)
    shown, kids = _shown_rows(tree, collapsed)  # what is below a collapsed node stays out
    ids = [node.id for node in shown]
    # The order networkx's graph of the tree had (a node met when its parent is walked), so
    # the edges are numbered and the labels measured in the order they always were.
    met = [0, *(c for row in kids for c in row)]
    edge_pairs = [(p, c) for p in met for c in kids[p]]
    parents = {ids[c]: shown[p] for p, c in edge_pairs}
    # A collapsed node inside another collapsed subtree stays collapsed for when that opens.
    on_show = set(ids)
    hidden = {i: _count_below(nodes[i]) for i in collapsed if i in on_show}
    if monitor is not None:
        monitor.check()
        monitor.report(0.2, "measuring the labels")
    title_metrics, body_metrics = metrics or (style.title_metrics, style.body_metrics)
    measured = (_Widths(title_metrics), _Widths(body_metrics))  # each distinct line once
    texts, sizes = {}, {}
    for k, row in enumerate(met):
        node = shown[row]
        node_id = node.id
        parent, hid = parents.get(node_id), hidden.get(node_id, 0)
        texts[node_id] = node_texts(tree, node, parent, hid, style)
        sizes[node_id] = node_size(tree, node, parent, hid, texts[node_id], style, measured)
        if monitor is not None and k % 5000 == 4999:
            monitor.check()
            monitor.report(0.2 + 0.4 * k / len(shown), "measuring the labels")
    conditions = {  # each shown child's edge condition, by the child's id
        ids[c]: branch_condition(tree, shown[p], b) for p in met for b, c in enumerate(kids[p])
    }
    plates = _label_plates(conditions, style, metrics)
    width = np.array([sizes[i][0] for i in ids], dtype=np.float64).reshape(-1)
    height = np.array([sizes[i][1] for i in ids], dtype=np.float64).reshape(-1)
    level_gap = 46.0
    room = width.copy()  # what a node takes in the layout across its level
    if orientation == "top-down":
        # A node takes at least its edge label's width in the layout (its box stays as it
        # is), so labels side by side get their room: "= overcast" read "= overc…" (issue 30).
        row_of_id = {node_id: k for k, node_id in enumerate(ids)}
        for child, plate in plates.items():
            k = row_of_id[child]
            room[k] = max(room[k], plate)
    else:  # a label sits over half its edge's length (one longer than LONGEST_ROOM is cut)
        level_gap = max(
            70.0, 2 * (min(max(plates.values(), default=0.0), LONGEST_ROOM) + LABEL_GAP)
        )
    found, ghost_sizes = (
        _ghost_nodes(tree, [shown[r] for r in met], style, metrics) if ghosts else ([], [])
    )
    if found:  # laid out with the tree, below the leaves they hang from
        kids, room, height = _with_ghost_rows(kids, ids, found, ghost_sizes, room, height)
    if monitor is not None:
        monitor.check()
        monitor.report(0.6, "laying the tree out")
    if orientation == "top-down":
        x, y = tidy_rows(kids, room, height, level_gap=level_gap)
    else:
        y, x = tidy_rows(kids, height, room, level_gap=level_gap)
    m = len(shown)
    xs, ys = x.tolist(), y.tolist()
    positions = dict(zip(ids, zip(xs[:m], ys[:m], strict=True), strict=True))
    ghost_at = {key: (xs[m + k], ys[m + k]) for k, (key, *_) in enumerate(found)}
    if monitor is not None:
        monitor.check()
        monitor.report(0.9, "the branch labels")
    edges = tuple((ids[p], ids[c], conditions[ids[c]]) for p, c in edge_pairs)
    centres = np.column_stack([x[:m], y[:m]])
    half = np.column_stack([width, height[:m]]) / 2
    majority = _majorities(tree, shown)
    dashed = tuple(
        k for k, node in enumerate(shown) if node.stats.get("pruned") or node.stats.get("raised")
    )
    edge_rows = (
        np.array([p for p, _ in edge_pairs], dtype=np.intp),
        np.array([c for _, c in edge_pairs], dtype=np.intp),
    )
    widths = np.array([plates[ids[c]] for _, c in edge_pairs], dtype=np.float64)
    geometry = edge_geometry(
        np.hstack([centres - half - 3, centres + half + 3]), *edge_rows, orientation, widths
    )
    return ScenePlan(
        tree,
        orientation,
        style,
        ghosts,
        collapsed,
        nodes,
        parents,
        positions,
        sizes,
        texts,
        hidden,
        edges,
        found,
        ghost_at,
        centres,
        half,
        majority,
        dashed,
        edge_rows,
        geometry,
    )


class _Widths:
    """Font metrics that measure each distinct text once: a big tree's boxes repeat the same
    headlines and counts thousands of times."""

    def __init__(self, metrics):
        self._metrics, self._widths = metrics, {}
        self.height = metrics.height

    def horizontalAdvance(self, text: str) -> float:  # noqa: N802 - QFontMetricsF's name
        width = self._widths.get(text)
        if width is None:
            width = self._widths[text] = self._metrics.horizontalAdvance(text)
        return width


def _shown_rows(tree: Tree, collapsed) -> tuple[list, list[list[int]]]:
    """The nodes shown, in pre-order, and each one's children as rows of that list."""
    shown, kids = [], []
    stack = [(tree.root, -1)]
    while stack:
        node, parent = stack.pop()
        row = len(shown)
        shown.append(node)
        kids.append([])
        if parent >= 0:
            kids[parent].append(row)
        if node.id not in collapsed:
            stack.extend((child, row) for child in reversed(node.children))
    return shown, kids


def _with_ghost_rows(kids, ids, found, ghost_sizes, room, height):
    """The rows with what pruning cut added after them: each ghost a child of its leaf or of
    the ghost above it, in branch order."""
    m = len(ids)
    kids = [list(row) for row in kids] + [[] for _ in found]
    row_of_key = {key: m + k for k, (key, *_) in enumerate(found)}
    row_of_id = {node_id: k for k, node_id in enumerate(ids)}
    below: dict[int, list] = {}
    for key, _owner, parent_key, _text, node, parent in found:
        above = row_of_id[parent_key[0]] if len(parent_key) == 1 else row_of_key[parent_key]
        below.setdefault(above, []).append((_order(parent, node), row_of_key[key]))
    for above, rows in below.items():
        kids[above] = [row for _, row in sorted(rows)]
    sizes = np.array(ghost_sizes, dtype=np.float64).reshape(-1, 2)
    return (
        kids,
        np.concatenate([room, sizes[:, 0]]),
        np.concatenate([height, sizes[:, 1]]),
    )


def _majorities(tree: Tree, shown: list) -> np.ndarray:
    """Each node's majority class (-1: no weight, or a regression tree), for all at once."""
    if tree.is_regression:
        return np.full(len(shown), -1, dtype=np.intp)
    dist = np.array([node.distribution for node in shown], dtype=np.float64)
    dist = dist.reshape(len(shown), -1)
    return np.where((dist > 0).any(axis=1), np.argmax(dist, axis=1), -1).astype(np.intp)


def stretched(plan: ScenePlan, across: float, down: float) -> ScenePlan:
    """``plan`` with its nodes moved apart, ``across`` times as far sideways and ``down`` times
    as far downwards (boxes and text as they are): a picture stretched to fill a page."""
    if across == 1.0 and down == 1.0:
        return plan
    factor = np.array([across, down])
    positions = {k: (x * across, y * down) for k, (x, y) in plan.positions.items()}
    ghost_at = {k: (x * across, y * down) for k, (x, y) in plan.ghost_at.items()}
    centres = plan.centres * factor
    metrics = plan.style.edge_metrics
    widths = np.array([plate_width(text, metrics) for _, _, text in plan.edges], dtype=np.float64)
    geometry = edge_geometry(
        np.hstack([centres - plan.half - 3, centres + plan.half + 3]),
        *plan.edge_rows,
        plan.orientation,
        widths,
    )
    return replace(
        plan,
        positions=positions,
        ghost_at=ghost_at,
        centres=centres,
        edge_geometry=geometry,
        box_paths=None,
    )


def _label_plates(conditions: dict, style: FigureStyle, metrics=None) -> dict:
    """Each shown child's edge label plate width, by the child's id (measured with metrics of
    its own off the GUI thread, as node sizes are)."""
    edge_metrics = style.edge_metrics if metrics is None else QFontMetricsF(QFont(style.edge_font))
    return {child: plate_width(text, edge_metrics) for child, text in conditions.items()}


def _ghost_nodes(tree: Tree, shown: list, style: FigureStyle, metrics=None):
    """What pruning cut below each leaf shown: (key, owner, parent key, branch text, node,
    parent) per ghost node, a parent before its children; and each one's box size."""
    record = tree.pruning
    if record is None:
        return [], []
    found, sizes = [], []
    for leaf in shown:
        if not leaf.is_leaf:
            continue
        node_id = leaf.id
        removed = record.removed(tree, node_id)
        if removed is None:
            continue
        stack = [(child, (node_id,), b, removed) for b, child in enumerate(removed.children)]
        while stack:
            node, parent_key, branch, parent = stack.pop()
            key = ("ghost", node_id, len(found))
            texts = node_texts(tree, node, parent, 0, style)
            # Rows unknown: no plot.
            sizes.append(node_size(tree, node, parent, 0, texts, style, metrics, plot=False))
            found.append(
                (key, node_id, parent_key, branch_condition(tree, parent, branch), node, parent)
            )
            stack.extend((c, key, b, node) for b, c in enumerate(node.children))
    return found, sizes


def count_shown(tree: Tree, collapsed) -> int:
    """How many nodes a layout with ``collapsed`` closed shows (without laying anything out)."""
    count, stack = 0, [tree.root]
    while stack:
        node = stack.pop()
        count += 1
        if node.id not in collapsed:
            stack.extend(node.children)
    return count


def _count_below(node) -> int:
    count, stack = 0, list(node.children)
    while stack:
        n = stack.pop()
        count += 1
        stack.extend(n.children)
    return count

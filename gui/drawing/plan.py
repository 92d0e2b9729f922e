"""A tree laid out for drawing: every node's box, words and place, every edge's curve, and what
pruning cut, with no Qt items yet. Pure computation, made on any thread; the canvas's scene
shows it and the image export paints it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from PySide6.QtGui import QFont, QFontMetricsF

from engine.export.graph import to_digraph
from engine.export.labels import branch_condition
from engine.export.tidy_tree import tidy_layout
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
    """
    nodes = {n.id: n for n in tree.nodes()}
    collapsed = frozenset(i for i in collapsed if i in nodes and not nodes[i].is_leaf)
    graph = to_digraph(tree, collapsed)  # what is below a collapsed node stays out
    parents = {child: nodes[parent] for parent, child in graph.edges}
    # A collapsed node inside another collapsed subtree stays collapsed for when that opens.
    hidden = {i: _count_below(nodes[i]) for i in collapsed if i in graph}
    if monitor is not None:
        monitor.check()
        monitor.report(0.2, "measuring the labels")
    texts, sizes = {}, {}
    for k, node_id in enumerate(graph.nodes):
        node, parent, hid = nodes[node_id], parents.get(node_id), hidden.get(node_id, 0)
        texts[node_id] = node_texts(tree, node, parent, hid, style)
        w, h = sizes[node_id] = node_size(tree, node, parent, hid, texts[node_id], style, metrics)
        graph.nodes[node_id]["width"], graph.nodes[node_id]["height"] = w, h
        if monitor is not None and k % 5000 == 4999:
            monitor.check()
            monitor.report(0.2 + 0.4 * k / len(graph), "measuring the labels")
    conditions = _conditions(tree, graph, nodes)
    plates = _label_plates(conditions, style, metrics)
    level_gap = 46.0
    if orientation == "top-down":
        # A node takes at least its edge label's width in the layout (its box stays as it
        # is), so labels side by side get their room: "= overcast" read "= overc…" (issue 30).
        for child, plate in plates.items():
            graph.nodes[child]["width"] = max(graph.nodes[child]["width"], plate)
    else:  # a label sits over half its edge's length (one longer than LONGEST_ROOM is cut)
        level_gap = max(
            70.0, 2 * (min(max(plates.values(), default=0.0), LONGEST_ROOM) + LABEL_GAP)
        )
    found = _ghost_nodes(tree, graph, style, metrics) if ghosts else []
    if monitor is not None:
        monitor.check()
        monitor.report(0.6, "laying the tree out")
    positions = tidy_layout(graph, orientation=orientation, level_gap=level_gap)
    ghost_at = {key: positions.pop(key) for key, *_ in found}
    graph.remove_nodes_from(ghost_at)  # laid out; drawn by their own item, not as nodes
    if monitor is not None:
        monitor.check()
        monitor.report(0.9, "the branch labels")
    edges = tuple((p, c, conditions[c]) for p, c in graph.edges)
    order = list(positions)
    centres = np.array([positions[i] for i in order], dtype=np.float64).reshape(-1, 2)
    half = np.array([sizes[i] for i in order], dtype=np.float64).reshape(-1, 2) / 2
    majority = np.fromiter(
        (_majority(tree, nodes[i]) for i in order), dtype=np.intp, count=len(order)
    )
    dashed = tuple(
        k
        for k, i in enumerate(order)
        if nodes[i].stats.get("pruned") or nodes[i].stats.get("raised")
    )
    row = {node_id: k for k, node_id in enumerate(order)}
    edge_rows = (
        np.array([row[p] for p, _, _ in edges], dtype=np.intp),
        np.array([row[c] for _, c, _ in edges], dtype=np.intp),
    )
    widths = np.array([plates.get(c, 0.0) for _, c, _ in edges], dtype=np.float64)
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


def _conditions(tree: Tree, graph, nodes: dict) -> dict:
    """Each shown child's edge condition, by the child's id."""
    return {
        child: branch_condition(tree, nodes[parent], data["order"])
        for parent, child, data in graph.edges(data=True)
    }


def _ghost_nodes(tree: Tree, graph, style: FigureStyle, metrics=None) -> list:
    """Put what pruning cut below each leaf it made into ``graph`` (for the layout to make
    room); returns (key, owner, parent key, branch text, node, parent) per ghost node."""
    record = tree.pruning
    if record is None:
        return []
    found = []
    for node_id in [n for n in graph.nodes if graph.nodes[n]["is_leaf"]]:
        removed = record.removed(tree, node_id)
        if removed is None:
            continue
        stack = [(child, (node_id,), b, removed) for b, child in enumerate(removed.children)]
        while stack:
            node, parent_key, branch, parent = stack.pop()
            key = ("ghost", node_id, len(found))
            found.append(
                (key, node_id, parent_key, branch_condition(tree, parent, branch), node, parent)
            )
            stack.extend((c, key, b, node) for b, c in enumerate(node.children))
    for key, _owner, parent_key, _text, node, parent in found:
        texts = node_texts(tree, node, parent, 0, style)
        w, h = node_size(tree, node, parent, 0, texts, style, metrics, plot=False)  # rows unknown
        graph.add_node(key, node=node, is_leaf=node.is_leaf, width=w, height=h, texts=texts)
        graph.add_edge(
            parent_key[0] if len(parent_key) == 1 else parent_key, key, order=_order(parent, node)
        )
    return found


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


def _majority(tree: Tree, node) -> int:
    if tree.is_regression:
        return -1
    dist = node.distribution
    return int(np.argmax(dist)) if dist.sum() > 0 else -1

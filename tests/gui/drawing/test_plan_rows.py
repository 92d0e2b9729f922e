"""The scene plan laid out on rows (issue 34): every node where the graph layout put it.

The plan once built a networkx graph of the tree and laid that out; it now walks the tree
into rows and lays those out (:func:`engine.export.tidy_tree.tidy_rows`). Here the graph
route is taken again from the plan's own box sizes and label widths, so the positions,
edge order and what pruning cut must agree to the last bit, on small trees of every kind.
"""

import numpy as np
import pytest

from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.graph import to_digraph
from engine.export.node_labels import NodeLabels
from engine.export.tidy_tree import tidy_layout
from gui.drawing.edges import LABEL_GAP, plate_width
from gui.drawing.figure_style import SCREEN
from gui.drawing.nodes import node_size
from gui.drawing.plan import LONGEST_ROOM, plan_scene


def _graph_route(plan):
    """Positions as the graph layout gives them for ``plan``'s boxes, labels and ghosts."""
    graph = to_digraph(plan.tree, plan.collapsed)
    texts = {c: text for _, c, text in plan.edges}
    widths = {c: plate_width(texts[c], plan.style.edge_metrics) for _, c in graph.edges}
    for node_id in graph.nodes:
        w, h = plan.sizes[node_id]
        if plan.orientation == "top-down":
            w = max(w, widths.get(node_id, 0.0))
        graph.nodes[node_id]["width"], graph.nodes[node_id]["height"] = w, h
    for key, owner, parent_key, _text, node, parent in plan.ghosts:
        w, h = node_size(plan.tree, node, parent, 0, None, plan.style, plot=False)
        graph.add_node(key, width=w, height=h)
        branch = next(b for b, c in enumerate(parent.children) if c is node)
        graph.add_edge(owner if len(parent_key) == 1 else parent_key, key, order=branch)
    gap = 46.0
    if plan.orientation != "top-down":
        gap = max(70.0, 2 * (min(max(widths.values(), default=0.0), LONGEST_ROOM) + LABEL_GAP))
    return graph, tidy_layout(graph, orientation=plan.orientation, level_gap=gap)


def _trees():
    weather, iris = load_sample("weather"), load_sample("iris")
    return {
        "c45 pruned": DecisionTree(algorithm="c45").fit(weather, record=True).tree_,
        "cart": DecisionTree(algorithm="cart", prune="none").fit(iris).tree_,
        "cart pruned": DecisionTree(algorithm="cart").fit(iris, record=True).tree_,
        "regression": DecisionTree(algorithm="cart", task="regression", prune="none", max_depth=4)
        .fit(load_sample("weather-numeric").with_target("temperature"))
        .tree_,
    }


@pytest.mark.parametrize("orientation", ["top-down", "left-to-right"])
def test_the_plan_places_every_node_as_the_graph_layout(qapp, orientation):
    labels = SCREEN.with_labels(NodeLabels(counts=True, percent=True))
    for name, tree in _trees().items():
        inner = [n.id for n in tree.nodes() if not n.is_leaf]
        for collapsed, ghosts, style in (
            ((), True, SCREEN),
            (inner[1:2], False, labels),
            (inner[:1], True, SCREEN),
        ):
            plan = plan_scene(tree, orientation, collapsed, style, ghosts)
            graph, positions = _graph_route(plan)
            ghost_at = {key: positions.pop(key) for key, *_ in plan.ghosts}
            assert list(plan.positions.items()) == list(positions.items()), name
            assert plan.ghost_at == ghost_at, name
            assert [(p, c) for p, c, _ in plan.edges] == [
                (p, c) for p, c in graph.edges if p in plan.positions and c in plan.positions
            ], name
            rows = {node_id: k for k, node_id in enumerate(plan.positions)}
            parent_rows, child_rows = plan.edge_rows
            assert [rows[p] for p, _, _ in plan.edges] == parent_rows.tolist(), name
            assert [rows[c] for _, c, _ in plan.edges] == child_rows.tolist(), name
            majority = [
                -1 if tree.is_regression else int(np.argmax(n.distribution))
                for n in (plan.nodes[i] for i in plan.positions)
            ]
            assert plan.majority.tolist() == majority, name


def test_the_edges_path_made_from_arrays_is_the_path_qt_calls_make(qapp):
    """curves_path reads the path from bytes (issue 34); it must be the path a moveTo and a
    cubicTo per edge give, element for element."""
    from PySide6.QtGui import QPainterPath

    from gui.drawing.edges import curves_path

    curves = np.random.default_rng(0).normal(scale=300, size=(40, 8))
    made = QPainterPath()
    for x0, y0, x1, y1, x2, y2, x3, y3 in curves.tolist():
        made.moveTo(x0, y0)
        made.cubicTo(x1, y1, x2, y2, x3, y3)
    path = curves_path(curves)
    assert path == made and path.fillRule() == made.fillRule()
    assert [(e.type, e.x, e.y) for e in map(path.elementAt, range(path.elementCount()))] == [
        (e.type, e.x, e.y) for e in map(made.elementAt, range(made.elementCount()))
    ]
    assert curves_path(np.zeros((0, 8))).isEmpty()

"""The tidy layout: no overlaps, parents centred, order kept, deterministic, deep trees fine."""

from collections import defaultdict

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.export.tidy_tree import bounding_boxes, tidy_layout


@st.composite
def trees(draw, max_nodes=120):
    n = draw(st.integers(1, max_nodes))
    graph = nx.DiGraph()
    graph.add_node(0, width=draw(st.floats(10, 200)), height=draw(st.floats(10, 60)))
    for i in range(1, n):
        parent = draw(st.integers(max(0, i - 8), i - 1))
        graph.add_node(i, width=draw(st.floats(10, 200)), height=draw(st.floats(10, 60)))
        graph.add_edge(parent, i, order=i)
    return graph


def _levels(graph, pos, axis):
    boxes = bounding_boxes(graph, pos)
    by_level = defaultdict(list)
    for (node, _), box in zip(graph.nodes(data=True), boxes, strict=True):
        by_level[round(pos[node][1 - axis], 6)].append((box[axis], box[axis + 2]))
    return by_level


@settings(max_examples=60, deadline=None)
@given(trees())
def test_no_overlap_and_parents_centred(graph):
    pos = tidy_layout(graph, sibling_gap=10, subtree_gap=20)
    for spans in _levels(graph, pos, 0).values():
        spans.sort()
        for (_, right), (left, _) in zip(spans, spans[1:], strict=False):
            assert left - right >= 10 - 1e-6
    for node in graph:
        kids = sorted(graph.successors(node), key=lambda c: graph.edges[node, c]["order"])
        if kids:
            assert pos[node][0] == pytest.approx((pos[kids[0]][0] + pos[kids[-1]][0]) / 2, abs=1e-9)
            xs = [pos[k][0] for k in kids]
            assert xs == sorted(xs)  # children keep their order left to right
            assert all(pos[k][1] > pos[node][1] for k in kids)


@settings(max_examples=25, deadline=None)
@given(trees(60))
def test_left_to_right_is_the_transposed_analogue(graph):
    pos = tidy_layout(graph, orientation="left-to-right")
    for spans in _levels(graph, pos, 1).values():
        spans.sort()
        for (_, bottom), (top, _) in zip(spans, spans[1:], strict=False):
            assert top - bottom >= 16 - 1e-6
    for node in graph:
        for kid in graph.successors(node):
            assert pos[kid][0] > pos[node][0]


def test_deterministic_and_symmetric():
    g = nx.DiGraph([(0, 1), (0, 2), (1, 3), (1, 4), (2, 5), (2, 6)])
    a, b = tidy_layout(g), tidy_layout(g)
    assert a == b
    assert a[0][0] == 0 and a[1][0] == -a[2][0] and a[3][0] == -a[6][0]


def test_big_and_deep_trees_lay_out_without_recursion():
    chain = nx.path_graph(10_000, create_using=nx.DiGraph)
    pos = tidy_layout(chain)
    assert pos[9_999][0] == 0 and pos[9_999][1] > pos[9_998][1]
    wide = nx.balanced_tree(3, 8, create_using=nx.DiGraph)
    assert len(tidy_layout(wide)) == wide.number_of_nodes()


@pytest.mark.parametrize(
    ("graph", "message"),
    [
        (nx.DiGraph(), "empty"),
        (nx.DiGraph([(0, 1), (2, 3)]), "not a rooted tree"),
        (nx.DiGraph([(0, 1), (1, 0)]), "not a rooted tree"),
    ],
)
def test_bad_graphs(graph, message):
    with pytest.raises(ValueError, match=message):
        tidy_layout(graph)


@settings(max_examples=25, deadline=None)
@given(trees(), st.sampled_from(["top-down", "left-to-right"]))
def test_the_row_layout_places_every_node_as_the_graph_layout_did(graph, orientation):
    """The layout on rows (issue 34) gives the old graph layout's positions to the last bit,
    so small trees look exactly as before."""
    from tests.oracle.tidy_graph import tidy_layout as graph_layout

    new = tidy_layout(graph, orientation=orientation, level_gap=46.0)
    old = graph_layout(graph, orientation=orientation, level_gap=46.0)
    assert list(new) == list(old)
    assert new == old

"""Big trees: find over the whole tree, layouts in the background, labels that never overlap."""

import numpy as np
import pandas as pd
import pytest
from PySide6.QtCore import QPointF

from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.export.search import find_nodes
from gui.canvas.subtrees import SHOW_AT_MOST
from gui.canvas.tree_canvas import TreeCanvas
from gui.canvas.zooming import READABLE


@pytest.fixture(scope="module")
def big_tree():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(6000, 3)), columns=list("abc"))
    frame["y"] = np.where(rng.random(6000) < 0.5, "p", "q")
    tree = DecisionTree(algorithm="cart", prune="none").fit(frame).tree_
    assert tree.n_nodes > SHOW_AT_MOST
    return tree


@pytest.fixture
def canvas(qtbot, big_tree):
    view = TreeCanvas()
    view.resize(900, 600)
    qtbot.addWidget(view)
    view.show()
    view.set_tree(big_tree)
    return view


def _deep_leaf(tree, shown):
    """A leaf far below what a big tree first shows, and a text only its incoming branch has."""
    parents = tree.parents()
    for node in sorted((n for n in tree.nodes() if n.is_leaf), key=lambda n: -n.depth):
        parent = parents[node.id]
        from engine.export.labels import condition

        text = condition(tree, parent, [c.id for c in parent.children].index(node.id))
        if node.id not in shown and find_nodes(tree, text) == [node.id]:
            return node, text
    raise AssertionError("no leaf with a unique condition")


def test_find_searches_a_collapsed_tree_and_opens_the_path_to_the_hit(canvas, big_tree):
    scene = canvas.tree_scene()
    shown = set(scene.items_by_id)
    assert len(shown) < 40  # the first view of a big tree: its top levels
    # Every node testing attribute b, shown or not, not only the few drawn.
    hits = canvas.find("b")
    assert hits == find_nodes(big_tree, "b")
    assert len(hits) > 10 * len(shown & set(hits))
    node, text = _deep_leaf(big_tree, shown)
    assert canvas.find(text) == [node.id]
    assert node.id in scene.items_by_id and canvas.selected_node() == node.id
    # Only the path was opened: its nodes and their other children (closed), not whole subtrees.
    path = [n for n, _ in big_tree.path_to(node.id)]
    opened = set(scene.items_by_id) - shown
    assert {n.id for n in path} <= set(scene.items_by_id)
    assert len(opened) <= 2 * len(path)
    # Readable and in the middle of the view.
    assert canvas.scale_factor() >= READABLE
    centre = canvas.viewport().rect().center()
    where = canvas.node_view_position(node.id)
    assert abs(where.x() - centre.x()) < 5 and abs(where.y() - centre.y()) < 5


def test_find_steps_through_hidden_matches(canvas, big_tree):
    hits = canvas.find("q")  # every leaf predicting q, most of them closed away at first
    assert canvas.selected_node() == hits[0] and canvas.hits() == (hits, 0)
    assert canvas.find_next() == hits[1] and canvas.selected_node() == hits[1]
    assert canvas.find_previous() == hits[0]


def test_the_find_bar_of_the_window(qtbot, window, big_tree):
    window.controller.load_tree(big_tree, None, DecisionTree(algorithm="cart").settings())
    window.find_in_tree()
    bar = window.find_bar
    assert not bar.isHidden() and not window.dialogs.errors
    bar.edit.setText("b <=")
    qtbot.waitUntil(lambda: bar.count.text() != "", timeout=5000)
    expected = find_nodes(big_tree, "b <=")
    assert bar.count.text() == f"1 of {len(expected):,}"
    assert window.canvas.selected_node() == expected[0]
    window.act["find_next"].trigger()
    assert (
        bar.count.text() == f"2 of {len(expected):,}"
        and window.canvas.selected_node() == expected[1]
    )
    window.act["find_previous"].trigger()
    assert bar.count.text() == f"1 of {len(expected):,}"
    bar.edit.setText("no such thing")
    bar.search()
    assert bar.count.text() == "no match"
    bar.close_bar()
    assert bar.isHidden()


def test_expand_all_lays_out_in_the_background_and_can_be_cancelled(qtbot, window, big_tree):
    window.controller.load_tree(big_tree, None, DecisionTree(algorithm="cart").settings())
    canvas = window.canvas
    first = len(canvas.tree_scene().items_by_id)
    window.expand_all()
    assert (
        window.controller.busy and len(canvas.tree_scene().items_by_id) == first
    )  # not yet: in the background
    window.controller.cancel()
    qtbot.waitUntil(lambda: not window.controller.busy, timeout=30000)
    qtbot.wait(100)
    assert len(canvas.tree_scene().items_by_id) == first
    assert window.status_label.text() == "Cancelled; the tree is shown as it was"
    window.expand_all()
    qtbot.waitUntil(lambda: len(canvas.tree_scene().items_by_id) == big_tree.n_nodes, timeout=60000)
    assert window.status_label.text().startswith(f"Every node shown: {big_tree.n_nodes:,} of")
    # The view follows: the whole tree is fitted into the window.
    assert canvas.visible_scene_rect().contains(
        canvas.tree_scene().content_rect().adjusted(5, 5, -5, -5)
    )


def test_opening_a_big_node_shows_its_top_levels_and_follows_them(qtbot, canvas, big_tree):
    scene = canvas.tree_scene()
    closed = max(scene.collapsed, key=lambda i: scene.items_by_id[i].hidden)
    below = scene.items_by_id[closed].hidden
    canvas.reset_zoom()
    canvas.zoom_in()
    canvas.zoom_in()
    with qtbot.waitSignal(canvas.opened) as opened:
        canvas.toggle_collapsed(closed)
    shown_below = [n.id for n in big_tree.node(closed).walk() if n.id in scene.items_by_id]
    assert opened.args == [closed, len(scene.items_by_id), big_tree.n_nodes]
    assert 1 < len(shown_below) <= (31 if below > SHOW_AT_MOST else below + 1)
    visible = canvas.visible_scene_rect()
    for node_id in shown_below:
        assert visible.contains(scene.items_by_id[node_id].pos())


def _long_label_tree():
    rng = np.random.default_rng(3)
    values = [
        "no checking account",
        "less than zero",
        "between 0 and 200 DM",
        "200 DM or more for a year",
        "unknown or none at all",
        "closed last month",
    ]
    n = 1200
    frame = pd.DataFrame(
        {
            "checking_status": rng.choice(values, n),
            "savings": rng.choice(values, n),
            "x": rng.normal(size=n),
        }
    )
    frame["class"] = np.where(
        (frame.checking_status.isin(values[:3])) ^ (rng.random(n) < 0.2), "good", "bad"
    )
    return DecisionTree(algorithm="cart", max_depth=4).fit(make_table(frame, target="class")).tree_


def test_edge_labels_never_overlap_and_an_elided_one_tells_all(qtbot):
    tree = _long_label_tree()
    view = TreeCanvas()
    view.resize(900, 600)
    qtbot.addWidget(view)
    view.show()
    view.set_tree(tree)
    view.reset_zoom()
    edges = view.tree_scene()._edges_item
    drawn = [edges.label(k) for k in range(len(view.tree_scene().edges))]
    # Top-down, the layout makes each label room (issue 30): none is cut, none overlaps.
    assert [text for text, _ in drawn] == [e[2] for e in view.tree_scene().edges]
    for orientation in ("top-down", "left-to-right"):
        view.set_orientation(orientation)
        view.reset_zoom()
        edges = view.tree_scene()._edges_item
        drawn = [edges.label(k) for k in range(len(view.tree_scene().edges))]
        boxes = [box for text, box in drawn if text]
        for i, a in enumerate(boxes):
            for b in boxes[i + 1 :]:
                assert not a.intersects(b), (a, b)
    # Left to right, levels part only so far (gui.drawing.plan.LONGEST_ROOM): long ones are cut.
    elided = [k for k, (text, _) in enumerate(drawn) if text != view.tree_scene().edges[k][2]]
    assert elided, "the test tree should need eliding"
    k = elided[0]
    text, box = drawn[k]
    assert text == "" or text.endswith("…")
    if text:
        assert edges.label_at(box.center()) == k
        parent = tree.node(view.tree_scene().edges[k][0])
        full = (
            f"{tree.schema.attributes[parent.split.attribute].name} {view.tree_scene().edges[k][2]}"
        )
        from PySide6.QtWidgets import QGraphicsSceneHoverEvent

        event = QGraphicsSceneHoverEvent()
        event.setPos(box.center())
        edges.hoverMoveEvent(event)
        assert edges.toolTip() == f"<span>{full}</span>"
    assert edges.label_at(QPointF(1e6, 1e6)) == -1

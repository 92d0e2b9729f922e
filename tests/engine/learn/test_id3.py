"""ID3 exactly as the seeds give it."""

import numpy as np
import pandas as pd
import pytest

from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.text import to_text

#: Every fit here grows on the compiled kernels (the code that grows real trees), which
#: the fixture checks; it waits for their one-time compilation if need be.
pytestmark = pytest.mark.usefixtures("compiled_builder")

WEATHER_TREE = """\
outlook = sunny
|   humidity = high: no (3.0)
|   humidity = normal: yes (2.0)
outlook = overcast: yes (4.0)
outlook = rainy
|   windy = TRUE: no (2.0)
|   windy = FALSE: yes (3.0)
"""

RESTAURANT_TREE = """\
Pat = Some: Yes (4.0)
Pat = Full
|   Hun = Yes
|   |   Type = French: Yes (0.0)
|   |   Type = Thai
|   |   |   Fri = No: No (1.0)
|   |   |   Fri = Yes: Yes (1.0)
|   |   Type = Burger: Yes (1.0)
|   |   Type = Italian: No (1.0)
|   Hun = No: No (2.0)
Pat = None: No (2.0)
"""


def test_weather_tree_is_the_seeds(weather):
    model = DecisionTree(algorithm="id3").fit(weather)
    assert to_text(model.tree_) == WEATHER_TREE
    assert (model.tree_.n_leaves, model.tree_.n_nodes, model.tree_.depth) == (5, 8, 2)
    assert model.tree_.root.stats["gain"] == pytest.approx(0.2467, abs=1e-4)
    assert (model.predict(weather) == weather.frame["play"].astype(str)).all()


def test_restaurant_tree_breaks_ties_towards_the_first_attribute(restaurant):
    # Under Patrons = Full, Hun, Price, Res, Type and Est all gain 0.252: Hun comes first.
    model = DecisionTree(algorithm="id3").fit(restaurant)
    assert to_text(model.tree_) == RESTAURANT_TREE
    assert model.tree_.root.stats["gain"] == pytest.approx(0.541, abs=5e-4)


def test_empty_branch_predicts_the_parents_majority(restaurant):
    model = DecisionTree(algorithm="id3").fit(restaurant)
    row = restaurant.frame.iloc[[1]].copy()  # Full, Hungry
    row["Type"] = "French"
    # The Hun = Yes node holds 2 Yes / 2 No: the tie goes to the class that comes first.
    assert model.predict(row).tolist() == ["Yes"]


def test_each_attribute_is_used_once_per_path(restaurant):
    tree = DecisionTree(algorithm="id3").fit(restaurant).tree_
    for leaf in (n for n in tree.nodes() if n.is_leaf):
        used = [node.split.attribute for node, _ in tree.path_to(leaf.id)[:-1]]
        assert len(used) == len(set(used))


def test_stops_when_no_attribute_is_left():
    frame = pd.DataFrame({"a": ["x", "x", "y", "y"], "c": ["p", "q", "p", "p"]})
    tree = DecisionTree(algorithm="id3").fit(make_table(frame)).tree_
    x_leaf = tree.root.children[0]
    assert x_leaf.is_leaf and x_leaf.distribution.tolist() == [1.0, 1.0]


def test_majority_ties_go_to_the_first_class():
    frame = pd.DataFrame({"a": ["x", "x"], "c": ["q", "p"]})
    table = make_table(frame, categories={"c": ["q", "p"]})
    assert DecisionTree(algorithm="id3").fit(table).predict(frame).tolist() == ["q", "q"]


def test_numeric_attribute_is_refused_with_advice():
    frame = pd.DataFrame({"outlook": ["a", "b"], "temperature": [70.0, 80.0], "play": ["y", "n"]})
    with pytest.raises(ArborError, match="'temperature' is numeric: use C4.5 or CART"):
        DecisionTree(algorithm="id3").fit(frame)


def test_fitting_never_modifies_the_callers_frame(weather):
    frame = weather.frame.copy()
    before = frame.copy()
    DecisionTree(algorithm="id3").fit(frame, target="play")
    pd.testing.assert_frame_equal(frame, before)


def test_min_gain_threshold_stops_weak_splits(weather):
    tree = DecisionTree(algorithm="id3", min_gain=0.3).fit(weather).tree_
    assert tree.root.is_leaf


def test_max_depth_one_is_a_stump(weather):
    tree = DecisionTree(algorithm="id3", max_depth=1).fit(weather).tree_
    assert tree.depth == 1 and tree.n_leaves == 3


def test_best_first_with_max_leaves_expands_the_biggest_reduction_first(weather):
    tree = DecisionTree(algorithm="id3", growth="best", max_leaves=4).fit(weather).tree_
    # Root (3 leaves), then one of the two 5-row children (gain 0.971 each): 4 leaves.
    assert tree.n_leaves == 4
    assert np.isclose(tree.root.stats["gain"], 0.2467, atol=1e-4)


def test_paths_walk_down_by_id_and_search_a_tree_numbered_otherwise(restaurant):
    from dataclasses import replace

    from engine.tree import Tree

    tree = DecisionTree(algorithm="id3").fit(restaurant).tree_
    for node in tree.nodes():
        path = tree.path_to(node.id)
        assert path[-1][0] is node and all(
            a.children[b] is c for (a, b), (c, _) in zip(path[:-1], path[1:], strict=True)
        )
    # The same shape with ids in reverse pre-order: found by the search.
    n = tree.n_nodes
    flipped = {}
    for node in reversed(list(tree.nodes())):
        flipped[node.id] = replace(
            node, id=n - 1 - node.id, children=tuple(flipped[c.id] for c in node.children)
        )
    other = Tree(flipped[tree.root.id], tree.schema)
    for node in other.nodes():
        assert other.path_to(node.id)[-1][0] is node
        assert other.node(node.id) is node
    with pytest.raises(KeyError):
        other.path_to(n)

"""Hand-made trees and step-by-step growth."""

import pytest

from engine.data.encoding import encode
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.labels import attribute_name
from engine.growth import grow_below, grow_steps
from engine.learn.editing import make_leaf, ranked_splits, split_leaf
from engine.settings import resolve
from engine.tree import Tree


@pytest.fixture
def stump(weather):
    model = DecisionTree(algorithm="id3", max_depth=0).fit(weather)
    return model.tree_, encode(weather), resolve(algorithm="id3")


def test_ranked_splits_follow_the_seed(stump):
    tree, data, settings = stump
    ranked = [
        (data.schema.attributes[c.attribute].name, round(c.gain, 3))
        for c in ranked_splits(tree, data, settings, 0)
    ]
    assert ranked == [
        ("outlook", 0.247),
        ("humidity", 0.152),
        ("windy", 0.048),
        ("temperature", 0.029),
    ]


def test_split_on_any_attribute_not_only_the_best(stump):
    tree, data, settings = stump
    tree = split_leaf(tree, data, settings, 0, attribute=2)  # humidity
    assert attribute_name(tree, tree.root) == "humidity"
    assert [c.weight for c in tree.root.children] == [7, 7]
    assert all(c.is_leaf for c in tree.root.children)


def test_grow_below_finishes_only_that_subtree(stump):
    tree, data, _ = stump
    settings = resolve(algorithm="id3")
    tree = split_leaf(tree, data, settings, 0, attribute=2)
    grown = grow_below(tree, data, settings, node_id=1)  # humidity = high
    assert grown.root.children[0].split is not None
    assert grown.root.children[1].is_leaf
    # ID3 never reuses humidity below a humidity split.
    assert all(n.split.attribute != 2 for n in grown.nodes() if n.split and n.id != 0)


def test_grow_one_level(weather):
    data, settings = encode(weather), resolve(algorithm="id3")
    tree = DecisionTree(algorithm="id3", max_depth=0).fit(weather).tree_
    one = grow_below(tree, data, settings, 0, levels=1)
    assert one.depth == 1 and one.n_leaves == 3


def test_make_leaf_and_threshold_split(weather):
    model = DecisionTree(algorithm="id3").fit(weather)
    pruned = make_leaf(model.tree_, 0)
    assert pruned.root.is_leaf and pruned.root.distribution.tolist() == [9, 5]
    assert model.tree_.n_nodes == 8  # the original is untouched


def test_threshold_split_on_numeric(weather):
    from engine.data.table import make_table

    frame = weather.frame.copy()
    frame["temp"] = [85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71]
    table = make_table(frame[["temp", "play"]])
    data, settings = encode(table), resolve(algorithm="c45", prune="none")
    tree = Tree(DecisionTree(algorithm="c45", max_depth=0).fit(table).tree_.root, data.schema)
    tree = split_leaf(tree, data, settings, 0, attribute=0, threshold=70.5)
    assert tree.root.split.threshold == 70.5
    assert [c.weight for c in tree.root.children] == [5, 9]
    with pytest.raises(ArborError, match="numeric: give a threshold"):
        split_leaf(make_leaf(tree, 0), data, settings, 0, 0, groups=[[0]])
    with pytest.raises(ArborError, match="only a leaf"):
        split_leaf(tree, data, settings, 0, 0, threshold=70.0)


def test_step_through_id3_on_weather_in_the_seeds_order(weather):
    steps = list(grow_steps(encode(weather), resolve(algorithm="id3")))
    order = []
    for step in steps:
        tree = Tree(step.root, encode(weather).schema)
        order.append(attribute_name(tree, tree.node(step.expanded)))
    assert order == ["outlook", "humidity", "windy"]
    final = Tree(steps[-1].root, encode(weather).schema)
    assert final.n_leaves == 5


def test_best_first_steps_expand_by_impurity_reduction(weather):
    steps = list(grow_steps(encode(weather), resolve(algorithm="id3", growth="best")))
    assert len(steps) == 3

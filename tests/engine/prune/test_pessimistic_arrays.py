"""C4.5's pruning on the tree's arrays prunes exactly as the node objects do (issue 39):
every node's every field (class weights, weights, fractions, error estimates), to the last
bit, on tables with missing values (fractional rows), multiway splits, many classes, and
with each of the pruner's options, on all rows and on a fold's."""

from __future__ import annotations

from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from engine.data.encoding import encode, subset
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.growth import grow
from engine.learn.costs import with_costs
from engine.predict import predict_proba
from engine.prune.pessimistic import (
    collapse_nodes,
    collapse_tree,
    prune_pessimistic,
    prune_pessimistic_nodes,
)
from engine.prune.pessimistic_arrays import arrays_apply
from engine.tree import Tree
from tests.engine.prune.same_trees import WEKA, _canon, _missing_rows, tree_record

COSTS = "actual,no-recurrence-events,recurrence-events\nno-recurrence-events,0,1\nrecurrence-events,3,0\n"

#: (table, options): missing values (labor, soybean, breast-cancer), 19 classes (soybean).
CASES = {
    "weather": ("weather", {}),
    "labor": ("labor", {}),
    "labor-noraise": ("labor", {"subtree_raising": False}),
    "labor-exact": ("labor", {"error_estimate": "exact"}),
    "soybean": ("soybean", {}),
    "breast-cancer": ("breast-cancer", {"confidence": 0.5}),
    "breast-cancer-costs": ("breast-cancer", {"costs": COSTS}),
}


@cache
def _table(name: str):
    return load_sample(name) if name == "weather" else read_table(str(WEKA / f"{name}.arff"))


def _grown(name: str, fold: bool):
    table, options = CASES[name]
    settings = DecisionTree(algorithm="c45", **options).settings()
    data = encode(_table(table), settings.task)
    if fold:  # nine rows in ten, as a fold's training part
        data = subset(data, np.flatnonzero(np.arange(data.n_rows) % 10 != 3))
    return with_costs(Tree(grow(data, settings), data.schema), settings), data, settings


@pytest.mark.parametrize("fold", [False, True], ids=["all", "fold"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_the_arrays_prune_as_the_node_objects_do(name, fold):
    tree, data, settings = _grown(name, fold)
    assert arrays_apply(tree, data)
    pruned = prune_pessimistic(tree, data, settings)
    oracle = prune_pessimistic_nodes(tree, data, settings)
    assert _canon(tree_record(pruned)) == _canon(tree_record(oracle))
    # The arrays the pruner hands its tree route and predict as those of its nodes do.
    fresh = Tree(pruned.root, pruned.schema, pseudocounts=pruned.pseudocounts)
    for X in (data.X, _missing_rows(data.X)):
        assert np.array_equal(predict_proba(pruned, X), predict_proba(fresh, X))
    if not fold:
        collapsed = collapse_tree(tree, data, settings)
        assert _canon(tree_record(collapsed)) == _canon(
            tree_record(collapse_nodes(tree, data, settings))
        )


def _record(tree: Tree) -> list:
    """Every decision's path, verdict, options with their shares, and subtrees."""
    return [
        [d.path, d.verdict]
        + [[(o.kind, o.total, o.branch, [vars(p) for p in o.parts]) for o in d.options]]
        + [None if t is None else tree_record(Tree(t, tree.schema)) for t in (d.before, d.after)]
        for d in tree.pruning.decisions
    ]


@pytest.mark.parametrize(("name", "fold"), [("labor", True), ("breast-cancer-costs", False)])
def test_the_arrays_record_the_node_objects_decisions(name, fold):
    tree, data, settings = _grown(name, fold)
    pruned = prune_pessimistic(tree, data, settings, record=True)
    oracle = prune_pessimistic_nodes(tree, data, settings, record=True)
    verdicts = {d.verdict for d in pruned.pruning.decisions}
    assert {"collapsed", "pruned", "kept", "leaf"} <= verdicts
    assert fold or "raised" in verdicts
    assert _canon(tree_record(pruned)) == _canon(tree_record(oracle))
    assert _canon(_record(pruned)) == _canon(_record(oracle))


@pytest.mark.parametrize("name", ["labor-noraise", "breast-cancer-costs"])
def test_from_the_counts_alone_as_the_node_objects(name):
    """A tree trained over partitions is pruned from its nodes' counts (no rows)."""
    tree, data, settings = _grown(name, False)
    settings = replace(settings, subtree_raising=False)
    assert arrays_apply(tree, None)
    for arrays, nodes in (
        (prune_pessimistic, prune_pessimistic_nodes),
        (collapse_tree, collapse_nodes),
    ):
        assert _canon(tree_record(arrays(tree, None, settings))) == _canon(
            tree_record(nodes(tree, None, settings))
        )
    with pytest.raises(ValueError, match="needs the data"):
        prune_pessimistic(tree, None, replace(settings, subtree_raising=True))


@pytest.mark.parametrize("name", ["labor", "breast-cancer"])
def test_a_big_trees_class_weights_too(name, monkeypatch):
    """A big tree's raising finds the nodes its rows reach before adding up their class
    weights (a small one's indexes them by node number)."""
    monkeypatch.setattr("engine.prune.pessimistic_arrays.BY_NUMBER", 0)
    tree, data, settings = _grown(name, True)
    for record in (False, True):
        pruned = prune_pessimistic(tree, data, settings, record=record)
        oracle = prune_pessimistic_nodes(tree, data, settings, record=record)
        assert _canon(tree_record(pruned)) == _canon(tree_record(oracle))
        if record:
            assert _canon(_record(pruned)) == _canon(_record(oracle))

"""Growth's own arrays (``grow_flat``, for CART's folds choosing alpha; ``grow_whole``, kept
with a fit's tree) are the arrays of the node objects ``grow`` makes: every number, and the
same branch for every value (issue 39)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import engine.flat as flat_module
from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.samples import load_sample
from engine.estimator import DecisionTree
from engine.export.model_json import tree_to_dict
from engine.flat import from_nodes
from engine.growth import grow, grow_flat, grow_whole
from engine.tree import Tree

WEKA = Path(__file__).resolve().parents[2] / "fixtures" / "weka" / "data"

CASES = [
    ("weather", {"algorithm": "cart"}),  # binary subsets
    ("weather-numeric", {"algorithm": "c45"}),  # C4.5's thresholds at a training value
    ("contact-lenses", {"algorithm": "id3"}),  # multiway
    ("labor", {"algorithm": "c45"}),  # missing values: fractions
    ("labor", {"algorithm": "cart", "task": "regression", "target": "duration"}),
]

COLUMNS = [
    "parent",
    "children",
    "n_children",
    "end",
    "depth",
    "attribute",
    "by_threshold",
    "threshold",
    "fractions",
    "distribution",
    "weight",
    "impurity",
    "value",
]


def _table(name: str, target: str | None):
    path = WEKA / f"{name}.arff"
    table = read_table(str(path)) if path.exists() else load_sample(name)
    return table if target is None else table.with_target(target)


def _data(name: str, options: dict):
    options = dict(options)
    table = _table(name, options.pop("target", None))
    settings = DecisionTree(**options, prune="none").settings()
    return encode(table, settings.task), settings


def _assert_same_arrays(grown, walked, data) -> None:
    """Every number the same; the category tables may differ in width, the branches they
    give may not."""
    assert grown.n_nodes == walked.n_nodes > 1
    for column in COLUMNS:
        a, b = getattr(grown, column), getattr(walked, column)
        assert a.shape == b.shape and np.array_equal(a, b, equal_nan=True), column
    X = data.X.copy()
    X[::4, :] = np.nan  # some rows missing everything
    for i in np.flatnonzero(~walked.is_leaf).tolist():
        at = np.full(len(X), i, dtype=np.intp)
        values = X[:, walked.attribute[i]]
        assert np.array_equal(grown.branches(at, values), walked.branches(at, values))


@pytest.mark.parametrize(("name", "options"), CASES)
def test_growth_arrays_are_the_node_objects_arrays(name, options):
    data, settings = _data(name, options)
    walked = from_nodes(Tree(grow(data, settings), data.schema))
    _assert_same_arrays(grow_flat(data, settings), walked, data)


@pytest.mark.parametrize(("name", "options"), CASES)
def test_a_whole_trees_kept_arrays_are_its_nodes_arrays(name, options):
    data, settings = _data(name, options)
    tree = grow_whole(data, settings)
    kept = tree.__dict__["_flat"]  # made from growth's arrays, not by a walk
    walked = from_nodes(tree)
    _assert_same_arrays(kept, walked, data)
    assert all(a is b for a, b in zip(kept.node_objects(), walked.node_objects(), strict=True))
    assert tree_to_dict(tree) == tree_to_dict(Tree(grow(data, settings), data.schema))


@pytest.mark.parametrize(("name", "options"), CASES)
def test_a_fitted_trees_counts_from_its_arrays_are_its_nodes_counts(name, options):
    from engine.fitting import fit_tree

    options = dict(options)
    table = _table(name, options.pop("target", None))
    for pruning in ({"prune": "none"}, {}):  # grown, and pruned as the algorithm prunes
        settings = DecisionTree(**options, **pruning).settings()
        tree = fit_tree(encode(table, settings.task), settings)
        assert "_flat" in tree.__dict__  # the counts below come from the arrays
        walked = Tree(tree.root, tree.schema)  # no arrays: counted by a walk
        assert (tree.n_nodes, tree.n_leaves, tree.depth) == (
            walked.n_nodes,
            walked.n_leaves,
            walked.depth,
        )


@pytest.mark.parametrize(("name", "options"), CASES)
def test_a_pruned_trees_nodes_made_from_arrays_are_those_pruned_node_by_node(name, options):
    """A fit's tree makes its node objects from the arrays only when asked; pruned at any
    step of its path, they are the nodes that pruning the node objects gives (ids, depths,
    splits, counts and stats: a pruned split loses its scores and is marked pruned)."""
    from engine.prune.cost_complexity import cost_complexity_path, prune_to_step

    data, settings = _data(name, options)
    grown = grow_whole(data, settings)
    assert grown.__dict__["_root"] is None  # nothing has asked
    walked = Tree(grown.root, grown.schema)  # arrays by a walk: pruned node by node
    path = cost_complexity_path(grown)
    for step in sorted({1, len(path.alphas) // 2, len(path.alphas) - 1}):
        from_arrays, by_nodes = prune_to_step(grown, path, step), prune_to_step(walked, path, step)
        assert from_arrays.__dict__["_root"] is None
        assert tree_to_dict(from_arrays) == tree_to_dict(by_nodes)
        assert [dict(n.stats) for n in from_arrays.nodes()] == [
            dict(n.stats) for n in by_nodes.nodes()
        ]
        # Pruned again (the pruned flag and the kept scores carried by the compact copy).
        again = cost_complexity_path(from_arrays)
        last = len(again.alphas) // 2
        assert tree_to_dict(prune_to_step(from_arrays, again, last)) == tree_to_dict(
            prune_to_step(Tree(by_nodes.root, by_nodes.schema), again, last)
        )


def test_a_fits_tree_keeps_its_nodes_unmade_through_costs_and_pseudocounts():
    from engine.fitting import fit_tree
    from engine.flat import root_distribution

    table = load_sample("weather")
    for options in (
        {"laplace": True},
        {"costs": ",yes,no\nyes,0,1\nno,5,0\n"},
        {"m_estimate": 2.0},
    ):
        settings = DecisionTree(algorithm="cart", **options).settings()
        tree = fit_tree(encode(table), settings)
        assert tree.__dict__["_root"] is None, options
        unmade = root_distribution(tree)
        assert tree.pseudocounts or tree.costs
        assert tree.with_nodes_made() is tree and tree.__dict__["_root"] is not None
        assert np.array_equal(unmade, tree.root.distribution)


def test_two_threads_asking_at_once_get_the_same_node_objects():
    from concurrent.futures import ThreadPoolExecutor

    data, settings = _data("labor", {"algorithm": "c45"})
    for _ in range(5):
        tree = grow_whole(data, settings)
        with ThreadPoolExecutor(2) as pool:
            flat = tree.__dict__["_flat"]
            a, b = pool.map(lambda _, flat=flat: flat.node_objects(), range(2))
        assert a is b and tree.root is a[0]


def test_making_the_nodes_pauses_the_collector_and_puts_it_back_as_it_was(monkeypatch):
    import gc

    data, settings = _data("labor", {"algorithm": "c45"})
    real, seen = flat_module._made_nodes, []
    monkeypatch.setattr(
        flat_module, "_made_nodes", lambda flat: (seen.append(gc.isenabled()), real(flat))[1]
    )
    was = gc.isenabled()
    try:
        for on in (True, False):
            (gc.enable if on else gc.disable)()
            grow_whole(data, settings).with_nodes_made()
            assert seen.pop() is False and gc.isenabled() is on
    finally:
        (gc.enable if was else gc.disable)()


def test_the_absolute_errors_arrays_hold_the_leaves_medians():
    """CV-alpha's folds (``grow_flat``) predict what the fitted tree predicts: under the
    absolute error a node's median, which growth's own arrays (its means) do not hold."""
    import pandas as pd

    from engine.data.table import make_table

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    frame = pd.DataFrame(X, columns=list("abc")).assign(y=X[:, 0] + rng.standard_t(2, 300))
    settings = DecisionTree(
        algorithm="cart", task="regression", criterion="absolute_error", prune="none"
    ).settings()
    data = encode(make_table(frame), "regression")
    walked = from_nodes(Tree(grow(data, settings), data.schema))
    _assert_same_arrays(grow_flat(data, settings), walked, data)
    assert np.array_equal(grow_whole(data, settings).root.value, walked.value[0])

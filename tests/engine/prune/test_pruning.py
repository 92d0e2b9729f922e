"""C4.5's pessimistic pruning on seed 001's toys, and the pruning machinery."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.growth import grow
from engine.prune.bounds import binomial_cdf, c45_extra_errors, estimated_errors, exact_bound
from engine.prune.pessimistic import prune_pessimistic
from engine.settings import resolve
from engine.tree import Tree


@pytest.mark.parametrize(("n", "e", "bound"), [(6, 0, 0.206), (9, 0, 0.143), (1, 0, 0.75)])
def test_toys_branch_bounds(n, e, bound):
    assert round(exact_bound(n, e, 0.25), 3) == bound


def test_toys_leaf_bound_solves_the_binomial_equation():
    p = exact_bound(16, 1, 0.25)
    assert binomial_cdf(1, 16, p) == pytest.approx(0.25, abs=1e-9)
    # The notes print 0.157; the equation they state, (1-p)^16 + 16p(1-p)^15 = 0.25,
    # has its root at 0.1597, so we match the printed value to within 0.003.
    assert p == pytest.approx(0.157, abs=0.003)


def _colour_split(toys):
    """The seed's tree: split on colour only (Players ignored), grown without pruning."""
    table = toys.with_kinds(Players="ignored")
    settings = resolve(algorithm="id3")
    data = encode(table)
    return Tree(grow(data, settings), data.schema), data


def test_toys_subtree_against_leaf_totals(toys):
    tree, _ = _colour_split(toys)
    assert [c.weight for c in tree.root.children] == [6, 9, 1]
    subtree = sum(
        estimated_errors(c.weight, c.weight - c.distribution.max(), 0.25, "exact")
        for c in tree.root.children
    )
    leaf = estimated_errors(16, 1, 0.25, "exact")
    assert subtree == pytest.approx(3.273, abs=2e-3)
    assert leaf == pytest.approx(2.512, abs=0.05)
    assert leaf < subtree


@pytest.mark.parametrize("method", ["exact", "c45"])
def test_toys_colour_split_is_pruned_to_a_leaf(toys, method):
    tree, data = _colour_split(toys)
    settings = resolve(algorithm="c45", error_estimate=method, min_samples_leaf=0)
    pruned = prune_pessimistic(tree, data, settings)
    assert pruned.root.is_leaf
    stats = pruned.root.stats
    assert stats["pruned"] == 1.0
    assert stats["error_as_leaf"] < stats["error_as_subtree"]
    if method == "exact":
        assert stats["error_as_subtree"] == pytest.approx(3.273, abs=2e-3)


def test_c45_approximation_agrees_with_known_values():
    # J48's estimate for 0 errors is the exact bound: N (1 - CF^(1/N)).
    assert c45_extra_errors(6, 0, 0.25) == pytest.approx(6 * exact_bound(6, 0, 0.25))
    assert c45_extra_errors(14, 5, 0.25) > 0
    assert c45_extra_errors(3, 3, 0.25) == 0


def test_pruning_returns_a_new_tree(weather):
    data = encode(weather)
    settings = resolve(algorithm="c45", prune="none")
    tree = Tree(grow(data, settings), data.schema)
    before = tree.n_nodes
    prune_pessimistic(tree, data, resolve(algorithm="c45"))
    assert tree.n_nodes == before


def test_weather_c45_pruned_keeps_the_seed_tree(weather):
    # J48 keeps all five leaves on the weather data.
    tree = DecisionTree(algorithm="c45").fit(weather).tree_
    assert (tree.n_leaves, tree.n_nodes) == (5, 8)
    assert "error_as_subtree" in tree.root.stats


def test_subtree_raising_can_be_turned_off(weather):
    tree = DecisionTree(algorithm="c45", subtree_raising=False).fit(weather).tree_
    assert "error_as_branch" not in tree.root.stats


def test_reduced_error_pruning_uses_held_out_rows():
    rng = np.random.default_rng(3)
    x = np.array(list("vwxyz"))[rng.integers(0, 5, size=(400, 4))]
    y = np.where(rng.random(400) < 0.8, x[:, 0] == "w", rng.random(400) < 0.5)
    frame = pd.DataFrame(x, columns=list("abcd")).assign(y=np.where(y, "t", "f"))
    table = make_table(frame)
    full = DecisionTree(algorithm="id3").fit(table).tree_
    rep = DecisionTree(algorithm="id3", prune="reduced-error", holdout=0.3, seed=2).fit(table).tree_
    assert rep.n_leaves < full.n_leaves
    again = (
        DecisionTree(algorithm="id3", prune="reduced-error", holdout=0.3, seed=2).fit(table).tree_
    )
    assert again.n_leaves == rep.n_leaves


@pytest.mark.parametrize("seed", [0, 1])
def test_path_training_errors_are_those_of_the_pruned_trees(seed):
    from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity

    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(400, 3)), columns=list("abc"))
    frame["y"] = np.array(["p", "q", "r"])[rng.integers(0, 3, 400)]
    full = DecisionTree(algorithm="cart", prune="none").fit(frame).tree_
    path = cost_complexity_path(full)
    assert path.errors[0] == 0.0 and path.errors[-1] == pytest.approx(
        1 - frame["y"].value_counts().max() / 400
    )
    for alpha in np.unique(path.alphas)[::7]:
        pruned = prune_cost_complexity(full, alpha)
        wrong = sum(
            n.distribution.sum() - n.distribution.max() for n in pruned.nodes() if n.is_leaf
        )
        last = np.flatnonzero(path.alphas == alpha)[-1]
        assert path.errors[last] == pytest.approx(wrong / 400, abs=1e-12)

"""``--missing majority`` on the compiled growth loop (``Params.majority``): a row missing a
split's attribute goes whole down the heavier branch, so the tree is the one the numpy
routing (engine.learn.routed_growth, the oracle here) grows, node for node, on every thread
count, depth- and best-first; the entries no longer multiply down the tree."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError
from engine.growth import grow, grow_steps
from engine.learn import routed_growth
from engine.learn.rules import whole_branch
from engine.settings import resolve


def _data(n: int, task: str, seed: int, missing: float = 0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    X[:, 3] = rng.integers(0, 4, n)
    X[:, 4] = np.round(X[:, 4], 1)  # ties
    signal = X[:, 0] + 0.5 * X[:, 1] + 0.4 * (X[:, 3] == 2) + rng.normal(size=n)
    X[rng.random(X.shape) < missing] = np.nan
    frame = pd.DataFrame(X, columns=list("abcde"))
    frame["d"] = frame["d"].map({0.0: "p", 1.0: "q", 2.0: "r", 3.0: "s"})  # CART's subsets
    if task == "regression":
        frame["y"] = signal
    else:
        frame["y"] = np.array(list("xyz"))[np.digitize(signal, [-0.5, 0.5])]
    return encode(make_table(frame), task)


def _shape(node):
    """Everything a node holds that growth decides, rounded where sums may be ordered apart."""
    numbers = (round(node.weight, 9), tuple(np.round(node.distribution, 9)))
    if node.split is None:
        return numbers + (None if np.isnan(node.value) else round(float(node.value), 9),)
    split = node.split
    threshold = None if split.threshold is None else float(split.threshold)
    return numbers + (
        split.attribute,
        threshold,
        split.groups,
        tuple(split.fractions),
        tuple(_shape(c) for c in node.children),
    )


@pytest.mark.parametrize("task", ["classification", "regression"])
@pytest.mark.parametrize("growth", ["depth", "best"])
def test_compiled_majority_grows_the_oracles_tree_on_every_thread_count(task, growth):
    options = dict(algorithm="cart", task=task, missing="majority", prune="none", growth=growth)
    options.update(max_depth=8) if growth == "depth" else options.update(max_leaves=40)
    for seed in (1, 2):
        data = _data(3000, task, seed)
        want = _shape(routed_growth.grow(data, resolve(**options)))
        for threads in (1, 2, 3):
            got = grow(data, resolve(splitter="exact", threads=threads, **options))
            assert _shape(got) == want, (seed, threads)


def test_big_enough_to_copy_subtrees_and_split_on_threads():
    """40,000 rows: subtrees copied and grown whole, shared among threads, the same tree."""
    data = _data(40_000, "classification", 3, missing=0.1)
    options = dict(algorithm="cart", missing="majority", prune="none", max_depth=14)
    want = _shape(routed_growth.grow(data, resolve(**options)))
    for threads in (1, 2):
        assert _shape(grow(data, resolve(splitter="exact", threads=threads, **options))) == want


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_histogram_majority_rows_stay_whole_and_threads_agree(task):
    data = _data(40_000, task, 4, missing=0.1)
    options = dict(algorithm="cart", task=task, missing="majority", prune="none", max_depth=12)
    trees = [grow(data, resolve(splitter="histogram", threads=t, **options)) for t in (1, 2, 3)]
    assert _shape(trees[0]) == _shape(trees[1]) == _shape(trees[2])
    leaves = [n for n in trees[0].walk() if n.split is None]
    # Every row is in one leaf with its whole weight: no fractional copies.
    assert sum(n.weight for n in leaves) == 40_000
    assert all(float(n.weight).is_integer() for n in leaves)
    splits = [n.split for n in trees[0].walk() if n.split is not None]
    assert all(set(s.fractions) == {0.0, 1.0} for s in splits)


def test_whole_branch_goes_the_heavier_way_and_the_first_on_a_tie():
    assert whole_branch(0.25, 0.75) == (0.0, 1.0)
    assert whole_branch(0.75, 0.25) == (1.0, 0.0)
    assert whole_branch(0.5, 0.5) == (1.0, 0.0)


def test_stepping_through_growth_follows_majority_but_not_surrogates():
    data = _data(500, "classification", 5)
    options = dict(algorithm="cart", prune="none", max_depth=4)
    steps = list(grow_steps(data, resolve(missing="majority", **options)))
    whole = grow(data, resolve(missing="majority", **options))
    assert _shape(steps[-1].root) == _shape(whole)
    with pytest.raises(ArborError, match="--missing majority or fractional"):
        grow_steps(data, resolve(missing="surrogate", **options))


def test_training_over_partitions_refuses_surrogates():
    pytest.importorskip("dask")
    from engine.scale.training import fit_partitions

    with pytest.raises(ArborError, match="train in memory, or use --missing majority"):
        fit_partitions(None, resolve(algorithm="cart", missing="surrogate"), None)

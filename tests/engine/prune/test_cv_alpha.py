"""CART's CV of alpha scores every probe alpha from each row's path, each held-out row routed
once (no tree pruned per probe): the same loss sums as pruning the fold's tree at each probe
and predicting, to the last bit where rows go down several branches (missing values)."""

import functools
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.flat import flat_of
from engine.predict import predict_proba, predict_value
from engine.prune.alpha import _loss_sums_per_probe, choose_alpha
from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity
from engine.sums import dot


def _table(seed, n=400, regression=False, missing=0.0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 3)), columns=list("abc"))
    frame["d"] = rng.choice(["p", "q", "r"], n)
    signal = frame.a + frame.b * frame.c + rng.normal(0, 1, n)
    frame["y"] = signal if regression else np.where(signal > 0, "yes", "no")
    if missing:
        frame.loc[rng.random(n) < missing, "a"] = np.nan
    return make_table(frame)


@functools.cache
def _grown(regression: bool):
    """The tree the tests below score, its probe alphas, and the tree pruned at each probe:
    one for each task (the held-out rows and their weights are what the tests vary)."""
    task = "regression" if regression else "classification"
    train = _table(1, regression=regression)
    tree = (
        DecisionTree(algorithm="cart", task=task, prune="none", min_samples_leaf=3).fit(train).tree_
    )
    alphas = np.unique(cost_complexity_path(tree).alphas)
    probes = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
    return tree, probes, [prune_cost_complexity(tree, beta) for beta in probes]


def _pruned_sums(tree, data, pruned_at_probes):
    """The oracle: ``tree`` pruned at every probe, every row predicted, and the weighted loss
    and squared loss added up over the rows in their order (as CV of alpha did until the
    rows' paths replaced it)."""
    w = np.broadcast_to(data.weight, (data.n_rows,))
    sums = np.zeros((2, len(pruned_at_probes)))
    for p, pruned in enumerate(pruned_at_probes):
        if tree.is_regression:
            loss = (predict_value(pruned, data.X) - data.y) ** 2
        else:
            loss = (np.argmax(predict_proba(pruned, data.X), axis=1) != data.y).astype(np.float64)
        sums[:, p] = dot(w, loss), dot(w, loss * loss)
    return sums


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("missing", [0.0, 0.1])
@pytest.mark.parametrize("weighted", [False, True])
def test_loss_sums_per_probe_equal_pruning_at_each_probe(regression, missing, weighted):
    tree, probes, pruned_at_probes = _grown(regression)
    task = "regression" if regression else "classification"
    data = encode(_table(2, 150, regression, missing), task)
    if weighted:
        data = replace(data, weight=np.random.default_rng(4).uniform(0.1, 3.0, data.n_rows))
    fast = _loss_sums_per_probe(flat_of(tree), data, probes)
    slow = _pruned_sums(tree, data, pruned_at_probes)
    assert fast.shape == (2, len(probes)) and len(probes) > 20
    if missing:  # every row's loss at every probe, added up in the rows' order
        np.testing.assert_array_equal(fast, slow)
    else:  # each node's rows' sums added over its interval of probes: another order
        assert np.allclose(fast, slow, rtol=1e-12, atol=0)


def test_cart_by_default_prunes_at_the_one_standard_error_alpha():
    table = _table(3, n=300)
    data = encode(table)
    model = DecisionTree(algorithm="cart").fit(table)
    settings = model.settings()
    assert (settings.prune, settings.cv_alpha, settings.one_se) == ("cost-complexity", 10, True)
    full = DecisionTree(algorithm="cart", prune="none").fit(table).tree_
    choice = choose_alpha(full, data, settings)
    assert choice.chosen_alpha == choice.one_se_alpha >= choice.min_alpha
    pruned = prune_cost_complexity(full, choice.chosen_alpha)
    assert [n.id for n in model.tree_.nodes()] == [n.id for n in pruned.nodes()]
    assert model.tree_.n_leaves < full.n_leaves


@pytest.mark.parametrize("compiled", [False, True], ids=["numpy", "compiled"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_each_nodes_alpha_ends_are_those_a_walk_down_the_tree_gives(seed, compiled, monkeypatch):
    """:func:`_alpha_ends` works a level at a time (numpy) or a node at a time in pre-order
    (compiled); a walk in pre-order in Python is the plain statement of the rule."""
    from engine.compiling import lifecycle
    from engine.prune.alpha import _alpha_ends, _cuts

    monkeypatch.setattr(lifecycle, "is_ready", lambda: compiled)
    data = encode(_table(seed, n=600))
    for algorithm in ("cart", "c45"):
        tree = DecisionTree(algorithm=algorithm, prune="none").fit(data).tree_
        flat = flat_of(tree)
        cut = _cuts(flat).tolist()
        here, above = [0.0] * flat.n_nodes, [np.inf] * flat.n_nodes
        for i, (p, leaf) in enumerate(
            zip(flat.parent.tolist(), flat.is_leaf.tolist(), strict=True)
        ):
            if p >= 0:
                above[i] = here[p]
            here[i] = -np.inf if leaf else min(above[i], cut[i])
        got_here, got_above = _alpha_ends(flat)
        assert flat.n_nodes >= 9 and flat.depth.max() >= 3
        assert got_here.tolist() == here and got_above.tolist() == above


@pytest.mark.parametrize("regression", [False, True])
def test_pruning_along_the_path_is_pruning_at_the_alpha(regression):
    """A fit prunes at its chosen alpha along the path the alpha was chosen on: the same tree
    as the weakest-link search stopped at that alpha, at each of the path's alphas (the ones
    chosen) and between them."""
    from engine.prune.cost_complexity import prune_along

    tree, probes, _ = _grown(regression)
    path = cost_complexity_path(tree)
    alphas = np.unique(path.alphas)
    for alpha in [*alphas, *probes[:-1], -1.0, np.inf]:
        got, want = (
            flat_of(prune_along(tree, path, alpha)),
            flat_of(prune_cost_complexity(tree, alpha)),
        )
        assert got.n_nodes == want.n_nodes
        assert np.array_equal(got.is_leaf, want.is_leaf) and np.array_equal(got.parent, want.parent)
        assert np.array_equal(got.weight, want.weight)


@pytest.mark.parametrize("regression", [False, True])
def test_probe_spans_are_each_nodes_two_ends_searched(regression):
    """A node's span of probes is its own end and its parent's searched: only the inner
    nodes' own ends are, a leaf's starts at the first probe and a child's ends where its
    parent's starts."""
    from engine.prune.alpha import _alpha_ends, _probe_spans

    tree, probes, _ = _grown(regression)
    flat = flat_of(tree)
    here, above = ends = _alpha_ends(flat)
    for one_by_one in (False, True):
        lo, hi = _probe_spans(flat, ends, probes, one_by_one)
        assert lo.tolist() == np.searchsorted(probes, here, side="left").tolist()
        want_hi = np.searchsorted(probes, above, side="left")
        want_hi[0] = len(probes)
        assert hi.tolist() == want_hi.tolist()


@pytest.mark.parametrize("weighted", [False, True])
def test_a_regression_trees_level_sums_are_the_walks_to_the_bit(weighted):
    """Routed a level at a time, the rows of each node give the dot products the walk of
    ``_visits`` gave, added to the probes in the walk's order (its last branch first)."""
    from engine.prune.alpha import _alpha_ends, _level_loss_sums, _probe_spans, _visits

    tree, probes, _ = _grown(True)
    data = encode(_table(5, 300, regression=True), "regression")
    if weighted:
        data = replace(data, weight=np.random.default_rng(6).uniform(0.1, 3.0, data.n_rows))
    flat = flat_of(tree)
    w = np.broadcast_to(data.weight, (data.n_rows,))
    ends = _alpha_ends(flat)
    levels, fractional = flat.descend(data.X)
    assert not fractional.any()
    walked = np.zeros((2, len(probes) + 1))
    for v in _visits(flat, data, _probe_spans(flat, ends, probes, one_by_one=True)):
        sums = np.array([dot(w[v.rows], v.losses), dot(w[v.rows], v.losses * v.losses)])
        walked[:, v.lo] += sums
        walked[:, v.hi] -= sums
    walked = np.cumsum(walked, axis=1)[:, : len(probes)]
    got = _level_loss_sums(flat, data, probes, ends, w, levels)
    assert got.tolist() == walked.tolist()

"""CART grows the same trees as scikit-learn on numeric data without tied gains.

scikit-learn visits features in a random order and keeps the first of tied
splits, so ties are detected by fitting it with several random states: where
they all agree, the tree is tie-free and ours must be identical.
"""

import numpy as np
import pandas as pd
import pytest

sklearn_tree = pytest.importorskip("sklearn.tree")

from engine.estimator import DecisionTree  # noqa: E402
from engine.prune.cost_complexity import cost_complexity_path  # noqa: E402

#: Every fit here grows on the compiled kernels (the code that grows real trees), which
#: the fixture checks; it waits for their one-time compilation if need be.
pytestmark = pytest.mark.usefixtures("compiled_builder")


def _data(seed, n=1000, p=6, classes=3, regression=False):
    rng = np.random.default_rng(seed)
    # float32-representable values, as scikit-learn stores X in float32.
    X = rng.normal(size=(n, p)).astype(np.float32).astype(np.float64)
    signal = X[:, 0] + 0.8 * X[:, 1] * X[:, 2] + 0.5 * np.sin(3 * X[:, 3])
    if regression:
        y = signal + rng.normal(scale=0.3, size=n)
    else:
        cuts = np.quantile(signal, np.linspace(0, 1, classes + 1)[1:-1])
        y = np.digitize(signal + rng.normal(scale=0.4, size=n), cuts)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(p)])
    # Sorted class order, as scikit-learn has it, so ties in argmax agree.
    labels = [f"c{k}" for k in range(classes)]
    frame["y"] = y if regression else pd.Categorical(np.array(labels)[y], categories=labels)
    return X, frame


def _structure(tree):
    t = tree.tree_
    out, stack = [], [0]
    while stack:
        i = stack.pop()
        if t.children_left[i] == -1:
            out.append(("leaf", round(float(t.weighted_n_node_samples[i]), 6)))
            continue
        out.append((int(t.feature[i]), float(t.threshold[i])))
        stack.extend([t.children_right[i], t.children_left[i]])
    return out


def _ours(tree):
    return [
        ("leaf", round(n.weight, 6)) if n.is_leaf else (n.split.attribute, n.split.threshold)
        for n in tree.nodes()
    ]


def _reference(cls, X, y, **params):
    fits = [cls(random_state=rs, **params).fit(X, y) for rs in range(4)]
    shapes = [_structure(f) for f in fits]
    if any(s != shapes[0] for s in shapes):
        pytest.skip("scikit-learn itself breaks a tie differently across random states")
    return fits[0], shapes[0]


CLASSIFICATION_CASES = [
    dict(max_depth=3),
    dict(max_depth=5, min_samples_leaf=8, criterion="entropy"),
    dict(max_depth=6, min_samples_leaf=10),
    dict(max_depth=8, min_samples_split=40, min_samples_leaf=6),
    dict(max_leaf_nodes=12, min_samples_leaf=5),
    dict(max_leaf_nodes=30, max_depth=7, min_samples_leaf=8),
]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("params", CLASSIFICATION_CASES)
def test_classifier_equal_to_scikit_learn(seed, params):
    X, frame = _data(seed)
    ref, shape = _reference(sklearn_tree.DecisionTreeClassifier, X, frame["y"], **params)
    ours = DecisionTree(
        algorithm="cart",
        prune="none",
        criterion=params.get("criterion", "gini"),
        max_depth=params.get("max_depth"),
        min_samples_leaf=params.get("min_samples_leaf"),
        min_samples_split=params.get("min_samples_split"),
        max_leaves=params.get("max_leaf_nodes"),
        growth="best" if "max_leaf_nodes" in params else "depth",
    ).fit(frame)
    assert _ours(ours.tree_) == shape
    assert ours.tree_.n_leaves == ref.get_n_leaves() and ours.tree_.depth == ref.get_depth()
    assert (ours.predict(frame) == ref.predict(X)).all()
    order = [list(ours.classes_).index(c) for c in ref.classes_]  # ours: first-appearance order
    assert np.allclose(ours.predict_proba(frame)[:, order], ref.predict_proba(X))


@pytest.mark.parametrize("seed", [0, 1])
# Nodes of a few rows tie mathematically on many splits, and scikit-learn's float
# rounding, not the data, then decides; a minimum leaf size keeps such nodes out.
@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=5, min_samples_leaf=3),
        dict(max_depth=7, min_samples_leaf=4),
        dict(max_leaf_nodes=20, min_samples_leaf=3),
    ],
)
def test_regressor_equal_to_scikit_learn(seed, params):
    X, frame = _data(seed, regression=True)
    ref, shape = _reference(sklearn_tree.DecisionTreeRegressor, X, frame["y"], **params)
    ours = DecisionTree(
        algorithm="cart",
        task="regression",
        prune="none",
        max_depth=params.get("max_depth"),
        min_samples_leaf=params.get("min_samples_leaf"),
        max_leaves=params.get("max_leaf_nodes"),
        growth="best" if "max_leaf_nodes" in params else "depth",
    ).fit(frame)
    assert _ours(ours.tree_) == shape
    assert np.allclose(ours.predict(frame), ref.predict(X))


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "params",
    [
        dict(max_depth=4, min_samples_leaf=3),
        dict(max_depth=6, min_samples_leaf=5),
        dict(max_leaf_nodes=12, min_samples_leaf=3),
    ],
)
def test_median_regressor_equal_to_scikit_learns_absolute_error(seed, params):
    # Seed 004's median point estimate: criterion absolute_error, median leaves, node for
    # node with DecisionTreeRegressor(criterion="absolute_error") where it is seed-stable.
    X, frame = _data(seed, n=300, regression=True)
    y = frame["y"]
    ref, shape = _reference(
        sklearn_tree.DecisionTreeRegressor, X, y, criterion="absolute_error", **params
    )
    ours = DecisionTree(
        algorithm="cart",
        task="regression",
        criterion="absolute_error",
        prune="none",
        max_depth=params.get("max_depth"),
        min_samples_leaf=params.get("min_samples_leaf"),
        max_leaves=params.get("max_leaf_nodes"),
        growth="best" if "max_leaf_nodes" in params else "depth",
    ).fit(frame)
    assert _ours(ours.tree_) == shape
    t = ref.tree_
    order, stack = [], [0]  # scikit-learn's nodes in pre-order, as ours are numbered
    while stack:
        i = stack.pop()
        order.append(i)
        if t.children_left[i] >= 0:
            stack.extend([t.children_right[i], t.children_left[i]])
    nodes = list(ours.tree_.nodes())
    assert [n.value for n in nodes] == pytest.approx(t.value[order, 0, 0], rel=1e-12, abs=1e-12)
    assert [n.impurity for n in nodes] == pytest.approx(t.impurity[order], rel=1e-9, abs=1e-12)
    assert np.allclose(ours.predict(frame), ref.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("seed", [0, 3, 4])
def test_cost_complexity_path_equal_to_scikit_learn(seed, regression):
    X, frame = _data(seed, n=300, regression=regression)
    cls = sklearn_tree.DecisionTreeRegressor if regression else sklearn_tree.DecisionTreeClassifier
    _reference(cls, X, frame["y"], min_samples_leaf=2)
    ref = cls(random_state=0, min_samples_leaf=2).cost_complexity_pruning_path(X, frame["y"])
    ours = DecisionTree(
        algorithm="cart",
        task="regression" if regression else None,
        prune="none",
        min_samples_leaf=2,
    ).fit(frame)
    path = cost_complexity_path(ours.tree_)
    assert np.allclose(path.alphas, ref.ccp_alphas, rtol=1e-9, atol=1e-12)
    assert np.allclose(path.impurities, ref.impurities, rtol=1e-9, atol=1e-12)
    assert path.n_leaves[0] == ours.tree_.n_leaves and path.n_leaves[-1] == 1


@pytest.mark.parametrize("alpha_index", [3, 10, -3])
def test_pruning_at_alpha_matches_scikit_learn(alpha_index):
    X, frame = _data(5, n=400)
    cls = sklearn_tree.DecisionTreeClassifier
    alphas = cls(random_state=0).cost_complexity_pruning_path(X, frame["y"]).ccp_alphas
    alpha = float(alphas[alpha_index])
    ref = cls(random_state=0, ccp_alpha=alpha).fit(X, frame["y"])
    ours = DecisionTree(algorithm="cart", prune="cost-complexity", alpha=alpha).fit(frame)
    assert ours.tree_.n_leaves == ref.get_n_leaves()
    assert (ours.predict(frame) == ref.predict(X)).all()


def test_cv_alpha_reports_error_per_alpha_and_both_rules():
    from engine.data.encoding import encode
    from engine.data.table import make_table
    from engine.prune.alpha import choose_alpha

    _, frame = _data(7, n=300)
    model = DecisionTree(algorithm="cart", prune="cost-complexity", cv_alpha=5, seed=3)
    data = encode(make_table(frame))
    full = DecisionTree(algorithm="cart", prune="none").fit(frame).tree_
    choice = choose_alpha(full, data, model.settings())
    assert len(choice.cv_error) == len(choice.alphas) == len(choice.cv_se)
    assert choice.one_se_alpha >= choice.min_alpha
    assert (
        choice.cv_error[np.searchsorted(choice.alphas, choice.min_alpha)] == choice.cv_error.min()
    )
    again = choose_alpha(full, data, model.settings())
    assert np.array_equal(choice.cv_error, again.cv_error)
    pruned = model.fit(frame).tree_
    assert pruned.n_leaves < full.n_leaves


def test_cv_alpha_prunes_folds_at_geometric_means_and_the_root_interval_to_a_leaf():
    # Breiman et al. and rpart score the k-th subtree with each fold's tree pruned at the
    # geometric mean of alphas k and k+1; the one-leaf tree's interval is open above, so the
    # folds' trees become their root. Stratified iris folds train on 45/45/45 rows, so the
    # one-leaf tree predicts the first class and is wrong on 100 of 150 rows.
    from engine.data.encoding import encode
    from engine.data.folds import stratified_folds
    from engine.data.samples import load_sample
    from engine.prune.alpha import choose_alpha

    iris = load_sample("iris")
    model = DecisionTree(algorithm="cart", prune="cost-complexity", cv_alpha=10)
    data = encode(iris)
    full = DecisionTree(algorithm="cart").fit(iris).tree_
    choice = choose_alpha(full, data, model.settings())
    assert choice.n_leaves[-1] == 1 and choice.cv_error[-1] == pytest.approx(100 / 150)
    assert choice.cv_se[-1] == pytest.approx(np.sqrt(2 / 3 * 1 / 3 / 150))
    # scikit-learn on the same folds, pruned with ccp_alpha at the same points. From the second
    # subtree on: the unpruned fold trees differ where attributes tie (its random feature order).
    probes = np.sqrt(choice.alphas[:-1] * choice.alphas[1:])
    wrong = np.zeros(len(probes))
    for test in stratified_folds(data.y, data.n_rows, 10, 1):
        train = np.setdiff1d(np.arange(data.n_rows), test)
        for k, beta in enumerate(probes):
            ref = sklearn_tree.DecisionTreeClassifier(ccp_alpha=beta, random_state=0)
            ref.fit(data.X[train], data.y[train])
            wrong[k] += (ref.predict(data.X[test]) != data.y[test]).sum()
    assert choice.cv_error[1:-1] == pytest.approx(wrong[1:] / 150)


def test_best_first_queue_takes_nodes_in_scikit_learns_max_leaf_nodes_order():
    # scikit-learn grows best-first when max_leaf_nodes is set, by the same priority: the
    # node's share of the rows times its split's impurity decrease. The tree with k + 1 leaves
    # has one split more than the tree with k: the node split k-th. Nodes are compared by
    # their class counts (attributes tie at some nodes, where its random feature order picks).
    from engine.data.encoding import encode
    from engine.data.samples import load_sample
    from engine.growth import grow_steps
    from engine.settings import resolve
    from engine.tree import Tree

    data = encode(load_sample("iris"))
    steps = list(grow_steps(data, resolve(algorithm="cart", growth="best")))
    ours = []
    for k, step in enumerate(steps):
        tree = Tree(step.root, data.schema)
        ours.append(tuple(tree.node(step.expanded).distribution.round().astype(int)))
        if k:  # the node taken is the head of the queue the previous step showed
            assert step.expanded == steps[k - 1].queue[0][0]
            assert step.priority == pytest.approx(steps[k - 1].queue[0][1])
        priorities = [p for _, p in step.queue]
        assert priorities == sorted(priorities, reverse=True)
    theirs, before = [], set()
    for leaves in range(2, len(steps) + 2):
        ref = sklearn_tree.DecisionTreeClassifier(max_leaf_nodes=leaves, random_state=0)
        t = ref.fit(data.X, data.y).tree_
        split = {
            tuple((t.value[i][0] * t.weighted_n_node_samples[i]).round().astype(int))
            for i in range(t.node_count)
            if t.children_left[i] >= 0
        }
        (new,) = split - before
        theirs.append(new)
        before = split
    assert ours == theirs
    assert len(ours) == 8 and ours[:3] == [(50, 50, 50), (0, 50, 50), (0, 49, 5)]
    # The priority is n/N x Gini gain: at the root, 1 x (2/3 - 1/3 x 0 - 2/3 x 1/2) = 1/3.
    assert steps[0].priority == pytest.approx(1 / 3)

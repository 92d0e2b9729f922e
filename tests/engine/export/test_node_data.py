"""The data behind a node's plot (issue 32): every bar, bin and point is the engine's own
rows at that node, so the figures add up to the node's weight by class."""

from pathlib import Path

import numpy as np
import pytest

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.estimator import DecisionTree
from engine.export.node_data import (
    LeafData,
    NominalSplitData,
    NumericSplitData,
    RegressionSplitData,
    node_data,
    nodes_data,
)

DATA = Path(__file__).resolve().parents[3] / "resources" / "datasets"


def _fit(table, task="classification", **options):
    model = (
        DecisionTree(**options).fit(table)
        if task == "classification"
        else DecisionTree(task=task, **options).fit(table)
    )
    return model, encode(table, model.settings_.task)


def _every_node_adds_up(model, data):
    tree = model.tree_
    kinds = set()
    for node in tree.nodes():
        plot = node_data(tree, data, node.id, model.settings_)
        kinds.add(type(plot))
        if isinstance(plot, NumericSplitData):
            assert plot.counts.shape == (len(tree.classes), len(plot.edges) - 1)
            np.testing.assert_allclose(plot.counts.sum(axis=1) + plot.missing, node.distribution)
            assert plot.threshold in plot.edges
            left = plot.edges[1:] <= plot.threshold
            assert plot.shares[0] == pytest.approx(node.children[0].weight / node.weight)
            np.testing.assert_allclose(
                plot.counts[:, left].sum() + plot.missing.sum() * plot.shares[0],
                node.children[0].weight,
            )
        elif isinstance(plot, NominalSplitData):
            np.testing.assert_allclose(plot.counts.sum(axis=1) + plot.missing, node.distribution)
        elif isinstance(plot, LeafData):
            np.testing.assert_allclose(plot.counts, node.distribution)
        np.testing.assert_allclose(plot.by_class, node.distribution)
        assert sum(getattr(plot, "shares", [1.0])) == pytest.approx(1.0)
    return kinds


def test_iris_bins_add_up_to_each_nodes_rows_by_class():
    model, data = _fit(read_table(DATA / "iris.arff"), algorithm="c45")
    assert _every_node_adds_up(model, data) == {NumericSplitData, LeafData}
    root = node_data(model.tree_, data, 0, model.settings_)
    assert root.n_rows == 150 and root.counts.sum() == 150
    # Bins are closed on the right: everything left of the cut went to the first branch.
    left = root.edges[1:] <= root.threshold
    np.testing.assert_allclose(
        root.counts[:, left].sum(axis=1), model.tree_.root.children[0].distribution
    )


def test_weather_numeric_bins_add_up_to_each_nodes_rows_by_class():
    for algorithm in ("c45", "cart"):
        model, data = _fit(
            read_table(DATA / "weather-numeric.arff"),
            algorithm=algorithm,
            prune="none",
            min_samples_leaf=1,
        )
        assert NumericSplitData in _every_node_adds_up(model, data)


def test_weather_nominal_bars_equal_the_nodes_counts(weather):
    model, data = _fit(weather, algorithm="id3")
    assert _every_node_adds_up(model, data) == {NominalSplitData, LeafData}
    root = node_data(model.tree_, data, 0, model.settings_)
    assert root.attribute == "outlook" and root.categories == ("sunny", "overcast", "rainy")
    # yes / no per outlook, as the seeds count them: sunny 2/3, overcast 4/0, rainy 3/2.
    np.testing.assert_array_equal(root.counts, [[2, 4, 3], [3, 0, 2]])
    assert root.branch == (0, 1, 2)
    assert root.shares == pytest.approx((5 / 14, 4 / 14, 5 / 14))
    for k, child in enumerate(model.tree_.root.children):
        np.testing.assert_array_equal(root.counts[:, k], child.distribution)


def test_cart_subsets_say_each_categorys_branch(weather):
    model, data = _fit(weather, algorithm="cart", min_samples_leaf=1, prune="none")
    root = node_data(model.tree_, data, 0, model.settings_)
    assert isinstance(root, NominalSplitData)
    assert sorted(set(root.branch)) == [0, 1]
    for b, child in enumerate(model.tree_.root.children):
        in_branch = np.array(root.branch) == b
        np.testing.assert_allclose(root.counts[:, in_branch].sum(axis=1), child.distribution)


def test_missing_values_count_with_their_fractional_weights(weather):
    frame = weather.frame.copy()
    frame.loc[[0, 5, 9], "outlook"] = None
    frame.loc[[2, 7], "humidity"] = None
    from engine.data.table import make_table

    table = make_table(frame, categories={"windy": ["TRUE", "FALSE"], "play": ["yes", "no"]})
    model, data = _fit(table, algorithm="c45", prune="none", min_samples_leaf=1)
    _every_node_adds_up(model, data)
    root = node_data(model.tree_, data, 0, model.settings_)
    assert root.missing.sum() > 0


def test_regression_points_means_and_sample():
    table = read_table(DATA / "weather-numeric.arff", target="temperature")
    model, data = _fit(table, task="regression", algorithm="cart", min_samples_leaf=2, prune="none")
    tree = model.tree_
    root = node_data(tree, data, 0, model.settings_)
    assert isinstance(root, RegressionSplitData)
    assert root.n_known == root.n_sampled == len(root.x) == 14 and not root.sampled
    assert root.means == pytest.approx(tuple(c.value for c in tree.root.children))
    few = node_data(tree, data, 0, model.settings_, max_points=5)
    assert few.n_sampled == len(few.x) == len(few.y) == 5 and few.sampled and few.n_known == 14
    leaf = next(n for n in tree.nodes() if n.is_leaf)
    plot = node_data(tree, data, leaf.id, model.settings_)
    assert plot.classes is None and plot.counts.sum() == pytest.approx(leaf.weight)
    assert plot.mean == pytest.approx(leaf.value)


def _same(one, other) -> None:
    assert type(one) is type(other)
    for name, value in vars(one).items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(value, getattr(other, name))
        else:
            assert value == pytest.approx(getattr(other, name), nan_ok=True), name


def test_every_nodes_data_in_one_walk_is_node_datas(weather):
    """The canvas's and the image's plots come from one walk down the tree: node for node the
    same figures as the inspector's, missing values (fractional weights) included."""
    frame = weather.frame.copy()
    frame.loc[[0, 5, 9], "outlook"] = None
    frame.loc[[2, 7], "humidity"] = None
    from engine.data.table import make_table

    table = make_table(frame, categories={"windy": ["TRUE", "FALSE"], "play": ["yes", "no"]})
    iris = read_table(DATA / "iris.arff")
    regression = read_table(DATA / "weather-numeric.arff", target="temperature")
    for model, data in (
        _fit(table, algorithm="c45", prune="none", min_samples_leaf=1),
        _fit(weather, algorithm="cart", min_samples_leaf=1, prune="none"),
        _fit(iris, algorithm="cart"),
        _fit(regression, task="regression", algorithm="cart", min_samples_leaf=2, prune="none"),
    ):
        tree = model.tree_
        every = nodes_data(tree, data)
        assert sorted(every) == [n.id for n in tree.nodes()]
        for node in tree.nodes():
            _same(every[node.id], node_data(tree, data, node.id, model.settings_))
        leaf = max(n.id for n in tree.nodes())
        some = nodes_data(tree, data, [leaf, 0])
        assert sorted(some) == [0, leaf]
        _same(some[leaf], every[leaf])

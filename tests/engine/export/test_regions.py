"""Decision regions (issue 32): the boxes are exact, so every point of the plane is predicted
in its box as the tree's own predict routes it, missing held values (fractions) included."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.io import read_table
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.regions import decision_regions, fit_on_two, on_two, plane_points
from engine.fitting import fit_tree
from engine.predict import leaf_weights, predict_proba, predict_value

DATA = Path(__file__).resolve().parents[3] / "resources" / "datasets"


def _iris(**options):
    table = read_table(DATA / "iris.arff")
    model = DecisionTree(**options).fit(table)
    return model, encode(table)


def _points(regions, n=400, seed=3):
    """Random points over the plane, on the thresholds too (where ``<=`` decides)."""
    rng = np.random.default_rng(seed)
    xs = np.concatenate([rng.uniform(0, 8, n), regions.x1[np.isfinite(regions.x1)]])
    ys = np.concatenate([rng.uniform(-1, 4, n), regions.y1[np.isfinite(regions.y1)]])
    m = min(len(xs), len(ys))
    return xs[:m], ys[:m]


def _instances(regions, xs, ys):
    X = np.tile(regions.held, (len(xs), 1))
    X[:, regions.x_attribute], X[:, regions.y_attribute] = xs, ys
    return np.asfortranarray(X)


def _agrees_with_predict(tree, regions):
    xs, ys = _points(regions)
    X = _instances(regions, xs, ys)
    where = regions.at(xs, ys)
    assert (where >= 0).all()  # the boxes cover the plane...
    for x, y in zip(xs, ys, strict=True):  # ...once
        inside = ((regions.x0 < x) & (x <= regions.x1) & (regions.y0 < y) & (y <= regions.y1)).sum()
        assert inside == 1
    if tree.is_regression:
        np.testing.assert_allclose(regions.outputs[where], predict_value(tree, X))
    else:
        np.testing.assert_allclose(regions.outputs[where], predict_proba(tree, X), atol=1e-12)
    reached: dict[int, dict[int, float]] = {}
    for leaf, (rows, weights) in leaf_weights(tree, X).items():
        for r, w in zip(rows, weights, strict=True):
            reached.setdefault(int(r), {})[leaf] = float(w)
    for k, region in enumerate(where):
        leaves = dict(zip(regions.leaves[region], regions.shares[region], strict=True))
        assert leaves.keys() == reached[k].keys()
        for leaf, share in leaves.items():
            assert share == pytest.approx(reached[k][leaf])


def test_the_petals_boxes_are_the_iris_trees_leaves():
    model, data = _iris(algorithm="c45")
    tree = model.tree_
    regions = decision_regions(tree, 2, 3, data.X[0])
    assert len(regions) == tree.n_leaves  # every split of this tree is on the petals
    assert sorted(leaf for (leaf,) in regions.leaves) == sorted(
        n.id for n in tree.nodes() if n.is_leaf
    )
    assert not regions.shared.any()
    # The root's cut, petalwidth <= 0.6, is the upper edge of setosa's box.
    setosa = regions.at([1.0], [0.3])[0]
    assert regions.y1[setosa] == tree.root.split.threshold
    assert tree.classes[regions.predicted("c45")[setosa]] == "Iris-setosa"
    _agrees_with_predict(tree, regions)


@pytest.mark.parametrize("algorithm", ["c45", "cart"])
def test_held_values_decide_the_other_splits(algorithm):
    model, data = _iris(algorithm=algorithm)
    tree = model.tree_
    for row in (0, 60, 120):
        regions = decision_regions(tree, 0, 1, data.X[row])  # the sepals: no split on them
        assert len(regions) == 1
        (leaf,) = regions.leaves[0]
        assert leaf in leaf_weights(tree, data.X[[row]])
        _agrees_with_predict(tree, regions)


def test_a_missing_held_value_shares_the_plane_among_leaves():
    model, data = _iris(algorithm="c45")
    tree = model.tree_
    held = data.X[100].copy()
    held[3] = np.nan  # petalwidth, the root's attribute, missing
    regions = decision_regions(tree, 0, 2, held)
    assert regions.shared.any()
    for shares in regions.shares:
        assert sum(shares) == pytest.approx(1.0)
    _agrees_with_predict(tree, regions)
    # Every attribute missing but the two: the same rule.
    _agrees_with_predict(tree, decision_regions(tree, 0, 2))


def test_a_regression_trees_boxes_predict_its_means():
    table = read_table(DATA / "iris.arff").with_target("petalwidth")
    model = DecisionTree(algorithm="cart", task="regression", max_depth=4).fit(table)
    data = encode(table, "regression")
    regions = decision_regions(model.tree_, 0, 2, data.X[5])
    assert regions.classes is None and regions.outputs.ndim == 1
    _agrees_with_predict(model.tree_, regions)


def test_a_region_is_found_for_every_node_below():
    model, data = _iris(algorithm="c45")
    tree = model.tree_
    regions = decision_regions(tree, 2, 3, data.X[0])
    assert len(regions.reaching([n.id for n in tree.nodes() if n.is_leaf])) == len(regions)
    child = tree.root.children[1]
    below = [n.id for n in child.walk() if n.is_leaf]
    assert len(regions.reaching(below)) == len(below)


def test_points_are_a_fixed_sample_of_the_rows_with_both_values():
    rng = np.random.default_rng(0)
    n = 120_000
    x = rng.normal(size=n)
    x[::7] = np.nan
    frame = pd.DataFrame(
        {"a": x, "b": rng.normal(size=n), "c": rng.choice(["p", "q"], n).astype(object)}
    )
    data = encode(make_table(frame))
    points = plane_points(data, 0, 1)
    known = int((~np.isnan(x)).sum())
    assert points.n_known == known and points.n_rows == n
    assert len(points.x) == 50_000 and points.sampled
    assert (np.diff(points.rows) > 0).all()
    np.testing.assert_array_equal(points.x, data.X[points.rows, 0])
    np.testing.assert_array_equal(points.target, data.y[points.rows])
    again = plane_points(data, 0, 1)
    np.testing.assert_array_equal(again.rows, points.rows)
    small = plane_points(data, 0, 1, max_points=10**6)
    assert not small.sampled and len(small.x) == known
    lo, hi = small.x_range
    assert lo < np.nanmin(x) and hi > np.nanmax(x)


def test_the_tree_on_two_is_the_tree_of_a_table_of_two():
    model, data = _iris(algorithm="c45")
    table = read_table(DATA / "iris.arff")
    two = encode(make_table(table.frame[["petallength", "sepalwidth", "class"]], target="class"))
    expected = fit_tree(two, model.settings_)
    tree = fit_on_two(data, model.settings_, 2, 1)
    assert [a.name for a in tree.schema.attributes] == ["petallength", "sepalwidth"]
    assert [(n.split and (n.split.attribute, n.split.threshold)) for n in tree.nodes()] == [
        (n.split and (n.split.attribute, n.split.threshold)) for n in expected.nodes()
    ]
    regions = decision_regions(tree, 0, 1)
    assert len(regions) == tree.n_leaves
    _agrees_with_predict(tree, regions)
    np.testing.assert_array_equal(on_two(data, 2, 1).X, data.X[:, [2, 1]])


def test_nominal_or_equal_attributes_are_refused():
    table = read_table(DATA / "weather-numeric.arff")
    model = DecisionTree().fit(table)
    with pytest.raises(ArborError, match="nominal"):
        decision_regions(model.tree_, 0, 1)  # outlook
    with pytest.raises(ArborError, match="two different"):
        decision_regions(model.tree_, 1, 1)
    with pytest.raises(ArborError, match="needs 4 values"):
        decision_regions(model.tree_, 1, 2, np.zeros(2))

"""The learning curve (issue 37): training and cross-validated error against training size,
on cross-validation's folds, with nested class-keeping parts."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode, subset
from engine.data.folds import stratified_folds, training_rows
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.errors import ArborError
from engine.evaluate.learning_curve import (
    error_of,
    learning_curve,
    nested_order,
    training_sizes,
)
from engine.fitting import fit_tree
from engine.settings import resolve


@pytest.fixture(scope="module")
def iris():
    return encode(load_sample("iris"))


def test_iris_curve_shape_and_one_cell_worked_again(iris):
    settings = resolve(algorithm="c45")
    curve = learning_curve(iris, settings, folds=3, steps=4, seed=2)
    assert curve.sizes.tolist() == [25, 50, 75, 100] and curve.measure == "error rate"
    assert curve.training.shape == curve.validation.shape == (3, 4)
    # Fold 2 at 50 rows, by hand: the same folds cross-validation deals, the same parts.
    test = stratified_folds(iris.y, 150, 3, 2)[1]
    order = nested_order(iris.y, training_rows(test, 150), np.random.default_rng((2, 1)))
    tree = fit_tree(subset(iris, order[:50]), settings)
    assert curve.training[1, 1] == error_of(tree, subset(iris, order[:50]))
    assert curve.validation[1, 1] == error_of(tree, subset(iris, test))
    # More rows: the held-out error falls; the tree fits its own rows better than new ones.
    assert curve.validation_mean[-1] < curve.validation_mean[0]
    assert (curve.training_mean <= curve.validation_mean).all()
    assert curve.validation_std.shape == (4,) and (curve.validation_std >= 0).all()
    assert learning_curve(iris, settings, folds=3, steps=4, seed=2).as_dict() == curve.as_dict()


def test_nested_parts_keep_the_class_shares():
    y = np.repeat([0, 1, 2], [60, 30, 10])
    order = nested_order(y, np.arange(100), np.random.default_rng(0))
    assert sorted(order.tolist()) == list(range(100))
    assert np.bincount(y[order[:10]]).tolist() == [6, 3, 1]
    assert np.bincount(y[order[:50]]).tolist() == [30, 15, 5]


def test_a_noise_free_rule_is_learnt_exactly_and_regression_counts_rmse():
    x = np.r_[0:20, 40:60].astype(float)  # a gap: every cut between 19 and 40 is right
    frame = pd.DataFrame({"x": x, "big": np.where(x >= 30, "yes", "no")})
    data = encode(make_table(frame, target="big"))
    curve = learning_curve(data, resolve(algorithm="cart", prune="none"), folds=4, steps=3)
    assert curve.training.max() == 0.0 and curve.validation[:, -1].max() == 0.0
    frame = pd.DataFrame({"x": x, "y": 2 * x})
    data = encode(make_table(frame, target="y"), "regression")
    settings = resolve(algorithm="cart", task="regression", prune="none")
    curve = learning_curve(data, settings, folds=4, steps=3)
    assert curve.measure == "RMSE" and curve.training.max() == 0.0  # a leaf per row
    assert 0 < curve.validation_mean[-1] < curve.validation_mean[0]


def test_sizes_and_refusals():
    assert training_sizes(9, 20).tolist() == list(range(2, 10))
    with pytest.raises(ArborError, match="at least 2 steps"):
        training_sizes(50, 1)
    with pytest.raises(ArborError, match="at least 2 folds"):
        learning_curve(encode(load_sample("weather")), resolve(), folds=1)

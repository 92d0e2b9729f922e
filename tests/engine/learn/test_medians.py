"""Median leaves (criterion absolute_error): seed 004's median point estimate."""

import numpy as np
import pandas as pd
import pytest

from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.learn.medians import weighted_median


def _frame(n=60, seed=0):
    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 10, n), 1)
    z = np.round(rng.normal(size=n), 2)
    # skewed noise: the median and the mean of a leaf differ
    y = np.where(x > 5, 10.0, 0.0) + rng.exponential(2.0, n)
    return pd.DataFrame({"x": x, "z": z, "y": y})


@pytest.mark.parametrize("n", [1, 2, 5, 8])
def test_unit_weights_give_numpys_median(n):
    y = np.random.default_rng(n).normal(size=n)
    assert weighted_median(y, np.ones(n)) == np.median(y)


def test_leaves_predict_the_median_of_their_rows():
    frame = _frame()
    model = DecisionTree(
        "cart", task="regression", criterion="absolute_error", prune="none", max_depth=2
    ).fit(frame)
    mean = DecisionTree("cart", task="regression", prune="none", max_depth=2).fit(frame)
    predicted = model.predict(frame)
    for value in np.unique(predicted):
        rows = frame.y[predicted == value]
        assert value == np.median(rows)
        assert model.tree_.root.impurity >= 0
    assert not np.allclose(predicted, mean.predict(frame))  # not the means
    root = model.tree_.root
    assert root.value == np.median(frame.y)
    assert root.impurity == pytest.approx(np.mean(np.abs(frame.y - np.median(frame.y))))


def test_growth_steps_show_medians():
    from engine.data.encoding import encode
    from engine.data.table import make_table
    from engine.growth import grow_steps
    from engine.settings import resolve

    frame = _frame()
    settings = resolve(algorithm="cart", task="regression", criterion="absolute_error")
    step = next(grow_steps(encode(make_table(frame), "regression"), settings))
    assert step.root.value == np.median(frame.y)


def test_what_absolute_error_refuses():
    frame = _frame()
    fit = DecisionTree("cart", task="regression", criterion="absolute_error").fit
    with pytest.raises(ArborError, match="nominal"):
        fit(frame.assign(c=["a", "b"] * 30)[["c", "x", "y"]])
    with pytest.raises(ArborError, match="missing values"):
        fit(frame.assign(x=frame.x.where(frame.index > 0)))
    with pytest.raises(ArborError, match="splitter exact"):
        DecisionTree(
            "cart", task="regression", criterion="absolute_error", splitter="histogram"
        ).fit(frame)
    with pytest.raises(ArborError, match="regression criterion"):
        DecisionTree("cart", criterion="absolute_error").fit(frame.assign(y=frame.y > 5))
    from engine.scale.training import fit_partitions
    from engine.settings import resolve

    settings = resolve(algorithm="cart", task="regression", criterion="absolute_error")
    with pytest.raises(ArborError, match="in memory"):
        fit_partitions(None, settings, None)

"""Bias, variance and noise (issue 37): the squared-error decomposition and Domingos' for 0-1
loss, on generated tables whose noise and optimal predictions are known."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.errors import ArborError
from engine.evaluate.bias_variance import (
    bias_variance,
    points,
    squared_error_parts,
    zero_one_parts,
)
from engine.settings import resolve

NOISE_SD = 0.5


def _regression(n=1500, seed=2, continuous=False):
    """y = sin(x) + N(0, 0.5²), x one of 10 values (so every point repeats) or continuous."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, n) if continuous else rng.integers(0, 10, n).astype(float)
    y = np.sin(x) + rng.normal(0, NOISE_SD, n)
    return encode(make_table(pd.DataFrame({"x": x, "y": y}), target="y"), "regression")


def _classes(n=1500, seed=0):
    """P(b | x) = 0.8 for x >= 4 and 0.2 below: the optimal class is b from 4 up, and the
    Bayes error 0.2."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 8, n)
    label = np.where(rng.random(n) < np.where(x >= 4, 0.8, 0.2), "b", "a")
    frame = pd.DataFrame({"x": x.astype(float), "y": label})
    return encode(make_table(frame, target="y"))


@pytest.fixture(scope="module")
def iris():
    return load_sample("iris")


CART_REGRESSION = resolve(algorithm="cart", task="regression", prune="none")


def test_squared_error_noise_is_the_targets_known_variance():
    bv = bias_variance(_regression(), CART_REGRESSION, values=[1, 4], resamples=5)
    assert bv.loss == "squared error" and bv.noise_rows == bv.test_rows == 500
    noise = bv.column("noise")
    assert noise[0] == noise[1] == pytest.approx(NOISE_SD**2, rel=0.1)
    error, bias, variance = bv.column("error"), bv.column("bias"), bv.column("variance")
    np.testing.assert_allclose(error, noise + bias + variance, rtol=1e-12)
    # One split cannot follow sin(x) over ten values: bias² dominates. Four levels reach every
    # value of x: no bias left (an unbiased estimate: it may dip just below 0).
    assert bias[0] > 0.25 and abs(bias[1]) < 0.01 and error[1] < error[0]


def test_without_repeated_rows_noise_cannot_be_told_from_bias():
    bv = bias_variance(
        _regression(n=300, continuous=True), CART_REGRESSION, values=[3], resamples=3
    )
    assert bv.noise_rows == 0 and bv.column("noise")[0] == 0.0
    np.testing.assert_allclose(bv.column("error"), bv.column("bias") + bv.column("variance"))
    assert bv.column("bias")[0] > NOISE_SD**2 * 0.8  # the noise shows as bias


def test_zero_one_loss_noise_is_the_bayes_error_and_the_one_split_has_no_bias():
    bv = bias_variance(_classes(), resolve(algorithm="c45"), values=[1, 3], resamples=6)
    assert bv.loss == "0-1 loss" and bv.noise_rows == bv.test_rows
    assert bv.column("noise") == pytest.approx([0.2, 0.2], abs=0.04)
    # The split at x = 4 gives the optimal class everywhere: no bias, and the error is the noise.
    assert bv.column("bias").tolist() == [0.0, 0.0]
    assert bv.column("error") == pytest.approx(bv.column("noise"))
    assert bv.chosen == bv.chosen_depth == 1


def _empirical_zero_one(codes, y):
    return float((codes != y).mean())


def test_domingos_identity_holds_exactly_for_three_classes_and_shared_points():
    rng = np.random.default_rng(5)
    n, k, sets = 60, 3, 7
    group = rng.integers(0, 12, n)  # 12 points, their rows scattered
    y = rng.integers(0, k, n)
    per_point = rng.integers(0, k, (sets, 12))  # a tree predicts the same at the same point
    codes = per_point[:, group]
    d = zero_one_parts(codes, y, group, k)
    assert d.error == pytest.approx(_empirical_zero_one(codes, y), abs=1e-12)
    assert d.error == pytest.approx(d.noise_term + d.bias + d.variance, abs=1e-12)
    assert d.variance == pytest.approx(d.unbiased_variance - d.biased_variance, abs=1e-12)


def test_domingos_two_class_terms_by_hand():
    # One point, five rows: labels 0,0,0,1,1 (optimal 0, noise 0.4); four trees: 1,1,1,0.
    y = np.array([0, 0, 0, 1, 1])
    codes = np.repeat(np.array([[1], [1], [1], [0]]), 5, axis=1)
    d = zero_one_parts(codes, y, np.zeros(5, dtype=int), 2)
    # Main prediction 1: bias 1; variance 1/4, biased; c1 = 2 P(optimal) - 1 = -1/2.
    assert (d.bias, d.noise, d.unbiased_variance) == (1.0, pytest.approx(0.4), 0.0)
    assert d.biased_variance == pytest.approx(0.25) and d.variance == pytest.approx(-0.25)
    assert d.noise_term == pytest.approx(-0.5 * 0.4)
    assert d.error == pytest.approx(_empirical_zero_one(codes, y))  # 0.55


def test_squared_error_identity_with_weights():
    rng = np.random.default_rng(1)
    group = rng.integers(0, 5, 40)
    y, w = rng.normal(size=40), rng.uniform(0.5, 2, 40)
    predictions = rng.normal(size=(6, 5))[:, group]
    d = squared_error_parts(predictions, y, group, w)
    direct = np.average(((predictions - y) ** 2).mean(axis=0), weights=w)
    assert d.error == pytest.approx(direct) == pytest.approx(d.noise + d.bias + d.variance)


def test_points_number_rows_with_the_same_values():
    X = np.array([[1.0, 2.0], [1.0, np.nan], [1.0, 2.0], [1.0, np.nan], [0.0, 2.0]])
    g = points(X)
    assert g[0] == g[2] and g[1] == g[3] and len(set(g.tolist())) == 3


def test_same_seed_same_figures_and_folds_resampling(iris):
    data, settings = encode(iris), resolve(algorithm="c45")
    one = bias_variance(data, settings, values=[1, 3], resampling="folds", resamples=3, seed=4)
    two = bias_variance(data, settings, values=[3, 1], resampling="folds", resamples=3, seed=4)
    assert one.as_dict() == two.as_dict() and one.values == (1, 3)
    np.testing.assert_allclose(
        one.column("error"), one.column("noise_term") + one.column("bias") + one.column("variance")
    )


def test_leaves_default_values_and_the_chosen_trees_leaves(iris):
    bv = bias_variance(encode(iris), resolve(algorithm="cart", alpha=0.0), "leaves", resamples=2)
    assert bv.parameter == "leaves" and bv.values[0] == 2 and len(bv.values) <= 12
    assert bv.chosen == bv.chosen_leaves >= 2 and bv.chosen in bv.values  # always among them


def test_the_leaves_sweep_is_grown_unpruned_unless_pruning_is_kept(iris):
    # CART's cost-complexity pruning cuts every size from 3 leaves up back to the same tree on
    # iris: kept, the sweep shows one tree three times; unpruned, the sizes differ.
    data, cart = encode(iris), resolve(algorithm="cart")
    sizes = dict(parameter="leaves", values=[3, 4, 7], resamples=3)
    kept = bias_variance(data, cart, keep_pruning=True, **sizes)
    grown = bias_variance(data, cart, **sizes)
    assert kept.keep_pruning and not grown.keep_pruning and grown.as_dict()["keep_pruning"] is False
    assert len(set(kept.column("error").round(12))) == 1
    assert len(set(grown.column("error").round(12))) > 1
    assert grown.column("error")[1] > grown.column("error")[0]  # the 4th leaf costs a test row
    # The chosen tree is the user's own, pruned, whichever the sweep.
    assert grown.chosen == kept.chosen == grown.chosen_leaves == 3


def test_bias_falls_and_variance_rises_with_depth_unpruned():
    # y = sin(x / 6) over 40 values of x: one split leaves most of the curve's bias, six
    # levels follow it but on fewer rows per leaf.
    rng = np.random.default_rng(0)
    x = rng.integers(0, 40, 400).astype(float)
    y = np.sin(x / 6) + rng.normal(0, NOISE_SD, 400)
    data = encode(make_table(pd.DataFrame({"x": x, "y": y}), target="y"), "regression")
    bv = bias_variance(data, CART_REGRESSION, values=[1, 2, 4, 6], resamples=10)
    bias, variance = bv.column("bias"), bv.column("variance")
    assert bias[0] == bias.max() and bias[0] > 2 * bias[2] and bias[-1] < bias[1]
    assert variance[0] == variance.min() and variance[-1] > 2 * variance[0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"parameter": "width"}, "vary depth or leaves"),
        ({"resampling": "jackknife"}, "bootstrap or folds"),
        ({"resamples": 1}, "at least 2"),
        ({"values": [0, 2]}, "at least 1"),
    ],
)
def test_bad_requests_are_refused(iris, kwargs, message):
    with pytest.raises(ArborError, match=message):
        bias_variance(encode(iris), resolve(), **{"values": [1], **kwargs})

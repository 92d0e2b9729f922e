"""Lift and a fair comparison (issue 33, item 4): gains and lift from the ROC curve against a
direct count, the least-cost threshold against brute force, and the corrected resampled
paired t-test by hand and against scipy's t distribution."""

from __future__ import annotations

import numpy as np
import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.evaluate.curves import class_curves
from engine.evaluate.evaluation import cross_validate, summarise
from engine.evaluate.gains import (
    cost_optimal_threshold,
    curve_least_cost,
    gains_points,
    lift_points,
)
from engine.evaluate.paired_test import corrected_t, same_folds_test
from engine.runs import evaluation_from_dict, evaluation_to_dict
from engine.settings import resolve

RNG = np.random.default_rng(5)
SCORES = RNG.choice([0.1, 0.3, 0.5, 0.8, 0.95], size=60)
Y = (RNG.random(60) < SCORES).astype(int)
WEIGHT = RNG.choice([1.0, 2.0], size=60)


def test_gains_and_lift_by_counting():
    proba = np.column_stack([1 - SCORES, SCORES])
    curve = class_curves(proba, Y, ("no", "yes"), WEIGHT)[1]
    gains = gains_points(curve)
    n, found = WEIGHT.sum(), WEIGHT[Y == 1].sum()
    expected = [(0.0, 0.0)] + [
        (WEIGHT[s <= SCORES].sum() / n, WEIGHT[(s <= SCORES) & (Y == 1)].sum() / found)
        for s in sorted(set(SCORES), reverse=True)
    ]
    assert np.allclose(gains, expected)
    lift = lift_points(curve)
    assert np.allclose(lift[:, 1], gains[1:, 1] / gains[1:, 0])
    assert lift[-1].tolist() == pytest.approx([1.0, 1.0])  # everyone targeted: no lift


@pytest.mark.parametrize("costs", [(1.0, 1.0), (1.0, 5.0), (4.0, 1.0)])
def test_least_cost_threshold_by_brute_force(costs):
    cost_fp, cost_fn = costs
    op = cost_optimal_threshold(SCORES, Y == 1, WEIGHT, cost_fp, cost_fn, "yes")
    totals = {
        t: cost_fp * WEIGHT[(t <= SCORES) & (Y == 0)].sum()
        + cost_fn * WEIGHT[(t > SCORES) & (Y == 1)].sum()
        for t in [np.inf, *sorted(set(SCORES))]
    }
    assert op.cost == pytest.approx(min(totals.values()))
    assert totals[op.threshold] == pytest.approx(op.cost)
    # The stored curve (its thresholds kept) gives the same point.
    curve = class_curves(np.column_stack([1 - SCORES, SCORES]), Y, ("no", "yes"), WEIGHT)[1]
    assert curve_least_cost(curve, cost_fp, cost_fn).threshold == op.threshold
    with pytest.raises(ArborError):
        cost_optimal_threshold(SCORES, Y == 1, cost_fp=-1)


def test_corrected_t_by_hand_and_scipy():
    a = [0.80, 0.75, 0.90, 0.85, 0.70]
    b = [0.85, 0.80, 0.90, 0.95, 0.80]
    d = np.subtract(b, a)  # 0.05, 0.05, 0, 0.1, 0.1: mean 0.06, variance 0.007 / 4
    t_hand = 0.06 / np.sqrt(0.00175 * (1 / 5 + 1 / 4))
    test = corrected_t(a, b, 1 / 4)
    assert test.t == pytest.approx(t_hand) and test.df == 4
    assert test.mean_difference == pytest.approx(d.mean())
    stats = pytest.importorskip("scipy.stats")
    assert test.p == pytest.approx(2 * stats.t.sf(t_hand, 4))
    assert "B beats A" in test.sentence() and "no evidence" in test.sentence()
    # The uncorrected variance would have made the same folds look convincing.
    assert 2 * stats.t.sf(0.06 / np.sqrt(0.00175 / 5), 4) < 0.05 < test.p


def test_same_folds_only():
    data = encode(load_sample("iris"))
    small = resolve(algorithm="cart", prune="none", max_depth=1)
    full = resolve(algorithm="cart", prune="none")
    a, b = cross_validate(data, small, 5, 3), cross_validate(data, full, 5, 3)
    assert a.fold_seed == 3
    test = same_folds_test(a, b, "k", "k", data.n_rows)
    assert test.refused is None and test.k == 5 and test.test_share == pytest.approx(0.25)
    assert test.mean_difference > 0.2 and test.p < 0.05 and "evidence that B" in test.sentence()
    other_seed = cross_validate(data, full, 5, 4)
    assert "different seeds" in same_folds_test(a, other_seed, "k", "k", 150).refused
    assert "different data" in same_folds_test(a, b, "k", "j", 150).refused
    assert (
        "different numbers"
        in same_folds_test(a, cross_validate(data, full, 3, 3), "k", "k", 150).refused
    )
    held = summarise("test set", data, np.full((150, 3), 1 / 3))
    assert "no folds" in same_folds_test(a, held, "k", "k", 150).sentence()
    weka = cross_validate(data, full, 5, 3, weka_folds=True)
    assert "as Weka deals them" in same_folds_test(a, weka, "k", "k", 150).refused
    # A run read back from a project keeps its folds' seed and dealing.
    assert evaluation_from_dict(evaluation_to_dict(a), "test").fold_seed == 3
    assert evaluation_from_dict(evaluation_to_dict(weka), "test").weka_folds is True

"""Figures labelled by how they were measured: training, cross-validation, and the 0-R / 1-R
baselines measured the same way on the same folds."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode, subset
from engine.data.folds import stratified_folds
from engine.data.io import read_table
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.evaluate.baseline import baselines, fit_one_r, fit_zero_r
from engine.evaluate.evaluation import cross_validate
from engine.evaluate.figures import cross_validated, few_rows_note, training_figures
from engine.learn.editing import make_leaf

WEKA = Path(__file__).parents[2] / "fixtures" / "weka" / "data"


def test_weather_training_figures_beside_the_seeds_baselines(weather):
    data = encode(weather)
    tree = DecisionTree(algorithm="id3").fit(weather).tree_
    figures = training_figures(tree, data)
    assert figures.training.tree.accuracy == 1.0 and figures.training.how == "training set"
    assert figures.training.zero_r.accuracy == pytest.approx(9 / 14)  # 5/14 errors, seed 000
    assert figures.training.one_r.accuracy == pytest.approx(10 / 14)  # 1-R on outlook: 4/14 errors
    assert (figures.zero_r_says, figures.one_r_says) == ("predict yes", "on outlook")
    assert figures.cv is None


def test_the_fitted_rules_predict_what_baselines_counts(weather):
    data = encode(weather)
    b = baselines(data)
    zero, one = fit_zero_r(data), fit_one_r(data)
    assert (zero.predict(data.X) != data.y).sum() == b.zero_r_errors
    assert (one.predict(data.X) != data.y).sum() == b.one_r_errors


def _breast_cancer():
    return encode(read_table(WEKA / "breast-cancer.arff"))


def test_baselines_are_cross_validated_on_the_trees_folds():
    data = _breast_cancer()
    settings = DecisionTree(algorithm="c45").settings()
    cv = cross_validated(data, 10, 1, settings=settings)
    assert cv.tree.accuracy == cross_validate(data, settings, 10, 1).accuracy
    # The same folds, refitted by hand: each fold's majority class and 1-R rule.
    zero_right = one_right = 0.0
    for test in stratified_folds(data.y, data.n_rows, 10, 1):
        train = subset(data, np.setdiff1d(np.arange(data.n_rows), test))
        held = subset(data, test)
        majority = np.argmax(np.bincount(train.y, minlength=len(data.schema.classes)))
        zero_right += (held.y == majority).sum()
        one_right += (fit_one_r(train).predict(held.X) == held.y).sum()
    assert cv.zero_r.accuracy == pytest.approx(zero_right / data.n_rows)
    assert cv.one_r.accuracy == pytest.approx(one_right / data.n_rows)
    assert (cv.folds, cv.seed, cv.refit) == (10, 1, "options")


def test_zero_r_cross_validated_equals_scikit_learns_dummy_on_the_same_folds():
    from sklearn.dummy import DummyClassifier
    from sklearn.model_selection import cross_val_predict

    data = _breast_cancer()
    folds = stratified_folds(data.y, data.n_rows, 10, 1)
    splits = [(np.setdiff1d(np.arange(data.n_rows), f), f) for f in folds]
    pred = cross_val_predict(DummyClassifier(strategy="most_frequent"), data.X, data.y, cv=splits)
    cv = cross_validated(data, 10, 1, settings=DecisionTree(algorithm="c45").settings())
    assert cv.zero_r.accuracy == pytest.approx(np.mean(pred == data.y))


def test_a_hand_built_structure_is_cross_validated_with_its_leaves_recounted(weather):
    data = encode(weather)
    full = DecisionTree(algorithm="id3").fit(weather).tree_
    stump = make_leaf(make_leaf(full, 1), 3)  # outlook only: sunny, overcast, rainy leaves
    assert stump.n_leaves == 3
    cv = cross_validated(data, 7, 3, tree=stump)
    # Independently: each test row gets the majority of its outlook among the fold's training rows.
    frame = weather.frame
    right = 0
    for test in stratified_folds(data.y, data.n_rows, 7, 3):
        train = frame.drop(index=test)
        for row in test:
            same = train[train.outlook == frame.outlook[row]].play
            majority = same.value_counts().reindex(["yes", "no"]).fillna(0).idxmax()
            right += majority == frame.play[row]
    assert cv.tree.accuracy == pytest.approx(right / 14) and cv.refit == "structure"
    leaf = make_leaf(full, 0)  # one leaf: its structure is 0-R
    one_leaf = cross_validated(data, 7, 3, tree=leaf)
    assert one_leaf.tree.accuracy == pytest.approx(one_leaf.zero_r.accuracy)


def test_regression_has_a_mean_baseline_and_no_one_r():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60)})
    frame["y"] = 2 * frame.x + rng.normal(0, 0.1, 60)
    tree = DecisionTree(algorithm="cart", task="regression", max_depth=2).fit(frame).tree_
    data = encode(make_table(frame), "regression")
    figures = training_figures(tree, data)
    assert figures.training.one_r is None
    assert figures.training.zero_r.rmse == pytest.approx(
        np.sqrt(np.mean((frame.y - frame.y.mean()) ** 2))
    )
    cv = cross_validated(data, 5, 1, tree=tree)
    assert cv.one_r is None and cv.zero_r.rmse > cv.tree.rmse


def test_a_note_when_folds_are_too_small_for_their_spread():
    assert few_rows_note(14, 10) == (
        "With 14 rows in 10 folds each fold tests 1 or 2 rows, so one fold's "
        "score moves in large steps and the spread over the folds says little."
    )
    assert few_rows_note(1000, 10) is None and few_rows_note(14, 0) is None


def _reference_buckets(x, y, w, K, min_bucket):
    """Holte's bucketing row by row, as 1-R was first written here: the oracle for the fast one."""
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], y[order], w[order]
    buckets, counts, i = [], np.zeros(K), 0
    while i < len(xs):
        j = i
        while j < len(xs) and xs[j] == xs[i]:
            counts[ys[j]] += ws[j]
            j += 1
        i = j
        if counts.max() >= min_bucket and (i >= len(xs) or ys[i] != np.argmax(counts)):
            buckets.append((xs[i - 1], counts))
            counts = np.zeros(K)
    if counts.sum() > 0:
        buckets.append((xs[-1], counts))
    return buckets


@pytest.mark.parametrize("seed", range(40))
def test_one_r_buckets_match_the_row_by_row_oracle(seed):
    from engine.evaluate.baseline import _numeric_buckets

    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(1, 400)), int(rng.integers(2, 5))
    x = rng.integers(0, int(rng.integers(2, 60)), n).astype(
        float
    )  # many ties: values of several rows
    if seed % 3 == 0:
        x = rng.normal(size=n).round(int(rng.integers(0, 3)))
    y = (
        rng.integers(0, K, n)
        if seed % 2
        else (x > np.median(x)).astype(int) ^ (rng.random(n) < 0.2)
    )
    w = np.ones(n) if seed % 4 else rng.choice([0.5, 1.0, 2.0], n)
    m = int(rng.integers(1, 8))
    uppers, counts = _numeric_buckets(x, y, w, K, m)
    want = _reference_buckets(x, y, w, K, m)
    assert uppers.tolist() == [u for u, _ in want]
    assert np.allclose(counts, np.array([c for _, c in want]))


@pytest.mark.parametrize("seed", range(4))
def test_one_r_on_a_columns_kept_order_is_one_r_on_its_known_values_sorted(seed):
    """1-R takes a column's stable order kept with the table (growth sorted it already),
    missing values last, instead of sorting the known values again: the same buckets, on a
    table and on a fold of it (whose order is the table's, filtered)."""
    from engine.data.order import column_order
    from engine.evaluate.baseline import _numeric_buckets, _sorted_buckets

    rng = np.random.default_rng(seed)
    n, K = 300, 3
    x = rng.integers(0, 25, n).astype(float)  # ties: their rows stay in row order
    x[rng.random(n) < 0.2] = np.nan
    labels = np.array(list("abc"))[rng.integers(0, K, n)]
    data = encode(make_table(pd.DataFrame({"x": x, "y": labels})))
    fold = subset(data, np.flatnonzero(rng.random(n) < 0.7))
    for part in (data, fold):
        x, y, w = part.X[:, 0], part.y, rng.choice([0.5, 1.0, 2.0], part.n_rows)
        known = ~np.isnan(x)
        ranked = column_order(part, 0)[: int(known.sum())]
        got = _sorted_buckets(x[ranked], y[ranked], w[ranked], K, 6)
        want = _numeric_buckets(x[known], y[known], w[known], K, 6)
        assert got[0].tolist() == want[0].tolist() and np.array_equal(got[1], want[1])


@pytest.mark.parametrize("seed", range(12))
def test_one_r_buckets_compiled_are_numpys_to_the_bit(seed, monkeypatch):
    """The compiled bucket loop (engine.fast.buckets, for attributes of many distinct values)
    closes the buckets numpy's and Python's loop closes, with fractional weights, ties and
    values of several rows: the same uppers and the same class weights, to the bit."""
    pytest.importorskip("numba")
    from engine.compiling.lifecycle import compile_kernels
    from engine.evaluate import baseline

    assert compile_kernels()
    rng = np.random.default_rng(seed)
    n, K = int(rng.integers(1, 3000)), int(rng.integers(1, 5))
    xs = np.sort(rng.normal(size=n).round(int(rng.integers(0, 3))))
    ys = rng.integers(0, K, n)
    ws = rng.choice([1.0, 0.5, 1.0 / 3, 0.7], n) if seed % 2 else np.ones(n)
    m = int(rng.integers(1, 8))
    monkeypatch.setattr(baseline, "COMPILED_LEAST_VALUES", 10**9)
    want = baseline._sorted_buckets(xs, ys, ws, K, m)
    monkeypatch.setattr(baseline, "COMPILED_LEAST_VALUES", 0)
    got = baseline._sorted_buckets(xs, ys, ws, K, m)
    assert got[0].tolist() == want[0].tolist() and got[1].tolist() == want[1].tolist()

"""ROC and precision-recall curves, their areas and the evaluation report, against scikit-learn."""

import doctest

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import (
    average_precision_score,
    precision_recall_curve,
    roc_auc_score,
    roc_curve,
)

import engine.evaluate.curves as curves_module
from engine.data.encoding import encode, encode_like
from engine.data.samples import load_sample
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.evaluate.curves import average_precision, class_curves, roc_auc, roc_points
from engine.evaluate.evaluation import cross_val_predict, cross_validate, evaluate_tree
from engine.evaluate.report import evaluation_text


def test_docstring_examples():
    assert doctest.testmod(curves_module).failed == 0


@pytest.fixture(scope="module")
def iris_out_of_fold():
    data = encode(load_sample("iris"))
    settings = DecisionTree(algorithm="c45").settings()
    proba, _ = cross_val_predict(data, settings, 10, 1)
    return data, settings, proba


def test_iris_one_vs_rest_roc_area_equals_scikit_learn(iris_out_of_fold):
    data, settings, proba = iris_out_of_fold
    ev = cross_validate(data, settings, 10, 1)
    for k, curve in enumerate(ev.curves):
        positive = data.y == k
        assert curve.label == data.schema.classes[k]
        assert curve.roc_auc == pytest.approx(roc_auc_score(positive, proba[:, k]), abs=1e-12)
        assert curve.average_precision == pytest.approx(
            average_precision_score(positive, proba[:, k]), abs=1e-12
        )
        fpr, tpr, _ = roc_curve(positive, proba[:, k], drop_intermediate=False)
        assert np.allclose(curve.roc, np.column_stack([fpr, tpr]))
    weighted = roc_auc_score(data.y, proba, multi_class="ovr", average="weighted")
    assert ev.roc_auc == pytest.approx(weighted, abs=1e-12)
    # The out-of-fold probabilities are the ones cross_validate scores: the same accuracy.
    assert np.mean(proba.argmax(axis=1) == data.y) == pytest.approx(ev.accuracy)
    assert 0.9 < ev.roc_auc < 1.0


def test_weights_count_as_that_many_instances():
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 6, 200) / 5  # many ties, as a tree's leaves give
    positive = rng.random(200) < scores * 0.8
    weight = rng.integers(1, 4, 200).astype(float)
    assert roc_auc(scores, positive, weight) == pytest.approx(
        roc_auc_score(positive, scores, sample_weight=weight)
    )
    assert average_precision(scores, positive, weight) == pytest.approx(
        average_precision_score(positive, scores, sample_weight=weight)
    )
    precision, recall, _ = precision_recall_curve(positive, scores, sample_weight=weight)
    ours = class_curves(
        np.column_stack([1 - scores, scores]), positive.astype(int), ("no", "yes"), weight
    )[1]
    # scikit-learn lists the points from the lowest threshold up and adds (recall 0, precision 1).
    assert np.allclose(ours.pr, np.column_stack([recall[:-1], precision[:-1]])[::-1])


def test_one_class_only_has_no_curve():
    fpr, tpr, _ = roc_points([0.2, 0.4], [True, True])
    assert np.isnan(fpr).all() and np.isnan(roc_auc([0.2, 0.4], [True, True]))


def test_stored_curves_are_thinned_but_areas_are_exact():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 5000)
    p = np.clip(y * 0.3 + rng.random(5000) * 0.7, 0, 1)
    proba = np.column_stack([1 - p, p])
    curve = class_curves(proba, y, ("a", "b"))[1]
    assert len(curve.roc) <= curves_module.MAX_POINTS and tuple(curve.roc[0]) == (0.0, 0.0)
    assert tuple(curve.roc[-1]) == (1.0, 1.0)
    assert curve.roc_auc == pytest.approx(roc_auc_score(y, p))


def test_report_lists_per_class_figures_and_weighted_average(iris_out_of_fold):
    data, settings, _ = iris_out_of_fold
    ev = cross_validate(data, settings, 10, 1)
    text = evaluation_text(ev, "class")
    assert (
        text.splitlines()[1]
        == f"Accuracy: {100 * ev.accuracy:.2f}%  (+/- {100 * ev.accuracy_std:.2f} across 10 folds)"
    )
    line = next(row for row in text.splitlines() if row.startswith("Iris-setosa"))
    assert line.split()[1:] == [
        f"{ev.precision[0]:.3f}",
        f"{ev.recall[0]:.3f}",
        f"{ev.f1[0]:.3f}",
        f"{ev.curves[0].roc_auc:.3f}",
        f"{ev.curves[0].average_precision:.3f}",
    ]
    avg = next(row for row in text.splitlines() if row.startswith("Weighted avg."))
    assert avg.split()[-2] == f"{ev.roc_auc:.3f}"
    per_class = ev.as_dict()["per_class"]
    assert per_class[0]["roc_auc"] == ev.curves[0].roc_auc


def test_a_test_table_is_encoded_against_the_training_schema():
    train = load_sample("weather")
    tree = DecisionTree(algorithm="id3").fit(train).tree_
    frame = train.frame.iloc[::-1].reset_index(drop=True).astype(object)
    frame.loc[0, "play"] = "maybe"  # a class the tree never saw
    frame.loc[1, "outlook"] = "foggy"  # an unseen value: routed as missing
    test = encode_like(make_table(frame, target="play"), tree.schema)
    assert test.n_rows == 13 and test.schema is tree.schema
    assert "1 row(s) with a class the tree does not know (maybe) were left out" in test.notes
    assert np.isnan(test.X[0, 0])
    ev = evaluate_tree(tree, test, "test set")
    assert ev.n == 13 and ev.notes == test.notes


def test_a_test_table_without_the_target_is_refused():
    tree = DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_
    table = make_table(pd.DataFrame({"outlook": ["sunny"], "other": ["x"]}), target="other")
    with pytest.raises(ArborError, match="no column 'play'"):
        encode_like(table, tree.schema)


def test_regression_keeps_a_bounded_sample_of_its_points():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.random(3000), "y": rng.random(3000)})
    table = make_table(frame, target="y")
    model = DecisionTree(algorithm="cart", task="regression", max_depth=3).fit(table)
    ev = evaluate_tree(model.tree_, encode(table, "regression"), "training set")
    assert ev.points.shape == (2000, 2) and ev.curves == ()
    assert set(ev.points[:, 0]) <= set(frame["y"])


@pytest.mark.parametrize("seed", range(6))
def test_scores_ranked_through_their_distinct_values_sort_as_a_merge_sort(seed):
    """A million rows of a tree's scores take a few thousand values: the curves order them
    through those (16-bit keys) in exactly the merge sort's order, ties in row order, zero
    and minus zero alike and missing scores last; past 65,535 values, the merge sort."""
    from engine.evaluate.curves import RANKED_LEAST_ROWS, _descending

    rng = np.random.default_rng(seed)
    n = RANKED_LEAST_ROWS + int(rng.integers(0, 50_000))
    values = rng.random(int(rng.integers(1, 5_000)))
    values[0] = 0.0
    scores = values[rng.integers(0, len(values), n)]
    if seed % 2:
        scores[rng.random(n) < 0.01] = np.nan
        scores[rng.random(n) < 0.01] = -0.0
    if seed == 5:
        scores = rng.random(n)  # every score distinct
    assert np.array_equal(_descending(scores), np.argsort(-scores, kind="mergesort"))

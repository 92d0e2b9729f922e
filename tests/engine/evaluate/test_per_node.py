"""Test rows on the tree (issue 32): every node's training and test rows and errors, and
training against test error as the tree is pruned or grown."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.data.encoding import encode, subset
from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.evaluate.evaluation import evaluate_tree, holdout_rows
from engine.evaluate.per_node import (
    HeldOut,
    error_curve,
    known_node_rows,
    node_rows,
    node_rows_of,
    path_curve,
)
from engine.fitting import fit_tree
from engine.growth import grow
from engine.prune.cost_complexity import cost_complexity_path, prune_to_step
from engine.settings import resolve
from engine.tree import Tree


def _split(name: str, task: str = "classification", percent: float = 66):
    data = encode(load_sample(name), task)
    train, test = holdout_rows(data, percent, 1)
    return subset(data, train), subset(data, test)


def _with_missing(data, share: float = 0.2, seed: int = 3):
    """``data`` with a share of its cells missing (rows then split at nodes, as C4.5 does)."""
    X = data.X.copy(order="F")
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return replace(data, X=X)


def _children_add_up(tree: Tree, figures, column: str) -> None:
    values = getattr(figures, column)
    at = figures.position
    for node in tree.nodes():
        if node.children:
            summed = sum(values[at[c.id]] for c in node.children)
            assert summed == pytest.approx(values[at[node.id]], abs=1e-9), (node.id, column)


CASES = [
    ("weather", "id3", {}),
    ("weather", "c45", {}),
    ("iris", "c45", {}),
    ("iris", "cart", {}),
    ("iris", "cart", {"prune": "none"}),
    ("contact-lenses", "id3", {}),
]


@pytest.mark.parametrize(("sample", "algorithm", "options"), CASES)
@pytest.mark.parametrize("missing", [False, True])
def test_per_node_test_counts_add_up_to_the_test_set(sample, algorithm, options, missing):
    train, test = _split(sample)
    if missing:
        test = _with_missing(test)
    tree = fit_tree(train, resolve(algorithm=algorithm, **options))
    figures = node_rows(tree, test, algorithm)
    # Every test row reaches the root whole, and the leaves share it out to the last bit.
    assert figures.test_n[0] == pytest.approx(test.n_rows)
    assert figures.test_n[figures.leaf].sum() == pytest.approx(test.n_rows)
    assert figures.test_dist.sum() >= 0 and np.allclose(
        figures.test_dist.sum(axis=1), figures.test_n
    )
    _children_add_up(tree, figures, "test_n")
    # Training rows are the tree's own counts: they add up the same way.
    assert figures.train_n[0] == pytest.approx(train.n_rows)
    assert figures.train_n[figures.leaf].sum() == pytest.approx(train.n_rows)
    assert (figures.test_errors <= figures.test_n + 1e-9).all()
    assert (figures.train_errors <= figures.train_n + 1e-9).all()


@pytest.mark.parametrize(("sample", "algorithm", "options"), CASES)
def test_leaves_errors_are_the_evaluations_wrong_predictions(sample, algorithm, options):
    train, test = _split(sample)
    tree = fit_tree(train, resolve(algorithm=algorithm, **options))
    figures = node_rows(tree, test, algorithm)
    ev = evaluate_tree(tree, test, "test", algorithm)
    wrong = ev.n - np.trace(ev.confusion)
    assert figures.leaf_sums()[1] == pytest.approx(wrong)
    assert figures.error_rates()[1] == pytest.approx(1 - ev.accuracy)


@pytest.mark.parametrize("algorithm", ["id3", "cart"])
def test_the_training_rows_routed_as_test_rows_give_the_training_figures(algorithm):
    train, _ = _split("iris" if algorithm == "cart" else "weather")
    tree = fit_tree(train, resolve(algorithm=algorithm, prune="none"))
    figures = node_rows(tree, train, algorithm)
    assert np.allclose(figures.test_n, figures.train_n)
    assert np.allclose(figures.test_errors, figures.train_errors)


def test_a_node_predicts_what_the_tree_predicts_there():
    train, test = _split("weather")
    tree = fit_tree(train, resolve(algorithm="id3"))
    figures = node_rows(tree, test, "id3")
    at = figures.position
    for node in tree.nodes():
        k = at[node.id]
        if node.weight > 0:
            dist = node.distribution
            assert figures.predicted[k] == int(np.argmax(dist))
            assert figures.train_errors[k] == pytest.approx(dist.sum() - dist.max())
        wrong = figures.test_n[k] - figures.test_dist[k, figures.predicted[k]]
        assert figures.test_errors[k] == pytest.approx(wrong)


def test_regression_errors_are_squared_errors_summed():
    data = encode(_regression_table(), "regression")
    rows_train, rows_test = holdout_rows(data, 70, 2)
    train, test = subset(data, rows_train), subset(data, rows_test)
    tree = fit_tree(train, resolve(algorithm="cart", task="regression", max_depth=3))
    figures = node_rows(tree, test, "cart")
    ev = evaluate_tree(tree, test, "test", "cart")
    assert figures.leaf_sums()[1] == pytest.approx(ev.rmse**2 * ev.n)
    assert figures.error_rates()[1] == pytest.approx(ev.rmse)
    spread = float(((train.y - train.y.mean()) ** 2).sum())
    assert figures.train_errors[0] == pytest.approx(spread)
    assert figures.test_n[figures.leaf].sum() == pytest.approx(test.n_rows)
    _children_add_up(tree, figures, "test_n")
    assert {"train_rmse", "test_rmse"} <= set(figures.of(0))


def _regression_table():
    from engine.data.table import make_table

    frame = load_sample("iris").frame
    return make_table(frame.drop(columns=[frame.columns[-1]]), target="petallength")


def test_along_the_cost_complexity_path_each_step_is_its_pruned_tree():
    train, test = _split("iris")
    test = _with_missing(test, 0.1)
    full = Tree(grow(train, resolve(algorithm="cart", prune="none")), train.schema)
    path = cost_complexity_path(full)
    curve = path_curve(full, path, test)
    trees = [prune_to_step(full, path, k) for k in range(len(path.pruned))]
    each = error_curve(trees, test, "cart")
    assert np.allclose(curve.train, each.train) and np.allclose(curve.test, each.test)
    assert (curve.leaves == path.n_leaves).all() and (each.leaves == path.n_leaves).all()
    assert np.allclose(curve.train, path.errors)  # CART's own training error per step
    assert curve.measure == "error rate"


def test_held_out_rows_are_remembered_per_tree_and_checked_against_it():
    train, test = _split("weather")
    tree = fit_tree(train, resolve(algorithm="id3"))
    held = HeldOut(test, "the rest")
    assert known_node_rows(tree, held) is None
    first = node_rows_of(tree, held, "id3")
    assert first is node_rows_of(tree, held, "id3") is known_node_rows(tree, held)
    assert held.n == test.n_rows and held.fits(tree)
    other = encode(load_sample("weather-numeric"))
    assert node_rows_of(tree, HeldOut(other, "numbers")) is None


@pytest.mark.parametrize(("sample", "algorithm", "options"), CASES)
def test_leaves_get_the_rows_and_shares_prediction_sends_them(sample, algorithm, options):
    from engine.predict import leaf_weights

    train, test = _split(sample)
    test = _with_missing(test, 0.3, seed=5)
    tree = fit_tree(train, resolve(algorithm=algorithm, **options))
    figures = node_rows(tree, test, algorithm)
    reached = leaf_weights(tree, test.X)  # engine.predict's own walk, node by node
    at = figures.position
    for node in tree.nodes():
        if node.is_leaf:
            rows, shares = reached.get(node.id, (np.zeros(0, int), np.zeros(0)))
            assert figures.test_n[at[node.id]] == pytest.approx(shares.sum(), abs=1e-12)
            by_class = np.bincount(test.y[rows], weights=shares, minlength=len(tree.classes))
            assert figures.test_dist[at[node.id]] == pytest.approx(by_class, abs=1e-12)


# ---------------------------------------------------------------- cross-validation's held-out rows
CV_CASES = [
    ("weather", "id3", "classification"),
    ("iris", "c45", "classification"),
    ("contact-lenses", "cart", "classification"),
    ("iris petallength", "cart", "regression"),
]


def _cross_validated(sample: str, algorithm: str, task: str, missing: bool):
    from engine.evaluate.figures import cross_validated

    table = _regression_table() if task == "regression" else load_sample(sample)
    data = encode(table, task)
    if missing:
        data = _with_missing(data, 0.15, seed=7)
    small = {"max_depth": 4, "prune": "none"} if task == "regression" else {}
    settings = resolve(algorithm=algorithm, task=task, **small)
    measured = cross_validated(data, 5, 1, settings=settings)
    return data, settings, measured


@pytest.mark.parametrize(("sample", "algorithm", "task"), CV_CASES)
@pytest.mark.parametrize("missing", [False, True])
def test_cv_held_out_rows_add_up_to_the_cross_validations_errors(sample, algorithm, task, missing):
    from engine.evaluate.evaluation import cross_validate
    from engine.evaluate.per_node import out_of_fold

    data, settings, measured = _cross_validated(sample, algorithm, task, missing)
    ev = measured.tree
    # The figures are the cross-validation's, unchanged by keeping its predictions.
    again = cross_validate(data, settings, 5, 1)
    assert ev.as_dict() == again.as_dict()
    tree = fit_tree(data, settings)
    held = out_of_fold(data, measured.predictions, tree, "5-fold CV")
    figures = node_rows_of(tree, held, algorithm)
    assert figures.out_of_fold and held.cross_validated and held.side == "CV held-out"
    # Every row is held out once: the root has them all, the leaves share them out.
    assert figures.test_n[0] == pytest.approx(data.n_rows)
    assert figures.test_n[figures.leaf].sum() == pytest.approx(data.n_rows)
    _children_add_up(tree, figures, "test_n")
    _children_add_up(tree, figures, "test_errors")
    if task == "regression":
        assert figures.leaf_sums()[1] == pytest.approx(ev.rmse**2 * ev.n)
        assert figures.error_rates()[1] == pytest.approx(ev.rmse)
    else:
        wrong = ev.n - np.trace(ev.confusion)
        assert figures.leaf_sums()[1] == pytest.approx(wrong, abs=1e-9)
        assert figures.test_errors[0] == pytest.approx(wrong, abs=1e-9)
        assert figures.error_rates()[1] == pytest.approx(1 - ev.accuracy)
        assert np.allclose(figures.test_dist.sum(axis=1), figures.test_n)
    # The training side is the tree's own, as for a test file.
    assert figures.train_n[0] == pytest.approx(data.n_rows)


def test_a_cv_node_counts_its_rows_wrong_predictions_not_its_own():
    from engine.evaluate.per_node import out_of_fold

    data, settings, measured = _cross_validated("weather", "id3", "classification", False)
    tree = fit_tree(data, settings)
    figures = node_rows(tree, data, "id3", measured.predictions)
    wrong = (measured.predictions != data.y).astype(float)
    root_wrong = float(wrong.sum())
    assert figures.test_errors[0] == root_wrong  # not the root's 5 as a leaf
    for node in tree.nodes():  # no missing values: each row reaches one node per level
        k = figures.position[node.id]
        assert figures.test_errors[k] <= figures.test_n[k]
    # The rows belong to the one tree cross-validated: another tree of the same schema has none.
    held = out_of_fold(data, measured.predictions, tree, "cv")
    other = fit_tree(data, resolve(algorithm="id3", max_depth=1))
    assert held.fits(tree) and not held.fits(other)
    assert node_rows_of(other, held, "id3") is None
    with pytest.raises(ArborError):
        out_of_fold(data, measured.predictions[:-1], tree, "cv")

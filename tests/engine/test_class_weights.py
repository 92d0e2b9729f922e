"""Class weights and priors (issue 33, item 1): each row's weight times its class's before
growth, as scikit-learn's ``class_weight`` and rpart's ``prior`` do."""

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.learn.class_weights import class_factors, weighted_by_class
from engine.settings import resolve
from tests.engine.test_cart_sklearn import _data, _ours, _reference

sklearn_tree = pytest.importorskip("sklearn.tree")


def _small():
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": ["a", "a", "a", "a", "b", "b"]})
    return encode(make_table(frame), "classification")


@pytest.mark.usefixtures("compiled_builder")
@pytest.mark.parametrize(
    ("seed", "weights", "text", "depth"),
    [
        (0, "balanced", "balanced", 5),
        (2, "balanced", "balanced", 5),
        (0, {"c0": 2.0, "c2": 3.0}, "c0=2,c2=3", 4),
    ],
)
def test_cart_with_class_weights_equals_scikit_learn(seed, weights, text, depth):
    """Node for node, through the compiled kernels, on data whose trees have no ties. Arbor's
    minimum leaf is a weight, scikit-learn's a count: its min_weight_fraction_leaf stands in."""
    from sklearn.utils.class_weight import compute_sample_weight

    X, frame = _data(seed, n=600)
    total = compute_sample_weight(weights, frame["y"]).sum()
    ref, shape = _reference(
        sklearn_tree.DecisionTreeClassifier,
        X,
        frame["y"],
        class_weight=weights,
        max_depth=depth,
        min_weight_fraction_leaf=5 / total,
    )
    ours = DecisionTree(
        algorithm="cart", prune="none", class_weight=text, max_depth=depth, min_samples_leaf=5
    ).fit(frame)
    assert _ours(ours.tree_) == shape
    order = [list(ours.classes_).index(c) for c in ref.classes_]
    assert np.allclose(ours.predict_proba(frame)[:, order], ref.predict_proba(X))
    assert (ours.predict(frame) == ref.predict(X)).all()


def test_estimator_class_weight_is_scikit_learns():
    from engine.sklearn import ArborClassifier

    X, frame = _data(1, n=300)
    y = frame["y"].astype(str).to_numpy()
    weighted = ArborClassifier(class_weight={"c0": 4}, max_depth=2).fit(X, y)
    by_rows = ArborClassifier(max_depth=2).fit(X, y, sample_weight=np.where(y == "c0", 4.0, 1.0))
    assert np.array_equal(weighted.predict_proba(X), by_rows.predict_proba(X))
    assert ArborClassifier().get_params()["class_weight"] is None


def test_balanced_and_named_factors():
    data = _small()  # 4 a, 2 b: balanced weighs a by 6 / (2 * 4), b by 6 / (2 * 2)
    assert class_factors(resolve(class_weight="balanced"), data).tolist() == [0.75, 1.5]
    assert class_factors(resolve(class_weight="b=3"), data).tolist() == [1.0, 3.0]
    weighted = weighted_by_class(data, resolve(class_weight="balanced"))
    assert weighted.weight.tolist() == [0.75] * 4 + [1.5] * 2
    assert weighted_by_class(data, resolve()) is data


def test_priors_set_the_classes_total_weights():
    """rpart's prior: the classes' weights in the priors' proportions, their total kept."""
    data = _small()
    weighted = weighted_by_class(data, resolve(priors="a=0.25,b=0.75"))
    totals = np.bincount(weighted.y, weights=weighted.weight)
    assert totals.tolist() == pytest.approx([1.5, 4.5])


def test_one_clear_message_per_fault():
    data = _small()
    cases = {
        "class-weight must be balanced or NAME=W,...; cannot read 'a'": dict(class_weight="a"),
        "class-weight: a's value must be a number of at least 0; got -2": dict(class_weight="a=-2"),
        "class-weight names class 'a' twice": dict(class_weight="a=1,a=2"),
        "priors must add up to 1; they add up to 0.5": dict(priors="a=0.5"),
        "use --class-weight or --priors, not both": dict(class_weight="a=1", priors="a=1"),
    }
    for message, params in cases.items():
        with pytest.raises(ArborError, match=message.replace("(", r"\(").replace(".", r"\.")):
            resolve(**params)
    with pytest.raises(ArborError, match="names 'c', which is not a class of the target"):
        class_factors(resolve(class_weight="c=2"), data)
    with pytest.raises(ArborError, match="priors must give every class a prior; 'b' has none"):
        class_factors(resolve(priors="a=1"), data)


def test_fit_pruning_and_cli_count_weighted_rows(capsys):
    from cli.main import main

    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6], "y": ["a", "a", "a", "a", "b", "b"]})
    tree = DecisionTree(algorithm="cart", prune="none", priors="a=0.5,b=0.5").fit(frame).tree_
    assert tree.root.weight == 6 and tree.root.distribution.tolist() == [3, 3]
    argv = ["train", "--sample", "iris", "--algorithm", "cart", "--prune", "none"]
    assert main([*argv, "--class-weight", "Iris-setosa=3"]) == 0
    assert "petallength <= 2.45: Iris-setosa (150.0)" in capsys.readouterr().out
    assert main([*argv, "--class-weight", "Iris-set=3"]) == 2
    assert "class-weight names 'Iris-set'" in capsys.readouterr().err


def test_training_over_partitions_refuses_class_weights():
    """Rather than grow an unweighted tree silently (the partitions' rows are weighed where
    they live, and class weights are not passed there yet)."""
    pytest.importorskip("dask")
    from engine.scale.training import fit_partitions

    with pytest.raises(ArborError, match="not yet over partitions: leave out --engine dask"):
        fit_partitions(None, resolve(algorithm="cart", class_weight="balanced"), None)

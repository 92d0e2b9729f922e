"""Variable importance (issue 33, item 3): impurity decrease equal to scikit-learn's
``feature_importances_`` on trees equal node for node, and seeded permutation importance on
held-out rows with its spread over repeats."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import as_table, encode, encode_like
from engine.data.io import read_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.evaluate.importance import (
    cross_validated_permutation_importance,
    impurity_importance,
    permutation_importance,
)
from engine.settings import resolve


def _frame(seed=0, n=400, p=4):
    rng = np.random.default_rng(seed)
    # float32-representable values, as scikit-learn stores X in float32.
    X = rng.normal(size=(n, p)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int) + (X[:, 2] > 1.0)
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(p)])
    frame["y"] = pd.Categorical(np.array(["c0", "c1", "c2"])[y], categories=["c0", "c1", "c2"])
    return X, frame


@pytest.mark.usefixtures("compiled_builder")
def test_impurity_importance_is_scikit_learns():
    tree = pytest.importorskip("sklearn.tree")
    X, frame = _frame()
    fits = [
        tree.DecisionTreeClassifier(max_depth=3, min_samples_leaf=10, random_state=rs).fit(
            X, frame["y"]
        )
        for rs in range(3)
    ]
    features = [f.tree_.feature.tolist() for f in fits]
    if any(f != features[0] for f in features):
        pytest.skip("scikit-learn breaks a tie differently across random states")
    ours = DecisionTree(algorithm="cart", prune="none", max_depth=3, min_samples_leaf=10)
    ours.fit(frame)
    assert ours.tree_.n_leaves == fits[0].get_n_leaves()  # the same tree ...
    assert np.allclose(
        ours.feature_importances_, fits[0].feature_importances_
    )  # ... the same shares
    assert ours.feature_importances_.sum() == pytest.approx(1.0)


def test_impurity_importance_single_leaf_and_names():
    data = encode(read_table("resources/datasets/weather.arff"), "classification")
    model = DecisionTree(algorithm="id3").fit(read_table("resources/datasets/weather.arff"))
    imp = impurity_importance(model.tree_)
    assert imp.names == tuple(a.name for a in data.schema.attributes)

    # ID3 on the weather: outlook at the root, humidity under sunny and windy under rainy,
    # every leaf pure; so all the root's weighted entropy is shared out (temperature: none).
    def h(p):
        return -p * np.log2(p) - (1 - p) * np.log2(1 - p)

    root = 14 * h(9 / 14)
    by_hand = [(root - 10 * h(0.4)) / root, 0.0, 5 * h(0.4) / root, 5 * h(0.4) / root]
    assert np.allclose(imp.values, by_hand)
    stump = DecisionTree(algorithm="cart", max_depth=0, prune="none")
    with pytest.raises(ArborError):
        _ = stump.feature_importances_


def test_permutation_importance_on_a_test_set():
    _, frame = _frame(1, n=300)
    train, test = frame.iloc[:200], frame.iloc[200:]
    model = DecisionTree(algorithm="cart", prune="none", max_depth=3).fit(train)
    held = encode_like(as_table(test, "y"), model.schema_)
    a = permutation_importance(model.tree_, held, repeats=4, seed=3, algorithm="cart")
    b = permutation_importance(model.tree_, held, repeats=4, seed=3, algorithm="cart")
    assert np.array_equal(a.values, b.values) and np.array_equal(a.spread, b.spread)  # seeded
    accuracy = float((model.predict(test) == test["y"].to_numpy()).mean())
    assert a.score == pytest.approx(accuracy)
    # x3 carries no signal and the tree never splits on it: shuffling it changes nothing.
    unused = [
        j for j in range(4) if j not in {n.split.attribute for n in model.tree_.nodes() if n.split}
    ]
    assert all(a.values[j] == 0 and a.spread[j] == 0 for j in unused)
    assert a.values[0] > 0.1 and a.ranked()[0] == 0
    assert a.as_dict()["attributes"][0]["attribute"] == "x0"


def test_cross_validated_permutation_importance():
    data = encode(read_table("resources/datasets/iris.arff"), "classification")
    settings = resolve(algorithm="cart", prune="none", max_depth=2)
    imp = cross_validated_permutation_importance(data, settings, folds=3, seed=1, repeats=2)
    again = cross_validated_permutation_importance(data, settings, folds=3, seed=1, repeats=2)
    assert np.array_equal(imp.values, again.values)
    assert imp.kind == "permutation" and imp.repeats == 2 and 0.85 < imp.score <= 1
    petals = {imp.names.index("petallength"), imp.names.index("petalwidth")}
    assert imp.ranked()[0] in petals
    with pytest.raises(ArborError):
        cross_validated_permutation_importance(data, settings, repeats=0)

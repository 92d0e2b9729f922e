"""``DecisionTree.fit`` and ``predict`` take a table already encoded, so that ``train``
encodes once for the fit and the training score (a wide table's encoding costs as much as
its fit): the same tree and predictions as from the table, over its rows with a target."""

import json

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.export.model_json import tree_to_dict


def holes():
    """Eight rows, the fourth and seventh without a target."""
    frame = pd.DataFrame(
        {
            "a": [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
            "k": ["p", "q", "p", "q", "p", "q", "p", "q"],
            "c": ["x", "x", "y", "y", "y", "x", "y", "x"],
            "v": [1.0, 1.5, 3.0, 3.5, 5.0, 6.5, 7.0, 9.0],
        }
    )
    frame.loc[[3, 6], ["c", "v"]] = None
    return frame


@pytest.mark.parametrize("task,target", [("classification", "c"), ("regression", "v")])
def test_an_encoded_table_fits_and_predicts_as_the_table(task, target):
    table = make_table(holes(), target=target, kinds={"v": "numeric"})
    params = dict(algorithm="cart", task=task, prune="none", min_samples_leaf=1)
    plain = DecisionTree(**params).fit(table)
    data = encode(table, task)
    encoded = DecisionTree(**params).fit(data)
    assert tree_to_dict(encoded.tree_, encoded.settings_) == tree_to_dict(
        plain.tree_, plain.settings_
    )
    assert encoded.notes_ == plain.notes_ == ("2 row(s) with a missing target were left out",)
    labelled = table.frame[target].notna().to_numpy()
    np.testing.assert_array_equal(encoded.predict(data), plain.predict(table)[labelled])


def test_an_encoded_table_of_another_task_or_schema_is_refused(weather, restaurant):
    data = encode(weather)
    with pytest.raises(ArborError, match="encoded for another task than regression"):
        DecisionTree(algorithm="cart", task="regression").fit(data)
    with pytest.raises(ArborError, match="has its target and kinds already"):
        DecisionTree().fit(data, target="play")
    model = DecisionTree(algorithm="id3").fit(data)
    with pytest.raises(ArborError, match="columns are not the model's"):
        model.predict(encode(restaurant))


def test_train_scores_the_rows_with_a_target(tmp_path, capsys):
    path = tmp_path / "holes.csv"
    holes().to_csv(path, index=False)
    scores = {}
    for key, options in (
        ("train_accuracy", ["--target", "c", "--ignore", "v"]),
        ("train_rmse", ["--target", "v", "--ignore", "c", "--task", "regression"]),
    ):
        argv = ["train", str(path), *options, "--algorithm", "cart", "--max-depth", "1"]
        assert main([*argv, "--prune", "none", "--json"]) == 0
        scores[key] = json.loads(capsys.readouterr().out)[key]
    # Over the six rows with a target. c: the root splits k = q (x, x, x) from k = p (x, y, y:
    # y), Gini 2/9 against a <= 2.5's 1/3; 5 of 6 right. v: a <= 4 (1, 1.5, 3: mean 11/6)
    # from a > 4 (5, 6.5, 9: mean 41/6).
    residuals = np.array([1, 1.5, 3]) - 11 / 6, np.array([5, 6.5, 9]) - 41 / 6
    rmse = float(np.sqrt(np.mean(np.concatenate(residuals) ** 2)))
    assert scores == {"train_accuracy": pytest.approx(5 / 6), "train_rmse": pytest.approx(rmse)}

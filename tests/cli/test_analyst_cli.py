"""``importance`` (issue 33, item 3) and ``evaluate``'s gains, lift and least-cost threshold
(item 4): the engine's figures as JSON and text, bad input refused."""

import json

import numpy as np

from cli.main import main
from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.evaluate.importance import cross_validated_permutation_importance
from engine.settings import resolve


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_importance_json_is_the_engines(capsys):
    argv = [
        "importance",
        "--sample",
        "iris",
        "--algorithm",
        "cart",
        "--max-depth",
        "2",
        "--prune",
        "none",
    ]
    code, out, err = run(capsys, *argv, "--permutation", "--repeats", "2", "--folds", "3", "--json")
    assert code == 0, err
    impurity, permutation = json.loads(out)["importances"]
    assert impurity["kind"] == "impurity"
    assert sum(row["importance"] for row in impurity["attributes"]) == np.float64(1.0)
    expected = cross_validated_permutation_importance(
        encode(load_sample("iris")), resolve(algorithm="cart", max_depth=2, prune="none"), 3, 1, 2
    )
    assert permutation == json.loads(json.dumps(expected.as_dict()))
    code, out, err = run(capsys, *argv)
    assert code == 0 and out.startswith("Impurity importance") and "Permutation" not in out


def test_importance_refuses_permutation_options_alone(capsys):
    code, _, err = run(capsys, "importance", "--sample", "iris", "--repeats", "3")
    assert code == 2 and "--permutation" in err
    code, _, err = run(capsys, "importance", "--sample", "iris", "--permutation", "--repeats", "0")
    assert code == 2 and "at least 1" in err


def test_evaluate_json_has_gains_lift_and_the_least_cost_threshold(capsys):
    argv = ["evaluate", "--sample", "weather", "--folds", "3", "--json"]
    code, out, err = run(capsys, *argv, "--positive", "no", "--cost-fn", "3")
    assert code == 0, err
    result = json.loads(out)
    no = result["per_class"][result["classes"].index("no")]
    gains, lift = np.array(no["cumulative_gains"]), np.array(no["lift"])
    assert gains[0].tolist() == [0, 0] and gains[-1].tolist() == [1, 1]
    assert np.allclose(lift[:, 1], gains[1:, 1] / gains[1:, 0])
    op = result["cost_optimal_threshold"]
    assert (op["positive"], op["cost_fn"]) == ("no", 3)
    assert op["cost"] == op["false_positives"] + 3 * op["false_negatives"]
    code, _, err = run(capsys, *argv, "--positive", "maybe")
    assert code == 2 and "not a class" in err

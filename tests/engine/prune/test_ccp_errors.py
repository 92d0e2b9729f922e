"""Cost-complexity pruning in errors (issue 33, item 6): seed 001's misclassified rows (squared
errors for regression) plus alpha times the leaves, Breiman's and rpart's sequence. Its alphas
are rpart's cp table times the root's error, on the tables whose cp tables rpart recorded in
tests/fixtures/rpart (record.R beside them; run live with -m rpart)."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.prune.alpha import choose_alpha
from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity
from engine.settings import resolve

RPART = Path(__file__).parents[2] / "fixtures" / "rpart"
#: Each recorded cp table: its data, target, task and Arbor's options for rpart's. With priors
#: a row weighs less than 1, and Arbor's minimum sizes are weights where rpart's minbucket = 1
#: and minsplit = 2 count rows: 0.5 and 1 let one row be a leaf, as there.
CASES = {
    "iris": ("iris", "class", "classification", {}),
    "cars": ("cars", "dist", "regression", {}),
    "blobs": ("blobs", "y", "classification", {}),
    "iris_prior": (
        "iris",
        "class",
        "classification",
        {
            "priors": "Iris-setosa=0.5,Iris-versicolor=0.25,Iris-virginica=0.25",
            "min_samples_leaf": 0.5,
            "min_samples_split": 1,
        },
    ),
}


def _full(name):
    data, target, task, options = CASES[name]
    frame = pd.read_csv(RPART / f"{data}.csv")
    return (
        DecisionTree(algorithm="cart", task=task, prune="none", **options).fit(frame, target).tree_
    )


def _cp_table(path):
    """rpart's rows from a path in errors: (cp, splits) per distinct alpha, largest first."""
    root = float(path.impurities[-1])
    alphas = np.unique(path.alphas)
    last = [np.flatnonzero(path.alphas == a)[-1] for a in alphas]  # the tree after every cut at a
    return alphas[::-1] / root, path.n_leaves[last][::-1] - 1, root


def _check(path, recorded: pd.DataFrame):
    cp, splits, root = _cp_table(path)
    assert root == pytest.approx(recorded.root_error[0], rel=1e-9)
    assert splits.tolist() == recorded.nsplit.tolist()
    np.testing.assert_allclose(cp, recorded.cp, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CASES))
def test_errors_path_is_rpart_cp_table_times_the_roots_error(name):
    _check(cost_complexity_path(_full(name), "errors"), pd.read_csv(RPART / f"{name}_cp.csv"))


def test_seed_001_worked_numbers_on_iris():
    """Iris's full Gini tree has 9 leaves and misclassifies nothing; the root alone misses
    100 of 150. Cutting the split of petal width at 1.75 (2 leaves, 50 rows' cost if merged:
    44 more errors for 1 leaf fewer) costs alpha = 44 rows, as rpart's cp 0.44 times 100."""
    tree = _full("iris")
    path = cost_complexity_path(tree, "errors")
    assert path.impurities[0] == 0 and path.impurities[-1] == 100
    assert np.unique(path.alphas).tolist() == [0, 0.5, 1, 2, 44, 50]
    assert prune_cost_complexity(tree, 2.0, "errors").n_leaves == 3
    assert prune_cost_complexity(tree, 43.9, "errors").n_leaves == 3
    assert prune_cost_complexity(tree, 44.0, "errors").n_leaves == 2
    assert prune_cost_complexity(tree, 50.0, "errors").n_leaves == 1


def test_regression_errors_are_impurity_alphas_times_the_roots_weight():
    """For regression both measures count squared errors: impurity's are shares of the rows."""
    tree = _full("cars")
    errors, impurity = cost_complexity_path(tree, "errors"), cost_complexity_path(tree)
    np.testing.assert_allclose(errors.alphas, impurity.alphas * 50, rtol=1e-9, atol=1e-9)
    assert errors.pruned.tolist() == impurity.pruned.tolist()


def test_option_fits_and_cross_validates_in_errors():
    frame = pd.read_csv(RPART / "iris.csv")
    model = DecisionTree(algorithm="cart", ccp_measure="errors", alpha=2.0).fit(frame, "class")
    assert model.tree_.n_leaves == 3
    impurity = DecisionTree(algorithm="cart", alpha=2.0).fit(frame, "class")
    assert impurity.tree_.n_leaves == 1  # alpha 2 in impurity: far past the root's 0.667
    settings = resolve(algorithm="cart", ccp_measure="errors", cv_alpha=5)
    choice = choose_alpha(_full("iris"), encode(make_table(frame), "classification"), settings)
    assert choice.alphas.tolist() == [0, 0.5, 1, 2, 44, 50]
    assert choice.chosen_alpha in (0.5, 1, 2)


def test_measure_is_cart_cost_complexity_only():
    assert resolve(algorithm="cart").ccp_measure == "impurity"
    with pytest.raises(Exception, match="choice|errors|impurity"):
        resolve(algorithm="cart", ccp_measure="deviance")


@pytest.mark.rpart
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R's Rscript with rpart")
def test_live_rpart_cp_tables(tmp_path):
    for data in ("iris", "cars", "blobs"):
        shutil.copy(RPART / f"{data}.csv", tmp_path)
    shutil.copy(RPART / "record.R", tmp_path)
    subprocess.run(["Rscript", "record.R"], cwd=tmp_path, check=True, capture_output=True)
    for name in CASES:
        _check(
            cost_complexity_path(_full(name), "errors"), pd.read_csv(tmp_path / f"{name}_cp.csv")
        )


def test_path_command_in_errors_gives_rpart_cp(capsys):
    from cli.main import main

    argv = ["path", str(RPART / "iris.csv"), "--ccp-measure", "errors", "--alpha", "0"]
    assert main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["ccp_measure"] == "errors" and result["errors"][-1] == 100
    assert sorted(set(result["cp"])) == [0, 0.005, 0.01, 0.02, 0.44, 0.5]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("CART's cost-complexity pruning path in errors (grown on gini;")
    assert "            44            50       2        0.44" in out.splitlines()

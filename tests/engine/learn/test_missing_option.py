"""``--missing fractional|majority|surrogate`` (issue 33, item 2) end to end: CART grown and
predicting with rpart's surrogates equals R's rpart (``usesurrogate = 2``) on the recorded
tables (tests/fixtures/rpart), through the real command line and the estimator; the
surrogates survive the model file, pruning, and exporters refuse what they cannot route."""

import json
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli.main import main
from engine.data.encoding import encode
from engine.data.table import make_table
from engine.errors import ArborError
from engine.export.model_json import load_model, save_model
from engine.export.python_code import to_python
from engine.export.sql import to_sql
from engine.fitting import fit_tree
from engine.growth import grow_flat
from engine.settings import resolve
from engine.sklearn import ArborClassifier
from engine.tree import Surrogate

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rpart"
RECORDED = json.loads((FIXTURES / "recorded.json").read_text())
TABLES = ("surrogates", "nominal")


def _frame(name: str):
    frame = pd.read_csv(FIXTURES / f"{name}.csv")
    return frame[frame.columns[:-1]], frame[frame.columns[-1]]


def _shape(tree, node=None):
    """(variable, rows, children) with the children in a canonical order, as rpart's frame."""
    node = tree.root if node is None else node
    if node.split is None:
        return ("<leaf>", int(round(node.weight)), ())
    name = tree.schema.attributes[node.split.attribute].name
    kids = sorted(_shape(tree, c) for c in node.children)
    return (name, int(round(node.weight)), tuple(kids))


def _rpart_shape(recorded: dict, node: int = 1):
    frame = {f["node"]: f for f in recorded["frame"]}
    f = frame[node]
    if f["var"] == "<leaf>":
        return (f["var"], f["n"], ())
    kids = sorted(_rpart_shape(recorded, k) for k in (2 * node, 2 * node + 1))
    return (f["var"], f["n"], tuple(kids))


@pytest.mark.parametrize("name", TABLES)
def test_estimator_with_surrogates_grows_and_predicts_as_rpart(name):
    X, y = _frame(name)
    model = ArborClassifier(prune="none", missing="surrogate").fit(X, y)
    assert _shape(model.tree_) == _rpart_shape(RECORDED[name])
    assert list(model.predict(X)) == RECORDED[name]["predicted"]
    root = model.tree_.root.split
    assert root.surrogates and all(isinstance(s, Surrogate) for s in root.surrogates)
    assert sum(root.fractions) == 1.0 and set(root.fractions) == {0.0, 1.0}


def test_cli_train_save_predict_with_surrogates_equals_rpart(tmp_path, capsys):
    """The real command line: train --missing surrogate --save, then predict from the file."""
    data, model = FIXTURES / "nominal.csv", tmp_path / "model.json"
    main(
        ["train", str(data), "--algorithm", "cart", "--missing", "surrogate"]
        + ["--prune", "none", "--save", str(model)]
    )
    capsys.readouterr()
    main(["predict", str(model), str(data), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["predictions"] == RECORDED["nominal"]["predicted"]


def test_model_json_round_trips_surrogates_and_checks_them(tmp_path):
    X, y = _frame("surrogates")
    model = ArborClassifier(prune="none", missing="surrogate").fit(X, y)
    path = tmp_path / "m.json"
    save_model(model.tree_, model.settings_, path)
    tree, settings = load_model(path)
    assert settings.missing == "surrogate"
    assert [n.split for n in tree.nodes()] == [n.split for n in model.tree_.nodes()]
    record = json.loads(path.read_text())
    record["nodes"][0]["split"]["surrogates"][0]["adjusted"] = 2.0
    path.write_text(json.dumps(record))
    with pytest.raises(ArborError, match="adjusted agreement"):
        load_model(path)


def test_majority_sends_missing_rows_down_the_heavier_branch():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [np.nan]])
    y = np.array([0, 0, 1, 1, 1, 1])
    model = ArborClassifier(prune="none", missing="majority").fit(X, y)
    split = model.tree_.root.split
    assert split.threshold == 2.5 and split.fractions == (0.0, 1.0) and not split.surrogates
    # The missing row trained in the heavier branch (three known rows): it holds 3 + 1 rows.
    assert [c.weight for c in model.tree_.root.children] == [2.0, 4.0]
    assert list(model.predict_proba(np.array([[np.nan]]))[0]) == pytest.approx([0.0, 1.0])


def test_alpha_chosen_by_cross_validation_routes_the_folds_by_surrogates():
    """CART's default: alpha by 10-fold CV, the folds' trees grown as flat arrays and held-out
    rows routed through their surrogates; the pruned tree keeps its splits' surrogates."""
    frame = pd.read_csv(FIXTURES / "nominal.csv")
    data = encode(make_table(frame, target="buys"))
    settings = resolve(algorithm="cart", missing="surrogate")
    assert settings.cv_alpha and settings.prune == "cost-complexity"
    grown: list = []
    tree = fit_tree(data, settings, grown=grown)
    assert 1 < tree.n_leaves < grown[0].n_leaves
    assert all(n.split.surrogates for n in tree.nodes() if n.split is not None)
    folds = grow_flat(data, settings)  # a fold's arrays carry the surrogates too
    assert len(folds.surrogates) == folds.n_nodes and any(folds.surrogates)


def test_refusals_say_what_to_change():
    with pytest.raises(ArborError, match="use --algorithm cart"):
        resolve(algorithm="c45", missing="surrogate")
    X, y = _frame("surrogates")
    tree = ArborClassifier(prune="none", missing="surrogate").fit(X, y).tree_
    with pytest.raises(ArborError, match="--missing majority or fractional"):
        to_sql(tree)


@pytest.mark.parametrize("name", TABLES)
def test_python_code_routes_by_the_surrogates_as_arbor(name):
    X, y = _frame(name)
    model = ArborClassifier(prune="none", missing="surrogate").fit(X, y)
    namespace: dict = {}
    exec(to_python(model.tree_), namespace)
    rng = np.random.default_rng(2)
    probe = pd.concat([X, X.mask(rng.random(X.shape) < 0.4)], ignore_index=True)
    got = [namespace["predict_proba"](row) for row in probe.to_dict("records")]
    np.testing.assert_allclose(got, model.predict_proba(probe), rtol=0, atol=1e-12)


def test_sql_of_a_majority_tree_sends_missing_values_down_the_majority_branch():
    """--missing majority needs nothing of an exporter: one-hot branch shares route the row."""
    X, y = _frame("nominal")
    model = ArborClassifier(prune="none", missing="majority").fit(X, y)
    rng = np.random.default_rng(2)
    probe = pd.concat([X, X.mask(rng.random(X.shape) < 0.4)], ignore_index=True)
    with sqlite3.connect(":memory:") as con:
        probe.to_sql("data", con, index=False)
        got = pd.read_sql(to_sql(model.tree_), con)[["P(no)", "P(yes)"]].to_numpy(float)
    np.testing.assert_allclose(got, model.predict_proba(probe), rtol=0, atol=1e-12)

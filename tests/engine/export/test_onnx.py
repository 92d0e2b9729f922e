"""The ONNX export passes onnx's checker and ONNX Runtime scores complete rows as Arbor does;
a missing value takes the branch with the most training weight, as documented."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode
from engine.data.samples import load_sample
from engine.errors import ArborError
from engine.estimator import DecisionTree
from engine.predict import node_output
from engine.tree import SUBSET

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from engine.export.onnx_model import MISSING_NOTE, onnx_bytes, to_onnx  # noqa: E402

CASES = [
    ("weather", "id3"),
    ("weather", "cart"),
    ("weather-numeric", "c45"),
    ("restaurant", "id3"),
    ("restaurant", "cart"),
    ("toys", "c45"),
    ("contact-lenses", "id3"),
    ("contact-lenses", "c45"),
    ("iris", "c45"),
    ("iris", "cart"),
]


def session(tree):
    return ort.InferenceSession(onnx_bytes(tree), providers=["CPUExecutionProvider"])


def score(tree, X):
    return session(tree).run(None, {"input": np.ascontiguousarray(X, dtype=np.float64)})


def check_complete_rows(model, table):
    X = encode(table, model.settings_.task).X
    complete = ~np.isnan(X).any(axis=1)
    assert complete.sum() >= 3
    if model.tree_.is_regression:
        (value,) = score(model.tree_, X[complete])
        np.testing.assert_allclose(value[:, 0], model.predict(table)[complete], rtol=1e-6)
        return
    label, proba = score(model.tree_, X[complete])
    assert proba.dtype == np.float32
    np.testing.assert_allclose(proba, model.predict_proba(table)[complete], rtol=1e-6, atol=1e-7)
    assert label.tolist() == model.predict(table)[complete].tolist()


@pytest.mark.parametrize(("name", "algorithm"), CASES)
def test_complete_rows_score_as_arbor(name, algorithm):
    table = load_sample(name)
    model = DecisionTree(algorithm=algorithm).fit(table)
    check_complete_rows(model, table)


def _grouped_table(rows=240, seed=3):
    """Categories that CART groups into subsets (two codes or more share a branch)."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(list("abcdefg"), rows)
    size = rng.normal(size=rows).round(2)
    good = np.isin(colour, ["a", "c", "f"]) ^ (size > 0.8)
    return pd.DataFrame({"colour": colour, "size": size, "y": np.where(good, "good", "bad")})


def test_subset_splits_share_a_subtree():
    frame = _grouped_table()
    model = DecisionTree(algorithm="cart", min_samples_leaf=2).fit(frame)
    splits = [n.split for n in model.tree_.nodes() if n.split is not None]
    assert any(s.kind == SUBSET and max(len(g) for g in s.groups) > 1 for s in splits)
    X = encode(_as_table(frame)).X
    label, proba = score(model.tree_, X)
    np.testing.assert_allclose(proba, model.predict_proba(frame), rtol=1e-6, atol=1e-7)
    assert label.tolist() == model.predict(frame).tolist()


def _as_table(frame):
    from engine.data.table import make_table

    return make_table(frame)


def test_regression_tree():
    table = load_sample("iris").with_target("petalwidth")
    model = DecisionTree(algorithm="cart", task="regression", prune="none", max_depth=4).fit(table)
    assert model.tree_.n_leaves > 3
    check_complete_rows(model, table)


def _majority_route(tree, row):
    """What the ONNX model promises for a row: a missing value or unknown code takes the
    branch with the largest training share."""
    node, fallback = tree.root, None
    while not node.is_leaf:
        here = node_output(tree, node, fallback)
        branch = int(node.split.branch_of(np.array([row[node.split.attribute]]))[0])
        if branch < 0:
            branch = int(np.argmax(node.split.fractions))
        node, fallback = node.children[branch], here
    return node_output(tree, node, fallback)


@pytest.mark.parametrize(("name", "algorithm"), [("restaurant", "id3"), ("iris", "cart")])
def test_missing_values_take_the_majority_branch(name, algorithm):
    table = load_sample(name)
    model = DecisionTree(algorithm=algorithm).fit(table)
    X = encode(table).X.copy()
    rng = np.random.default_rng(0)
    X[rng.random(X.shape) < 0.3] = np.nan
    X[0, model.tree_.root.split.attribute] = np.nan
    _, proba = score(model.tree_, X)
    expected = np.array([_majority_route(model.tree_, row) for row in X])
    np.testing.assert_allclose(proba, expected, rtol=1e-6, atol=1e-7)


def test_layout_is_documented_in_the_model():
    table = load_sample("weather-numeric")
    model = to_onnx(DecisionTree(algorithm="c45").fit(table).tree_)
    props = {p.key: p.value for p in model.metadata_props}
    inputs = json.loads(props["arbor.inputs"])
    assert [i["name"] for i in inputs] == table.attributes
    assert inputs[0] == {
        "name": "outlook",
        "kind": "nominal",
        "categories": ["sunny", "overcast", "rainy"],
    }
    assert props["arbor.target"] == "play" and props["arbor.missing"] == MISSING_NOTE
    assert "NaN" in model.doc_string
    onnx.checker.check_model(model, full_check=True)


def test_single_leaf_tree():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": ["a", "a", "a", "b"]})
    model = DecisionTree(algorithm="c45").fit(frame)
    assert model.tree_.root.is_leaf
    label, proba = score(model.tree_, np.array([[1.0], [np.nan]]))
    assert label.tolist() == ["a", "a"]
    np.testing.assert_allclose(proba, [[0.75, 0.25]] * 2)


def test_a_clear_message_without_onnx(monkeypatch):
    import builtins

    real = builtins.__import__

    def refuse(name, *args, **kwargs):
        if name == "onnx" or name.startswith("onnx."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", refuse)
    tree = DecisionTree(algorithm="id3").fit(load_sample("weather")).tree_
    with pytest.raises(ArborError, match=r"pip install 'arbor\[onnx\]'"):
        to_onnx(tree)


def test_a_deep_tree_is_built_without_recursion():
    """A chain 3,000 splits deep (deeper than Python's recursion limit) scores as predict."""
    from engine.data.encoding import Attribute, Schema
    from engine.predict import predict_proba
    from engine.tree import THRESHOLD, Node, Split, Tree, renumber

    depth = 3000
    node = Node(0, 0, 1.0, np.array([1.0, 0.0]), 0.0)
    for i in reversed(range(depth)):
        leaf = Node(0, 0, 1.0, np.array([0.0, 1.0]) if i % 2 else np.array([0.5, 0.5]), 0.0)
        split = Split(0, THRESHOLD, (0.5, 0.5), threshold=i + 0.5)
        node = Node(0, 0, 2.0, np.array([1.0, 1.0]), 1.0, split=split, children=(leaf, node))
    tree = Tree(renumber(node), Schema((Attribute("x", "numeric"),), "y", ("a", "b")))
    X = np.array([[3.0], [1000.0], [2999.0], [5000.0], [-1.0]])
    label, proba = score(tree, X)
    np.testing.assert_allclose(proba, predict_proba(tree, X), rtol=1e-6)
    assert label.tolist() == ["b", "a", "b", "a", "a"]

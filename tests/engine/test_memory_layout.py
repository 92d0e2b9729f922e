"""How tables and trees are laid out in memory: shared where safe, never changed behind a view.

Memory itself is measured in benchmarks/bench_cart.py, never asserted here.
"""

import copy
import json
import pickle

import numpy as np
import pandas as pd
import pytest

from engine.data.encoding import encode, encode_columns, shared_matrix
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.export.model_json import tree_from_dict, tree_to_dict
from engine.tree import NO_STATS, SplitScores


def _numeric_frame(n=50, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(rng.normal(size=(n, 4)), columns=list("abcd"))
    frame["y"] = pd.Categorical(np.where(frame["a"] > 0, "p", "q"))
    return frame


def test_an_all_numeric_table_is_encoded_without_a_copy():
    table = make_table(_numeric_frame())
    data = encode(table)
    assert np.shares_memory(data.X, table.frame["a"].to_numpy())
    assert data.X.flags.f_contiguous and not data.X.flags.writeable
    assert np.array_equal(data.X, encode_columns(table.frame, data.schema.attributes))


def test_numeric_columns_between_nominal_ones_still_share_one_block():
    frame = _numeric_frame()
    frame.insert(1, "k", pd.Categorical(["u", "v"] * 25))
    table = make_table(frame, kinds={"k": "ignored"})
    data = encode(table)
    assert list(table.frame.columns) == ["a", "k", "b", "c", "d", "y"]
    assert np.shares_memory(data.X, table.frame["d"].to_numpy())
    assert np.array_equal(data.X, frame[list("abcd")].to_numpy())


def test_a_table_made_again_shares_its_numbers_until_the_first_is_edited(monkeypatch):
    """The window's snapshot at Train: a table made of a table's frame shares its numeric
    block (a million rows took 70-150 ms to copy on the GUI thread), and an edit of the
    first frame afterwards, as the table view makes one, changes neither the snapshot nor the
    matrix a fit reads. Without copy-on-write the snapshot copies."""
    from engine.data import table as tables

    first = make_table(_numeric_frame()).frame.copy()  # as the window's document holds it
    snapshot = make_table(first, target="y")
    data = encode(snapshot)
    if tables.copy_on_write():
        assert np.shares_memory(snapshot.frame["b"].to_numpy(), first["b"].to_numpy())
    before = float(snapshot.frame.iat[5, 2])
    first.iat[5, 2] = 123.0
    assert float(snapshot.frame.iat[5, 2]) == before and data.X[5, 2] == before
    assert float(first.iat[5, 2]) == 123.0
    monkeypatch.setattr(tables, "copy_on_write", lambda: False)
    again = make_table(first, target="y")
    assert not np.shares_memory(again.frame["b"].to_numpy(), first["b"].to_numpy())
    assert float(again.frame.iat[5, 2]) == 123.0


def test_a_matrix_given_a_numeric_target_keeps_its_block_for_the_attributes():
    """A frame made of a matrix, then given a regression target (as scikit-learn users and the
    peers' benchmark make one): the attributes are encoded straight from the matrix's block,
    and the target stays a column of its own, not copied in beside them."""
    from engine.data import table as tables

    rng = np.random.default_rng(3)
    frame = pd.DataFrame(rng.normal(size=(40, 3)), columns=list("abc"))
    frame["y"] = rng.normal(size=40)
    table = make_table(frame)
    data = encode(table, task="regression")
    np.testing.assert_array_equal(data.X, frame[list("abc")].to_numpy())
    np.testing.assert_array_equal(data.y, frame["y"].to_numpy())
    assert data.X.flags.f_contiguous and not data.X.flags.writeable
    if tables.copy_on_write():
        assert np.shares_memory(data.X, frame["a"].to_numpy())
    again = make_table(table.frame)  # the window's snapshot of it at Train
    if tables.copy_on_write():
        assert np.shares_memory(encode(again, task="regression").X, frame["c"].to_numpy())


def test_nominal_attributes_or_missing_targets_are_encoded_as_a_copy():
    frame = _numeric_frame()
    frame["k"] = pd.Categorical(["u", "v"] * 25)
    table = make_table(frame, target="y")
    data = encode(table)
    assert not np.shares_memory(data.X, table.frame["a"].to_numpy())
    assert not data.X.flags.writeable
    frame = _numeric_frame()
    frame.loc[3, "y"] = np.nan
    data = encode(make_table(frame))
    assert data.n_rows == 49 and not np.shares_memory(data.X, frame["a"].to_numpy())


def test_shared_matrix_refuses_columns_out_of_memory_order():
    table = make_table(_numeric_frame())
    attributes = encode(table).schema.attributes
    assert shared_matrix(table.frame, attributes) is not None
    assert shared_matrix(table.frame, attributes[::-1]) is None  # strides would run backwards
    assert shared_matrix(table.frame, attributes[::2]) is not None  # evenly spaced, every other
    assert np.array_equal(
        shared_matrix(table.frame, attributes[::2]), table.frame[["a", "c"]].to_numpy()
    )
    assert shared_matrix(table.frame, attributes[:1] + attributes[3:]) is not None
    assert shared_matrix(table.frame, attributes[:2] + attributes[3:]) is None  # a, b, d: uneven


def test_a_table_does_not_follow_later_edits_of_the_callers_frame():
    frame = _numeric_frame()
    table = make_table(frame)
    data = encode(table)
    before = data.X.copy()
    frame.iat[0, 0] = 1e9
    frame.loc[:, "b"] = 0.0
    assert np.array_equal(data.X, before)
    assert table.frame["a"].iloc[0] != 1e9


def test_duplicate_index_labels_keep_rows_in_place():
    frame = _numeric_frame(6).set_axis([0, 0, 1, 1, 2, 2])
    table = make_table(frame)
    assert table.frame.index.tolist() == [0, 0, 1, 1, 2, 2]
    assert np.array_equal(table.frame[list("abcd")].to_numpy(), frame[list("abcd")].to_numpy())
    assert table.frame["y"].tolist() == frame["y"].tolist()


def test_trees_fitted_on_a_shared_table_predict_like_on_a_copied_one():
    frame = _numeric_frame(400, seed=3)
    shared = DecisionTree(algorithm="cart").fit(make_table(frame))
    copied = DecisionTree(algorithm="cart").fit(frame.astype({"a": object}).astype({"a": float}))
    assert np.array_equal(shared.predict(frame), copied.predict(frame))


def test_split_scores_are_a_read_only_mapping():
    scores = SplitScores(0.25, 0.125)
    assert dict(scores) == {"gain": 0.25, "gain_ratio": 0.125} == scores
    assert scores["gain"] == 0.25 and scores.get("pruned") is None and "gain_ratio" in scores
    assert json.loads(json.dumps(dict(scores))) == {"gain": 0.25, "gain_ratio": 0.125}
    assert pickle.loads(pickle.dumps(scores)) == scores
    with pytest.raises(AttributeError):
        scores.gain = 1.0
    with pytest.raises(KeyError):
        scores["error_as_leaf"]
    assert len(NO_STATS) == 0


def test_grown_nodes_carry_split_scores_through_json():
    model = DecisionTree(algorithm="cart").fit(make_table(_numeric_frame(3000, seed=5)))
    inner = [n for n in model.tree_.nodes() if not n.is_leaf]
    assert inner and all(isinstance(n.stats, SplitScores) for n in inner)
    assert all(n.stats is NO_STATS for n in model.tree_.nodes() if n.is_leaf)
    again, _ = tree_from_dict(json.loads(json.dumps(tree_to_dict(model.tree_))))
    assert [dict(n.stats) for n in again.nodes()] == [dict(n.stats) for n in model.tree_.nodes()]


def _compiled_and_plain(settings_kw, n=3000, seed=11, regression=False):
    """The same tree grown by the compiled builder (ArrayNode) and by the oracle (Node)."""
    pytest.importorskip("numba")
    from engine.growth import grow
    from engine.settings import resolve
    from engine.tree import Tree
    from tests.oracle import growth as oracle

    frame = _numeric_frame(n, seed)
    signal = frame["a"] * 2 + frame["b"] * frame["c"] + np.random.default_rng(seed).normal(size=n)
    frame["y"] = signal if regression else pd.Categorical(np.where(signal > 0, "p", "q"))
    data = encode(make_table(frame), "regression" if regression else "classification")
    settings = resolve(
        algorithm="cart", task="regression" if regression else "classification", **settings_kw
    )
    compiled = Tree(grow(data, settings), data.schema)
    plain = Tree(oracle.grow(data, settings), data.schema)
    return data, compiled, plain


def _numbers(tree):
    return [
        (n.id, n.depth, n.weight, n.impurity, tuple(n.distribution), n.value, n.stats.get("gain"))
        for n in tree.nodes()
    ]


@pytest.mark.parametrize("regression", [False, True], ids=["classification", "regression"])
def test_array_nodes_read_as_ordinary_nodes(regression):
    from engine.tree import ArrayNode, Node

    _, compiled, plain = _compiled_and_plain({"max_depth": 6}, regression=regression)
    assert all(type(n) is ArrayNode for n in compiled.nodes())
    got, want = _numbers(compiled), _numbers(plain)
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a[:2] == b[:2] and a[2] == b[2] and a[4] == b[4]
        assert a[3] == pytest.approx(b[3], abs=1e-12)
        assert (
            (np.isnan(a[5]) and np.isnan(b[5])) if np.isnan(b[5]) else a[5] == pytest.approx(b[5])
        )
    node = compiled.root
    assert isinstance(node.weight, float) and isinstance(node.impurity, float)
    assert not node.distribution.flags.writeable
    with pytest.raises(AttributeError):
        node.weight = 1.0
    for copied in (copy.copy(node), copy.copy(node.children[0])):
        assert type(copied) is Node and copied.depth <= 1 and copied.weight > 0


def test_editing_pruning_and_export_of_array_nodes_match_ordinary_nodes():
    from engine.learn.editing import make_leaf
    from engine.predict import predict_proba
    from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity
    from engine.tree import Node

    data, compiled, plain = _compiled_and_plain({})
    path_c, path_p = cost_complexity_path(compiled), cost_complexity_path(plain)
    assert np.allclose(path_c.alphas, path_p.alphas) and list(path_c.n_leaves) == list(
        path_p.n_leaves
    )
    alpha = float(path_c.alphas[len(path_c.alphas) // 2])
    pruned_c, pruned_p = prune_cost_complexity(compiled, alpha), prune_cost_complexity(plain, alpha)
    assert pruned_c.n_leaves == pruned_p.n_leaves
    assert np.array_equal(predict_proba(pruned_c, data.X), predict_proba(pruned_p, data.X))
    inner = next(n for n in compiled.nodes() if n.depth == 2 and not n.is_leaf)
    edited = make_leaf(compiled, inner.id)
    leaf = edited.node(inner.id)
    assert type(leaf) is Node and leaf.is_leaf and leaf.weight == inner.weight
    assert np.array_equal(leaf.distribution, inner.distribution)
    assert edited.n_nodes < compiled.n_nodes
    again, _ = tree_from_dict(json.loads(json.dumps(tree_to_dict(compiled))))
    assert np.array_equal(predict_proba(again, data.X), predict_proba(compiled, data.X))

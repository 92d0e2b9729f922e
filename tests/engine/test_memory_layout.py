"""How tables and trees are laid out in memory: shared where safe, never changed behind a view.

Memory itself is measured in benchmarks/bench_cart.py, never asserted here.
"""

import json
import pickle

import numpy as np
import pandas as pd
import pytest

from engine.encoding import encode, encode_columns, shared_matrix
from engine.estimator import DecisionTree
from engine.export.model_json import tree_from_dict, tree_to_dict
from engine.table import make_table
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
    assert np.array_equal(shared_matrix(table.frame, attributes[::2]), table.frame[["a", "c"]].to_numpy())
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

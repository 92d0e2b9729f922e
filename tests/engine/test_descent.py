"""Rows routed down a tree's arrays by the compiled kernels (engine/fast/descent.py) give
numpy's levels (:meth:`engine.flat.FlatTree.descend`, their oracle) to the row, in the same
order, whatever the table's layout; the rows going down several branches reach numpy's
leaves with its weights (:meth:`engine.flat.FlatTree.walk`), and predictions add up to its
bits."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from engine import predict
from engine.compiling import lifecycle
from engine.data.encoding import encode
from engine.data.table import make_table
from engine.estimator import DecisionTree
from engine.flat import flat_of
from engine.predict import descend


def _table(seed: int, n: int = 400):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).round(1)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    y = np.where(x[:, 0] + (colour == "red") > 0.3, "yes", "no")
    frame = pd.DataFrame(x, columns=["a", "b", "c"]).assign(colour=colour, y=y)
    frame.loc[rng.random(n) < 0.1, "a"] = np.nan
    frame.loc[rng.random(n) < 0.1, "colour"] = None
    return make_table(frame)


OPTIONS = pytest.mark.parametrize(
    "options",
    [
        {"algorithm": "cart", "prune": "none"},
        {"algorithm": "c45", "prune": "none"},
        {"algorithm": "cart", "task": "regression", "target": "b", "prune": "none"},
    ],
    ids=["cart", "c45 multiway", "regression"],
)


def _fitted(seed: int, options: dict):
    """A model fitted on :func:`_table`, and its table's matrix with categories no branch
    holds, as columns (and read only) and as rows."""
    options = dict(options)
    table = _table(seed)
    if "target" in options:
        table = table.with_target(options.pop("target"))
    model = DecisionTree(**options)
    data = encode(table, model.settings().task)
    model.fit(data)
    X = np.array(data.X, order="F")
    X[::7, -1] = 17.0  # a category code no branch holds
    frozen = X.copy(order="F")
    frozen.flags.writeable = False
    return model, X, (X, frozen, np.ascontiguousarray(X))


@pytest.mark.parametrize("seed", [0, 1])
@OPTIONS
def test_the_compiled_levels_are_numpys(seed, options, monkeypatch):
    model, X, layouts = _fitted(seed, options)
    flat = flat_of(model.tree_)
    assert flat.n_nodes >= 9
    monkeypatch.setattr(lifecycle, "is_ready", lambda: True)
    want_levels, want_several = flat.descend(X)
    assert want_several.any() and len(want_levels) > 3
    for table_x in layouts:
        levels, several = descend(flat, table_x)
        assert several.tolist() == want_several.tolist()
        assert len(levels) == len(want_levels)
        for (rows, at), (want_rows, want_at) in zip(levels, want_levels, strict=True):
            assert rows.tolist() == want_rows.tolist() and at.tolist() == want_at.tolist()


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("n", [400, 397])  # four rows at a time, and one left over
@OPTIONS
def test_each_rows_leaf_is_where_its_path_in_numpys_levels_ends(seed, n, options):
    model, X, layouts = _fitted(seed, options)
    flat = flat_of(model.tree_)
    levels, several = flat.descend(X)
    want = np.full(len(X), -1)
    for rows, at in levels:
        ends = flat.is_leaf[at] & ~several[rows]
        want[rows[ends]] = at[ends]
    assert (want >= 0).sum() > len(X) // 2 and (want < 0).any()
    from engine.fast.descent import leaves_of_rows

    for table_x in layouts:
        part = np.array(table_x[:n], order="K")  # n rows, in the same layout
        part.flags.writeable = table_x.flags.writeable
        stopped = np.full(flat.n_nodes, -1, dtype=np.intp)  # every row that cannot be placed
        got = leaves_of_rows(
            part, *predict._routing(flat), predict._arg(flat.is_leaf, bool), stopped
        )
        assert got.tolist() == want[:n].tolist()


@pytest.mark.parametrize("task", ["classification", "regression"])
def test_rows_a_majority_tree_cannot_place_reach_the_walks_one_leaf_on_the_way_down(
    task, monkeypatch
):
    """A tree grown with ``--missing majority`` sends a row it cannot place down one branch
    at weight 1: found on the way down (``predict._whole_branch``), the walk's one leaf, and
    predictions to the bit of numpy's."""
    options = {"algorithm": "cart", "prune": "none", "missing": "majority"}
    if task == "regression":
        options.update(task="regression", target="b")
    model, X, layouts = _fitted(2, options)
    tree, flat = model.tree_, flat_of(model.tree_)
    whole = predict._whole_branch(flat)
    assert (whole[~flat.is_leaf] >= 0).all()  # every split sends such rows one way
    several = np.flatnonzero(flat.descend(X)[1])
    assert len(several) > 10
    want = np.full(len(X), -1)
    for i, rows, weights in flat.walk(X, np.arange(len(X))):
        if flat.is_leaf[i]:
            assert (weights == 1.0).all() and (want[rows] < 0).all()  # one leaf each
            want[rows] = i
    from engine.fast.descent import leaves_of_rows

    kind = predict.predict_value if tree.is_regression else predict.predict_proba
    monkeypatch.setattr(lifecycle, "is_ready", lambda: False)
    expected = kind(tree, X)
    monkeypatch.setattr(lifecycle, "is_ready", lambda: True)
    for table_x in layouts:
        routing = predict._routing(flat)
        got = leaves_of_rows(table_x, *routing, predict._arg(flat.is_leaf, bool), whole)
        assert got.tolist() == want.tolist()
        assert kind(tree, table_x).tobytes() == expected.tobytes()


@pytest.mark.parametrize("seed", [0, 1])
@OPTIONS
def test_rows_going_down_several_branches_reach_numpys_leaves_and_predictions(
    seed, options, monkeypatch
):
    model, X, layouts = _fitted(seed, options)
    tree, flat = model.tree_, flat_of(model.tree_)
    several = np.flatnonzero(flat.descend(X)[1])
    want = [(i, r, w) for i, r, w in flat.walk(X, several) if flat.is_leaf[i]]
    assert sum(len(r) for _, r, _ in want) > len(several) > 10  # some reach several leaves
    by_row = {}  # each row's leaves in the walk's order
    for i, rows, weights in want:
        for r, w in zip(rows.tolist(), weights.tolist(), strict=True):
            by_row.setdefault(r, []).append((i, w))
    kind = predict.predict_value if tree.is_regression else predict.predict_proba
    monkeypatch.setattr(lifecycle, "is_ready", lambda: False)
    expected = kind(tree, X)
    monkeypatch.setattr(lifecycle, "is_ready", lambda: True)
    for table_x in layouts:
        _, at, rows, weights = list(predict._leaves(tree, table_x))[-1]  # the walk's, last
        got = {}
        for r, i, w in zip(rows.tolist(), at.tolist(), weights.tolist(), strict=True):
            got.setdefault(r, []).append((i, w))
        assert got == by_row
        assert kind(tree, table_x).tobytes() == expected.tobytes()

"""Rows routed down a tree's arrays by the compiled kernel (engine/fast/descent.py) give
numpy's levels (:meth:`engine.flat.FlatTree.descend`, its oracle) to the row, in the same
order, whatever the table's layout."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

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


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(
    "options",
    [
        {"algorithm": "cart", "prune": "none"},
        {"algorithm": "c45", "prune": "none"},
        {"algorithm": "cart", "task": "regression", "target": "b", "prune": "none"},
    ],
    ids=["cart", "c45 multiway", "regression"],
)
def test_the_compiled_levels_are_numpys(seed, options, monkeypatch):
    options = dict(options)
    table = _table(seed)
    if "target" in options:
        table = table.with_target(options.pop("target"))
    model = DecisionTree(**options)
    data = encode(table, model.settings().task)
    flat = flat_of(model.fit(data).tree_)
    assert flat.n_nodes >= 9
    X = np.array(data.X, order="F")
    X[::7, -1] = 17.0  # a category code no branch holds
    frozen = X.copy(order="F")
    frozen.flags.writeable = False
    monkeypatch.setattr(lifecycle, "is_ready", lambda: True)
    want_levels, want_several = flat.descend(X)
    assert want_several.any() and len(want_levels) > 3
    for table_x in (X, frozen, np.ascontiguousarray(X)):
        levels, several = descend(flat, table_x)
        assert several.tolist() == want_several.tolist()
        assert len(levels) == len(want_levels)
        for (rows, at), (want_rows, want_at) in zip(levels, want_levels, strict=True):
            assert rows.tolist() == want_rows.tolist() and at.tolist() == want_at.tolist()

"""A part's column orders filtered from its table's are the orders a stable sort gives (issue 39)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from engine.data.encoding import encode, subset
from engine.data.order import column_order
from engine.data.table import make_table


def test_parts_orders_are_a_stable_sorts():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 5, size=(300, 3)).astype(float)  # many ties
    X[rng.random(300) < 0.1, 1] = np.nan  # missing values last
    X[::7, 2] = -0.0  # equal to 0.0: a tie, kept in row order
    y = np.where(rng.random(300) > 0.5, "p", "q")
    data = encode(make_table(pd.DataFrame(X, columns=list("abc")).assign(y=y)))
    part = subset(data, np.flatnonzero(rng.random(300) < 0.7))
    inner = subset(part, np.flatnonzero(rng.random(part.n_rows) < 0.6))  # a fold of a fold
    shuffled = subset(data, rng.permutation(300)[:200])  # not in row order: sorted alone
    for table in (data, part, inner, shuffled):
        for j in range(3):
            expected = np.argsort(table.X[:, j], kind="stable")
            assert np.array_equal(column_order(table, j), expected)
    assert "_origin" in vars(inner) and "_origin" not in vars(shuffled)

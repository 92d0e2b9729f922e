"""A numeric column's stable sort order, made once per table and filtered for its parts.

CART's default fit grows eleven trees (the fit and ten folds choosing alpha), and its
10-fold evaluation a hundred and ten, each on a part of the same table: every one sorted
every numeric column again (issue 39). A part made by :func:`engine.data.encoding.subset`
keeps its table and rows; when the rows are in increasing order, the part's stable order of
a column is the table's stable order with the other rows left out (ties stay in row order
either way, missing values last), which takes one pass instead of a sort.
"""

from __future__ import annotations

import numpy as np

#: Tables of at most this many rows times columns keep their columns' orders (4 bytes a
#: cell); a bigger one sorts each part as before, rather than hold another copy of itself.
KEPT_CELLS = 1 << 24


def column_order(data, j: int, argsort=None) -> np.ndarray:
    """The rows of ``data`` (an :class:`~engine.data.encoding.Encoded`) in the stable
    ascending order of column ``j`` (``np.argsort(kind="stable")``'s order); ``argsort``,
    a function giving that order faster (the growth kernels' radix sort), or numpy's."""
    kept = data.__dict__.get("_orders")
    if kept is not None and j in kept:
        return kept[j]
    origin = data.__dict__.get("_origin")
    if origin is not None:
        table, rows = origin
        order = _part_order(table, rows, j, argsort)
    else:
        order = (argsort or _stable_argsort)(data.X[:, j]).astype(np.int32, copy=False)
    if data.X.size <= KEPT_CELLS and len(order) < 2**31:
        if kept is None:
            kept = {}
            object.__setattr__(data, "_orders", kept)  # read-only arrays: their order neither
        kept[j] = order
    return order


def _stable_argsort(values: np.ndarray) -> np.ndarray:
    return np.argsort(values, kind="stable")


def _part_order(table, rows: np.ndarray, j: int, argsort=None) -> np.ndarray:
    local = np.full(table.n_rows, -1, dtype=np.int32)
    local[rows] = np.arange(len(rows), dtype=np.int32)
    mapped = local[column_order(table, j, argsort)]
    return mapped[mapped >= 0]


def remember_origin(part, table, rows: np.ndarray) -> None:
    """Note that ``part`` holds ``table``'s ``rows`` (in that order), if they are strictly
    increasing and the table small enough to keep its orders; a part of other rows (a
    bootstrap's repeats, a shuffle) is sorted on its own."""
    if (
        table.X.size <= KEPT_CELLS
        and len(rows) > 1
        and rows.ndim == 1
        and bool(np.all(rows[1:] > rows[:-1]))
    ):
        object.__setattr__(part, "_origin", (table, rows))

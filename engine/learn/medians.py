"""Median leaves: the absolute-error criterion's point estimate (seed 004: "a point estimate
could be mean, median, mode ...").

The compiled growth loop chooses absolute-error splits (:func:`engine.fast.sweeps.scan_absolute`)
but keeps, like every regression tree, the weight, sum and sum of squares of the target
at each node. :func:`with_medians` then gives every node of the grown tree its weighted
median as its value and its mean absolute deviation from it as its impurity, from the
training rows that reach it, so predictions, pruning and every view read the median.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.monitor import checkpoint
from engine.tree import Node


def weighted_median(y: np.ndarray, w: np.ndarray) -> float:
    """The first target whose cumulative weight passes half the total, or the midpoint of
    two when a cumulative weight is exactly half (an even count of equal weights: the
    middle two's mean), as :func:`engine.fast.sweeps.scan_absolute` and scikit-learn take it.

    >>> weighted_median(np.array([3.0, 1.0, 2.0, 10.0]), np.ones(4))
    2.5
    >>> weighted_median(np.array([3.0, 1.0, 2.0, 10.0]), np.array([1.0, 1.0, 1.0, 4.0]))
    10.0
    """
    order = np.argsort(y, kind="mergesort")
    ys, cumulative = y[order], np.cumsum(w[order])
    half = 0.5 * cumulative[-1]
    a = int(np.searchsorted(cumulative, half, side="left"))  # the first to reach half
    if cumulative[a] == half:  # exactly: the midpoint with the first past it
        return float(0.5 * (ys[a] + ys[int(np.searchsorted(cumulative, half, side="right"))]))
    return float(ys[a])


def absolute_error_problem(data: Encoded) -> str | None:
    """Why ``data`` cannot grow an absolute-error tree (nominal attributes, missing values),
    or None."""
    nominal = [a.name for a in data.schema.attributes if a.is_nominal]
    if nominal:
        return (
            f"absolute_error splits numeric attributes only, and {nominal[0]!r} is nominal: "
            "use squared_error, or mark the column ignored"
        )
    if np.isnan(data.X).any():
        return (
            "absolute_error does not take missing values (as scikit-learn's): use "
            "squared_error, or fill or drop the rows with missing values"
        )
    return None


def check_absolute_error(data: Encoded) -> None:
    """Raise :class:`ArborError` with :func:`absolute_error_problem`'s reason, if any."""
    reason = absolute_error_problem(data)
    if reason:
        raise ArborError(reason)


def with_medians(root: Node, data: Encoded, rows: np.ndarray, weights: np.ndarray) -> Node:
    """``root`` with each node's value its rows' weighted median and its impurity their
    mean absolute deviation from it (``rows``/``weights``: the rows reaching ``root``)."""
    y = data.y
    order: list[tuple[Node, np.ndarray, np.ndarray]] = []
    stack = [(root, np.asarray(rows), np.asarray(weights, dtype=np.float64))]
    while stack:
        node, r, w = stack.pop()
        order.append((node, r, w))
        if not len(order) & 1023:
            checkpoint()
        if node.split is not None:
            branch = node.split.branch_of(data.X[r, node.split.attribute])
            stack.extend((c, r[branch == b], w[branch == b]) for b, c in enumerate(node.children))
    built: dict[int, Node] = {}
    for node, r, w in reversed(order):  # children before their parent
        children = tuple(built.pop(id(c)) for c in node.children)
        if len(r) and w.sum() > 0:
            median = weighted_median(y[r], w)
            impurity = float(np.sum(w * np.abs(y[r] - median)) / w.sum())
        else:
            median, impurity = float("nan"), 0.0
        built[id(node)] = replace(node, value=median, impurity=impurity, children=children)
    return built[id(root)]

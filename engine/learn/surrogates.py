"""Surrogate splits as rpart makes them: the readable rule (numpy), for one node at a time.

A surrogate of a node's binary split is a split on another attribute that sends the rows
where they go by the primary split as often as it can. For a row missing the primary
attribute, the first surrogate whose attribute the row has decides its branch; a row
with none of them goes with the majority (rpart's ``usesurrogate = 2``).

rpart's definitions, in its own terms (``surrogatestyle = 0``):

- Only rows with the primary attribute known count, weighted. For each other attribute,
  the rows that also have it give the agreement of a candidate split: the weight it sends
  the primary's way. A numeric candidate is a cut between two distinct sorted values
  (``value < cut``, the midpoint) with at least two rows (not weight) on each side, either
  side to branch 0; the first cut (in increasing order, branch 0 below before branch 1
  below) that strictly beats the best so far wins, the best starting at the majority
  side's weight among those rows. A nominal candidate sends each category present where
  most of its weight goes (a tie to the majority side); absent categories go nowhere.
- ``agreement`` is the winning weight over the weight of all rows with the primary
  attribute known (missing the candidate's attribute counts as a disagreement), and
  ``adjusted`` how much of the room above "go with the majority" it takes:
  ``(agreement - majority) / (1 - majority)``. A surrogate counts only when ``adjusted``
  is above zero; up to :data:`MAX_SURROGATES`, by agreement (the first attribute on ties).

Examples
--------
>>> X = np.array([[1.0, 10.0], [2.0, 20.0], [3.0, 30.0], [4.0, 40.0], [5.0, np.nan]])
>>> primary = np.array([0, 0, 1, 1, 1])  # branch by the primary split (-1: missing)
>>> [(s.attribute, s.threshold, s.agreement) for s in find(X, primary, np.ones(5), 0)]
[(1, 25.0, 0.8)]
"""

from __future__ import annotations

import numpy as np

from engine.tree import Surrogate, surrogate_branches

#: rpart's ``maxsurrogate`` default: surrogates kept per split.
MAX_SURROGATES = 5
#: Rows (not weight) a numeric surrogate must send each way (rpart's rule).
MIN_ROWS_EACH_WAY = 2


def find(
    X: np.ndarray,
    primary: np.ndarray,
    weights: np.ndarray,
    attribute: int,
    nominal: np.ndarray | None = None,
    limit: int = MAX_SURROGATES,
) -> list[Surrogate]:
    """The surrogates of a split on ``attribute`` for a node's rows.

    ``X``: the node's rows (codes for nominal attributes, NaN missing); ``primary``: each
    row's branch by the split (0 or 1; -1 where the attribute is missing); ``weights``: the
    rows' weights; ``nominal``: which attributes are nominal (default: none).
    """
    X = np.asarray(X, dtype=np.float64)
    primary = np.asarray(primary)
    weights = np.asarray(weights, dtype=np.float64)
    nominal = np.zeros(X.shape[1], bool) if nominal is None else np.asarray(nominal, bool)
    known = primary >= 0
    sent = np.array([weights[known & (primary == b)].sum() for b in (0, 1)])
    total = sent.sum()
    if total <= 0:
        return []
    majority = sent.max() / total
    found = []
    for j in range(X.shape[1]):
        if j == attribute:
            continue
        has = ~np.isnan(X[:, j])
        if nominal[j]:
            both = has & known
            best = _nominal(X[both, j], primary[both], weights[both])
        else:  # rows missing the primary attribute take part in the order, not in the counts
            best = _numeric(X[has, j], primary[has], weights[has])
        if best is None:
            continue
        agree, fields = best
        agreement = agree / total
        adjusted = (agreement - majority) / (1 - majority) if majority < 1 else 0.0
        if adjusted > 0:
            found.append(Surrogate(j, float(agreement), float(adjusted), **fields))
    found.sort(key=lambda s: -s.agreement)  # stable: the first attribute on ties
    return found[:limit]


def _numeric(x: np.ndarray, side: np.ndarray, w: np.ndarray):
    """The best cut of one numeric attribute: (agreeing weight, Surrogate fields) or None.

    ``side`` is -1 for rows missing the primary attribute: they count nowhere, but a cut
    is tried between any two distinct neighbouring values, theirs too (rpart's order)."""
    order = np.argsort(x, kind="stable")
    xs, s, ws = x[order], side[order], w[order]
    # Before position i: the weight with the primary's branch 0 and 1, and the rows counted.
    below0 = np.concatenate([[0.0], np.cumsum(np.where(s == 0, ws, 0.0))])
    below1 = np.concatenate([[0.0], np.cumsum(np.where(s == 1, ws, 0.0))])
    rows = np.concatenate([[0], np.cumsum(s >= 0)])
    all0, all1, n_rows = below0[-1], below1[-1], rows[-1]
    best, found = max(all0, all1), None
    for i in range(1, len(xs)):
        if rows[i] < MIN_ROWS_EACH_WAY or n_rows - rows[i] < MIN_ROWS_EACH_WAY:
            continue
        if xs[i] == xs[i - 1]:
            continue
        keep = below0[i] + (all1 - below1[i])  # below to branch 0
        swap = below1[i] + (all0 - below0[i])  # below to branch 1
        if keep > best:
            best, found = keep, (i, 0)
        elif swap > best:
            best, found = swap, (i, 1)
    if found is None:
        return None
    i, below = found
    return best, {"threshold": float((xs[i] + xs[i - 1]) / 2), "below": below}


def _nominal(x: np.ndarray, side: np.ndarray, w: np.ndarray):
    """Each category where most of its weight goes: (agreeing weight, Surrogate fields)."""
    if len(x) == 0:
        return None
    codes = x.astype(np.intp)
    size = codes.max() + 1
    to0 = np.bincount(codes[side == 0], weights=w[side == 0], minlength=size)
    to1 = np.bincount(codes[side == 1], weights=w[side == 1], minlength=size)
    default = 0 if to0.sum() > to1.sum() else 1  # rpart: a tie of the sides goes to branch 1
    present = (to0 > 0) | (to1 > 0)
    goes1 = (to1 > to0) | ((to1 == to0) & (default == 1))
    groups = (
        tuple(np.flatnonzero(present & ~goes1).tolist()),
        tuple(np.flatnonzero(present & goes1).tolist()),
    )
    agree = float(np.where(goes1, to1, to0)[present].sum())
    return agree, {"groups": groups}


def route(
    X: np.ndarray, primary: np.ndarray, weights: np.ndarray, found: list[Surrogate]
) -> np.ndarray:
    """Every row's branch: the primary split's where known, else the first surrogate that
    can place it, else the majority side of the rows the primary split places."""
    out = surrogate_branches(found, np.asarray(X, dtype=np.float64), np.asarray(primary, np.intp))
    known = np.asarray(primary) >= 0
    w = np.asarray(weights, dtype=np.float64)
    majority = 1 if w[known & (primary == 1)].sum() > w[known & (primary == 0)].sum() else 0
    out[out < 0] = majority
    return out

"""Rows routed down a tree's arrays a level at a time, compiled: :meth:`engine.flat.FlatTree.descend`,
whose numpy is its oracle (the same levels, in the same order).

A full regression tree is fifty levels deep, most of a few nodes, and numpy's dozen calls
a level were a tenth of the losses of a fold choosing CART's alpha; prediction routes
every row through the same loop.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import njit


@njit(cache=True, nogil=True)
def descend_levels(X, children, attribute, by_threshold, threshold, groups, lookup, leaf):
    """Every row of ``X`` routed down at once, a level at a time: the (row, node) pairs of
    each level back to back (``rows``, ``at``) and where each level starts (``starts``, one
    more than the levels), for the rows that go down one branch at every split; and which
    rows went down several (a missing value, or a category no branch holds), whose routing
    stops there."""
    n = X.shape[0]
    width = lookup.shape[1]
    cap = 2 * n + 16
    rows = np.empty(cap, np.intp)
    at = np.empty(cap, np.intp)
    starts = np.empty(64, np.intp)
    several = np.zeros(n, np.bool_)
    for r in range(n):
        rows[r], at[r] = r, 0
    starts[0], starts[1] = 0, n
    levels = 1
    while True:
        lo, hi = starts[levels - 1], starts[levels]
        inner = 0
        for k in range(lo, hi):
            if not leaf[at[k]]:
                inner += 1
        if inner == 0:
            break
        if hi + inner > rows.shape[0]:  # room for the next level at least
            bigger = max(2 * rows.shape[0], hi + inner)
            rows = np.concatenate((rows, np.empty(bigger - rows.shape[0], np.intp)))
            at = np.concatenate((at, np.empty(bigger - at.shape[0], np.intp)))
        top = hi
        for k in range(lo, hi):
            i = at[k]
            if leaf[i]:
                continue
            r = rows[k]
            v = X[r, attribute[i]]
            if np.isnan(v):
                b = -1
            elif by_threshold[i]:
                b = 0 if v <= threshold[i] else 1
            else:
                code = int(v)  # numpy's astype: toward zero
                b = lookup[groups[i], code] if code < width else -1
            if b < 0:
                several[r] = True
            else:
                rows[top], at[top] = r, children[i, b]
                top += 1
        if levels + 1 >= starts.shape[0]:
            starts = np.concatenate((starts, np.empty(starts.shape[0], np.intp)))
        levels += 1
        starts[levels] = top
    return rows, at, starts[: levels + 1], several

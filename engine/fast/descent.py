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
def branch_of(X, r, i, attribute, by_threshold, threshold, groups, lookup):
    """The branch row ``r`` of ``X`` takes at node ``i``: -1 where it goes down several (a
    missing value, or a category no branch holds)."""
    v = X[r, attribute[i]]
    if np.isnan(v):
        return -1
    if by_threshold[i]:
        return 0 if v <= threshold[i] else 1
    code = int(v)  # numpy's astype: toward zero
    return lookup[groups[i], code] if code < lookup.shape[1] else -1


@njit(cache=True, nogil=True)
def descend_levels(X, children, attribute, by_threshold, threshold, groups, lookup, leaf):
    """Every row of ``X`` routed down at once, a level at a time: the (row, node) pairs of
    each level back to back (``rows``, ``at``) and where each level starts (``starts``, one
    more than the levels), for the rows that go down one branch at every split; and which
    rows went down several (a missing value, or a category no branch holds), whose routing
    stops there."""
    n = X.shape[0]
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
            b = branch_of(X, r, i, attribute, by_threshold, threshold, groups, lookup)
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


@njit(cache=True, nogil=True)
def _onward(X, r, i, children, attribute, by_threshold, threshold, groups, lookup, leaf, whole):
    """Where row ``r`` goes from node ``i``: ``i`` itself at a leaf (or -1, a row stopped); a
    row the split cannot place, down ``whole[i]`` (or stopped, where that is -1). (Given the
    arrays one by one: handed them as one tuple, a prediction took 60 ms instead of 4.5.)"""
    if i < 0 or leaf[i]:
        return i
    b = branch_of(X, r, i, attribute, by_threshold, threshold, groups, lookup)
    return whole[i] if b < 0 else children[i, b]


@njit(cache=True, nogil=True)
def leaves_of_rows(X, children, attribute, by_threshold, threshold, groups, lookup, leaf, whole):
    """The leaf each row of ``X`` reaches, -1 for a row that goes down several branches (a
    missing value, or a category no branch holds, at a split whose ``whole`` is -1): where
    its path in :func:`descend_levels`' levels ends, a row at a time. ``whole[i]``: the
    child such a row goes down at weight 1 (every other branch's fraction 0, as
    ``--missing majority`` grows them), where :func:`walk_several` would take it alone; -1
    where it would go down several.

    Four rows go down side by side: a row's next node waits for the loads of its last, and
    four independent paths keep the memory busy: 50,000 rows down a tree 12 deep in 1.2 ms,
    where the levels took 3.4-4 ms (and a prediction's use of them 2 more). (Inlined into
    this loop by numba, rather than called, the step made it forty times slower.)"""
    kids, attr, by_cut, cut = children, attribute, by_threshold, threshold  # (short lines)
    n = X.shape[0]
    out = np.empty(n, np.intp)
    r = 0
    while r + 4 <= n:
        a, b, c, d = 0, 0, 0, 0
        while not (
            (a < 0 or leaf[a]) and (b < 0 or leaf[b]) and (c < 0 or leaf[c]) and (d < 0 or leaf[d])
        ):
            a = _onward(X, r, a, kids, attr, by_cut, cut, groups, lookup, leaf, whole)
            b = _onward(X, r + 1, b, kids, attr, by_cut, cut, groups, lookup, leaf, whole)
            c = _onward(X, r + 2, c, kids, attr, by_cut, cut, groups, lookup, leaf, whole)
            d = _onward(X, r + 3, d, kids, attr, by_cut, cut, groups, lookup, leaf, whole)
        out[r] = a
        out[r + 1] = b
        out[r + 2] = c
        out[r + 3] = d
        r += 4
    for q in range(r, n):
        i = 0
        while i >= 0 and not leaf[i]:
            i = _onward(X, q, i, kids, attr, by_cut, cut, groups, lookup, leaf, whole)
        out[q] = i
    return out


@njit(cache=True, nogil=True)
def walk_several(
    X, children, attribute, by_threshold, threshold, groups, lookup, rows, n_children, fractions
):
    """The leaves the ``rows`` of ``X`` (those :func:`descend_levels` found going down several
    branches) reach, and with which weight, as :meth:`engine.flat.FlatTree.walk` routes them
    (a missing value, or a category no branch holds, down every branch of positive fraction
    at its weight times that fraction): ``(row, leaf, weight)`` triples, each row's leaves in
    the walk's order (depth-first, the last branch first), so that they add up as its do.
    The walk's numpy is the oracle; it took a numpy call per node and row set, most of a
    prediction where a tenth of the values are missing."""
    n_nodes = children.shape[0]
    cap = 4 * rows.shape[0] + 16
    out_row = np.empty(cap, np.intp)
    out_leaf = np.empty(cap, np.intp)
    out_weight = np.empty(cap)
    stack = np.empty(n_nodes + 1, np.intp)  # a node is on a row's stack once at most
    stack_weight = np.empty(n_nodes + 1)
    top = 0
    for r in rows:
        depth = 1
        stack[0], stack_weight[0] = 0, 1.0
        while depth:
            depth -= 1
            i, w = stack[depth], stack_weight[depth]
            k = n_children[i]
            if k == 0:
                if top == out_row.shape[0]:
                    out_row = np.concatenate((out_row, np.empty(top, np.intp)))
                    out_leaf = np.concatenate((out_leaf, np.empty(top, np.intp)))
                    out_weight = np.concatenate((out_weight, np.empty(top)))
                out_row[top], out_leaf[top], out_weight[top] = r, i, w
                top += 1
                continue
            b = branch_of(X, r, i, attribute, by_threshold, threshold, groups, lookup)
            for c in range(k):
                if b == c:
                    stack[depth], stack_weight[depth] = children[i, c], w
                    depth += 1
                elif b < 0 and fractions[i, c] > 0:
                    stack[depth], stack_weight[depth] = children[i, c], w * fractions[i, c]
                    depth += 1
    return out_row[:top], out_leaf[:top], out_weight[:top]


@njit(cache=True, nogil=True)
def add_weighted(out, rows, at, weights, outputs):
    """``out[rows[t]] += weights[t] * outputs[at[t]]`` one ``t`` after another (numpy's
    ``np.add.at``, the oracle, takes ten times as long a cell): the leaves
    :func:`walk_several` gives, added up in its order. Every array is a matrix (one column
    for a regression tree's means)."""
    K = out.shape[1]
    for t in range(rows.shape[0]):
        r, i, w = rows[t], at[t], weights[t]
        for k in range(K):
            out[r, k] += w * outputs[i, k]

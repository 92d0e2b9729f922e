"""One partition's share of a growth round over partitions (:mod:`engine.scale`), compiled.

Training over partitions keeps no row on the driver: each round, every partition routes
its rows from the root through the tree grown so far (:class:`Route`) to the open leaves
they reach, and there adds each row to its leaf's statistics (as
:func:`engine.fast.kernels.add_entry` adds an entry, in row order, so that a leaf's sums run
in the order the in-memory builder's do) and, for the leaves the driver asks:

- to the leaf's histogram ``H[attribute, bin, stat]`` (:mod:`engine.fast.histogram`'s
  layout: the bin after an attribute's last holds its missing values); with fractional
  weights one more stat counts the entries, which C4.5's rules and the small-node rule
  count rather than weigh;
- to the rows gathered for the leaf, whose subtree is then grown exactly, as the
  in-memory histogram mode grows small nodes.

A row whose value of a split's attribute is missing goes down every branch with a positive
fraction, its weight times that fraction (C4.5's fractional instances, also CART's here),
as in growth; a category a two-group split never saw counts as missing there, as in growth.
:func:`node_statistics` routes rows the same way through a finished tree and adds them at
every node they pass (held-out rows for pruning, test rows for evaluation).
``tests/oracle/partitions.py`` does the same with plain numpy, row by row.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from engine.fast.kernels import add_entry, njit

# How a node routes a row (``Route.rule``).
BY_BIN, BY_THRESHOLD, BY_CATEGORY, BY_GROUP = 0, 1, 2, 3

#: The tree so far, one entry per node. ``rule``: how a split node routes; ``attribute``
#: (-1: a leaf); ``cut_bin`` (code <= cut_bin: branch 0) or ``threshold`` (value <= threshold);
#: ``group_at``: where a two-group split's category branches start in ``groups`` (-1: a
#: category absent at the split); ``fraction``: the node's share of its parent's missing
#: values; ``slot``: a leaf's row in the outputs (-1: a leaf no longer open).
Route = namedtuple(
    "Route",
    [
        "rule",
        "attribute",
        "cut_bin",
        "threshold",
        "child0",
        "n_children",
        "fraction",
        "group_at",
        "slot",
        "groups",
    ],
)

#: Per output slot: its histogram in ``H`` (-1: none) and whether its rows are gathered; the
#: outputs: statistics, entries, histograms, and the gathered (row, weight, slot) triples.
Leaves = namedtuple(
    "Leaves", ["hist", "gather", "stats", "entries", "H", "rows", "weights", "slots"]
)


# The route's arrays are taken one by one, not as the Route tuple: a tuple of ten arrays
# handed to a helper (even one numba inlines: inline="always") had every array's reference
# count raised and lowered at each node a row passed, ten times the routing itself
# (150 ms instead of 15 ms for 250,000 rows at depth 12).
@njit(cache=True, linked=True)
def _branch(rule, attribute, cut_bin, threshold, group_at, groups, node, codes, X, i, missing_code):
    """The branch row ``i`` takes at split ``node``, or -1 when its value is missing there."""
    j = attribute[node]
    r = rule[node]
    if r == BY_BIN:
        c = codes[i, j]
        if c == missing_code:
            return -1
        return 0 if c <= cut_bin[node] else 1
    x = X[i, j]
    if np.isnan(x):
        return -1
    if r == BY_THRESHOLD:
        return 0 if x <= threshold[node] else 1
    if r == BY_CATEGORY:
        return int(x)
    return groups[group_at[node] + int(x)]


@njit(cache=True, nogil=True)
def _reach(
    rule,
    attribute,
    cut_bin,
    threshold,
    child0,
    n_children,
    fraction,
    group_at,
    slot,
    groups,
    codes,
    X,
    weight,
    missing_code,
    rows,
    weights,
    slots,
):
    """Every (row, weight, slot) a row reaches at an open leaf, in row order (a row's
    leaves in branch order); returns how many, writing only as many as ``rows`` holds."""
    n = codes.shape[0]
    capacity = rows.shape[0]
    size = attribute.shape[0] + 1
    stack_node = np.empty(size, np.int64)
    stack_weight = np.empty(size)
    m = 0
    for i in range(n):
        stack_node[0], stack_weight[0] = 0, weight[i]
        top = 1
        while top > 0:
            top -= 1
            node, w = stack_node[top], stack_weight[top]
            k = n_children[node]
            if k == 0:
                s = slot[node]
                if s >= 0:
                    if m < capacity:
                        rows[m], weights[m], slots[m] = i, w, s
                    m += 1
                continue
            b = _branch(
                rule,
                attribute,
                cut_bin,
                threshold,
                group_at,
                groups,
                node,
                codes,
                X,
                i,
                missing_code,
            )
            c0 = child0[node]
            if b >= 0:
                stack_node[top], stack_weight[top] = c0 + b, w
                top += 1
            else:  # last branch pushed first: branches are visited in order
                for c in range(c0 + k - 1, c0 - 1, -1):
                    f = fraction[c]
                    if f > 0:
                        stack_node[top], stack_weight[top] = c, w * f
                        top += 1
    return m


@njit(cache=True, nogil=True)
def accumulate_leaves(
    route, leaves, codes, X, cls, target, weight, K, n_bins, missing_code, count_entries
):
    """Route every row to the open leaves it reaches and add it there (module docstring).

    Rows are routed first, then added leaf by leaf (a stable counting sort by slot, so each
    leaf's sums still run in row order): adding in row order scattered the rows over every
    open leaf's histogram at once, megabytes that no cache holds, where one leaf's
    histogram (attributes x bins x stats) stays in cache while its rows are added.

    The gathered (row, weight, slot) triples come ordered by slot, then row. Returns their
    number; when more than ``leaves.rows`` holds, nothing at all is written and the caller
    enlarges the buffers and runs again.
    """
    n, p = codes.shape[0], codes.shape[1]
    hist, gather, stats, entries, H = (
        leaves.hist,
        leaves.gather,
        leaves.stats,
        leaves.entries,
        leaves.H,
    )
    S = stats.shape[1]
    n_slots = stats.shape[0]
    capacity = n + n // 8 + 16  # rows with missing values may reach several leaves
    while True:
        rows, weights, slots = (
            np.empty(capacity, np.int64),
            np.empty(capacity),
            np.empty(capacity, np.int64),
        )
        m = _reach(
            route.rule,
            route.attribute,
            route.cut_bin,
            route.threshold,
            route.child0,
            route.n_children,
            route.fraction,
            route.group_at,
            route.slot,
            route.groups,
            codes,
            X,
            weight,
            missing_code,
            rows,
            weights,
            slots,
        )
        if m <= capacity:
            break
        capacity = m
    start = np.zeros(n_slots + 1, np.int64)
    for t in range(m):
        start[slots[t] + 1] += 1
    for s in range(n_slots):
        start[s + 1] += start[s]
    gathered = 0
    for s in range(n_slots):
        if gather[s]:
            gathered += start[s + 1] - start[s]
    out_rows, out_weights, out_slots = leaves.rows, leaves.weights, leaves.slots
    if gathered > out_rows.shape[0]:
        return gathered
    order = np.empty(m, np.int64)
    at = start[:n_slots].copy()
    for t in range(m):
        s = slots[t]
        order[at[s]] = t
        at[s] += 1
    g = 0
    for s in range(n_slots):
        a, e = start[s], start[s + 1]
        acc = stats[s]
        for q in range(a, e):
            t = order[q]
            add_entry(acc, rows[t], weights[t], cls, target, K)
        entries[s] += e - a
        h = hist[s]
        if h >= 0:
            Hs = H[h]
            for q in range(a, e):
                t = order[q]
                i, w = rows[t], weights[t]
                for j in range(p):
                    c = codes[i, j]
                    b = n_bins[j] if c == missing_code else c
                    add_entry(Hs[j, b], i, w, cls, target, K)
                    if count_entries:
                        Hs[j, b, S] += 1.0
        if gather[s]:
            for q in range(a, e):
                t = order[q]
                out_rows[g], out_weights[g], out_slots[g] = rows[t], weights[t], s
                g += 1
    return gathered


@njit(cache=True, nogil=True)
def node_statistics(route, X, cls, target, weight, K, stats):
    """Add every row to the statistics of each node it passes (``stats[node]``), routing
    by value (``Route.rule`` is never ``BY_BIN`` here)."""
    rule, attribute, cut_bin, threshold = (
        route.rule,
        route.attribute,
        route.cut_bin,
        route.threshold,
    )
    child0, n_children, fraction = route.child0, route.n_children, route.fraction
    group_at, groups = route.group_at, route.groups
    n = X.shape[0]
    size = attribute.shape[0] + 1
    stack_node = np.empty(size, np.int64)
    stack_weight = np.empty(size)
    codes = np.zeros((1, 1), np.uint8)
    for i in range(n):
        stack_node[0], stack_weight[0] = 0, weight[i]
        top = 1
        while top > 0:
            top -= 1
            node, w = stack_node[top], stack_weight[top]
            add_entry(stats[node], i, w, cls, target, K)
            k = n_children[node]
            if k == 0:
                continue
            b = _branch(rule, attribute, cut_bin, threshold, group_at, groups, node, codes, X, i, 0)
            c0 = child0[node]
            if b >= 0:
                stack_node[top], stack_weight[top] = c0 + b, w
                top += 1
            else:
                for c in range(c0 + k - 1, c0 - 1, -1):
                    f = fraction[c]
                    if f > 0:
                        stack_node[top], stack_weight[top] = c, w * f
                        top += 1


def bin_codes(
    X: np.ndarray, edges: list, n_bins: np.ndarray, nominal: np.ndarray, dtype
) -> np.ndarray:
    """Histogram codes of a partition's rows (rows x attributes, C order so that a row's
    codes are together): a numeric value's bin by the cut points ``edges[j]`` (``value <=
    edges[j][k]``: bin <= k, as :func:`engine.fast.histogram.bin_columns` codes), a category
    its code; a missing value the dtype's largest number."""
    n, p = X.shape
    missing_code = np.iinfo(dtype).max
    codes = np.empty((n, p), dtype=dtype)
    for j in range(p):
        x = X[:, j]
        gap = np.isnan(x)
        if nominal[j]:
            code = np.where(gap, 0.0, x).astype(dtype)
        else:
            code = np.searchsorted(edges[j], x, side="left").astype(dtype)
        code[gap] = missing_code
        codes[:, j] = code
    return codes

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
Route = namedtuple("Route", ["rule", "attribute", "cut_bin", "threshold", "child0", "n_children",
                             "fraction", "group_at", "slot", "groups"])

#: Per output slot: its histogram in ``H`` (-1: none) and whether its rows are gathered; the
#: outputs: statistics, entries, histograms, and the gathered (row, weight, slot) triples.
Leaves = namedtuple("Leaves", ["hist", "gather", "stats", "entries", "H", "rows", "weights",
                               "slots"])


def new_route(n: int, n_groups: int = 1) -> Route:
    return Route(np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n, np.int64),
                 np.zeros(n), np.zeros(n, np.int64), np.zeros(n, np.int64), np.ones(n),
                 np.zeros(n, np.int64), np.full(n, -1, np.int64), np.zeros(n_groups, np.int64))


@njit(cache=True, inline="always")
def _branch(route, node, codes, X, i, missing_code):
    """The branch row ``i`` takes at split ``node``, or -1 when its value is missing there."""
    j = route.attribute[node]
    rule = route.rule[node]
    if rule == BY_BIN:
        c = codes[i, j]
        if c == missing_code:
            return -1
        return 0 if c <= route.cut_bin[node] else 1
    x = X[i, j]
    if np.isnan(x):
        return -1
    if rule == BY_THRESHOLD:
        return 0 if x <= route.threshold[node] else 1
    if rule == BY_CATEGORY:
        return int(x)
    return route.groups[route.group_at[node] + int(x)]


@njit(cache=True, nogil=True)
def accumulate_leaves(route, leaves, codes, X, cls, target, weight, K, n_bins, missing_code,
                      count_entries):
    """Route every row to the open leaves it reaches and add it there (module docstring).

    Returns the number of gathered triples; when more than ``leaves.rows`` holds, the
    caller enlarges the buffers and runs again (the rest is then counted, not written).
    """
    n, p = codes.shape[0], codes.shape[1]
    S = leaves.stats.shape[1]
    size = route.attribute.shape[0] + 1
    stack_node = np.empty(size, np.int64)
    stack_weight = np.empty(size)
    gathered = 0
    capacity = leaves.rows.shape[0]
    for i in range(n):
        stack_node[0], stack_weight[0] = 0, weight[i]
        top = 1
        while top > 0:
            top -= 1
            node, w = stack_node[top], stack_weight[top]
            k = route.n_children[node]
            if k == 0:
                s = route.slot[node]
                if s < 0:
                    continue
                add_entry(leaves.stats[s], i, w, cls, target, K)
                leaves.entries[s] += 1
                h = leaves.hist[s]
                if h >= 0:
                    H = leaves.H[h]
                    for j in range(p):
                        c = codes[i, j]
                        b = n_bins[j] if c == missing_code else c
                        add_entry(H[j, b], i, w, cls, target, K)
                        if count_entries:
                            H[j, b, S] += 1.0
                if leaves.gather[s]:
                    if gathered < capacity:
                        leaves.rows[gathered] = i
                        leaves.weights[gathered] = w
                        leaves.slots[gathered] = s
                    gathered += 1
                continue
            b = _branch(route, node, codes, X, i, missing_code)
            c0 = route.child0[node]
            if b >= 0:
                stack_node[top], stack_weight[top] = c0 + b, w
                top += 1
            else:  # last branch pushed first: branches are visited in order
                for c in range(c0 + k - 1, c0 - 1, -1):
                    f = route.fraction[c]
                    if f > 0:
                        stack_node[top], stack_weight[top] = c, w * f
                        top += 1
    return gathered


@njit(cache=True, nogil=True)
def node_statistics(route, X, cls, target, weight, K, stats):
    """Add every row to the statistics of each node it passes (``stats[node]``), routing
    by value (``Route.rule`` is never ``BY_BIN`` here)."""
    n = X.shape[0]
    size = route.attribute.shape[0] + 1
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
            k = route.n_children[node]
            if k == 0:
                continue
            b = _branch(route, node, codes, X, i, 0)
            c0 = route.child0[node]
            if b >= 0:
                stack_node[top], stack_weight[top] = c0 + b, w
                top += 1
            else:
                for c in range(c0 + k - 1, c0 - 1, -1):
                    f = route.fraction[c]
                    if f > 0:
                        stack_node[top], stack_weight[top] = c, w * f
                        top += 1


def bin_codes(X: np.ndarray, edges: list, n_bins: np.ndarray, nominal: np.ndarray,
              dtype) -> np.ndarray:
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

"""The optimal-tree solver's one kernel: every depth-2 tree on a set of rows, at once.

A depth-2 tree is a root split and, below each branch, either a leaf or one more split.
Its training error splits into what each branch's subtree gets wrong, so the best tree
with a given root split takes the best split (or none) of each branch independently.
What those need, for every pair of binary features (f on attribute a, g on attribute b),
is the class weight of the rows in both: the rows are counted once per pair of
*attributes* into a joint histogram of their bins, which a running sum along a numeric
attribute's bins turns into "value <= threshold" for every threshold at once (a nominal
value's bin is its feature as it is). So one pass over the rows per pair of attributes
scores every root split with every split below it; the driver,
:mod:`engine.optimal`, calls it for each subtree of depth two a deeper search meets.

A row's bin is its attribute's code (nominal) or the number of thresholds below its value
(numeric); a missing value has the bin after the last, which no feature holds: it goes
with the rows outside the feature, and the tree's split sends it there too.

Compiled on first use of the optimal algorithm (not in the one-time compile of the
growth kernels), into the same kernel folder; uncompiled for tiny tables.
"""

from __future__ import annotations

import numpy as np

try:  # numba is a dependency; without it the same code runs as plain (slow) Python
    from engine.fast.compile.jit import njit  # numba's, caching in the kernel folder
except ImportError:  # pragma: no cover - exercised on machines without numba

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


@njit(cache=True)
def depth_two(codes, y, w, rows, first, numeric, n_bins, n_classes):
    """Every feature as a root split over ``rows``, with the best child below each branch.

    ``codes`` (rows x attributes) holds each row's bin; attribute ``a`` has ``n_bins[a]``
    bins (its missing bin is ``n_bins[a]``) and features ``first[a]`` .. ``first[a + 1]``:
    a numeric one's feature ``i`` is "bin <= i", a nominal one's "bin == i".

    Returns, per feature, the class weights of the rows in it and then, for the branch
    inside it and the branch outside it, the error of the best split below (inf: none)
    and that split's feature (-1: none). The leaves' errors follow from the weights.
    """
    n_attributes = codes.shape[1]
    n_features = first[n_attributes]
    n = len(rows)
    # The rows' bins gathered once, attribute by attribute (contiguous), and each bin with
    # the row's class folded into one index: the pair loops below read two numbers a row.
    bins = np.empty((n_attributes, n), dtype=np.int64)
    cells = np.empty((n_attributes, n), dtype=np.int64)
    weight = np.empty(n)
    total = np.zeros(n_classes)
    for i in range(n):
        r = rows[i]
        weight[i] = w[r]
        total[y[r]] += w[r]
        for a in range(n_attributes):
            bins[a, i] = codes[r, a]
            cells[a, i] = codes[r, a] * n_classes + y[r]
    inside = np.zeros((n_features, n_classes))
    in_error = np.full(n_features, np.inf)
    in_split = np.full(n_features, -1, dtype=np.int64)
    out_error = np.full(n_features, np.inf)
    out_split = np.full(n_features, -1, dtype=np.int64)
    for a in range(n_attributes):
        counts = np.zeros((n_bins[a] + 1) * n_classes)
        for i in range(n):
            counts[cells[a, i]] += weight[i]
        if numeric[a]:  # a running sum over the bins: "bin <= i" (the missing bin is left out)
            for k in range(n_classes, n_bins[a] * n_classes):
                counts[k] += counts[k - n_classes]
        for f in range(first[a], first[a + 1]):
            for c in range(n_classes):
                inside[f, c] = counts[(f - first[a]) * n_classes + c]
    for a in range(n_attributes):
        for b in range(a, n_attributes):
            width = (n_bins[b] + 1) * n_classes
            flat = np.zeros((n_bins[a] + 1) * width)
            for i in range(n):
                flat[bins[a, i] * width + cells[b, i]] += weight[i]
            joint = flat.reshape((n_bins[a] + 1, n_bins[b] + 1, n_classes))
            if numeric[a]:
                for i in range(1, n_bins[a]):
                    for j in range(n_bins[b] + 1):
                        for c in range(n_classes):
                            joint[i, j, c] += joint[i - 1, j, c]
            if numeric[b]:
                for i in range(n_bins[a] + 1):
                    for j in range(1, n_bins[b]):
                        for c in range(n_classes):
                            joint[i, j, c] += joint[i, j - 1, c]
            for f in range(first[a], first[a + 1]):
                for g in range(first[b], first[b + 1]):
                    # The four cells of (in f or not) x (in g or not), each predicting
                    # its majority class: misclassified weight = weight - largest class.
                    w00, w01, w10, w11 = 0.0, 0.0, 0.0, 0.0
                    m00, m01, m10, m11 = 0.0, 0.0, 0.0, 0.0
                    for c in range(n_classes):
                        both = joint[f - first[a], g - first[b], c]
                        v01 = inside[f, c] - both
                        v10 = inside[g, c] - both
                        v11 = total[c] - inside[f, c] - inside[g, c] + both
                        w00 += both
                        w01 += v01
                        w10 += v10
                        w11 += v11
                        m00 = max(m00, both)
                        m01 = max(m01, v01)
                        m10 = max(m10, v10)
                        m11 = max(m11, v11)
                    e00, e01, e10, e11 = w00 - m00, w01 - m01, w10 - m10, w11 - m11
                    # f at the root with g below a branch, then g at the root with f below.
                    if e00 + e01 < in_error[f]:
                        in_error[f], in_split[f] = e00 + e01, g
                    if e10 + e11 < out_error[f]:
                        out_error[f], out_split[f] = e10 + e11, g
                    if e00 + e10 < in_error[g]:
                        in_error[g], in_split[g] = e00 + e10, f
                    if e01 + e11 < out_error[g]:
                        out_error[g], out_split[g] = e01 + e11, f
    return inside, in_error, in_split, out_error, out_split

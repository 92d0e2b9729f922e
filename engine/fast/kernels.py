"""Compiled split arithmetic: impurities, gains and gain ratios of statistics vectors.

Everything here repeats, number for number, what :mod:`engine.learn.splitting` and
:mod:`engine.learn.criteria` compute with numpy, so the compiled builder chooses the
same splits as the readable scorers: sums along a vector are done the way numpy does
them (:func:`psum`, numpy's pairwise summation, for any length), cumulative class
weights are running sums in sorted order, and gains use the same operations in the
same order. The growth rules are :mod:`engine.learn.rules`' own functions, compiled.

A statistics vector holds class weights (``K`` classes) or, for regression (``K`` = 0),
weight, weighted sum and weighted sum of squares of the target.
"""

from __future__ import annotations

import numpy as np

from engine.learn import rules
from engine.learn.tolerances import WEKA_EPS

try:  # numba is a dependency; without it the same code runs as plain (slow) Python
    from engine.fast.compile.jit import (  # numba's, caching in the kernel folder
        as_ref,
        njit,
        prefetch,
    )
except ImportError:  # pragma: no cover - exercised on machines without numba

    def as_ref(group):
        return group

    def prefetch(array, index):
        pass

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


#: Impurity codes (the order of ``IMPURITY_CODES``).
GINI, ENTROPY, MISCLASSIFICATION, SQUARED_ERROR, ABSOLUTE_ERROR = 0, 1, 2, 3, 4
IMPURITY_CODES = {
    "gini": GINI,
    "entropy": ENTROPY,
    "misclassification": MISCLASSIFICATION,
    "squared_error": SQUARED_ERROR,
    "absolute_error": ABSOLUTE_ERROR,
}
#: A loop over at least this many entries of a node, scattered over the table, asks for the
#: entry this many ahead before it needs it (:func:`prefetch`); smaller nodes sit in the
#: nearest caches. Measured on fits of a million rows (one and two threads, both
#: generators, exact and histogram): 64 ahead from 512 entries 4-9% quicker than 32 ahead
#: from 4,096, whose fetches came too late for the memory's latency (a gather alone: 8.7
#: against 8.1 ns an entry) and left a local subtree's deep nodes waiting on the outer cache.
PREFETCH_LEAST = 512
PREFETCH_AHEAD = 64
#: numpy adds up to this many numbers in one pairwise block (8 running sums).
PAIRWISE_BLOCK = 128


@njit(cache=True)
def by_ref(group):
    """``group`` by reference, for Python to hand to kernels that other kernels call with it
    (:mod:`engine.fast.compile.refs`); uncompiled, the group itself."""
    return as_ref(group)


# The shared rules, compiled (the numpy side calls the same functions directly).
is_pure = njit(cache=True)(rules.is_pure)
stops_before_search = njit(cache=True)(rules.stops_before_search)
gain_too_small = njit(cache=True)(rules.gain_too_small)
distinct = njit(cache=True, inline="always")(rules.distinct)
whole_branch = njit(cache=True)(rules.whole_branch)
c45_min_split = njit(cache=True)(rules.c45_min_split)
c45_cut_admissible = njit(cache=True, inline="always")(rules.c45_cut_admissible)
c45_penalised = njit(cache=True)(rules.c45_penalised)
multiway_floor = njit(cache=True)(rules.multiway_floor)
c45_midpoint = njit(cache=True)(rules.c45_midpoint)
cart_threshold = njit(cache=True)(rules.cart_threshold)
c45_beats = njit(cache=True)(rules.c45_beats)
queue_priority = njit(cache=True, inline="always")(rules.queue_priority)
leaf_big_enough = njit(cache=True, inline="always")(rules.leaf_big_enough)


@njit(cache=True, linked=True)
def _block_sum(a, lo, n):
    """numpy's sum of ``a[lo:lo + n]`` for n <= 128: at most one block of eight running sums."""
    if n < 8:
        r = 0.0
        for i in range(lo, lo + n):
            r += a[i]
        return r
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, n):
    """numpy's sum of ``a[lo:lo + n]`` for any length: its recursive halving into blocks of
    at most 128, evaluated with an explicit stack (numba cannot cache recursive functions)."""
    if n <= PAIRWISE_BLOCK:
        return _block_sum(a, lo, n)
    los = np.empty(64, dtype=np.int64)
    ns = np.empty(64, dtype=np.int64)
    stage = np.empty(64, dtype=np.int64)
    values = np.empty(64)
    top, vtop = 0, 0
    los[0], ns[0], stage[0] = lo, n, 0
    while top >= 0:
        start, k = los[top], ns[top]
        if k <= PAIRWISE_BLOCK:
            values[vtop] = _block_sum(a, start, k)
            vtop += 1
            top -= 1
            continue
        half = k // 2
        half -= half % 8
        if stage[top] == 0:
            stage[top] = 1
            top += 1
            los[top], ns[top], stage[top] = start, half, 0
        elif stage[top] == 1:
            stage[top] = 2
            top += 1
            los[top], ns[top], stage[top] = start + half, k - half, 0
        else:
            vtop -= 1
            values[vtop - 1] = values[vtop - 1] + values[vtop]
            top -= 1
    return values[0]


@njit(cache=True, inline="always")
def psum(a, n):
    """numpy's ``a[:n].sum()``."""
    if n < 8:  # _block_sum's own first case, here without a call: a class count's usual sum
        r = 0.0
        for i in range(n):
            r += a[i]
        return r
    if n <= PAIRWISE_BLOCK:
        return _block_sum(a, 0, n)
    return pairwise_sum(a, 0, n)


@njit(cache=True, nogil=True)
def ordered_sums(w, y):
    """A regression root's statistics (sums of w, w y and w y y) added in entry order, as the
    kernels add (numpy's cumulative sums' last values, in one pass without their arrays)."""
    a = b = c = 0.0
    for i in range(w.shape[0]):
        wy = w[i] * y[i]
        a += w[i]
        b += wy
        c += wy * y[i]
    return np.array([a, b, c])


@njit(cache=True, inline="always")
def size_of(stats, K):
    """Weight of a statistics vector: class weights summed, or the regression weight."""
    if K == 0:
        return stats[0]
    return psum(stats, K)


@njit(cache=True)
def top_class_weight(stats, K):
    top = stats[0] if K > 0 else 0.0
    for k in range(1, K):
        if stats[k] > top:
            top = stats[k]
    return top


@njit(cache=True)
def impurity(stats, K, code, tmp):
    """:mod:`engine.learn.criteria`'s impurity of one statistics vector (``tmp``: K scratch
    floats): :func:`inlined_impurity`, called."""
    return inlined_impurity(stats, K, code, tmp)


@njit(cache=True, linked="inline")
def inlined_impurity(stats, K, code, tmp):
    """:func:`impurity`, inlined into the gain of a cut: a sweep asks it for nearly every
    cut of a small node, and the call took longer than a regression node's impurity.

    Absolute error is no function of the statistics (it needs the median): its splits are
    scored by :func:`engine.fast.sweeps.scan_absolute`, and here, where only purity is
    asked (a constant target), it reads as the variance, zero exactly when it is."""
    if code >= SQUARED_ERROR:  # the regression criteria, last among the codes
        w = stats[0]
        if not w > 0:
            return 0.0
        mean = stats[1] / w
        value = stats[2] / w - mean * mean
        return value if value > 0.0 else 0.0
    total = psum(stats, K)
    if not total > 0:
        return 0.0
    if code == MISCLASSIFICATION:
        return 1.0 - top_class_weight(stats, K) / total
    if code == GINI:
        for k in range(K):
            p = stats[k] / total
            tmp[k] = p * p
        return 1.0 - psum(tmp, K)
    for k in range(K):
        p = stats[k] / total
        tmp[k] = p * np.log2(p) if p > 0 else 0.0
    return -psum(tmp, K) + 0.0


@njit(cache=True, linked=True)
def gain_two(left, right, K, code, imp_parent, known_frac, tmp):
    """``splitting._gain`` for one two-way partition."""
    sl = size_of(left, K)
    sr = size_of(right, K)
    tot = sl + sr
    if tot > 0:
        share_l = sl / tot
        share_r = sr / tot
    else:
        share_l = 0.0
        share_r = 0.0
    children = share_l * impurity(left, K, code, tmp) + share_r * impurity(right, K, code, tmp)
    return known_frac * (imp_parent - children)


@njit(cache=True, linked="inline")
def gain_two_whole(left, right, K, code, imp_parent, known_w, tmp):
    """The gain of a two-way partition of a node with no missing values: :func:`gain_two`'s
    number up to rounding, in the order of operations that
    :func:`engine.learn.splitting.score_threshold_cart` (the test oracle) uses for such nodes."""
    sl = size_of(left, K)
    sr = size_of(right, K)
    return (
        imp_parent
        - (sl * inlined_impurity(left, K, code, tmp) + sr * inlined_impurity(right, K, code, tmp))
        / known_w
    )


@njit(cache=True, linked=True)
def gain_many(table, V, K, code, imp_parent, known_frac, sizes, tmp, tmp2):
    """``splitting._gain`` for a multiway partition (``table``: V rows of statistics)."""
    for v in range(V):
        sizes[v] = size_of(table[v], K)
    tot = psum(sizes, V)
    for v in range(V):
        share = sizes[v] / tot if tot > 0 else 0.0
        tmp2[v] = share * impurity(table[v], K, code, tmp)
    return known_frac * (imp_parent - psum(tmp2, V))


@njit(cache=True)
def ratio(gain, sizes, V, unknown, tmp):
    """``splitting._ratio``: gain over the split information, unknown weight as its own bag.

    ``sizes`` must have room for V + 1 numbers; ``tmp`` for V + 1 scratch floats.
    """
    n = V
    if unknown > 0:
        sizes[V] = unknown
        n = V + 1
    total = psum(sizes, n)
    if not total > 0:
        return 0.0
    for v in range(n):
        p = sizes[v] / total
        tmp[v] = p * np.log2(p) if p > 0 else 0.0
    si = -psum(tmp, n) + 0.0
    if si > WEKA_EPS:
        return gain / si
    return 0.0


@njit(cache=True)
def first_best(values, n, tolerance):
    """Index of the first of ``values[:n]`` within ``tolerance`` of their maximum."""
    top = values[0]
    for i in range(1, n):
        if values[i] > top:
            top = values[i]
    for i in range(n):
        if values[i] >= top - tolerance:
            return i
    return 0


@njit(cache=True, inline="always")
def add_entry(acc, ent, weight, cls, target, K):
    """Add entry ``ent`` (weighing ``weight``) to a statistics vector."""
    if K == 0:
        wy = weight * target[ent]
        acc[0] += weight
        acc[1] += wy
        acc[2] += wy * target[ent]
    else:
        acc[cls[ent]] += weight


@njit(cache=True, inline="always")
def prefetch_target(ent, cls, target, K):
    """Ask for entry ``ent``'s class (or regression target) ahead of :func:`add_entry`."""
    if K == 0:
        prefetch(target, ent)
    else:
        prefetch(cls, ent)


@njit(cache=True, inline="always")
def copy_into(dst, src, n):
    # Element by element: numba's slice assignment may copy through a temporary array.
    for k in range(n):
        dst[k] = src[k]

"""Compiled split arithmetic shared by the exact and the histogram tree builders.

Everything here repeats, number for number, what :mod:`engine.learn.splitting` and
:mod:`engine.learn.criteria` compute with numpy, so the compiled builders choose the
same splits as the growth loop in :mod:`engine.learn.growth`: sums over short axes
are done the way numpy does them (:func:`_pw`, numpy's pairwise summation),
cumulative class weights are running sums in sorted order, and gains use the
same operations in the same order. numba is optional: without it
``AVAILABLE`` is False and the engine grows trees with numpy alone.
"""

from __future__ import annotations

import numpy as np

from engine.learn.tolerances import WEKA_EPS

try:  # numba is optional; the pure-numpy growth loop is the fallback.
    from engine.fast.jit import njit  # numba's, caching in the per-user kernel folder

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised on machines without numba
    AVAILABLE = False

    def njit(*args, **kwargs):
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


#: Impurity codes (the order of ``IMPURITY_CODES``).
GINI, ENTROPY, MISCLASSIFICATION, SQUARED_ERROR = 0, 1, 2, 3
IMPURITY_CODES = {"gini": GINI, "entropy": ENTROPY, "misclassification": MISCLASSIFICATION,
                  "squared_error": SQUARED_ERROR}
#: numpy sums up to this many numbers with the short pairwise scheme :func:`_pw` repeats.
MAX_SHORT_SUM = 128



@njit(cache=True)
def _pw(a, n):
    """``a[:n].sum()`` exactly as numpy adds it (n <= 128: at most one pairwise block)."""
    if n < 8:
        r = 0.0
        for i in range(n):
            r += a[i]
        return r
    r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
    r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a, lo, n):
    """numpy's sum of ``a[lo:lo + n]`` for any length: its recursive halving into blocks of
    at most 128, evaluated with an explicit stack (numba cannot cache recursive functions)."""
    if n <= MAX_SHORT_SUM:
        return _pw(a[lo:lo + n], n)
    los = np.empty(64, dtype=np.int64)
    ns = np.empty(64, dtype=np.int64)
    stage = np.empty(64, dtype=np.int64)
    values = np.empty(64)
    top, vtop = 0, 0
    los[0], ns[0], stage[0] = lo, n, 0
    while top >= 0:
        start, k = los[top], ns[top]
        if k <= MAX_SHORT_SUM:
            values[vtop] = _pw(a[start:start + k], k)
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


@njit(cache=True)
def size_of(stats, K, tmp):
    """Weight of a statistics vector: class weights summed, or the regression weight."""
    if K == 0:
        return stats[0]
    return _pw(stats, K)


@njit(cache=True)
def impurity(stats, K, code, tmp):
    """:mod:`engine.learn.criteria`'s impurity of one statistics vector (``tmp``: K scratch floats)."""
    if code == SQUARED_ERROR:
        w = stats[0]
        if not w > 0:
            return 0.0
        mean = stats[1] / w
        value = stats[2] / w - mean * mean
        return value if value > 0.0 else 0.0
    total = _pw(stats, K)
    if not total > 0:
        return 0.0
    if code == MISCLASSIFICATION:
        top = stats[0]
        for k in range(1, K):
            if stats[k] > top:
                top = stats[k]
        return 1.0 - top / total
    if code == GINI:
        for k in range(K):
            p = stats[k] / total
            tmp[k] = p * p
        return 1.0 - _pw(tmp, K)
    for k in range(K):
        p = stats[k] / total
        tmp[k] = p * np.log2(p) if p > 0 else 0.0
    return -_pw(tmp, K) + 0.0


@njit(cache=True)
def gain_two(left, right, K, code, imp_parent, known_frac, tmp):
    """``splitting._gain`` for one two-way partition."""
    sl = size_of(left, K, tmp)
    sr = size_of(right, K, tmp)
    tot = sl + sr
    if tot > 0:
        share_l = sl / tot
        share_r = sr / tot
    else:
        share_l = 0.0
        share_r = 0.0
    children = share_l * impurity(left, K, code, tmp) + share_r * impurity(right, K, code, tmp)
    return known_frac * (imp_parent - children)


@njit(cache=True)
def gain_many(table, V, K, code, imp_parent, known_frac, sizes, tmp, tmp2):
    """``splitting._gain`` for a multiway partition (``table``: V rows of statistics)."""
    for v in range(V):
        sizes[v] = size_of(table[v], K, tmp)
    tot = _pw(sizes, V)
    for v in range(V):
        share = sizes[v] / tot if tot > 0 else 0.0
        tmp2[v] = share * impurity(table[v], K, code, tmp)
    return known_frac * (imp_parent - _pw(tmp2, V))


@njit(cache=True)
def ratio(gain, sizes, V, unknown, tmp):
    """``splitting._ratio``: gain over the split information, unknown weight as its own bag.

    ``sizes`` must have room for V + 1 numbers; ``tmp`` for V + 1 scratch floats.
    """
    n = V
    if unknown > 0:
        sizes[V] = unknown
        n = V + 1
    total = _pw(sizes, n)
    if not total > 0:
        return 0.0
    for v in range(n):
        p = sizes[v] / total
        tmp[v] = p * np.log2(p) if p > 0 else 0.0
    si = -_pw(tmp, n) + 0.0
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

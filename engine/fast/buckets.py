"""Holte's 1-R buckets over a numeric attribute's distinct values, compiled: the bucket loop
of :func:`engine.evaluate.baseline._sorted_buckets`, whose numpy and Python are its oracle
(the same buckets, decided by the same comparisons).

On a million rows of continuous values a bucket closes every few values, and the loop's
Python took most of 1-R's five seconds: longer than the tree's own fit, which the baselines
run beside.
"""

from __future__ import annotations

import numpy as np

from engine.fast.kernels import njit


@njit(cache=True, nogil=True)
def bucket_bounds(cum, first, multi, need):
    """Where each bucket opens and closes (value indices, both inclusive), over ``V`` distinct
    values in ascending order. ``cum[k, g]``: class k's weight among the values before g;
    ``first[g]``: the class of value g's first row; ``multi[g]``: value g has several rows.

    A bucket from value ``p`` reaches its size at the first value ``a`` where a class's
    cumulative weight reaches its weight before ``p`` plus ``need``; it closes there if the
    next value's first row is not of its majority class (the first largest), else after the
    run of values whose first rows are, unless a value of several rows lies in that run:
    then value by value, where the majority holds ``need`` and the next value's first row
    is of another class. No class reaching ``need``, the rest is one last bucket.
    """
    K, V = cum.shape[0], cum.shape[1] - 1
    opens = np.empty(V, np.intp)
    closes = np.empty(V, np.intp)
    n = 0
    p = 0
    while p < V:
        a = V
        g = p
        while g < V and a == V:
            for k in range(K):
                if cum[k, g + 1] >= cum[k, p] + need:
                    a = g
                    break
            g += 1
        if a >= V:
            break
        major = _majority(cum, p, a)
        c = a
        if a < V - 1 and first[a + 1] == major:
            c = a + 1
            while c < V - 1 and first[c + 1] == major:
                c += 1
            for h in range(a + 1, c + 1):
                if multi[h]:
                    c = _scan(cum, first, p, a, need)
                    break
        opens[n] = p
        closes[n] = c
        n += 1
        p = c + 1
    if p < V:
        opens[n] = p
        closes[n] = V - 1
        n += 1
    return opens[:n], closes[:n]


@njit(cache=True, inline="always")
def _majority(cum, p, g):
    """The class of largest weight among values ``p`` to ``g`` (the first on a tie)."""
    best = 0
    top = cum[0, g + 1] - cum[0, p]
    for k in range(1, cum.shape[0]):
        weight = cum[k, g + 1] - cum[k, p]
        if weight > top:
            top = weight
            best = k
    return best


@njit(cache=True, inline="always")
def _scan(cum, first, p, a, need):
    """Where the bucket from value ``p`` closes, value by value from ``a``."""
    V = first.shape[0]
    for g in range(a, V):
        major = _majority(cum, p, g)
        if cum[major, g + 1] - cum[major, p] >= need and (g == V - 1 or first[g + 1] != major):
            return g
    return V - 1

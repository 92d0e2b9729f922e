"""CART's numeric split search for all numeric attributes of a node in one vectorised pass.

Scoring attribute by attribute costs a dozen numpy calls each, and on the many small
nodes of a deep tree that overhead is most of the fit time. Here the node's numeric
columns are sorted together and every cut of every column is scored at once. Columns
with missing values at the node fall back to the per-attribute scorer, which handles
fractional instances. Results equal :func:`engine.learn.splitting.score_threshold_cart`'s.
"""

from __future__ import annotations

import numpy as np

from engine.learn import rules
from engine.learn.problem import Candidate, Problem, per_row_stats
from engine.learn.tolerances import WEKA_EPS
from engine.tree import THRESHOLD, Split

#: Cap on the (rows x columns x stats) block sorted at once, to bound memory.
BLOCK_ELEMENTS = 3_000_000


def _side_impurity(problem: Problem, counts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Impurity of many count vectors at once (last axis: classes, or w / sum / sum of squares)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        if problem.regression:
            mean = counts[..., 1] / sizes
            return np.maximum(counts[..., 2] / sizes - mean * mean, 0.0)
        p = counts / sizes[..., None]
        name = problem.settings.impurity
        if name == "gini":
            return 1.0 - (p * p).sum(axis=-1)
        if name == "entropy":
            return -(np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)).sum(axis=-1)
        return 1.0 - p.max(axis=-1)


def _ratios(gains: np.ndarray, left: np.ndarray, right: np.ndarray, unknown: float) -> np.ndarray:
    """Gain ratios of many two-way splits (the unknown weight counts as a third bag)."""
    parts = np.stack([left, right, np.full_like(left, unknown)])
    total = parts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = parts / total
        si = -np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0).sum(axis=0)
        return np.where(si > WEKA_EPS, gains / si, 0.0)


def score_numeric_cart(problem: Problem, cols: list[int], rows: np.ndarray, weights: np.ndarray,
                       node_weight: float) -> dict[int, Candidate | None]:
    """Best CART threshold split per numeric column (only columns without missing values here)."""
    out: dict[int, Candidate | None] = {}
    if len(rows) < 2 or not cols:
        return {j: None for j in cols}
    stats = per_row_stats(problem, rows, weights)
    total = stats.sum(axis=0)
    size_of = (lambda c: c[..., 0]) if problem.regression else (lambda c: c.sum(axis=-1))
    known_w = float(size_of(total))
    parent_imp = float(_side_impurity(problem, total[None, :], np.array([known_w]))[0])
    m = max(problem.settings.min_samples_leaf, 0.0)
    width = max(1, BLOCK_ELEMENTS // max(1, len(rows) * stats.shape[1]))
    for start in range(0, len(cols), width):
        problem.monitor.check()
        block = cols[start:start + width]
        X = problem.data.X[np.ix_(rows, block)]
        order = np.argsort(X, axis=0, kind="stable")
        xs = np.take_along_axis(X, order, axis=0)
        cum = np.cumsum(stats[order], axis=0)  # (n, p, K)
        left = cum[:-1]
        right = total - left
        lsize, rsize = size_of(left), size_of(right)
        ok = rules.distinct(xs[:-1], xs[1:], True) & (lsize >= m) & (rsize >= m)
        children = (lsize * _side_impurity(problem, left, lsize)
                    + rsize * _side_impurity(problem, right, rsize)) / known_w
        gains = np.where(ok, parent_imp - children, -np.inf)
        best = np.argmax(gains, axis=0)
        cols_idx = np.arange(len(block))
        found = ok[best, cols_idx]
        n_cuts = ok.sum(axis=0)
        a, c = xs[best, cols_idx].tolist(), xs[best + 1, cols_idx].tolist()
        branches = np.stack([left[best, cols_idx], right[best, cols_idx]], axis=1)  # (p, 2, K)
        lbest, rbest = lsize[best, cols_idx], rsize[best, cols_idx]
        best_gains = gains[best, cols_idx]
        ratios = _ratios(best_gains, lbest, rbest, node_weight - known_w).tolist()
        lbest, rbest, best_gains = lbest.tolist(), rbest.tolist(), best_gains.tolist()
        for k, j in enumerate(block):
            if not found[k]:
                out[j] = None
                continue
            sizes = (lbest[k], rbest[k])
            gain = best_gains[k]
            ratio = ratios[k]
            split = Split(j, THRESHOLD, (sizes[0] / known_w, sizes[1] / known_w),
                          threshold=rules.cart_threshold(a[k], c[k]))
            out[j] = Candidate(j, split, branches[k], gain, ratio, n_cuts=int(n_cuts[k]))
    return out

"""Split search: score every attribute at a node and choose one.

Scorers are module-level functions returning a :class:`Candidate` (or None when
the attribute offers no admissible split). All of them work on the node's
known values only and scale the gain by the known fraction of the node's
weight, so missing values (fractional instances) are handled the C4.5 way.

Tolerances are the references' own, because ties decide trees:
``WEKA_EPS`` (Weka's ``Utils.SMALL``) for ID3/C4.5 comparisons,
``C45_VALUE_EPS`` for what C4.5 counts as distinct numeric values, and
``CART_VALUE_EPS`` (scikit-learn's ``FEATURE_THRESHOLD``) for CART.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from engine.learn.batch import score_numeric_cart
from engine.learn.criteria import split_info
from engine.learn.problem import Candidate, Problem
from engine.learn.thresholds import c45_threshold
from engine.learn.tolerances import C45_VALUE_EPS, CART_VALUE_EPS, WEKA_EPS
from engine.settings import Settings
from engine.tree import MULTIWAY, SUBSET, THRESHOLD, Split

#: Up to this many categories (at a node), multiclass CART tries every subset.
EXHAUSTIVE_SUBSET_LIMIT = 12


def _gain(problem: Problem, parent_known: np.ndarray, branches: np.ndarray, known_frac: float):
    """Known-fraction-scaled impurity decrease for one or many (stacked) partitions."""
    imp = problem.impurity
    sizes = branches[..., 0] if problem.regression else branches.sum(axis=-1)
    total = sizes.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total[..., None] > 0, sizes / total[..., None], 0.0)
    children = (share * imp(branches)).sum(axis=-1)
    return known_frac * (imp(parent_known) - children)


def _ratio(gain, sizes: np.ndarray, unknown: float):
    """Gain ratio; the split information counts the unknown weight as a bag of its own."""
    if unknown > 0:
        pad = np.full(sizes.shape[:-1] + (1,), unknown)
        sizes = np.concatenate([sizes, pad], axis=-1)
    si = np.asarray(split_info(sizes))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(si > WEKA_EPS, gain / np.where(si > 0, si, 1.0), 0.0)


def _known(problem: Problem, rows: np.ndarray, weights: np.ndarray, j: int):
    x = problem.data.X[rows, j]
    known = ~np.isnan(x)
    return x[known], rows[known], weights[known]


def _sizes(problem: Problem, counts: np.ndarray) -> np.ndarray:
    return counts[..., 0] if problem.regression else counts.sum(axis=-1)


def score_multiway(problem: Problem, j: int, rows, weights, node_weight: float):
    """One branch per category (ID3, C4.5). Needs two branches with at least min_samples_leaf."""
    x, krows, kw = _known(problem, rows, weights, j)
    n_values = len(problem.data.schema.attributes[j].categories)
    if problem.regression or len(x) == 0 or n_values < 2:
        return None
    K = problem.n_classes
    codes = x.astype(np.intp)
    table = np.bincount(codes * K + problem.data.y[krows], weights=kw, minlength=n_values * K)
    table = table.reshape(n_values, K)
    sizes = table.sum(axis=1)
    m = problem.settings.min_samples_leaf
    if np.count_nonzero(sizes > max(m - WEKA_EPS, 0.0)) < 2:
        return None
    known_w = sizes.sum()
    gain = float(_gain(problem, table.sum(axis=0), table, known_w / node_weight))
    if abs(gain) <= WEKA_EPS:
        gain = 0.0
    ratio = float(_ratio(gain, sizes, node_weight - known_w))
    split = Split(j, MULTIWAY, tuple(sizes / known_w), groups=tuple((v,) for v in range(n_values)))
    return Candidate(j, split, table, gain, ratio)


def _cumulative(problem: Problem, x, krows, kw):
    """Sorted values with cumulative class weights (or regression sums) up to each position."""
    order = np.argsort(x, kind="stable")
    xs, r, w = x[order], krows[order], kw[order]
    if problem.regression:
        y = problem.data.y[r]
        per_row = np.column_stack([w, w * y, w * y * y])
    else:
        per_row = np.zeros((len(xs), problem.n_classes))
        per_row[np.arange(len(xs)), problem.data.y[r]] = w
    return xs, np.cumsum(per_row, axis=0)


def score_threshold_c45(problem: Problem, j: int, rows, weights, node_weight: float):
    """C4.5's numeric split: a binary cut at a value present in the data, MDL-penalised."""
    x, krows, kw = _known(problem, rows, weights, j)
    if len(x) < 2:
        return None
    xs, cum = _cumulative(problem, x, krows, kw)
    total = cum[-1]
    known_w = float(total.sum())
    min_split = min(max(0.1 * known_w / problem.n_classes, problem.settings.min_samples_leaf), 25.0)
    if len(xs) < 2 * min_split:
        return None
    cut = np.flatnonzero(xs[:-1] + C45_VALUE_EPS < xs[1:])  # left part ends at cut
    left = cum[cut]
    right = total - left
    ok = (left.sum(axis=1) >= min_split - WEKA_EPS) & (right.sum(axis=1) >= min_split - WEKA_EPS)
    cut, left, right = cut[ok], left[ok], right[ok]
    if len(cut) == 0:
        return None
    gains = _gain(problem, total, np.stack([left, right], axis=1), known_w / node_weight)
    best = _first_best(gains, WEKA_EPS)
    if gains[best] <= WEKA_EPS:
        return None
    gain = float(gains[best]) - np.log2(len(cut)) / node_weight
    if gain <= WEKA_EPS:
        return None
    a, b = xs[cut[best]], xs[cut[best] + 1]
    threshold = (a + b) / 2
    if threshold == b:
        threshold = a
    threshold = c45_threshold(problem.sorted_values[j], threshold)
    branches = np.stack([left[best], right[best]])
    ratio = float(_ratio(gain, branches.sum(axis=1), node_weight - known_w))
    fractions = tuple(branches.sum(axis=1) / known_w)
    return Candidate(j, Split(j, THRESHOLD, fractions, threshold=threshold), branches, gain, ratio,
                     n_cuts=len(cut))


def _first_best(values: np.ndarray, tolerance: float = 0.0) -> int:
    """Index of the first value within ``tolerance`` of the maximum (first wins ties)."""
    return int(np.flatnonzero(values >= values.max() - tolerance)[0])


def score_threshold_cart(problem: Problem, j: int, rows, weights, node_weight: float):
    """CART's numeric split at the midpoint between consecutive distinct values."""
    x, krows, kw = _known(problem, rows, weights, j)
    if len(x) < 2:
        return None
    xs, cum = _cumulative(problem, x, krows, kw)
    if xs[-1] <= xs[0] + CART_VALUE_EPS:
        return None
    total = cum[-1]
    cut = np.flatnonzero(xs[1:] > xs[:-1] + CART_VALUE_EPS)
    left = cum[cut]
    right = total - left
    m = max(problem.settings.min_samples_leaf, 0.0)
    ok = (_sizes(problem, left) >= m) & (_sizes(problem, right) >= m)
    cut, left, right = cut[ok], left[ok], right[ok]
    if len(cut) == 0:
        return None
    known_w = float(_sizes(problem, total))
    gains = _gain(problem, total, np.stack([left, right], axis=1), known_w / node_weight)
    best = int(np.argmax(gains))
    a, b = xs[cut[best]], xs[cut[best] + 1]
    # The same arithmetic as scikit-learn, so thresholds agree to the last bit.
    threshold = a / 2.0 + b / 2.0
    if threshold == b or not np.isfinite(threshold):
        threshold = a
    branches = np.stack([left[best], right[best]])
    sizes = _sizes(problem, branches)
    gain = float(gains[best])
    ratio = float(_ratio(gain, sizes, node_weight - known_w))
    return Candidate(j, Split(j, THRESHOLD, tuple(sizes / known_w), threshold=float(threshold)),
                     branches, gain, ratio, n_cuts=len(cut))


def score_subset(problem: Problem, j: int, rows, weights, node_weight: float):
    """CART's nominal split into two groups of categories.

    Exact for two classes and for regression (categories ordered by the first
    class's proportion, or by mean, then the best cut of that order: Breiman's
    theorem); exhaustive over all 2^(k-1)-1 groupings for up to
    ``EXHAUSTIVE_SUBSET_LIMIT`` categories otherwise; beyond that a heuristic
    that tries the best cut of the order by each class's proportion.
    Categories absent at the node belong to neither group and are routed
    like missing values.
    """
    x, krows, kw = _known(problem, rows, weights, j)
    n_values = len(problem.data.schema.attributes[j].categories)
    codes = x.astype(np.intp)
    if problem.regression:
        y = problem.data.y[krows]
        table = np.column_stack([np.bincount(codes, weights=kw * v, minlength=n_values)
                                 for v in (np.ones_like(y), y, y * y)])
    else:
        K = problem.n_classes
        table = np.bincount(codes * K + problem.data.y[krows], weights=kw, minlength=n_values * K)
        table = table.reshape(n_values, K)
    present = np.flatnonzero(_sizes(problem, table) > 0)
    if len(present) < 2:
        return None
    sub = table[present]
    masks = _subset_masks(problem, sub)
    left = masks.astype(np.float64) @ sub
    total = sub.sum(axis=0)
    right = total - left
    m = max(problem.settings.min_samples_leaf, 0.0)
    ok = (_sizes(problem, left) >= m) & (_sizes(problem, right) >= m)
    if not ok.any():
        return None
    masks, left, right = masks[ok], left[ok], right[ok]
    known_w = float(_sizes(problem, total))
    gains = _gain(problem, total, np.stack([left, right], axis=1), known_w / node_weight)
    best = int(np.argmax(gains))
    mask = masks[best] if masks[best][0] else ~masks[best]  # branch 0 holds the first category
    groups = (tuple(present[mask].tolist()), tuple(present[~mask].tolist()))
    branches = np.stack([sub[mask].sum(axis=0), sub[~mask].sum(axis=0)])
    sizes = _sizes(problem, branches)
    gain = float(gains[best])
    ratio = float(_ratio(gain, sizes, node_weight - known_w))
    return Candidate(j, Split(j, SUBSET, tuple(sizes / known_w), groups=groups), branches, gain, ratio)


def _subset_masks(problem: Problem, table: np.ndarray) -> np.ndarray:
    """Candidate left groups as boolean rows over the present categories."""
    k = len(table)
    sizes = _sizes(problem, table)
    if problem.regression or problem.n_classes == 2 or k > EXHAUSTIVE_SUBSET_LIMIT:
        if problem.regression:
            keys = [table[:, 1] / sizes]
        elif problem.n_classes == 2:
            keys = [table[:, 0] / sizes]
        else:
            keys = [table[:, c] / sizes for c in range(problem.n_classes)]
        rows = []
        for key in keys:
            order = np.argsort(key, kind="stable")
            for cut in range(1, k):
                mask = np.zeros(k, dtype=bool)
                mask[order[:cut]] = True
                rows.append(mask)
        return np.unique(np.array(rows), axis=0)
    rows = []
    for size in range(0, k - 1):
        for rest in combinations(range(1, k), size):
            mask = np.zeros(k, dtype=bool)
            mask[0] = True
            mask[list(rest)] = True
            rows.append(mask)
    return np.array(rows)


def scorer_for(settings: Settings, nominal: bool):
    if settings.binary:
        return score_subset if nominal else score_threshold_cart
    return score_multiway if nominal else score_threshold_c45


def score_all(problem: Problem, rows, weights, exclude=frozenset()) -> list[Candidate | None]:
    """One candidate (or None) per attribute, in attribute order."""
    node_weight = float(weights.sum())
    batched: dict[int, Candidate | None] = {}
    if problem.settings.binary:
        X, gappy = problem.data.X, problem.columns_with_missing
        numeric = [j for j, a in enumerate(problem.data.schema.attributes)
                   if not a.is_nominal and j not in exclude
                   and (j not in gappy or not np.isnan(X[rows, j]).any())]
        problem.monitor.check()
        batched = score_numeric_cart(problem, numeric, rows, weights, node_weight)
    out: list[Candidate | None] = []
    for j, attr in enumerate(problem.data.schema.attributes):
        problem.monitor.check()
        if j in exclude:
            out.append(None)
        elif j in batched:
            out.append(batched[j])
        else:
            scorer = scorer_for(problem.settings, attr.is_nominal)
            out.append(scorer(problem, j, rows, weights, node_weight))
    return out


def choose(problem: Problem, candidates: list[Candidate | None]) -> Candidate | None:
    """The algorithm's choice among the attributes' candidates (None: make a leaf)."""
    s = problem.settings
    valid = [c for c in candidates if c is not None]
    if not valid:
        return None
    if s.algorithm == "c45" and s.criterion == "gain_ratio":
        return _choose_c45(problem, valid)
    scores = np.array([c.gain_ratio if s.criterion == "gain_ratio" else c.gain for c in valid])
    return valid[_first_best(scores, 1e-12)]


def _choose_c45(problem: Problem, valid: list[Candidate]) -> Candidate | None:
    """C4.5's rule: best gain ratio among attributes whose gain is at least the average gain.

    As in J48, nominal attributes with very many values (>= 30% of the
    training rows) are left out of the average unless every attribute is one.
    """
    attrs = problem.data.schema.attributes
    limit = 0.3 * problem.data.n_rows
    all_many = all(a.is_nominal and len(a.categories) >= limit for a in attrs)
    counted = [c.gain for c in valid
               if not attrs[c.attribute].is_nominal or all_many or len(attrs[c.attribute].categories) < limit]
    if not counted:
        return None
    average = sum(counted) / len(counted)
    best, best_ratio = None, 0.0
    for c in valid:
        if c.gain >= average - 1e-3 and c.gain_ratio - best_ratio > WEKA_EPS:
            best, best_ratio = c, c.gain_ratio
    return best


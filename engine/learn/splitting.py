"""Split search: score every attribute at a node and choose one.

Scorers are module-level functions returning a :class:`Candidate` (or None when
the attribute offers no admissible split). All of them work on the node's
known values only and scale the gain by the known fraction of the node's
weight, so missing values (fractional instances) are handled the C4.5 way.

These are the readable specification of the split search: ``explain``, the inspector
and hand edits use them, and the compiled builder (:mod:`engine.fast`) repeats them
number for number (sums in the same order), so both choose the same splits. The rules
and tolerances both sides need are in :mod:`engine.learn.rules`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from engine.learn import rules
from engine.learn.criteria import split_info
from engine.learn.problem import Candidate, Problem, per_row_stats
from engine.learn.thresholds import c45_threshold
from engine.learn.tolerances import CHOICE_EPS, WEKA_EPS
from engine.settings import Settings
from engine.tree import MULTIWAY, SUBSET, THRESHOLD, Split

EXHAUSTIVE_SUBSET_LIMIT = rules.EXHAUSTIVE_SUBSET_LIMIT


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


def _known_total(problem: Problem, rows: np.ndarray, weights: np.ndarray, j: int) -> np.ndarray:
    """Statistics of the rows with a known value of attribute ``j``: the node's, less those of
    the rows without one (the compiled builder has the node's at hand)."""
    total = problem.stats(rows, weights)
    missing = np.isnan(problem.data.X[rows, j])
    if missing.any():
        total = total - problem.stats(rows[missing], weights[missing])
    return total


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
    if np.count_nonzero(sizes > rules.multiway_floor(problem.settings.min_samples_leaf)) < 2:
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
    return x[order], np.cumsum(per_row_stats(problem, krows[order], kw[order]), axis=0)


def score_threshold_c45(
    problem: Problem, j: int, rows, weights, node_weight: float, penalised: bool = True
):
    """C4.5's numeric split: a binary cut at a value present in the data, MDL-penalised
    (``penalised=False``: the best cut even when the penalty leaves it nothing, as
    :mod:`engine.learn.explain` shows why it was refused)."""
    x, krows, kw = _known(problem, rows, weights, j)
    if len(x) < 2:
        return None
    xs, cum = _cumulative(problem, x, krows, kw)
    total = _known_total(problem, rows, weights, j)
    known_w = float(total.sum())
    min_split = rules.c45_min_split(known_w, problem.n_classes, problem.settings.min_samples_leaf)
    if len(xs) < 2 * min_split:
        return None
    cut = np.flatnonzero(rules.distinct(xs[:-1], xs[1:], False))  # left part ends at cut
    left = cum[cut]
    right = total - left
    ok = rules.c45_cut_admissible(left.sum(axis=1), right.sum(axis=1), min_split)
    cut, left, right = cut[ok], left[ok], right[ok]
    if len(cut) == 0:
        return None
    gains = _gain(problem, total, np.stack([left, right], axis=1), known_w / node_weight)
    best = _first_best(gains, WEKA_EPS)
    if gains[best] <= WEKA_EPS:
        return None
    gain = rules.c45_penalised(float(gains[best]), len(cut), node_weight)
    if gain <= WEKA_EPS and penalised:
        return None
    midpoint = rules.c45_midpoint(float(xs[cut[best]]), float(xs[cut[best] + 1]))
    threshold = c45_threshold(problem.sorted_values[j], midpoint)  # at a training value, as J48
    branches = np.stack([left[best], right[best]])
    ratio = float(_ratio(gain, branches.sum(axis=1), node_weight - known_w))
    fractions = tuple(branches.sum(axis=1) / known_w)
    return Candidate(
        j,
        Split(j, THRESHOLD, fractions, threshold=threshold),
        branches,
        gain,
        ratio,
        n_cuts=len(cut),
    )


def _admissible(problem: Problem, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Which binary cuts (stacked left / right statistics) leave both sides a minimum leaf."""
    m = max(problem.settings.min_samples_leaf, 0.0)
    return rules.leaf_big_enough(_sizes(problem, left), m) & rules.leaf_big_enough(
        _sizes(problem, right), m
    )


def _first_best(values: np.ndarray, tolerance: float = 0.0) -> int:
    """Index of the first value within ``tolerance`` of the maximum (first wins ties)."""
    return int(np.flatnonzero(values >= values.max() - tolerance)[0])


def score_threshold_cart(problem: Problem, j: int, rows, weights, node_weight: float):
    """CART's numeric split at the midpoint between consecutive distinct values."""
    x, krows, kw = _known(problem, rows, weights, j)
    if len(x) < 2:
        return None
    xs, cum = _cumulative(problem, x, krows, kw)
    if not rules.distinct(xs[0], xs[-1], True):
        return None
    total = _known_total(problem, rows, weights, j)
    cut = np.flatnonzero(rules.distinct(xs[:-1], xs[1:], True))
    left = cum[cut]
    right = total - left
    ok = _admissible(problem, left, right)
    cut, left, right = cut[ok], left[ok], right[ok]
    if len(cut) == 0:
        return None
    known_w = float(_sizes(problem, total))
    if len(x) == len(rows):  # no missing value: the compiled sweep's order (gain_two_whole)
        imp = problem.impurity
        gains = (
            imp(total)
            - (_sizes(problem, left) * imp(left) + _sizes(problem, right) * imp(right)) / known_w
        )
    else:
        gains = _gain(problem, total, np.stack([left, right], axis=1), known_w / node_weight)
    best = int(np.argmax(gains))
    threshold = rules.cart_threshold(float(xs[cut[best]]), float(xs[cut[best] + 1]))
    branches = np.stack([left[best], right[best]])
    sizes = _sizes(problem, branches)
    gain = float(gains[best])
    ratio = float(_ratio(gain, sizes, node_weight - known_w))
    return Candidate(
        j,
        Split(j, THRESHOLD, tuple(sizes / known_w), threshold=float(threshold)),
        branches,
        gain,
        ratio,
        n_cuts=len(cut),
    )


def score_subset(problem: Problem, j: int, rows, weights, node_weight: float):
    """CART's nominal split into two groups of categories.

    Two classes and regression: every cut of the categories ordered by the first
    class's proportion (or by mean), exact by Breiman's theorem as long as the minimum
    leaf refuses none of those cuts; when it refuses one, the best admissible grouping
    need not be a cut of that order (nor, with tied proportions, of any order), so up to
    ``EXHAUSTIVE_SUBSET_LIMIT`` categories every grouping is tried after the cuts (beyond
    that the cuts alone: a heuristic). More classes: exhaustive over all 2^(k-1)-1
    groupings up to ``EXHAUSTIVE_SUBSET_LIMIT`` categories; beyond that every cut of the
    order by each class's proportion in turn. Candidates are tried in that order and
    the first best wins. Categories absent at the node belong to neither group and are
    routed like missing values.
    """
    x, krows, kw = _known(problem, rows, weights, j)
    n_values = len(problem.data.schema.attributes[j].categories)
    stats = per_row_stats(problem, krows, kw)
    table = np.zeros((n_values, stats.shape[1]))
    np.add.at(table, x.astype(np.intp), stats)  # in row order, as bincount adds
    present = np.flatnonzero(_sizes(problem, table) > 0)
    if len(present) < 2:
        return None
    sub = table[present]
    masks, left = _subset_candidates(problem, sub)
    total = sub.sum(axis=0)
    right = total - left
    ok = _admissible(problem, left, right)
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
    return Candidate(
        j, Split(j, SUBSET, tuple(sizes / known_w), groups=groups), branches, gain, ratio
    )


def _subset_candidates(problem: Problem, table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Candidate left groups (boolean rows over the present categories) and their statistics.

    A left group's statistics are summed category by category in the order the
    categories join it (the compiled builder adds them in the same order).
    """
    k = len(table)
    sizes = _sizes(problem, table)
    ordered = problem.regression or problem.n_classes == 2 or k > EXHAUSTIVE_SUBSET_LIMIT
    if not ordered:
        return _all_groupings(table)
    masks, lefts = _ordered_cuts(problem, table, sizes)
    right = table.sum(axis=0) - lefts
    if k <= EXHAUSTIVE_SUBSET_LIMIT and not _admissible(problem, lefts, right).all():
        # The minimum leaf binds: the order's cuts may miss the best admissible grouping.
        more, more_left = _all_groupings(table)
        return np.concatenate([masks, more]), np.concatenate([lefts, more_left])
    return masks, lefts


def _ordered_cuts(problem: Problem, table: np.ndarray, sizes: np.ndarray):
    """Every cut of the categories ordered by each key (class proportion, or mean) in turn."""
    k = len(table)
    if problem.regression:
        keys = [table[:, 1] / sizes]
    elif problem.n_classes == 2:
        keys = [table[:, 0] / sizes]
    else:
        keys = [table[:, c] / sizes for c in range(problem.n_classes)]
    masks, lefts = [], []
    for key in keys:  # every cut of the categories ordered by the key
        order = np.argsort(key, kind="stable")
        rank = np.empty(k, dtype=np.intp)
        rank[order] = np.arange(k)
        masks.append(rank[None, :] <= np.arange(k - 1)[:, None])
        lefts.append(np.cumsum(table[order], axis=0)[:-1])
    return np.concatenate(masks), np.concatenate(lefts)


def _all_groupings(table: np.ndarray):
    """Every split of the categories into two groups, the first category's group on the left."""
    k = len(table)
    rows = []
    for size in range(0, k - 1):
        for rest in combinations(range(1, k), size):
            mask = np.zeros(k, dtype=bool)
            mask[0] = True
            mask[list(rest)] = True
            rows.append(mask)
    masks = np.array(rows)
    left = np.zeros((len(masks), table.shape[1]))
    for c in range(k):
        left += masks[:, c, None] * table[c]
    return masks, left


def scorer_for(settings: Settings, nominal: bool):
    if settings.binary:
        return score_subset if nominal else score_threshold_cart
    return score_multiway if nominal else score_threshold_c45


def score_all(problem: Problem, rows, weights, exclude=frozenset()) -> list[Candidate | None]:
    """One candidate (or None) per attribute, in attribute order."""
    node_weight = float(weights.sum())
    out: list[Candidate | None] = []
    for j, attr in enumerate(problem.data.schema.attributes):
        problem.monitor.check()
        if j in exclude:
            out.append(None)
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
    return valid[_first_best(scores, CHOICE_EPS)]


def _choose_c45(problem: Problem, valid: list[Candidate]) -> Candidate | None:
    """C4.5's rule: best gain ratio among attributes whose gain is at least the average gain
    (attributes with very many values left out of the average: :func:`rules.counted_in_average`)."""
    attrs = problem.data.schema.attributes
    counted = rules.counted_in_average(
        [len(a.categories) if a.is_nominal else 0 for a in attrs], problem.data.n_rows
    )
    gains = [c.gain for c in valid if counted[c.attribute]]
    if not gains:
        return None
    average = sum(gains) / len(gains)
    best, best_ratio = None, 0.0
    for c in valid:
        if rules.c45_beats(c.gain, average, c.gain_ratio, best_ratio):
            best, best_ratio = c, c.gain_ratio
    return best

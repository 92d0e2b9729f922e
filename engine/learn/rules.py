"""The growth rules, written once for the numpy scorers and the compiled builder.

Plain functions of numbers (or numpy arrays, elementwise): :mod:`engine.learn.splitting`
calls them directly, and :mod:`engine.fast` compiles the very same functions with numba
(``njit(rules.is_pure)``), so a rule changed here changes both. Tolerances are the
references' own (:mod:`engine.learn.tolerances`): ties decide trees.

A missing ``max_depth`` is passed as -1 (numba has no None for an integer).

Examples
--------
>>> c45_midpoint(1.0, 2.0), cart_threshold(1.0, 2.0)
(1.5, 1.5)
>>> c45_min_split(100.0, 2, 2.0)
5.0
>>> stops_before_search(10.0, 3, False, 2.0, 1.0, 3)
True
"""

from __future__ import annotations

import math

from engine.learn.tolerances import (
    C45_VALUE_EPS,
    CART_VALUE_EPS,
    CHOICE_EPS,
    DOUBLE_EPS,
    GAIN_AVERAGE_SLACK,
    WEKA_EPS,
)

#: C4.5 leaves nominal attributes with at least this share of the training rows as values
#: out of the average gain (J48's rule), unless every attribute is one.
MANY_VALUES_SHARE = 0.3
#: C4.5's cap on the smallest branch of a numeric split.
C45_MAX_MIN_SPLIT = 25.0
#: Up to this many categories (at a node), multiclass CART tries every split into two groups.
EXHAUSTIVE_SUBSET_LIMIT = 12


def is_pure(top: float, total: float, regression: bool, impurity: float) -> bool:
    """Nothing left to separate: one class holds all the weight (Weka's tolerance), no weight
    at all, or (regression) the target is constant."""
    if regression:
        return impurity <= DOUBLE_EPS
    return total <= 0 or top >= total - WEKA_EPS * max(total, 1.0)


def stops_before_search(
    weight: float,
    depth: int,
    pure: bool,
    min_samples_split: float,
    min_samples_leaf: float,
    max_depth: int,
) -> bool:
    """A node becomes a leaf without looking for a split."""
    return (
        pure
        or weight < min_samples_split
        or (max_depth >= 0 and depth >= max_depth)
        # leaf_big_enough(weight, 2 * min_samples_leaf), spelled out: numba compiles each
        # rule on its own, and cannot call another plain function
        or weight < 2 * min_samples_leaf - WEKA_EPS * max(2 * min_samples_leaf, 1.0)
    )


def leaf_big_enough(size, min_samples_leaf):
    """A branch of ``size`` weight meets the minimum leaf (arrays elementwise).

    With the tolerance J48 uses for the same test (``WEKA_EPS``, relative above 1): a known
    weight obtained by subtraction (the node's less its missing rows') may fall an ulp short
    of a whole number, and a split of weights 1 | 1 must not be refused for 0.9999999999999998.
    """
    return size >= min_samples_leaf - WEKA_EPS * max(min_samples_leaf, 1.0)


def gain_too_small(gain: float, min_gain: float, binary: bool) -> bool:
    """The best split does not gain enough (CART: below tau; ID3/C4.5: not above it, Weka-style)."""
    if binary:
        return gain + CHOICE_EPS < min_gain
    return gain - min_gain <= WEKA_EPS


def whole_branch(fraction0: float, fraction1: float):
    """A two-way split's fractions under ``--missing majority``: a row missing its attribute
    goes whole down the branch with more of the known weight, the first on a tie (rpart's
    majority direction); the fractions given are the known weight's shares."""
    if fraction1 > fraction0:
        return 0.0, 1.0
    return 1.0, 0.0


def distinct(a, b, binary: bool):
    """``b`` is a value after ``a`` that a numeric split can separate from it (sorted values)."""
    return a + (CART_VALUE_EPS if binary else C45_VALUE_EPS) < b


def c45_min_split(known_weight: float, n_classes: int, min_samples_leaf: float) -> float:
    """C4.5's smallest admissible branch of a numeric split: a tenth of the average class
    weight, at least the minimum leaf and at most 25."""
    return min(max(0.1 * known_weight / n_classes, min_samples_leaf), C45_MAX_MIN_SPLIT)


def c45_cut_admissible(left, right, min_split):
    """Both sides of a C4.5 numeric cut are big enough (arrays elementwise)."""
    return (left >= min_split - WEKA_EPS) & (right >= min_split - WEKA_EPS)


def c45_penalised(gain: float, n_cuts: int, node_weight: float) -> float:
    """C4.5's MDL correction of a numeric split's gain: log2(cuts tried) / N."""
    return gain - math.log2(n_cuts) / node_weight


def multiway_floor(min_samples_leaf: float) -> float:
    """A multiway branch counts as populated above this weight (two must be)."""
    return max(min_samples_leaf - WEKA_EPS, 0.0)


def c45_midpoint(a: float, b: float) -> float:
    """C4.5's cut between sorted values ``a`` < ``b``, before
    :func:`engine.learn.thresholds.c45_threshold` moves it onto a training value."""
    mid = (a + b) / 2
    return a if mid == b else mid


def cart_threshold(a: float, b: float) -> float:
    """CART's cut between ``a`` < ``b``: scikit-learn's arithmetic, to the last bit."""
    mid = a / 2.0 + b / 2.0
    return a if (mid == b or not math.isfinite(mid)) else mid


def c45_beats(gain: float, average: float, ratio: float, best_ratio: float) -> bool:
    """C4.5's choice: at least the average gain (less J48's slack), and a better gain ratio."""
    return gain >= average - GAIN_AVERAGE_SLACK and ratio - best_ratio > WEKA_EPS


def counted_in_average(n_categories: list[int], n_rows: int) -> list[bool]:
    """Which attributes count toward C4.5's average gain (``n_categories``: 0 for numeric).

    Nominal attributes with very many values (at least 30% of the training rows) are left
    out, unless every attribute is one.
    """
    limit = MANY_VALUES_SHARE * n_rows
    many = [k > 0 and k >= limit for k in n_categories]
    return [True] * len(many) if all(many) else [not m for m in many]


#: Best-first queue keys (``Params.best_first``): 0 is depth-first (no key).
WEIGHTED_PRIORITY, GAIN_PRIORITY = 1, 2


def queue_priority(gain: float, weight: float, total_weight: float, key: int) -> float:
    """What a leaf is worth to best-first growth's queue (seed 004, Algorithm 3).

    ``key`` GAIN_PRIORITY: the seed's ΔI, the gain of the leaf's best split; WEIGHTED_PRIORITY:
    n/N x ΔI, how much the split lowers the whole tree's impurity (scikit-learn's
    ``max_leaf_nodes`` order). The queue takes the largest first.

    >>> queue_priority(0.25, 6.0, 150.0, GAIN_PRIORITY), queue_priority(0.25, 6.0, 150.0, WEIGHTED_PRIORITY)
    (0.25, 0.01)
    """
    if key == GAIN_PRIORITY:
        return gain
    return gain * weight / total_weight

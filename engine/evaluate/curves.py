"""Threshold curves of a classifier's scores: ROC and precision-recall, with their areas.

A tree scores an instance by the class shares of the leaf it reaches, so many instances
share a score; every curve here has one point per distinct score (ties move together,
as in scikit-learn's ``roc_curve`` and Weka's threshold curves). Row weights count as
that many instances. Classes are scored one against the rest.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engine.sums import dot

#: Points kept per stored curve: enough to draw it, few enough to keep one per class per run.
MAX_POINTS = 300


@dataclass(frozen=True)
class ClassCurves:
    """One class against the rest: its ROC and precision-recall curves and their areas.

    ``roc`` rows are (false positive rate, true positive rate) from (0, 0) to (1, 1); ``pr``
    rows are (recall, precision) in order of falling threshold. ``positives`` is the class's
    weight among ``n`` instances (the precision a random ranking gets). Areas are worked out
    on every point, before the curves are thinned for keeping.
    """

    label: str
    roc: np.ndarray
    pr: np.ndarray
    roc_auc: float
    average_precision: float
    positives: float
    n: float
    #: The threshold of each ``roc`` row (the first, inf: nothing flagged); None when not kept
    #: (a run read back from a project keeps the curves' points only).
    roc_thresholds: np.ndarray | None = None


#: Scores of at least this many rows are ordered through their distinct values (below).
RANKED_LEAST_ROWS = 1 << 16


def _descending(scores: np.ndarray) -> np.ndarray:
    """``np.argsort(-scores, kind="mergesort")``: the rows by score, highest first, ties in row
    order. A tree's scores are its leaves' shares, a few thousand distinct values over any
    number of rows: ranked through them, the rows sort on 16-bit keys (numpy's radix sort),
    where a merge sort of a million scores took 56 ms, a training's figures a dozen times."""
    if len(scores) < RANKED_LEAST_ROWS:
        return np.argsort(-scores, kind="mergesort")
    codes, distinct = pd.factorize(-scores, use_na_sentinel=False)  # -0.0 is 0.0, as in a sort
    if len(distinct) > np.iinfo(np.uint16).max:
        return np.argsort(-scores, kind="mergesort")
    rank = np.empty(len(distinct), np.uint16)
    rank[np.argsort(distinct, kind="mergesort")] = np.arange(len(distinct))
    return np.argsort(rank[codes], kind="stable")


def _cumulative(scores: np.ndarray, positive: np.ndarray, weight: np.ndarray | None):
    """Weighted false and true positives at each distinct threshold, highest first."""
    scores = np.asarray(scores, dtype=np.float64)
    w = np.ones(len(scores)) if weight is None else np.asarray(weight, dtype=np.float64)
    order = _descending(scores)
    s, pos, w = scores[order], np.asarray(positive, dtype=bool)[order], w[order]
    last = np.r_[np.flatnonzero(np.diff(s)), len(s) - 1]  # the last row of each run of ties
    tps = np.cumsum(w * pos)[last]
    fps = np.cumsum(w * ~pos)[last]
    return fps, tps, s[last]


def roc_points(scores, positive, weight=None):
    """(false positive rates, true positive rates, thresholds), starting at (0, 0).

    Examples
    --------
    >>> fpr, tpr, _ = roc_points([0.9, 0.8, 0.8, 0.1], [True, False, True, False])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 1.0], [0.0, 0.5, 1.0, 1.0])
    """
    fps, tps, thresholds = _cumulative(scores, positive, weight)
    if len(tps) == 0 or tps[-1] <= 0 or fps[-1] <= 0:
        nan = np.array([np.nan])
        return nan, nan, thresholds  # one class only: the curve is not defined
    fpr = np.r_[0.0, fps / fps[-1]]
    tpr = np.r_[0.0, tps / tps[-1]]
    return fpr, tpr, np.r_[np.inf, thresholds]


def pr_points(scores, positive, weight=None):
    """(recalls, precisions, thresholds) in order of falling threshold.

    Examples
    --------
    >>> recall, precision, _ = pr_points([0.9, 0.8, 0.8, 0.1], [True, False, True, False])
    >>> recall.tolist(), precision.round(3).tolist()
    ([0.5, 1.0, 1.0], [1.0, 0.667, 0.5])
    """
    fps, tps, thresholds = _cumulative(scores, positive, weight)
    if len(tps) == 0 or tps[-1] <= 0:
        nan = np.array([np.nan])
        return nan, nan, thresholds
    return tps / tps[-1], tps / (tps + fps), thresholds


def area(x: np.ndarray, y: np.ndarray) -> float:
    """The trapezoid area under a curve through the points (x, y) taken in order."""
    if len(x) < 2 or np.isnan(x).any():
        return float("nan")
    return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2))


def roc_auc(scores, positive, weight=None) -> float:
    """Area under the ROC curve: the chance a random positive scores above a random negative
    (ties counting half); NaN when one of the two groups is empty."""
    fpr, tpr, _ = roc_points(scores, positive, weight)
    return area(fpr, tpr)


def average_precision(scores, positive, weight=None) -> float:
    """Precision averaged over the recall gained at each threshold (the step area under the
    precision-recall curve; no interpolation between points)."""
    recall, precision, _ = pr_points(scores, positive, weight)
    if np.isnan(recall).any():
        return float("nan")
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def thin(points: np.ndarray, limit: int = MAX_POINTS) -> np.ndarray:
    """At most ``limit`` rows of a curve, its first and last kept, spread evenly in between."""
    if len(points) <= limit:
        return points
    keep = np.unique(np.linspace(0, len(points) - 1, limit).round().astype(np.intp))
    return points[keep]


def class_curves(
    proba: np.ndarray, y: np.ndarray, classes, weight=None, limit: int = MAX_POINTS
) -> tuple[ClassCurves, ...]:
    """Every class against the rest, scored by its column of ``proba`` (rows: instances).

    Examples
    --------
    >>> import numpy as np
    >>> curves = class_curves(np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]), np.array([0, 1, 1]), ("a", "b"))
    >>> [(c.label, c.roc_auc) for c in curves]
    [('a', 1.0), ('b', 1.0)]
    """
    y = np.asarray(y)
    w = np.ones(len(y)) if weight is None else np.asarray(weight, dtype=np.float64)
    n = float(w.sum())
    out = []
    for k, label in enumerate(classes):
        positive = y == k
        scores = proba[:, k]
        fpr, tpr, thresholds = roc_points(scores, positive, w)
        if len(thresholds) != len(fpr):  # an undefined curve: no thresholds to keep
            thresholds = np.full(len(fpr), np.nan)
        roc = thin(np.column_stack([fpr, tpr, thresholds]), limit)
        recall, precision, _ = pr_points(scores, positive, w)
        out.append(
            ClassCurves(
                label=str(label),
                roc=np.ascontiguousarray(roc[:, :2]),
                pr=thin(np.column_stack([recall, precision]), limit),
                roc_auc=area(fpr, tpr),
                average_precision=average_precision(scores, positive, w),
                positives=float(w[positive].sum()),
                n=n,
                roc_thresholds=roc[:, 2].copy(),
            )
        )
    return tuple(out)


def weighted_mean(values, curves: tuple[ClassCurves, ...]) -> float:
    """An average over classes weighted by how many instances each has (Weka's "Weighted Avg."),
    leaving out classes whose value is undefined."""
    values = np.asarray(values, dtype=np.float64)
    support = np.array([c.positives for c in curves])
    ok = ~np.isnan(values) & (support > 0)
    return dot(values[ok], support[ok]) / support[ok].sum() if ok.any() else float("nan")

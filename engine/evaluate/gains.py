"""Cumulative gains and lift of a class's scores, and the threshold of least cost.

Rank the rows by the class's predicted probability and target them from the top: the gains
curve gives the share of the class found against the share of rows targeted, and lift the
ratio of the two (how many times better than targeting at random). Both follow from the ROC
curve and the class's size, so a stored evaluation draws them without its rows: at a
threshold with true positive rate t and false positive rate f, a class of P among n rows has
t P + f (n - P) rows targeted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import ArborError
from engine.evaluate.curves import ClassCurves, roc_points


def gains_points(curve: ClassCurves) -> np.ndarray:
    """(share of rows targeted, share of the class found) rows from (0, 0) to (1, 1); empty
    when the curve is not defined (one class only) or was not kept.

    Examples
    --------
    >>> roc = np.array([[0.0, 0.0], [0.0, 0.5], [0.5, 1.0], [1.0, 1.0]])
    >>> gains_points(ClassCurves("a", roc, roc, 1.0, 1.0, positives=2, n=4)).tolist()
    [[0.0, 0.0], [0.25, 0.5], [0.75, 1.0], [1.0, 1.0]]
    """
    roc = curve.roc
    if not len(roc) or np.isnan(roc).any() or curve.n <= 0:
        return np.zeros((0, 2))
    targeted = (roc[:, 1] * curve.positives + roc[:, 0] * (curve.n - curve.positives)) / curve.n
    return np.column_stack([targeted, roc[:, 1]])


def lift_points(curve: ClassCurves) -> np.ndarray:
    """(share of rows targeted, lift) rows: the share of the class found over the share of
    rows targeted; 1 everywhere for a random ranking (the origin is left out)."""
    gains = gains_points(curve)
    gains = gains[gains[:, 0] > 0]
    return np.column_stack([gains[:, 0], gains[:, 1] / gains[:, 0]])


@dataclass(frozen=True)
class Operating:
    """The threshold of least total cost for two classes: predict ``positive`` when its
    probability is at least ``threshold`` (inf: never). Costs and counts are weighted rows."""

    positive: str
    threshold: float
    cost: float
    false_positives: float
    false_negatives: float
    cost_fp: float
    cost_fn: float
    n: float

    @property
    def average_cost(self) -> float:
        return self.cost / self.n if self.n else float("nan")

    def as_dict(self) -> dict:
        return {
            "positive": self.positive,
            "threshold": None if np.isinf(self.threshold) else self.threshold,
            "cost": self.cost,
            "average_cost": self.average_cost,
            "false_positives": self.false_positives,
            "false_negatives": self.false_negatives,
            "cost_fp": self.cost_fp,
            "cost_fn": self.cost_fn,
        }


def check_costs(cost_fp: float, cost_fn: float) -> None:
    if not (np.isfinite(cost_fp) and np.isfinite(cost_fn)) or min(cost_fp, cost_fn) < 0:
        raise ArborError("error costs must be numbers of at least 0")
    if cost_fp + cost_fn <= 0:
        raise ArborError("at least one error cost must be above 0")


def least_cost(
    fpr, tpr, thresholds, positives: float, n: float, cost_fp: float, cost_fn: float, label: str
) -> Operating:
    """The point of an ROC curve (with its thresholds) where cost_fp x false positives +
    cost_fn x false negatives is least; ties go to the higher threshold (fewer rows flagged)."""
    check_costs(cost_fp, cost_fn)
    fpr, tpr, thresholds = (np.asarray(a, dtype=np.float64) for a in (fpr, tpr, thresholds))
    if not len(fpr) or np.isnan(fpr).any():
        raise ArborError(f"the cost-optimal threshold needs rows of both classes ({label})")
    fp = fpr * (n - positives)
    fn = (1 - tpr) * positives
    cost = cost_fp * fp + cost_fn * fn
    best = int(np.argmin(cost))  # the first of equals: the highest threshold
    return Operating(
        label, float(thresholds[best]), float(cost[best]), float(fp[best]), float(fn[best]),
        float(cost_fp), float(cost_fn), float(n),
    )  # fmt: skip


def cost_optimal_threshold(
    scores, positive, weight=None, cost_fp: float = 1.0, cost_fn: float = 1.0, label: str = ""
) -> Operating:
    """The threshold on ``scores`` (the positive class's probabilities) of least total cost.

    Examples
    --------
    >>> op = cost_optimal_threshold([0.9, 0.6, 0.6, 0.2], [True, True, False, False])
    >>> op.threshold, op.cost
    (0.9, 1.0)
    >>> cost_optimal_threshold([0.9, 0.6, 0.6, 0.2], [True, True, False, False], cost_fn=5).threshold
    0.6
    """
    w = np.ones(len(scores)) if weight is None else np.asarray(weight, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    fpr, tpr, thresholds = roc_points(scores, positive, w)
    return least_cost(
        fpr, tpr, thresholds, float(w[positive].sum()), float(w.sum()), cost_fp, cost_fn, label
    )


def curve_least_cost(curve: ClassCurves, cost_fp: float = 1.0, cost_fn: float = 1.0) -> Operating:
    """:func:`least_cost` on a stored class curve (its kept points and thresholds)."""
    thresholds = curve.roc_thresholds
    if thresholds is None or len(thresholds) != len(curve.roc):
        raise ArborError("this evaluation's curve no longer keeps its thresholds")
    return least_cost(
        curve.roc[:, 0], curve.roc[:, 1], thresholds, curve.positives, curve.n,
        cost_fp, cost_fn, curve.label,
    )  # fmt: skip

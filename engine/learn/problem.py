"""What every split scorer needs at a node: the training set and settings (:class:`Problem`),
and what a scorer returns (:class:`Candidate`)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from engine.data.encoding import Encoded
from engine.learn.criteria import IMPURITIES, squared_error
from engine.settings import Settings
from engine.tree import Split


@dataclass(frozen=True, eq=False)
class Candidate:
    """The best split one attribute offers at a node, with its scores.

    ``branch_counts`` holds each branch's known class weights (regression:
    weight, sum and sum of squares of the target). ``gain`` is the impurity
    decrease (information gain for entropy), already scaled by the known
    fraction and, for C4.5 numeric splits, penalised by log2(cuts)/N.
    """

    attribute: int
    split: Split
    branch_counts: np.ndarray
    gain: float
    gain_ratio: float
    n_cuts: int = 0


class Problem:
    """A training set plus settings: what every scorer needs, computed once."""

    def __init__(self, data: Encoded, settings: Settings, monitor=None):
        from engine.monitor import NULL_MONITOR

        # Checked between attributes: on a million rows one node's split search takes seconds.
        self.monitor = monitor or NULL_MONITOR
        self.data = data
        self.settings = settings
        self.regression = data.schema.is_regression
        self.n_classes = 0 if self.regression else len(data.schema.classes)
        self.impurity = squared_error_of if self.regression else IMPURITIES[settings.impurity]

    def stats(self, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
        """Class weights (classification) or [weight, sum, sum of squares] (regression), added
        row by row in the order of ``rows`` (as the compiled builder adds them)."""
        if self.regression:
            return per_row_stats(self, rows, weights).sum(axis=0) if len(rows) else np.zeros(3)
        y = self.data.y[rows]
        return np.bincount(y, weights=weights, minlength=self.n_classes).astype(np.float64)

    @cached_property
    def columns_with_missing(self) -> frozenset[int]:
        return frozenset(np.flatnonzero(np.isnan(self.data.X).any(axis=0)).tolist())

    @cached_property
    def sorted_values(self) -> dict[int, np.ndarray]:
        """Distinct known values of each numeric attribute over all training rows."""
        X = self.data.X
        return {
            j: np.unique(X[~np.isnan(X[:, j]), j])
            for j, a in enumerate(self.data.schema.attributes)
            if not a.is_nominal
        }


def per_row_stats(problem: Problem, rows: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """One statistics vector per row: its weight in its class's column, or (regression)
    weight, weight * y and weight * y * y (in that order of multiplication)."""
    y = problem.data.y[rows]
    if problem.regression:
        wy = weights * y
        return np.column_stack([weights, wy, wy * y])
    stats = np.zeros((len(rows), problem.n_classes))
    stats[np.arange(len(rows)), y] = weights
    return stats


def squared_error_of(stats: np.ndarray) -> np.ndarray | float:
    stats = np.asarray(stats, dtype=np.float64)
    return squared_error(stats[..., 0], stats[..., 1], stats[..., 2])

"""Impurity measures and split scores over (weighted) class-count vectors.

Every function takes counts, not probabilities, so fractional instances (C4.5's
weights for missing values) work unchanged. Counts may be stacked: the classes
are on the last axis and every other axis is broadcast.

Examples
--------
>>> round(entropy([9, 5]), 3)
0.94
>>> round(info_gain([9, 5], [[2, 3], [4, 0], [3, 2]]), 3)
0.247
>>> round(split_info([5, 4, 5]), 3)
1.577
"""

from __future__ import annotations

import numpy as np


def _as_counts(counts) -> np.ndarray:
    return np.asarray(counts, dtype=np.float64)


def _out(values: np.ndarray) -> np.ndarray | float:
    """Plain floats for scalars (and no negative zero), arrays otherwise."""
    values = np.asarray(values) + 0.0
    return float(values) if values.ndim == 0 else values


def _proportions(counts: np.ndarray) -> np.ndarray:
    total = counts.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = counts / total
    return np.where(total > 0, p, 0.0)


def entropy(counts) -> np.ndarray | float:
    """Shannon entropy in bits, with 0 log 0 = 0; an empty distribution has entropy 0."""
    p = _proportions(_as_counts(counts))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return _out(-terms.sum(axis=-1))


def gini(counts) -> np.ndarray | float:
    """Gini impurity 1 - sum p_k^2 (for two classes this is 2p(1-p))."""
    p = _proportions(_as_counts(counts))
    total = _as_counts(counts).sum(axis=-1)
    return _out(np.where(total > 0, 1.0 - (p * p).sum(axis=-1), 0.0))


def misclassification(counts) -> np.ndarray | float:
    """Misclassification error 1 - max_k p_k."""
    c = _as_counts(counts)
    total = c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        err = 1.0 - c.max(axis=-1) / total
    return _out(np.where(total > 0, err, 0.0))


IMPURITIES = {"entropy": entropy, "gini": gini, "misclassification": misclassification}


def mean_info(children, impurity=entropy) -> np.ndarray | float:
    """Weighted average impurity of the children, weights = their share of instances.

    ``children`` has shape (..., branches, classes).
    """
    c = _as_counts(children)
    sizes = c.sum(axis=-1)
    total = sizes.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total[..., None] > 0, sizes / total[..., None], 0.0)
    return _out((share * impurity(c)).sum(axis=-1))


def info_gain(parent, children, impurity=entropy) -> np.ndarray | float:
    """Impurity of ``parent`` minus the mean impurity of ``children`` (information gain for entropy)."""
    return _out(np.asarray(impurity(_as_counts(parent))) - mean_info(children, impurity))


def split_info(sizes) -> np.ndarray | float:
    """Entropy of the partition itself: how evenly the instances spread over the branches."""
    return entropy(sizes)


def gain_ratio(parent, children) -> np.ndarray | float:
    """Information gain divided by split information (0 when the split information is 0)."""
    c = _as_counts(children)
    si = split_info(c.sum(axis=-1))
    gain = info_gain(parent, c)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _out(np.where(si > 0, gain / np.where(si > 0, si, 1.0), 0.0))


def squared_error(weight, total, total_sq) -> np.ndarray | float:
    """Mean squared deviation from the mean, from the sufficient statistics (n, sum y, sum y^2)."""
    w = np.asarray(weight, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.asarray(total) / w
        value = np.asarray(total_sq) / w - mean * mean
    return _out(np.where(w > 0, np.maximum(value, 0.0), 0.0))

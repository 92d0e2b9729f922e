"""A learning curve: training and cross-validated error against the number of rows trained on.

Each of k stratified folds (:func:`engine.data.folds.stratified_folds`, the folds
cross-validation deals for the same seed) holds out its rows; the tree is trained, with the
user's settings through :func:`engine.fitting.fit_tree`, on growing parts of the rest and
scored on the rows it trained on and on the fold's held-out rows. The parts are nested (each
holds the one before it) and keep the classes' proportions, so a step to the right only adds
rows. The spread at each size is over the folds.

Seed 004's terms: the gap between the two curves is **variance**, error due to lack of data,
which more rows narrow; the level both approach is **bias** (and noise).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.data.encoding import Encoded, subset
from engine.data.folds import stratified_folds, training_rows
from engine.errors import ArborError
from engine.fitting import fit_tree
from engine.monitor import NULL_MONITOR, Monitor
from engine.predict import class_codes, predict_proba, predict_value
from engine.settings import Settings
from engine.tree import Tree

#: The fewest rows a step of the curve trains on.
MIN_ROWS = 2


@dataclass(frozen=True)
class LearningCurve:
    """Errors (error rate, or RMSE for regression) at each training size.

    ``training`` and ``validation`` have one row per fold and one column per size in
    ``sizes``: the error on the rows the tree was trained on, and on the fold's held-out rows.
    """

    sizes: np.ndarray
    training: np.ndarray
    validation: np.ndarray
    measure: str
    folds: int
    seed: int
    n_rows: int

    @property
    def training_mean(self) -> np.ndarray:
        return self.training.mean(axis=0)

    @property
    def validation_mean(self) -> np.ndarray:
        return self.validation.mean(axis=0)

    @property
    def training_std(self) -> np.ndarray:
        """The spread over the folds (sample standard deviation)."""
        return _spread(self.training)

    @property
    def validation_std(self) -> np.ndarray:
        return _spread(self.validation)

    def as_dict(self) -> dict:
        return {
            "kind": "learning curve",
            "measure": self.measure,
            "folds": self.folds,
            "seed": self.seed,
            "n_rows": self.n_rows,
            "sizes": self.sizes.tolist(),
            "training_mean": self.training_mean.tolist(),
            "training_std": self.training_std.tolist(),
            "validation_mean": self.validation_mean.tolist(),
            "validation_std": self.validation_std.tolist(),
            "training": self.training.tolist(),
            "validation": self.validation.tolist(),
        }


def _spread(scores: np.ndarray) -> np.ndarray:
    if len(scores) < 2:
        return np.zeros(scores.shape[1])
    return scores.std(axis=0, ddof=1)


def error_of(tree: Tree, data: Encoded, algorithm: str | None = None) -> float:
    """The tree's error on ``data``: the weighted error rate, or RMSE for regression."""
    if tree.is_regression:
        err = predict_value(tree, data.X) - data.y
        return float(np.sqrt(np.average(err**2, weights=data.weight)))
    wrong = class_codes(predict_proba(tree, data.X), algorithm, tree.costs) != data.y
    return float(np.average(wrong, weights=data.weight))


def nested_order(y: np.ndarray | None, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``rows`` shuffled so that every leading part keeps the classes' proportions: a row's
    place is its rank within its class over the class's size (ties in shuffled order).

    >>> order = nested_order(np.array([0, 0, 0, 0, 1, 1]), np.arange(6), np.random.default_rng(0))
    >>> sorted(order.tolist()), np.array([0, 0, 0, 0, 1, 1])[order[:3]].tolist().count(1)
    ([0, 1, 2, 3, 4, 5], 1)
    """
    order = rng.permutation(rows)
    if y is None or not len(order):
        return order
    _, group, counts = np.unique(y[order], return_inverse=True, return_counts=True)
    by_group = np.argsort(group, kind="stable")
    rank = np.empty(len(order))
    rank[by_group] = np.arange(len(order)) - np.repeat(np.cumsum(counts) - counts, counts)
    return order[np.argsort((rank + 0.5) / counts[group], kind="stable")]


def training_sizes(n_train: int, steps: int) -> np.ndarray:
    """``steps`` sizes spread evenly up to ``n_train`` (fewer when rows are few).

    >>> training_sizes(90, 5).tolist()
    [18, 36, 54, 72, 90]
    """
    if steps < 2:
        raise ArborError("a learning curve needs at least 2 steps")
    if n_train < MIN_ROWS:
        raise ArborError(f"a learning curve needs at least {MIN_ROWS} rows to train on")
    sizes = np.round(np.linspace(n_train / steps, n_train, steps)).astype(int)
    return np.unique(np.maximum(sizes, MIN_ROWS))


def learning_curve(
    data: Encoded,
    settings: Settings,
    folds: int = 5,
    steps: int = 8,
    seed: int = 1,
    monitor: Monitor = NULL_MONITOR,
) -> LearningCurve:
    """Training and cross-validated error at ``steps`` training sizes, over ``folds`` folds.

    The same seed gives the same folds, parts and errors.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.settings import resolve
    >>> curve = learning_curve(encode(load_sample("iris")), resolve(), folds=3, steps=3)
    >>> curve.sizes.tolist(), curve.training.shape
    ([33, 67, 100], (3, 3))
    """
    y = None if data.schema.is_regression else data.y
    dealt = stratified_folds(y, data.n_rows, folds, seed)
    trains = [training_rows(test, data.n_rows) for test in dealt]
    sizes = training_sizes(min(len(t) for t in trains), steps)
    training = np.zeros((folds, len(sizes)))
    validation = np.zeros((folds, len(sizes)))
    total = folds * len(sizes)
    for f, (test, train) in enumerate(zip(dealt, trains, strict=True)):
        order = nested_order(y, train, np.random.default_rng((seed, f)))
        held = subset(data, test)
        for s, size in enumerate(sizes):
            monitor.check()
            step = f * len(sizes) + s
            label = f"fold {f + 1} of {folds}, {size:,} rows"
            monitor.report(step / total, label)
            part = subset(data, order[:size])
            tree = fit_tree(part, settings, monitor.scaled(step / total, (step + 1) / total, label))
            training[f, s] = error_of(tree, part, settings.algorithm)
            validation[f, s] = error_of(tree, held, settings.algorithm)
    monitor.report(1.0, "learning curve done")
    measure = "RMSE" if data.schema.is_regression else "error rate"
    return LearningCurve(sizes, training, validation, measure, folds, seed, data.n_rows)

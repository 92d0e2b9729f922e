"""Which attributes a tree leans on: variable importance, of more than one kind.

- ``impurity``: each attribute's total weighted impurity decrease over the tree's splits,
  as shares summing to 1 (for CART, scikit-learn's ``feature_importances_``). It reads the
  tree only, so it credits what the tree used on its training rows.
- ``permutation``: how much worse the tree scores on held-out rows (a test set, or each
  cross-validation fold's held-out rows with the tree grown without them) when one
  attribute's values are shuffled among those rows, over seeded repeats, with the spread.

Every kind returns an :class:`Importance`; :data:`KINDS` names them, so another kind (rpart's,
crediting surrogate splits, once trees have surrogates) is one more function and entry.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.data import folds as folding
from engine.data.encoding import Encoded, subset
from engine.data.folds import training_rows
from engine.errors import ArborError
from engine.fitting import fit_tree
from engine.monitor import NULL_MONITOR, Monitor
from engine.predict import class_codes, predict_proba, predict_value
from engine.settings import Settings
from engine.tree import Tree


@dataclass(frozen=True)
class Importance:
    """One kind of importance for every attribute, in the schema's order.

    ``values``: impurity shares (summing to 1, or all 0 for a single leaf), or the mean drop
    in the held-out score (accuracy, or for regression the rise in RMSE) when the attribute is
    shuffled. ``spread``: the standard deviation of that drop over the repeats (None for kinds
    without repeats). ``score``: the held-out score before shuffling (None: not measured).
    """

    kind: str
    names: tuple[str, ...]
    values: np.ndarray
    spread: np.ndarray | None = None
    repeats: int = 0
    method: str = ""
    score: float | None = None

    def ranked(self) -> list[int]:
        """Attribute positions, most important first (ties in schema order)."""
        return sorted(range(len(self.names)), key=lambda j: -self.values[j])

    def as_dict(self) -> dict:
        rows = []
        for j in self.ranked():
            row = {"attribute": self.names[j], "importance": float(self.values[j])}
            if self.spread is not None:
                row["spread"] = float(self.spread[j])
            rows.append(row)
        out = {"kind": self.kind, "method": self.method, "attributes": rows}
        if self.spread is not None:
            out.update(repeats=self.repeats, score=self.score)
        return out


def impurity_importance(tree: Tree) -> Importance:
    """Each attribute's share of the tree's total weighted impurity decrease.

    A split at node t credits its attribute with w_t * i_t - sum over children of w_c * i_c
    (weights w, impurities i: the tree's criterion). Shares of the total, as scikit-learn
    normalises ``feature_importances_``.
    """
    names = tuple(a.name for a in tree.schema.attributes)
    total = np.zeros(len(names))
    for node in tree.nodes():
        if node.split is None:
            continue
        after = sum(c.weight * c.impurity for c in node.children)
        total[node.split.attribute] += node.weight * node.impurity - after
    # A split's decrease is never negative with every row known; with C4.5's fractional
    # rows it can be, and a negative share would mean nothing.
    total = np.maximum(total, 0.0)
    overall = total.sum()
    values = total / overall if overall > 0 else np.zeros_like(total)
    return Importance("impurity", names, values, method="impurity decrease on the training rows")


def _score(tree: Tree, data: Encoded, X: np.ndarray, algorithm: str | None) -> float:
    """Accuracy, or for regression minus RMSE, so that a drop is always a loss."""
    w = data.weight
    if tree.is_regression:
        return -float(np.sqrt(np.average((predict_value(tree, X) - data.y) ** 2, weights=w)))
    return float(
        np.average(class_codes(predict_proba(tree, X), algorithm, tree.costs) == data.y, weights=w)
    )


def _drops(
    tree: Tree, held: Encoded, repeats: int, rng: np.random.Generator, algorithm, monitor: Monitor
) -> tuple[float, np.ndarray]:
    """The held-out score and its drop per (repeat, attribute) with that attribute shuffled."""
    base = _score(tree, held, held.X, algorithm)
    p = held.X.shape[1]
    drops = np.zeros((repeats, p))
    X = np.array(held.X, order="F")  # one column is shuffled at a time, then put back
    for r in range(repeats):
        for j in range(p):
            monitor.check()
            original = X[:, j].copy()
            X[:, j] = original[rng.permutation(len(original))]
            drops[r, j] = base - _score(tree, held, X, algorithm)
            X[:, j] = original
        monitor.report((r + 1) / repeats, f"repeat {r + 1} of {repeats}")
    return base, drops


def _permutation(names, base, drops, repeats: int, method: str) -> Importance:
    return Importance(
        "permutation",
        names,
        drops.mean(axis=0),
        drops.std(axis=0, ddof=1) if repeats > 1 else np.zeros(drops.shape[1]),
        repeats,
        method,
        base,
    )


def _check_repeats(repeats: int) -> None:
    if repeats < 1:
        raise ArborError("permutation importance needs at least one repeat")


def permutation_importance(
    tree: Tree,
    held: Encoded,
    repeats: int = 5,
    seed: int = 1,
    algorithm: str | None = None,
    monitor: Monitor = NULL_MONITOR,
    method: str = "test set",
) -> Importance:
    """The drop in ``tree``'s score on ``held`` (rows it was not grown on) when each attribute
    is shuffled among them, averaged over ``repeats`` seeded shuffles."""
    _check_repeats(repeats)
    if held.n_rows < 2:
        raise ArborError("permutation importance needs at least two held-out rows")
    names = tuple(a.name for a in tree.schema.attributes)
    base, drops = _drops(tree, held, repeats, np.random.default_rng(seed), algorithm, monitor)
    return _permutation(names, base, drops, repeats, method)


def cross_validated_permutation_importance(
    data: Encoded,
    settings: Settings,
    folds: int = 10,
    seed: int = 1,
    repeats: int = 5,
    monitor: Monitor = NULL_MONITOR,
) -> Importance:
    """Permutation importance over cross-validation: in each fold the tree grown without the
    fold's rows is scored on them, shuffled and not; a repeat's drop is the folds' drops
    weighted by their rows' weight, and the spread is over repeats. The folds are
    :func:`engine.evaluate.evaluation.cross_validate`'s for the same seed."""
    _check_repeats(repeats)
    y = None if data.schema.is_regression else data.y
    dealt = folding.stratified_folds(y, data.n_rows, folds, seed)
    rng = np.random.default_rng(seed)
    names = tuple(a.name for a in data.schema.attributes)
    drops = np.zeros((repeats, len(names)))
    base = total = 0.0
    for f, test in enumerate(dealt):
        if not len(test):
            continue
        step = f"fold {f + 1} of {folds}"
        monitor.report(f / folds, step)
        fold_monitor = monitor.scaled(f / folds, (f + 1) / folds, step)
        train = subset(data, training_rows(test, data.n_rows))
        tree = fit_tree(train, settings, fold_monitor.scaled(0.0, 0.5))
        held = subset(data, test)
        weight = float(held.weight.sum())
        fold_base, fold_drops = _drops(
            tree, held, repeats, rng, settings.algorithm, fold_monitor.scaled(0.5, 1.0)
        )
        base, total = base + weight * fold_base, total + weight
        drops += weight * fold_drops
    monitor.report(1.0, "done")
    method = f"{folds}-fold cross-validation's held-out rows"
    return _permutation(names, base / total, drops / total, repeats, method)


#: The kinds by name: how each is worked out from a fitted tree and what it needs.
KINDS = {
    "impurity": "total weighted impurity decrease of the tree's splits (training rows)",
    "permutation": "score lost on held-out rows when the attribute is shuffled",
}

"""Choosing CART's complexity parameter by cross-validation (Breiman et al.; seed 001).

Each fold grows a full tree on its training part; the folds' trees are pruned
at the geometric means of neighbouring alphas of the full tree's path (the
one-leaf tree's interval has no upper end: there they are pruned to their root), and their errors on
the held-out part give a CV error (with standard error) per alpha. The
minimum-error rule takes the best alpha; the one-standard-error rule the
largest alpha whose error is within one standard error of the best.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from engine.data.encoding import Encoded, subset
from engine.evaluate.folds import stratified_folds, training_rows
from engine.learn.growth import grow
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.predict import predict_proba, predict_value
from engine.prune.cost_complexity import cost_complexity_path, prune_cost_complexity
from engine.settings import Settings
from engine.tree import Tree


@dataclass(frozen=True)
class AlphaChoice:
    alphas: np.ndarray
    n_leaves: np.ndarray
    cv_error: np.ndarray
    cv_se: np.ndarray
    min_alpha: float
    one_se_alpha: float
    chosen_alpha: float

    def as_dict(self) -> dict:
        return {"alphas": self.alphas.tolist(), "n_leaves": self.n_leaves.tolist(),
                "cv_error": self.cv_error.tolist(), "cv_se": self.cv_se.tolist(),
                "min_alpha": self.min_alpha, "one_se_alpha": self.one_se_alpha,
                "chosen_alpha": self.chosen_alpha}


def _losses(tree: Tree, data: Encoded) -> np.ndarray:
    if tree.is_regression:
        return (predict_value(tree, data.X) - data.y) ** 2
    return (np.argmax(predict_proba(tree, data.X), axis=1) != data.y).astype(np.float64)


def _loss_sums_per_probe(tree: Tree, held: Encoded, probes: np.ndarray) -> np.ndarray:
    """The held-out rows' weighted loss and squared loss summed under ``tree`` pruned at
    every probe alpha: an array (2, probes).

    Pruned at alpha, the tree keeps the weakest-link steps up to it, so a row ends at the
    first node of its path cut by then; each node of a path is where its rows end for one
    interval of probes, found from the path's cut alphas without pruning the tree once per
    probe (that took minutes for a few thousand rows). So each node adds its rows' sums to
    an interval of probes, and nothing of size probes x rows is made (on 2,000,000 rows
    that was 50 GiB). A row whose value is missing at a split goes down several branches,
    and the tree is then pruned per probe.
    """
    from engine.predict import node_output

    path = cost_complexity_path(tree)
    applied = np.maximum.accumulate(path.alphas)  # pruning at alpha stops at the first step above it
    cut = np.full(tree.n_nodes, np.inf)
    cut[path.pruned[1:]] = applied[1:]
    P = len(probes)
    w = np.broadcast_to(held.weight, (held.n_rows,))
    spans = np.zeros((2, P + 1))
    stack = [(tree.root, np.arange(held.n_rows), np.inf, None)]
    while stack:
        checkpoint()
        node, rows, above, fallback = stack.pop()
        here = -np.inf if node.is_leaf else min(above, cut[node.id])
        out = node_output(tree, node, fallback)
        lo = int(np.searchsorted(probes, here, side="left"))
        hi = P if node is tree.root else int(np.searchsorted(probes, above, side="left"))
        if lo < hi and len(rows):
            if tree.is_regression:
                loss = (out - held.y[rows]) ** 2
            else:
                loss = (int(np.argmax(out)) != held.y[rows]).astype(np.float64)
            sums = np.array([w[rows] @ loss, w[rows] @ (loss * loss)])
            spans[:, lo] += sums
            spans[:, hi] -= sums
        if node.is_leaf or not len(rows):
            continue
        branch = node.split.branch_of(held.X[rows, node.split.attribute])
        if (branch < 0).any():
            return _loss_sums_by_pruning(tree, held, probes, w)
        for b, child in enumerate(node.children):
            stack.append((child, rows[branch == b], here, out))
    return np.cumsum(spans, axis=1)[:, :P]


def _loss_sums_by_pruning(tree: Tree, held: Encoded, probes: np.ndarray, w: np.ndarray) -> np.ndarray:
    sums = np.zeros((2, len(probes)))
    for p, beta in enumerate(probes):
        checkpoint()
        loss = _losses(prune_cost_complexity(tree, beta), held)
        sums[:, p] = w @ loss, w @ (loss * loss)
    return sums


def choose_alpha(tree: Tree, data: Encoded, settings: Settings,
                 monitor: Monitor = NULL_MONITOR) -> AlphaChoice:
    """CV error per alpha on ``tree``'s pruning path, and the alpha each rule picks."""
    path = cost_complexity_path(tree)
    alphas, first = np.unique(path.alphas, return_index=True)
    leaves = path.n_leaves[first]
    # The k-th subtree is the best for alpha in [alphas[k], alphas[k + 1]): each fold's tree is
    # pruned at the geometric mean of those ends (Breiman et al. 1984, 3.4.2; rpart). The last
    # interval has no upper end: every fold's tree is pruned to its root, as the full tree is
    # (at alphas[-1] itself, a fold's tree whose root link is weaker would keep splits).
    probes = np.append(np.sqrt(alphas[:-1] * alphas[1:]), np.inf)
    k = settings.cv_alpha
    y = None if data.schema.is_regression else data.y
    grow_settings = replace(settings, prune="none", cv_alpha=None)
    sums = np.zeros((2, len(probes)))  # weighted loss and squared loss per probe, over the folds
    for f, test in enumerate(stratified_folds(y, data.n_rows, k, settings.seed)):
        monitor.check()
        monitor.report(f / k, f"alpha fold {f + 1} of {k}")
        train = training_rows(test, data.n_rows)
        fold_tree = Tree(grow(subset(data, train), grow_settings,
                              monitor.scaled(f / k, (f + 0.8) / k)), data.schema)
        sums += _loss_sums_per_probe(fold_tree, subset(data, test), probes)
    n = float(np.broadcast_to(data.weight, (data.n_rows,)).sum())
    error = sums[0] / n
    if data.schema.is_regression:  # the weighted spread of the losses about their mean
        se = np.sqrt(np.maximum(sums[1] / n - error * error, 0.0) / n)
    else:
        se = np.sqrt(error * (1 - error) / n)
    best = int(np.flatnonzero(error <= error.min() + 1e-12)[-1])
    within = np.flatnonzero(error <= error[best] + se[best] + 1e-12)
    one_se = int(within[-1])
    chosen = one_se if settings.one_se else best
    monitor.report(1.0, "alpha chosen")
    return AlphaChoice(alphas, leaves, error, se, float(alphas[best]), float(alphas[one_se]),
                       float(alphas[chosen]))

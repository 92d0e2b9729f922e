"""Reduced-error pruning: a subtree becomes a leaf when that adds no errors on held-out rows
(seed 004's validation set)."""

from __future__ import annotations

import numpy as np

from engine.data.encoding import Encoded
from engine.learn.problem import Problem
from engine.monitor import NULL_MONITOR, Monitor
from engine.prune.routing import LiveNode, attach, cut_below
from engine.settings import Settings
from engine.tree import Node, Tree


def prune_reduced_error(tree: Tree, data: Encoded, prune_rows: np.ndarray,
                        monitor: Monitor = NULL_MONITOR) -> Tree:
    """Bottom-up: make a node a leaf when that does not increase errors on ``prune_rows``."""
    problem = Problem(data, Settings(algorithm="cart", criterion="gini", prune="none"))
    if tree.is_regression:
        problem = Problem(data, Settings(algorithm="cart", criterion="squared_error",
                                         task="regression", prune="none"))
    held = attach(problem, tree.root, prune_rows, data.weight[prune_rows].copy())
    grown = list(tree.nodes())
    order, stack = [], [(held, grown[0])]
    while stack:
        live, node = stack.pop()
        order.append((live, node))
        stack.extend(zip(live.children, node.children, strict=True))
    cut = np.zeros(len(grown), dtype=bool)
    loss: dict[int, float] = {}
    for live, node in reversed(order):
        monitor.check()
        as_leaf = _holdout_loss(problem, live, node)
        if node.is_leaf:
            loss[node.id] = as_leaf
            continue
        as_tree = sum(loss[c.id] for c in node.children)
        if as_leaf <= as_tree + 1e-12:
            cut[node.id] = True
            loss[node.id] = as_leaf
        else:
            loss[node.id] = as_tree
    return cut_below(tree, cut)


def _holdout_loss(problem: Problem, live: LiveNode, node: Node) -> float:
    """Held-out errors (or squared error) if ``node`` predicted from its training counts."""
    if problem.regression:
        y = problem.data.y[live.rows]
        return float(live.weights @ (y - node.value) ** 2) if len(y) else 0.0
    if node.weight <= 0:
        return 0.0
    return float(live.dist.sum() - live.dist[int(np.argmax(node.distribution))])

"""C4.5's error-based pruning as J48 does it.

Seed 001's three options per node (keep, leaf, raise the most populated branch),
with the bound from :mod:`engine.prune.bounds`, after the collapse step.
"""

from __future__ import annotations

import sys

import numpy as np

from engine.data.encoding import Encoded
from engine.learn.problem import Problem
from engine.learn.tolerances import WEKA_EPS
from engine.monitor import NULL_MONITOR, Monitor
from engine.prune.bounds import estimated_errors
from engine.prune.routing import LiveNode, rebuild, reroute, training_live
from engine.settings import Settings
from engine.tree import Tree


def _wrong(dist: np.ndarray) -> float:
    return float(dist.sum() - dist.max()) if dist.sum() > 0 else 0.0


def _leaves(live: LiveNode):
    stack = [live]
    while stack:
        n = stack.pop()
        if n.is_leaf:
            yield n
        else:
            stack.extend(n.children)


def collapse(problem: Problem, live: LiveNode) -> None:
    """Turn a split into a leaf when its leaves make no fewer training errors than it would."""
    stack = [live]
    while stack:
        n = stack.pop()
        if n.is_leaf:
            continue
        if sum(_wrong(leaf.dist) for leaf in _leaves(n)) >= _wrong(n.dist) - 1e-3:
            n.make_leaf()
        else:
            stack.extend(n.children)


class _Pessimistic:
    def __init__(self, problem: Problem, settings: Settings, monitor: Monitor):
        self.problem, self.cf = problem, settings.confidence
        self.method, self.raising = settings.error_estimate, settings.subtree_raising
        self.monitor = monitor

    def leaf_errors(self, dist: np.ndarray) -> float:
        return estimated_errors(float(dist.sum()), _wrong(dist), self.cf, self.method)

    def tree_errors(self, live: LiveNode) -> float:
        return sum(self.leaf_errors(leaf.dist) for leaf in _leaves(live))

    def prune(self, live: LiveNode) -> None:
        if live.is_leaf:
            live.stats["error_as_leaf"] = self.leaf_errors(live.dist)
            return
        self.monitor.check()
        for child in live.children:
            self.prune(child)
        sizes = np.array([float(c.weights.sum()) for c in live.children])
        # J48 raises the last of equally populated branches (its maxBag keeps the last tie).
        largest = int(np.flatnonzero(sizes >= sizes.max() - WEKA_EPS)[-1])
        as_leaf = self.leaf_errors(live.dist)
        as_tree = self.tree_errors(live)
        raised = None
        as_branch = np.inf
        if self.raising:
            raised = reroute(self.problem, live.children[largest], live.rows, live.weights)
            as_branch = self.tree_errors(raised)
        live.stats.update(error_as_leaf=as_leaf, error_as_subtree=as_tree)
        if self.raising:
            live.stats["error_as_branch"] = as_branch
        if as_leaf <= as_tree + 0.1 + WEKA_EPS and as_leaf <= as_branch + 0.1 + WEKA_EPS:
            live.make_leaf()
            live.stats["pruned"] = 1.0
            return
        if as_branch <= as_tree + 0.1 + WEKA_EPS:
            live.split, live.children = raised.split, raised.children
            live.stats["raised"] = 1.0
            self.prune(live)


def prune_pessimistic(tree: Tree, data: Encoded, settings: Settings,
                      monitor: Monitor = NULL_MONITOR) -> Tree:
    """C4.5 / J48 pruning: collapse, then keep / leaf / raise by the upper error bound."""
    problem = Problem(data, settings)
    live = training_live(problem, tree)
    collapse(problem, live)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * tree.depth + 1000))
    try:
        _Pessimistic(problem, settings, monitor).prune(live)
    finally:
        sys.setrecursionlimit(limit)
    return rebuild(problem, tree, live)


def collapse_tree(tree: Tree, data: Encoded, settings: Settings) -> Tree:
    """Only C4.5's collapse step (what J48 does even when pruning is off)."""
    problem = Problem(data, settings)
    live = training_live(problem, tree)
    collapse(problem, live)
    return rebuild(problem, tree, live)

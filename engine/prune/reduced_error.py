"""Reduced-error pruning: a subtree becomes a leaf when that adds no errors on held-out rows
(seed 004's validation set)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from engine.data.encoding import Encoded
from engine.flat import flat_of, leaf_of
from engine.learn.costs import least_cost
from engine.learn.problem import Problem
from engine.monitor import NULL_MONITOR, Monitor, checkpoint
from engine.prune.record import (
    IS_LEAF,
    KEPT,
    LEAF,
    PRUNED,
    RECORD_LIMIT,
    SUBTREE,
    Decision,
    PruningOption,
    PruningRecord,
    Share,
)
from engine.prune.routing import LiveNode, attach
from engine.settings import Settings
from engine.sums import dot
from engine.tree import Node, Tree


def prune_reduced_error(
    tree: Tree,
    data: Encoded,
    prune_rows: np.ndarray | None,
    monitor: Monitor = NULL_MONITOR,
    record: bool = False,
    held: LiveNode | None = None,
) -> Tree:
    """Bottom-up: make a node a leaf when that does not increase errors on ``prune_rows``
    (or, ``held``, on held-out rows' statistics per node gathered elsewhere:
    :func:`engine.prune.routing.counted_live`).

    With ``record`` (and a tree of at most :data:`engine.prune.record.RECORD_LIMIT` nodes)
    the pruned tree carries its :class:`engine.prune.record.PruningRecord`: each node's
    held-out errors as a leaf and, per branch, as the subtree.
    """
    problem = Problem(data, Settings(algorithm="cart", criterion="gini", prune="none"))
    if tree.is_regression:
        problem = Problem(
            data,
            Settings(algorithm="cart", criterion="squared_error", task="regression", prune="none"),
        )
    if held is None:
        held = attach(problem, tree.root, prune_rows, data.weight[prune_rows].copy())
    grown = list(tree.nodes())
    order, stack = [], [(held, grown[0], ())]
    while stack:
        live, node, path = stack.pop()
        order.append((live, node, path))
        if not len(order) & 1023:
            checkpoint()
        stack.extend(
            (lc, c, (*path, b))
            for b, (lc, c) in enumerate(zip(live.children, node.children, strict=True))
        )
    cut = np.zeros(len(grown), dtype=bool)
    loss: dict[int, float] = {}
    recording = record and len(grown) <= RECORD_LIMIT
    decisions: list[Decision] = []
    now: dict[int, Node] = {}  # each node's subtree as the pass has left it (when recording)
    leaves: dict[int, int] = {}
    for live, node, path in reversed(order):
        monitor.check()
        as_leaf = _holdout_loss(problem, live, node, tree.costs)
        if node.is_leaf:
            loss[node.id] = as_leaf
            if recording:
                now[node.id], leaves[node.id] = node, 1
                decisions.append(
                    Decision(len(decisions), path, IS_LEAF, (_leaf_option(live, as_leaf),))
                )
            continue
        as_tree = sum(loss[c.id] for c in node.children)
        pruned = as_leaf <= as_tree + 1e-12
        if pruned:
            cut[node.id] = True
            loss[node.id] = as_leaf
        else:
            loss[node.id] = as_tree
        if recording:
            parts = tuple(
                Share(b, float(lc.weights.sum()), loss[c.id], loss[c.id], leaves[c.id])
                for b, (lc, c) in enumerate(zip(live.children, node.children, strict=True))
            )
            options = (PruningOption(SUBTREE, as_tree, parts), _leaf_option(live, as_leaf))
            before = replace(node, children=tuple(now[c.id] for c in node.children))
            if pruned:
                after = leaf_of(node)
                decisions.append(Decision(len(decisions), path, PRUNED, options, before, after))
                now[node.id], leaves[node.id] = after, 1
            else:
                decisions.append(Decision(len(decisions), path, KEPT, options))
                now[node.id], leaves[node.id] = before, sum(leaves[c.id] for c in node.children)
    result = flat_of(tree).cut(cut, tree.schema, tree.costs)
    if not recording:
        return result
    return replace(result, pruning=PruningRecord("reduced-error", tree, tuple(decisions)))


def _leaf_option(live: LiveNode, as_leaf: float) -> PruningOption:
    share = Share(-1, float(live.weights.sum()), as_leaf, as_leaf, 1)
    return PruningOption(LEAF, as_leaf, (share,))


def _holdout_loss(problem: Problem, live: LiveNode, node: Node, costs=()) -> float:
    """Held-out errors (or squared error) if ``node`` predicted from its training counts;
    with a cost matrix ``costs``, the held-out rows' cost under its least-cost class."""
    if problem.regression and live.rows is None:  # statistics: weight, sum, sum of squares
        w, wy, wyy = live.dist
        return (
            float(max(wyy - 2.0 * node.value * wy + node.value * node.value * w, 0.0))
            if w > 0
            else 0.0
        )
    if problem.regression:
        y = problem.data.y[live.rows]
        return dot(live.weights, (y - node.value) ** 2) if len(y) else 0.0
    if node.weight <= 0:
        return 0.0
    if costs:
        _, j = least_cost(node.distribution, costs)
        return dot(live.dist, np.asarray(costs, dtype=np.float64)[:, j])
    return float(live.dist.sum() - live.dist[int(np.argmax(node.distribution))])
